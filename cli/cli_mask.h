/* cli/cli_mask.h - a 1-D mask array named as STORE[/ARRAY] (--variant-mask, --sample-mask):
 * what `gensvd ldprune` writes (variant_ld_keep) and `gensvd related` writes (sample_unrelated
 * beside sample_id).  Thread safety: main thread only. */
#ifndef GSVD_CLI_CLI_MASK_H
#define GSVD_CLI_CLI_MASK_H
#include <stddef.h>
#include <stdint.h>
#include "common/buf.h"
#include "analysis/autosomes.h"
#include "analysis/genotype.h"
#include "common/gsvd_defs.h"

struct gsvd_cli_input;

struct gsvd_cli_mask {
    uint8_t *keep;           /* owned; 1 = keep (the array's nonzero entries) */
    uint64_t len;            /* entries */
    uint64_t n_keep;         /* nonzero entries */
    struct gsvd_strlist ids; /* sample_id beside the array when asked for and present */
    char *name;              /* owned; "STORE/ARRAY" for messages */
};

/* Read the mask: `spec` is a store (path or URL) holding `default_array`, or the mask array
 * itself (STORE/ARRAY, any path inside the store).  The array must be 1-D bool, int8 or uint8.
 * With want_ids, a 1-D string array sample_id of the same length beside it is read too.
 * Returns GSVD_OK, or (logged, naming the store and array) GSVD_ENOTFOUND (no such array),
 * GSVD_EFORMAT (rank, dtype), GSVD_EINCONSIST (the mask keeps nothing), store errors.
 * Free with gsvd_cli_mask_free. */
GSVD_NODISCARD int gsvd_cli_mask_read(const char *spec, const char *default_array, int want_ids,
                                      struct gsvd_cli_mask *out);
void gsvd_cli_mask_free(struct gsvd_cli_mask *m); /* accepts a zeroed struct */

/* --variant-mask `vspec` and --sample-mask `sspec` (either may be NULL) onto geno: the variant
 * mask as geno->variant_mask (borrowed from *vm), the sample mask as geno->sample_mask (by
 * position) or, when a sample_id array is beside it, as the kept IDs in *ids
 * (geno->samples).  vm, sm and ids must outlive geno's use; the caller frees them.  Returns
 * GSVD_OK or the logged errors of gsvd_cli_mask_read. */
GSVD_NODISCARD int gsvd_cli_masks_apply(const char *vspec, const char *sspec,
                                        struct gsvd_cli_mask *vm, struct gsvd_cli_mask *sm,
                                        struct gsvd_strlist *ids, struct gsvd_geno_params *geno);

/* KING's variants (`pdist -m king|ibs0`, `related`): unless all_contigs, the variants of group
 * in->node that plink2 counts (analysis/autosomes.h) become geno->variant_mask, ANDed with a
 * mask already there (--variant-mask, same length); *au holds it and must outlive geno's use
 * (the caller frees it with gsvd_autosomes_free).  Without variant_contig and contig_id every
 * variant counts (said at info level, as is what was left out).  Returns GSVD_OK,
 * GSVD_EDEGENERATE (logged) when no counted variant is left in geno's range, GSVD_EINCONSIST
 * (logged) when the masks' lengths differ, or the errors of gsvd_autosomes_read. */
GSVD_NODISCARD int gsvd_cli_autosomes_apply(const struct gsvd_cli_input *in, int all_contigs,
                                            struct gsvd_autosomes *au,
                                            struct gsvd_geno_params *geno);

#endif /* GSVD_CLI_CLI_MASK_H */
