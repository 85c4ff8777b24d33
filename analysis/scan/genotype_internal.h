/* analysis/scan/genotype_internal.h - for analysis/scan/genotype.c, geno_scan.c, geno_samples.c
 * and geno_rows.c only: the genotype handle's fields, the sample side of opening one
 * (geno_samples.c: the sample IDs of the array, and the mapping of requested IDs onto its
 * columns) and the per-block work of a scan's workers (geno_rows.c: decoded chunk rows to
 * dosages, each row's statistics, filters and scale, the 2-bit packing for the cache).  Files
 * call downwards only: genotype.c -> geno_samples.c, geno_scan.c -> geno_rows.c (geno_scan.c
 * uses the handle genotype.c opens, through genotype.h).  Thread safety: a handle has one user
 * at a time; during a scan the workers share it read-only, each with its own slot and reader. */
#ifndef GSVD_ANALYSIS_SCAN_GENOTYPE_INTERNAL_H
#define GSVD_ANALYSIS_SCAN_GENOTYPE_INTERNAL_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "analysis/scan/genotype.h"
#include "analysis/scan/geno_cache.h"
#include "common/buf.h"
#include "common/gsvd_defs.h"
#include "zarr/array.h"
#include "zarr/reader.h"

/* An analysed sample (out) and its array column (col); a subset's list is sorted by column.
 * run: how many picks from this one on (>= 1) continue both col and out by one each, so that
 * their calls are copied as one stretch. */
struct gsvd_geno_pick {
    uint32_t col, out, run;
};

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
    uint64_t *count_miss;      /* during gsvd_geno_count_missing: its per-sample counts */
    uint64_t count_rows;       /* ... and the variants counted */
    size_t n_samples;          /* analysed samples */
    uint64_t *sample_idx;      /* owned; analysed sample -> array column, NULL = identity */
    struct gsvd_geno_pick *sample_pick; /* owned; with sample_idx: by column (or NULL) */
    uint64_t *col_bits;      /* owned; when sample_pick's outputs are in column order too (a subset
                                that keeps the array's order): bit c set for each picked column c,
                                one spare word (gsvd_dosage_compact's); else NULL */
    struct gsvd_strlist ids; /* analysed sample IDs */
    struct gsvd_geno_counts counts;
    gsvd_gcache *cache; /* owned; blocks of the first scan, or NULL */
    int cache_state;    /* 0 filling on the next scan, 1 complete, -1 off, 2 moved: the next scan
                           reads [vs, keep_lo) into pre and [keep_hi, ve) into post */
    uint64_t open_vs, open_ve;    /* the range at open: restrict and move stay inside it */
    uint64_t keep_lo, keep_hi;    /* after a move: the variants the kept cache blocks cover */
    gsvd_gcache *pre, *post;      /* owned; after a move, blocks before and after the cache */
    size_t haps;                  /* haplotypes (p.haplotypes): alleles per call, else 0 */
    gsvd_array *phased;           /* owned; with haps, unless p.ignore_phase: the phase array */
    atomic_int unphased_said;     /* an unphased heterozygous call was reported (by one worker:
                                     the others fail without repeating it) */
    struct gsvd_strlist call_ids; /* with haps: the analysed samples (ids holds ID_h) */
};

/* Sample IDs of the array g->arr (g->n_all_samples of them) appended to *all (borrowed): a 1-D
 * "sample_id" (VCF-Zarr) or "samples" (scikit-allel) string array of that length in the
 * array's group or any ancestor (other arrays of those names are ignored with a warning),
 * otherwise generated names sample_0, sample_1, ...  Returns GSVD_OK, GSVD_ENOMEM, or a code
 * from the tree or the reader (logged there). */
GSVD_NODISCARD int gsvd_geno_load_sample_ids(gsvd_geno *g, struct gsvd_strlist *all);

/* Map the IDs in want onto the array's columns, whose IDs are all (both borrowed): sets
 * g->sample_idx and g->sample_pick (owned by g; freed by gsvd_geno_close, also on failure),
 * appends the IDs to g->ids and sets g->n_samples.  Returns GSVD_OK, GSVD_ENOMEM, or
 * GSVD_EINCONSIST (logged) for an ID that is not in the array, one listed twice, or an array whose
 * IDs repeat. */
GSVD_NODISCARD int gsvd_geno_select_samples(gsvd_geno *g, const struct gsvd_strlist *all,
                                            const struct gsvd_strlist *want);

