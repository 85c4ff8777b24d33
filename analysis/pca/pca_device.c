/* analysis/pca/pca_device.c - the PCA wrappers over a backend's GSVD_AN_PCA table. */
#include "gsvd_config.h"
#include "analysis/pca/pca_device.h"

#include "common/err.h"

static const struct gsvd_pca_device_ops *pca_ops(const gsvd_backend *be)
{
    return gsvd_backend_analysis(be, GSVD_AN_PCA);
}

/* The table when it has exact reductions, else NULL. */
static const struct gsvd_pca_device_ops *exact_ops(const gsvd_backend *be)
{
    const struct gsvd_pca_device_ops *t = pca_ops(be);
    return t && t->set_bound ? t : NULL;
}

int gsvd_backend_pass_begin(gsvd_backend *be, size_t n, size_t c, const double *x)
{
    const struct gsvd_pca_device_ops *t = pca_ops(be);
    return t ? t->pass_begin(be, n, c, x) : GSVD_EUNSUPPORTED;
}

int gsvd_backend_pass_block(gsvd_backend *be, const struct gsvd_gblock *b, double *sumsq)
{
    const struct gsvd_pca_device_ops *t = pca_ops(be);
    return t ? t->pass_block(be, b, sumsq) : GSVD_EUNSUPPORTED;
}

int gsvd_backend_pass_end(gsvd_backend *be, double *y)
{
    const struct gsvd_pca_device_ops *t = pca_ops(be);
    return t ? t->pass_end(be, y) : GSVD_EUNSUPPORTED;
}

int gsvd_backend_set_bound(gsvd_backend *be, const struct gsvd_zbound *z)
{
    const struct gsvd_pca_device_ops *t = exact_ops(be);
    return t ? t->set_bound(be, z) : GSVD_EUNSUPPORTED;
}

int gsvd_backend_pass_end_parts(gsvd_backend *be, double *y_hi, double *y_lo, double *tr)
{
    const struct gsvd_pca_device_ops *t = exact_ops(be);
    return t ? t->pass_end_parts(be, y_hi, y_lo, tr) : GSVD_EUNSUPPORTED;
}

int gsvd_backend_gram_end_parts(gsvd_backend *be, double *g_hi, double *g_lo, double *tr)
{
    const struct gsvd_pca_device_ops *t = exact_ops(be);
    return t ? t->gram_end_parts(be, g_hi, g_lo, tr) : GSVD_EUNSUPPORTED;
}

int gsvd_backend_project(gsvd_backend *be, const struct gsvd_gblock *b, size_t c, const double *u,
                         double *out)
{
    const struct gsvd_pca_device_ops *t = pca_ops(be);
    return t ? t->project(be, b, c, u, out) : GSVD_EUNSUPPORTED;
}

int gsvd_backend_gram_begin(gsvd_backend *be, size_t n)
{
    const struct gsvd_pca_device_ops *t = pca_ops(be);
    return t ? t->gram_begin(be, n) : GSVD_EUNSUPPORTED;
}

int gsvd_backend_gram_block(gsvd_backend *be, const struct gsvd_gblock *b, double *sumsq)
{
    const struct gsvd_pca_device_ops *t = pca_ops(be);
    return t ? t->gram_block(be, b, sumsq) : GSVD_EUNSUPPORTED;
}

int gsvd_backend_gram_end(gsvd_backend *be, double *g)
{
    const struct gsvd_pca_device_ops *t = pca_ops(be);
    return t ? t->gram_end(be, g) : GSVD_EUNSUPPORTED;
}

double gsvd_backend_gram_fast(gsvd_backend *be, int on)
{
    const struct gsvd_pca_device_ops *t = pca_ops(be);
    return t && t->version >= 2 && t->gram_fast ? t->gram_fast(be, on) : 0.0;
}

double gsvd_backend_gram_error(gsvd_backend *be)
{
    const struct gsvd_pca_device_ops *t = pca_ops(be);
    return t && t->version >= 2 && t->gram_error ? t->gram_error(be) : 0.0;
}
