/* analysis/backend.c - backend selection by probe score and the wrappers over the vtable. */
#include "gsvd_config.h"
#include "analysis/backend.h"

#include <string.h>

#include "analysis/backend_internal.h"
#include "common/err.h"
#include "common/log.h"

int gsvd_backend_create(const struct gsvd_backend_ops *ops, const struct gsvd_backend_params *p,
                        gsvd_backend **out)
{
    int rc = ops->create(p, out);
    /* a backend loaded as a module (cli/backend_registry.c) sets its own ops */
    if (rc == GSVD_OK && !(*out)->ops)
        (*out)->ops = ops;
    return rc;
}

int gsvd_backend_open(const char *name, const struct gsvd_backend_params *p, gsvd_backend **out)
{
    const struct gsvd_backend_ops *best = NULL;
    int best_score = 0;
    char why[256];

    *out = NULL;
    if (strcmp(name, "gpu") == 0)
        name = "cuda";
    if (strcmp(name, "auto") != 0 && strcmp(name, "cpu") != 0 && strcmp(name, "cuda") != 0) {
        gsvd_log_error("unknown device '%s' (auto, cpu or gpu)", name);
        return GSVD_EINVAL;
    }
    for (size_t i = 0; gsvd_backend_registry[i]; i++) {
        const struct gsvd_backend_ops *ops = gsvd_backend_registry[i];
        int score;
        if (strcmp(name, "auto") != 0 && strcmp(name, ops->name) != 0)
            continue;
        why[0] = '\0';
        score = ops->probe(why, sizeof why);
        if (score <= 0) {
            if (strcmp(name, "auto") == 0) {
                gsvd_log_info("backend %s not usable: %s", ops->name, why);
                continue;
            }
            gsvd_log_error("no usable %s device: %s", ops->name, why);
            return GSVD_ENODEVICE;
        }
        if (score > best_score) {
            best = ops;
            best_score = score;
        }
    }
    if (!best) {
        gsvd_log_error("the %s backend is not built into this gensvd", name);
        return GSVD_ENOTBUILT;
    }
    gsvd_log_info("using the %s backend", best->name);
    return gsvd_backend_create(best, p, out);
}

void gsvd_backend_destroy(gsvd_backend *be)
{
    if (be)
        be->ops->destroy(be);
}

const char *gsvd_backend_name(const gsvd_backend *be)
{
    return be->ops->name;
}

int gsvd_backend_pass_begin(gsvd_backend *be, size_t n, size_t c, const double *x)
{
    return be->ops->pass_begin(be, n, c, x);
}

int gsvd_backend_pass_block(gsvd_backend *be, const struct gsvd_gblock *b, double *sumsq)
{
    return be->ops->pass_block(be, b, sumsq);
}

int gsvd_backend_pass_end(gsvd_backend *be, double *y)
{
    return be->ops->pass_end(be, y);
}

static int has_exact(const gsvd_backend *be)
{
    return be->ops->version >= 3 && be->ops->set_bound;
}

int gsvd_backend_set_bound(gsvd_backend *be, const struct gsvd_zbound *z)
{
    return has_exact(be) ? be->ops->set_bound(be, z) : GSVD_EUNSUPPORTED;
}

int gsvd_backend_pass_end_parts(gsvd_backend *be, double *y_hi, double *y_lo, double *tr)
{
    return has_exact(be) ? be->ops->pass_end_parts(be, y_hi, y_lo, tr) : GSVD_EUNSUPPORTED;
}

int gsvd_backend_gram_end_parts(gsvd_backend *be, double *g_hi, double *g_lo, double *tr)
{
    return has_exact(be) ? be->ops->gram_end_parts(be, g_hi, g_lo, tr) : GSVD_EUNSUPPORTED;
}

int gsvd_backend_project(gsvd_backend *be, const struct gsvd_gblock *b, size_t c, const double *u,
                         double *out)
{
    return be->ops->project(be, b, c, u, out);
}

int gsvd_backend_gram_begin(gsvd_backend *be, size_t n)
{
    return be->ops->gram_begin(be, n);
}

int gsvd_backend_gram_block(gsvd_backend *be, const struct gsvd_gblock *b, double *sumsq)
{
    return be->ops->gram_block(be, b, sumsq);
}

int gsvd_backend_gram_end(gsvd_backend *be, double *g)
{
    return be->ops->gram_end(be, g);
}

int gsvd_backend_eigh(gsvd_backend *be, size_t n, double *a, double *w)
{
    return be->ops->eigh(be, n, a, w);
}

/* ---- pdist on a device --------------------------------------------------------------------- */

int gsvd_backend_has_pdist(const gsvd_backend *be)
{
    return be && be->ops->version >= 2 && be->ops->pd_begin != NULL;
}

int gsvd_backend_pd_memory(gsvd_backend *be, uint64_t *bytes)
{
    *bytes = 0;
    return gsvd_backend_has_pdist(be) ? be->ops->pd_memory(be, bytes) : GSVD_ENOTBUILT;
}

int gsvd_backend_pd_begin(gsvd_backend *be, const struct gsvd_pd_dev_band *band)
{
    return gsvd_backend_has_pdist(be) ? be->ops->pd_begin(be, band) : GSVD_ENOTBUILT;
}

int gsvd_backend_pd_planes(gsvd_backend *be, const uint64_t *planes, size_t nw)
{
    return gsvd_backend_has_pdist(be) ? be->ops->pd_planes(be, planes, nw) : GSVD_ENOTBUILT;
}

int gsvd_backend_pd_rows(gsvd_backend *be, const double *x, size_t nf)
{
    return gsvd_backend_has_pdist(be) ? be->ops->pd_rows(be, x, nf) : GSVD_ENOTBUILT;
}

int gsvd_backend_pd_end(gsvd_backend *be, void *acc)
{
    return gsvd_backend_has_pdist(be) ? be->ops->pd_end(be, acc) : GSVD_ENOTBUILT;
}