/* The samples p asks for (p->samples, else p->sample_mask's, else every one, then narrowed by
 * p->keep_ids and p->remove_ids) mapped onto the columns as gsvd_geno_select_samples does;
 * with none of those, every sample (all's IDs then move to g->ids).  Returns GSVD_OK,
 * GSVD_ENOMEM, or GSVD_EINCONSIST (logged) for a mask of another length, a mask or lists that
 * keep no sample, and gsvd_geno_select_samples' errors. */
GSVD_NODISCARD int gsvd_geno_pick_samples(gsvd_geno *g, const struct gsvd_geno_params *p,
                                          struct gsvd_strlist *all);

/* ---- one block of a scan (geno_rows.c) ---------------------------------------------------- */

/* A pipeline slot: one worker's buffers for one chunk row of variants, reused block after
 * block (every block overwrites them); the consumer reads info, blk and counts.  All pointers
 * owned by the slot (gsvd_geno_scan frees them). */
struct scan_slot {
    void *raw; /* decoded region, array dtype (a diploid subset: one chunk row of dosages) */
    size_t raw_cap;
    void *praw; /* haplotypes: the region of the phase array */
    size_t praw_cap;
    int8_t *dos;  /* int8 dosages, n_variants x n_samples (all of the block) */
    double *fdos; /* float input, as float64 */
    size_t dos_cap;
    float *center, *scale; /* kept rows */
    float *miss;           /* kept rows: standardised value of a missing call */
    uint8_t *kept;
    uint64_t *vidx;        /* kept rows: the variant's index in the array */
    double *mean, *inv_sd; /* all rows */
    int64_t *rsums;        /* all rows: called, sum, sum of squares (when have_sums) */
    uint8_t *p2;           /* kept rows packed to 2 bits, when the cache is filling */
    size_t p2_cap;
    int packed; /* blk holds the packed rows (p2), not the int8 ones */
    int have_sums;
    uint32_t *smiss;     /* gsvd_geno_count_missing: this block's missing calls per sample */
    uint64_t smiss_rows; /* ... and the variants they were counted over */
    size_t rows_cap;
    struct gsvd_geno_info info;
    struct gsvd_gblock blk;
    struct gsvd_geno_counts counts; /* this block's */
};

/* Dosage rows for variants [v0, v0 + nv) of g read with r (the calling worker's reader) into
 * s->dos (int8, -1 missing) or, for float input, s->fdos (float64, NaN missing); the diploid
 * int8 path also fills s->rsums and sets s->have_sums.  Returns GSVD_OK, GSVD_ENOMEM,
 * GSVD_EFORMAT (sizes overflow, or a value out of the int8 dosage range, logged) or a code from
 * the reader. */
GSVD_NODISCARD int gsvd_geno_make_dosages(gsvd_geno *g, gsvd_reader *r, uint64_t v0, size_t nv,
                                          struct scan_slot *s);

/* The same for a handle opened with haplotypes: each analysed sample's P alleles as P columns
 * (1: allele > 0, 0: allele 0, -1: allele < 0), read with r; the phase of every heterozygous
 * call checked in the phase array, read with pr (NULL: ignore_phase).  Returns GSVD_OK,
 * GSVD_ENOMEM, GSVD_EFORMAT (sizes overflow), GSVD_EINCONSIST (logged: an unphased
 * heterozygous call) or a code from the readers. */
GSVD_NODISCARD int gsvd_geno_make_haplotypes(gsvd_geno *g, gsvd_reader *r, gsvd_reader *pr,
                                             uint64_t v0, size_t nv, struct scan_slot *s);

/* Statistics (s->mean[j], s->inv_sd[j]), filters and scale of row j of the slot, which is the
 * array's variant `variant`; a dropped row is counted in s->counts.  Returns 1 if the row is
 * kept, 0 if dropped, -1 (logged) when g's params demand no missing calls and the row has some
 * (the caller turns that into GSVD_EFORMAT). */
GSVD_NODISCARD int gsvd_geno_judge_row(gsvd_geno *g, struct scan_slot *s, size_t j,
                                       uint64_t variant);

/* The slot's first `rows` int8 dosage rows (n samples each) packed to 2 bits (code 3 =
 * missing) into s->p2, for the cache.  Returns GSVD_OK or GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_geno_pack_rows(struct scan_slot *s, size_t rows, size_t n);

#endif /* GSVD_ANALYSIS_SCAN_GENOTYPE_INTERNAL_H */
