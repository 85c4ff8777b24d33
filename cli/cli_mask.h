/* cli/cli_mask.h - --variant-mask and --sample-mask: a 1-D mask array named as STORE[/ARRAY]
 * (what `gensvd ldprune` writes, variant_ld_keep, and `gensvd related` writes,
 * sample_unrelated beside sample_id), opened here and read by analysis/scan/mask.h.
 * Thread safety: main thread only. */
#ifndef GSVD_CLI_CLI_MASK_H
#define GSVD_CLI_CLI_MASK_H
#include "analysis/scan/genotype.h"
#include "analysis/scan/mask.h"
#include "common/buf.h"
#include "common/gsvd_defs.h"

/* --variant-mask `vspec` and --sample-mask `sspec` (either may be NULL; a store, path or URL,
 * holding variant_ld_keep or sample_unrelated, or the mask array itself as STORE/ARRAY) read into
 * *vm and *sm and put onto geno (gsvd_mask_apply: the sample mask by position, or as the kept IDs
 * in *ids when a sample_id array is beside it).  vm, sm and ids must outlive geno's use; the
 * caller frees them (gsvd_mask_free, gsvd_strlist_free).  Returns GSVD_OK or the logged errors
 * of opening the store and of gsvd_mask_read. */
GSVD_NODISCARD int gsvd_cli_masks_apply(const char *vspec, const char *sspec, struct gsvd_mask *vm,
                                        struct gsvd_mask *sm, struct gsvd_strlist *ids,
                                        struct gsvd_geno_params *geno);

#endif /* GSVD_CLI_CLI_MASK_H */
