/* lib/run.c - gensvd_run: the checks every run makes (the destination before any input is
 * read) and the dispatch to the analysis' run (lib/run_*.c, which share lib/run_common.c). */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <string.h>

#include "common/err.h"
#include "common/log.h"

/* What each analysis runs on: a source (or not), and which analyses gensvd_run takes. */
static int check_inputs(const gensvd_options *opt, const gensvd_source *src)
{
    switch (opt->analysis) {
    case GENSVD_SIMULATE:
        return src ? lib_fail(GSVD_EINVAL, "simulate takes no source (pass NULL)") : GSVD_OK;
    case GENSVD_PDIST:
        if (opt->u.pdist.finalize)
            return src ? lib_fail(GSVD_EINVAL, "pdist's \"finalize\" takes no source") : GSVD_OK;
        break;
    case GENSVD_PLOT_PCA:
    case GENSVD_PLOT_PDIST:
        return lib_fail(GSVD_EINVAL, "plots are drawn by gensvd_plot, not gensvd_run");
    default:
        break;
    }
    if (src && src->text && opt->analysis != GENSVD_PDIST)
        return lib_fail(GSVD_EUNSUPPORTED,
                        "%s: a numeric matrix is pdist's input only; this "
                        "analysis needs genotype calls",
                        lib_source_name(src));
    return src ? GSVD_OK : lib_fail(GSVD_EINVAL, "this analysis needs a source");
}

int gensvd_run(gensvd_ctx *ctx, const gensvd_options *opt, gensvd_source *src, gensvd_dest *dest,
               gensvd_result **out)
{
    struct lib_run run = {.ctx = ctx, .opt = opt, .src = src, .dest = dest};
    const struct gsvd_scope *prev;
    int rc = GSVD_OK;

    if (out)
        *out = NULL;
    if (!ctx)
        return GENSVD_EINVAL;
    prev = lib_begin(ctx);
    if (!opt || !out) {
        rc = lib_fail(GSVD_EINVAL, "gensvd_run: no options or no place for the result");
        goto out;
    }
    if (opt->ctx != ctx || (src && src->ctx != ctx) || (dest && dest->ctx != ctx)) {
        rc = lib_fail(GSVD_EINVAL, "gensvd_run: objects made from another context");
        goto out;
    }
    GSVD_TRY(check_inputs(opt, src));
    /* first: a bad destination fails before any input is read (once: not again right after
     * the caller's gensvd_dest_check) */
    if (dest && !dest->checked)
        GSVD_TRY(lib_dest_check(dest));
    if (gsvd_scope_cancelled()) {
        rc = GSVD_ECANCELED;
        goto out;
    }
    switch (opt->analysis) {
    case GENSVD_PCA:
        rc = lib_run_pca(&run);
        break;
    case GENSVD_PROJECT:
        rc = lib_run_project(&run);
        break;
    case GENSVD_PDIST:
        rc = lib_run_pdist(&run);
        break;
    case GENSVD_LDPRUNE:
        rc = lib_run_ldprune(&run);
        break;
    case GENSVD_RELATED:
        rc = lib_run_related(&run);
        break;
    case GENSVD_SIMULATE:
        rc = lib_run_simulate(&run);
        break;
    default:
        rc = lib_fail(GSVD_EINVAL, "gensvd_run: not an analysis");
        break;
    }
    if (dest)
        dest->checked = 0; /* used: a later call checks it again */
    if (rc == GSVD_OK) {
        *out = run.out;
        /* a request that came too late for this call is not kept for the next one */
        atomic_store(&ctx->cancel, 0);
    } else {
        gensvd_result_free(run.out);
    }
out:
    return lib_end(ctx, prev, rc, "gensvd_run");
}
