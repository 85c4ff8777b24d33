/* analysis/scan/mask.h - 1-D mask arrays onto a scan's selection: a variant mask (what
 * `gensvd ldprune` writes, variant_ld_keep), a sample mask (what `gensvd related` writes,
 * sample_unrelated, beside sample_id), and the variants plink2 counts for KING
 * (analysis/scan/autosomes.h).  The reader takes an open tree; opening a store by name is the
 * caller's (lib/select.c: STORE[/ARRAY] of a source's "variant-mask" and "sample-mask").
 * Thread safety: calls share no state. */
#ifndef GSVD_ANALYSIS_SCAN_MASK_H
#define GSVD_ANALYSIS_SCAN_MASK_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/scan/autosomes.h"
#include "analysis/scan/genotype.h"
#include "common/buf.h"
#include "common/gsvd_defs.h"
#include "zarr/tree.h"
GSVD_EXTERN_C_BEGIN

struct gsvd_mask {
    uint8_t *keep;           /* owned; 1 = keep (the array's nonzero entries) */
    uint64_t len;            /* entries */
    uint64_t n_keep;         /* nonzero entries */
    struct gsvd_strlist ids; /* sample_id beside the array when asked for and present */
    char *name;              /* owned; "SPEC/ARRAY" for messages */
};

/* Read the mask at node `node` of t (borrowed): the node is the mask array itself, or a group
 * holding `default_array`.  `spec` names the store and node in messages (the user's
 * STORE[/ARRAY]).  The array must be 1-D bool, int8 or uint8.  With want_ids, a 1-D string array
 * sample_id of the same length beside it is read too.  Returns GSVD_OK, or (logged, naming the
 * store and array) GSVD_ENOTFOUND (no such array), GSVD_EFORMAT (rank, dtype), GSVD_EINCONSIST
 * (the mask keeps nothing), store errors.  Free with gsvd_mask_free. */
GSVD_NODISCARD int gsvd_mask_read(gsvd_tree *t, const char *node, const char *spec,
                                  const char *default_array, int want_ids, struct gsvd_mask *out);
void gsvd_mask_free(struct gsvd_mask *m); /* accepts a zeroed struct */

/* A variant mask `vm` and a sample mask `sm` (either may be NULL) onto geno: the variant mask as
 * geno->variant_mask (borrowed from vm), the sample mask as geno->sample_mask (by position) or,
 * when its sample_id was read, as the kept IDs appended to *ids (geno->samples).  vm, sm and ids
 * must outlive geno's use.  Returns GSVD_OK or GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_mask_apply(const struct gsvd_mask *vm, const struct gsvd_mask *sm,
                                   struct gsvd_strlist *ids, struct gsvd_geno_params *geno);

/* A rule's variant mask `keep` (len entries, borrowed: it must outlive geno's use) ANDed in
 * place with the mask geno has already, if any, then made geno's variant mask; *n_range and
 * *n_left receive the variants of geno's range and those left in it.  Returns GSVD_OK, or
 * GSVD_EINCONSIST (logged: url, and `array` whose length len is) when the lengths differ. */
GSVD_NODISCARD int gsvd_mask_narrow(struct gsvd_geno_params *geno, uint8_t *keep, uint64_t len,
                                    const char *url, const char *array, uint64_t *n_range,
                                    uint64_t *n_left);

/* KING's variants (`pdist -m king|ibs0`, `related`): unless all_contigs, the variants of group
 * `node` of t that plink2 counts (analysis/scan/autosomes.h) become geno->variant_mask, ANDed
 * with a mask already there (a variant mask, same length); *au holds it and must outlive geno's
 * use (the caller frees it with gsvd_autosomes_free).  Without variant_contig and contig_id
 * every variant counts (said at info level, as is what was left out).  Returns GSVD_OK,
 * GSVD_EDEGENERATE (logged) when no counted variant is left in geno's range, GSVD_EINCONSIST
 * (logged) when the masks' lengths differ, or the errors of gsvd_autosomes_read. */
GSVD_NODISCARD int gsvd_autosomes_apply(gsvd_tree *t, const char *node, int all_contigs,
                                        struct gsvd_autosomes *au, struct gsvd_geno_params *geno);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_SCAN_MASK_H */
