/* analysis/scan/variant_ids.h - the identity of variants (contig, position, alleles; also the
 * names) as VCF-Zarr stores it (variant_contig indices into contig_id, variant_position,
 * variant_allele, variant_id), read for
 * a variant range, for matching variants between stores (`project`) and for saving it next to
 * PCA loadings (analysis/pca/pca_store.h).  Alleles are kept as one comma-joined list per variant
 * ("A,G"; empty allele slots of the fixed-width array are dropped), so the first item is REF.
 * Thread safety: calls share no state. */
#ifndef GSVD_ANALYSIS_SCAN_VARIANT_IDS_H
#define GSVD_ANALYSIS_SCAN_VARIANT_IDS_H
#include <stddef.h>
#include <stdint.h>
#include "common/buf.h"
#include "zarr/tree.h"
GSVD_EXTERN_C_BEGIN

struct gsvd_variant_ids {
    uint64_t n;                  /* variants */
    struct gsvd_strlist contig;  /* n contig names; owned */
    int64_t *pos;                /* n positions; owned */
    struct gsvd_strlist alleles; /* n comma-joined allele lists; owned */
    struct gsvd_strlist name;    /* n variant_id names (gsvd_variant_ids_read_names), or none;
                                    owned */
};
#define GSVD_VARIANT_IDS_INIT                                                                      \
    {                                                                                              \
        0, GSVD_STRLIST_INIT, NULL, GSVD_STRLIST_INIT, GSVD_STRLIST_INIT                           \
    }

/* 1 if group `node` of t holds variant_contig, contig_id, variant_position and variant_allele
 * (0 if any is absent; a store error is returned as it is). */
GSVD_NODISCARD int gsvd_variant_ids_present(gsvd_tree *t, const char *node);

/* Read the identity of variants [start, stop) of group `node` of t into *out (caller frees
 * with gsvd_variant_ids_free).  GSVD_ENOTFOUND (logged, naming the store and array) when an
 * array is absent, GSVD_EFORMAT (logged) for a wrong rank, dtype or length, or a contig index
 * outside contig_id, GSVD_ENOMEM, or a store error. */
GSVD_NODISCARD int gsvd_variant_ids_read(gsvd_tree *t, const char *node, uint64_t start,
                                         uint64_t stop, struct gsvd_variant_ids *out);
/* As gsvd_variant_ids_read when the group has the four arrays; otherwise GSVD_OK with
 * out->n = 0 (a 2-D dosage array without them; logged at info level). */
GSVD_NODISCARD int gsvd_variant_ids_read_present(gsvd_tree *t, const char *node, uint64_t start,
                                                 uint64_t stop, struct gsvd_variant_ids *out);
/* The names of the same variants (VCF's ID column: variant_id, a 1-D array of strings) into
 * out->name, when group `node` has that array (out->n of them from `start`); otherwise GSVD_OK
 * with out->name empty.  GSVD_EFORMAT (logged) for a variant_id that is not 1-D strings or is
 * shorter, GSVD_ENOMEM, or a store error. */
GSVD_NODISCARD int gsvd_variant_ids_read_names(gsvd_tree *t, const char *node, uint64_t start,
                                               struct gsvd_variant_ids *out);
void gsvd_variant_ids_free(struct gsvd_variant_ids *v); /* accepts a zeroed struct */

/* Read the whole 1-D string array at `path` of t into *out (appended).  GSVD_EFORMAT (logged:
 * "expected a 1-D array of strings (WHAT)") when it is not one; store errors as they come. */
GSVD_NODISCARD int gsvd_variant_ids_read_strings(gsvd_tree *t, const char *path, const char *what,
                                                 struct gsvd_strlist *out);

/* Read the whole 1-D integer array at `path` of t, elements [start, stop), as int64 into dst.
 * GSVD_EFORMAT (logged) when not a 1-D integer array or shorter than stop. */
GSVD_NODISCARD int gsvd_variant_ids_read_i64(gsvd_tree *t, const char *path, uint64_t start,
                                             uint64_t stop, int64_t *dst);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_SCAN_VARIANT_IDS_H */
