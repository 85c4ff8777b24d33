/* cli/cli_mask.c - --variant-mask / --sample-mask: the stores opened by name, the masks read
 * by analysis/scan/mask.c (see cli_mask.h). */
#include "gsvd_config.h"
#include "cli/cli_mask.h"

#include <string.h>

#include "cli/cli.h"
#include "common/err.h"

/* The mask named by spec (STORE[/ARRAY]) into *out. */
static int read_mask(const char *spec, const char *default_array, int want_ids,
                     struct gsvd_mask *out)
{
    struct gsvd_cli_input in = {0};
    int rc = GSVD_OK;

    memset(out, 0, sizeof *out);
    GSVD_TRY(gsvd_cli_open_input(spec, NULL, &in));
    GSVD_TRY(gsvd_mask_read(in.tree, in.node, spec, default_array, want_ids, out));
out:
    gsvd_cli_close_input(&in);
    return rc;
}

int gsvd_cli_masks_apply(const char *vspec, const char *sspec, struct gsvd_mask *vm,
                         struct gsvd_mask *sm, struct gsvd_strlist *ids,
                         struct gsvd_geno_params *geno)
{
    int rc = GSVD_OK;
    if (vspec)
        GSVD_TRY(read_mask(vspec, "variant_ld_keep", 0, vm));
    if (sspec)
        GSVD_TRY(read_mask(sspec, "sample_unrelated", 1, sm));
    GSVD_TRY(gsvd_mask_apply(vspec ? vm : NULL, sspec ? sm : NULL, ids, geno));
out:
    return rc;
}
