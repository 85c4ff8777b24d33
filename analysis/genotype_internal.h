/* analysis/genotype_internal.h - for analysis/genotype*.c and analysis/geno_samples.c only: the
 * genotype handle's fields and the sample side of opening one (geno_samples.c: the sample IDs
 * of the array, and the mapping of requested IDs onto its columns).  Files call downwards
 * only: genotype.c -> geno_samples.c.  Thread safety: a handle has one user at a time. */
#ifndef GSVD_ANALYSIS_GENOTYPE_INTERNAL_H
#define GSVD_ANALYSIS_GENOTYPE_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/genotype.h"
#include "analysis/geno_cache.h"
#include "common/buf.h"
#include "common/gsvd_defs.h"
#include "zarr/array.h"

struct gsvd_geno {
    gsvd_tree *tree;           /* borrowed */
    gsvd_array *arr;           /* owned */
    char *arr_path;            /* owned */
    struct gsvd_geno_params p; /* copy; p.samples not used after open */
    int is_float;              /* float input: float64 blocks, NaN missing */
    int rank;                  /* 2 or 3 */
    size_t ploidy;             /* alleles per call (3-D) or the dosage scale (2-D) */
    uint64_t n_all_samples;    /* samples in the array */
    uint64_t n_all_variants;   /* variants in the array */
    uint64_t vs, ve;           /* variant range [vs, ve) */
    uint64_t cv;               /* chunk extent along the variant axis */
    size_t n_samples;          /* analysed samples */
    uint64_t *sample_idx;      /* owned; analysed sample -> array column, NULL = identity */
    struct gsvd_strlist ids;   /* analysed sample IDs */
    struct gsvd_geno_counts counts;
    gsvd_gcache *cache; /* owned; blocks of the first scan, or NULL */
    int cache_state;    /* 0 filling on the next scan, 1 complete, -1 off */
};

/* Sample IDs of the array g->arr (g->n_all_samples of them) appended to *all (borrowed): a 1-D
 * "sample_id" (VCF-Zarr) or "samples" (scikit-allel) string array of that length in the
 * array's group or any ancestor (other arrays of those names are ignored with a warning),
 * otherwise generated names sample_0, sample_1, ...  Returns GSVD_OK, GSVD_ENOMEM, or a code
 * from the tree or the reader (logged there). */
GSVD_NODISCARD int gsvd_geno_load_sample_ids(gsvd_geno *g, struct gsvd_strlist *all);

/* Map the IDs in want onto the array's columns, whose IDs are all (both borrowed): sets
 * g->sample_idx (owned by g; freed by gsvd_geno_close, also on failure), appends the IDs to
 * g->ids and sets g->n_samples.  Returns GSVD_OK, GSVD_ENOMEM, or GSVD_EINCONSIST (logged) for
 * an ID that is not in the array, one listed twice, or an array whose IDs repeat. */
GSVD_NODISCARD int gsvd_geno_select_samples(gsvd_geno *g, const struct gsvd_strlist *all,
                                            const struct gsvd_strlist *want);

#endif /* GSVD_ANALYSIS_GENOTYPE_INTERNAL_H */
