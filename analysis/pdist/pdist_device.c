/* analysis/pdist/pdist_device.c - the pdist wrappers over a backend's GSVD_AN_PDIST table. */
#include "gsvd_config.h"
#include "analysis/pdist/pdist_device.h"

#include "common/err.h"

static const struct gsvd_pdist_device_ops *pd_ops(const gsvd_backend *be)
{
    return gsvd_backend_analysis(be, GSVD_AN_PDIST);
}

int gsvd_backend_has_pdist(const gsvd_backend *be)
{
    return pd_ops(be) != NULL;
}

int gsvd_backend_pd_memory(gsvd_backend *be, uint64_t *bytes)
{
    const struct gsvd_pdist_device_ops *t = pd_ops(be);
    *bytes = 0;
    return t ? t->pd_memory(be, bytes) : GSVD_ENOTBUILT;
}

int gsvd_backend_pd_begin(gsvd_backend *be, const struct gsvd_pd_dev_band *band)
{
    const struct gsvd_pdist_device_ops *t = pd_ops(be);
    return t ? t->pd_begin(be, band) : GSVD_ENOTBUILT;
}

int gsvd_backend_pd_planes(gsvd_backend *be, const uint64_t *planes, size_t nw)
{
    const struct gsvd_pdist_device_ops *t = pd_ops(be);
    return t ? t->pd_planes(be, planes, nw) : GSVD_ENOTBUILT;
}

int gsvd_backend_pd_rows(gsvd_backend *be, const double *x, size_t nf)
{
    const struct gsvd_pdist_device_ops *t = pd_ops(be);
    return t ? t->pd_rows(be, x, nf) : GSVD_ENOTBUILT;
}

int gsvd_backend_pd_end(gsvd_backend *be, void *acc)
{
    const struct gsvd_pdist_device_ops *t = pd_ops(be);
    return t ? t->pd_end(be, acc) : GSVD_ENOTBUILT;
}
