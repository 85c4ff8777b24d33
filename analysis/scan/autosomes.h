/* analysis/scan/autosomes.h - the variants plink2 counts for KING (`--make-king`, `--king-cutoff`):
 * every contig except X, Y and MT.  A contig name, with an optional "chr" prefix and in any
 * case, is left out when it is X, 23, Y, 24, MT, M or 26; everything else counts, as in
 * plink2 2.00a3.5: 1..22, the pseudo-autosomal XY / 25, unplaced "0" and any other contig
 * name (GL000192.1, chrUn_..., HLA-A).  Established by running plink2 --make-king-table on one
 * variant per contig name (tests/related/test_autosomes.py).  Thread safety: no shared state. */
#ifndef GSVD_ANALYSIS_SCAN_AUTOSOMES_H
#define GSVD_ANALYSIS_SCAN_AUTOSOMES_H
#include <stddef.h>
#include <stdint.h>
#include "common/buf.h"
#include "zarr/tree.h"
GSVD_EXTERN_C_BEGIN

/* 1 if plink2's KING counts variants on contig `name`, 0 if it leaves them out (X, Y, MT). */
int gsvd_contig_is_autosomal(const char *name);

struct gsvd_autosomes {
    uint8_t *keep;                /* per variant of the array: 1 = autosomal (owned) */
    uint64_t len;                 /* entries: the length of variant_contig */
    uint64_t n_excluded;          /* entries that are 0 */
    struct gsvd_strlist excluded; /* the left-out contigs that hold variants (owned) */
};

/* Read variant_contig (1-D integer indices) and contig_id (1-D strings) of group `node` of t
 * and mark each variant.  GSVD_OK and *out filled (free with gsvd_autosomes_free);
 * GSVD_ENOTFOUND (not logged) when either array is absent; GSVD_EFORMAT (logged, naming the
 * array) for a wrong rank or dtype or an index outside contig_id; GSVD_ENOMEM or a store
 * error.  On failure *out is empty. */
GSVD_NODISCARD int gsvd_autosomes_read(gsvd_tree *t, const char *node, struct gsvd_autosomes *out);
/* The same for any rule: keep(name, ctx) nonzero for the contigs whose variants are kept (the
 * struct then holds that rule's mask; `excluded` the left-out contigs that hold variants). */
GSVD_NODISCARD int gsvd_contigs_read(gsvd_tree *t, const char *node,
                                     int (*keep)(const char *name, void *ctx), void *ctx,
                                     struct gsvd_autosomes *out);

/* contig_id's names into *names and variant_contig's index of every variant into *idx (*n of
 * them; caller frees both), each index checked against names.  Errors as gsvd_autosomes_read;
 * on failure both are empty. */
GSVD_NODISCARD int gsvd_contig_index_read(gsvd_tree *t, const char *node,
                                          struct gsvd_strlist *names, int64_t **idx, uint64_t *n);

/* Count the 1 entries of keep[start, stop). */
uint64_t gsvd_autosomes_count(const struct gsvd_autosomes *a, uint64_t start, uint64_t stop);

void gsvd_autosomes_free(struct gsvd_autosomes *a); /* accepts a zeroed struct */

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_SCAN_AUTOSOMES_H */
