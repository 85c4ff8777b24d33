/* gpu/pdist_cuda.c - pdist band accumulators on the device (contract in gpu/pdist_cuda.h). */
#include "gsvd_config.h"
#include "gpu/pdist_cuda.h"

#include <string.h>

#include <cuda_runtime_api.h>

#include "analysis/pdist/pdist_metric.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "gpu/cuda_check.h"
#include "gpu/kernels.h"
#include "gpu/staging.h"
#include "gpu/timer.h"

#define RESERVE_MIN ((uint64_t)256 << 20)

struct gsvd_cuda_pd {
    cudaStream_t copy, compute;
    struct gsvd_cuda_slot slot[2];
    unsigned next;
    struct gsvd_pd_dev_band band;
    int open;         /* a band is open */
    void *acc;        /* device accumulators of the band */
    size_t acc_cap;   /* bytes allocated */
    size_t acc_bytes; /* bytes of the open band */
    size_t piece;     /* bytes of one piece (COUNTS: the segment of the band's items) */
    struct gsvd_cuda_xfer xfer;
    struct gsvd_cuda_timer timer; /* the counting kernels' device time, peak memory (-v) */
    uint64_t d2h_bytes;
    size_t n_bands;
};

int gsvd_cuda_pd_memory(uint64_t *bytes)
{
    int rc = GSVD_OK;
    size_t free_b = 0, total = 0;
    uint64_t reserve;

    *bytes = 0;
    GSVD_CUDA_TRY(cudaMemGetInfo(&free_b, &total));
    reserve = (uint64_t)total / 20;
    if (reserve < RESERVE_MIN)
        reserve = RESERVE_MIN;
    *bytes = (uint64_t)free_b > reserve ? (uint64_t)free_b - reserve : 0;
out:
    return rc;
}

void gsvd_cuda_pd_destroy(gsvd_cuda_pd *pd)
{
    if (!pd)
        return;
    if (pd->compute)
        cudaStreamSynchronize(pd->compute);
    if (pd->copy)
        cudaStreamSynchronize(pd->copy);
    for (int i = 0; i < 2; i++)
        gsvd_cuda_slot_fini(&pd->slot[i], &pd->xfer);
    if (pd->n_bands)
        gsvd_log_info("cuda pdist: %zu band(s); H2D %.1f MiB in %zu uploads, %.1f ms of copies: "
                      "%.2f GB/s; D2H %.1f MiB",
                      pd->n_bands, (double)pd->xfer.bytes / 1048576.0, pd->xfer.n, pd->xfer.ms,
                      pd->xfer.ms > 0 ? (double)pd->xfer.bytes / (pd->xfer.ms * 1e6) : 0.0,
                      (double)pd->d2h_bytes / 1048576.0);
    gsvd_cuda_timer_drain(&pd->timer);
    if (pd->timer.on && pd->n_bands) {
        char line[320];
        gsvd_cuda_timer_format(&pd->timer, line, sizeof line);
        gsvd_log_info("cuda pdist: device time: %s", line);
    }
    gsvd_cuda_timer_fini(&pd->timer);
    cudaFree(pd->acc);
    if (pd->copy)
        cudaStreamDestroy(pd->copy);
    if (pd->compute)
        cudaStreamDestroy(pd->compute);
    gsvd_free(pd);
}

static int pd_create(gsvd_cuda_pd **out)
{
    int rc = GSVD_OK;
    gsvd_cuda_pd *pd = gsvd_calloc(1, sizeof *pd);

    *out = NULL;
    if (!pd)
        return GSVD_ENOMEM;
    GSVD_CUDA_TRY(cudaStreamCreateWithFlags(&pd->copy, cudaStreamNonBlocking));
    GSVD_CUDA_TRY(cudaStreamCreateWithFlags(&pd->compute, cudaStreamNonBlocking));
    for (int i = 0; i < 2; i++)
        GSVD_TRY(gsvd_cuda_slot_init(&pd->slot[i]));
    gsvd_cuda_timer_init(&pd->timer);
    *out = pd;
    pd = NULL;
out:
    gsvd_cuda_pd_destroy(pd);
    return rc;
}

int gsvd_cuda_pd_begin(gsvd_cuda_pd **pdp, const struct gsvd_pd_dev_band *band)
{
    int rc = GSVD_OK;
    size_t per_pair, bytes, words = 0;
    gsvd_cuda_pd *pd;

    if (band->nb > band->nc ||
        (band->kind == GSVD_PD_DEV_COUNTS && (band->W == 0 || band->W % GSVD_PDK_CH != 0))) {
        gsvd_log_error("internal error: a pdist band %zu x %zu (W %zu) does not suit the device",
                       band->nb, band->nc, band->W);
        return GSVD_EINTERNAL;
    }
    per_pair = band->kind == GSVD_PD_DEV_COUNTS
                   ? gsvd_pdk_counts_per_pair(band->king) * sizeof(uint32_t)
                   : GSVD_PD_N_SUMS * sizeof(double);
    if (gsvd_mul_size(band->nb, band->nc, &bytes) < 0 || gsvd_mul_size(bytes, per_pair, &bytes) < 0)
        return GSVD_ENOMEM;
    if (band->kind == GSVD_PD_DEV_COUNTS &&
        (gsvd_mul_size(band->nc, 3 * band->W, &words) < 0 || words > SIZE_MAX / 8))
        return GSVD_ENOMEM;
    if (!*pdp)
        GSVD_TRY(pd_create(pdp));
    pd = *pdp;
    GSVD_CUDA_TRY(cudaStreamSynchronize(pd->compute));
    if (bytes > pd->acc_cap || !pd->acc) {
        cudaFree(pd->acc);
        pd->acc = NULL;
        pd->acc_cap = 0;
        GSVD_CUDA_TRY(cudaMalloc(&pd->acc, bytes ? bytes : 1));
        pd->acc_cap = bytes;
        gsvd_cuda_timer_memory(&pd->timer);
    }
    GSVD_CUDA_TRY(cudaMemsetAsync(pd->acc, 0, bytes, pd->compute));
    pd->band = *band;
    pd->acc_bytes = bytes;
    pd->piece = band->kind == GSVD_PD_DEV_COUNTS ? words * 8 : 0;
    pd->open = 1;
out:
    return rc;
}

/* Copy `bytes` of src into the next slot and upload it; *dev is the device copy. */
static int stage(gsvd_cuda_pd *pd, const void *src, size_t bytes, struct gsvd_cuda_slot **used)
{
    int rc = GSVD_OK;
    struct gsvd_cuda_slot *s = &pd->slot[pd->next];

    pd->next ^= 1;
    GSVD_TRY(gsvd_cuda_slot_acquire(s, bytes, &pd->xfer));
    memcpy(s->host, src, bytes);
    GSVD_TRY(gsvd_cuda_slot_upload(s, bytes, pd->copy, pd->compute, &pd->xfer));
    *used = s;
out:
    return rc;
}

int gsvd_cuda_pd_planes(gsvd_cuda_pd *pd, const uint64_t *planes, size_t nw)
{
    int rc = GSVD_OK;
    struct gsvd_cuda_slot *s = NULL;
    struct gsvd_pdk_counts_args a;

    if (!pd || !pd->open || pd->band.kind != GSVD_PD_DEV_COUNTS || nw > pd->band.W) {
        gsvd_log_error("internal error: pdist planes outside a bit-plane band");
        return GSVD_EINTERNAL;
    }
    if (nw == 0 || pd->band.nb == 0)
        return GSVD_OK;
    GSVD_TRY(stage(pd, planes, pd->piece, &s));
    a = (struct gsvd_pdk_counts_args){.planes = (const uint64_t *)(const void *)s->dev,
                                      .W = pd->band.W,
                                      .nw = nw,
                                      .nb = pd->band.nb,
                                      .nc = pd->band.nc,
                                      .tile_row0 = 0,
                                      .l1 = pd->band.l1,
                                      .king = pd->band.king,
                                      .cnt = pd->acc};
    gsvd_cuda_timer_start(&pd->timer, pd->compute);
    GSVD_TRY(gsvd_cuda_pd_counts(pd->compute, &a));
    gsvd_cuda_timer_stop(&pd->timer, pd->compute, GSVD_CUDA_KERNELS, 0);
    GSVD_TRY(gsvd_cuda_slot_consumed(s, pd->compute));
out:
    return rc;
}

int gsvd_cuda_pd_rows(gsvd_cuda_pd *pd, const double *x, size_t nf)
{
    int rc = GSVD_OK;
    struct gsvd_cuda_slot *s = NULL;
    struct gsvd_pdk_sums_args a;
    size_t bytes;

    if (!pd || !pd->open || pd->band.kind != GSVD_PD_DEV_SUMS) {
        gsvd_log_error("internal error: pdist rows outside a float64 band");
        return GSVD_EINTERNAL;
    }
    if (nf == 0 || pd->band.nb == 0)
        return GSVD_OK;
    if (gsvd_mul_size(nf, pd->band.nc, &bytes) < 0 || bytes > SIZE_MAX / sizeof(double))
        return GSVD_ENOMEM;
    bytes *= sizeof(double);
    GSVD_TRY(stage(pd, x, bytes, &s));
    a = (struct gsvd_pdk_sums_args){.x = (const double *)(const void *)s->dev,
                                    .nf = nf,
                                    .nb = pd->band.nb,
                                    .nc = pd->band.nc,
                                    .row_first = 0,
                                    .metric = pd->band.metric,
                                    .p = pd->band.p,
                                    .sums = pd->acc};
    gsvd_cuda_timer_start(&pd->timer, pd->compute);
    GSVD_TRY(gsvd_cuda_pd_sums(pd->compute, &a));
    gsvd_cuda_timer_stop(&pd->timer, pd->compute, GSVD_CUDA_KERNELS, 0);
    GSVD_TRY(gsvd_cuda_slot_consumed(s, pd->compute));
out:
    return rc;
}

int gsvd_cuda_pd_end(gsvd_cuda_pd *pd, void *acc)
{
    int rc = GSVD_OK;

    if (!pd || !pd->open) {
        gsvd_log_error("internal error: a pdist band ends that did not begin");
        return GSVD_EINTERNAL;
    }
    pd->open = 0;
    if (pd->acc_bytes)
        GSVD_CUDA_TRY(
            cudaMemcpyAsync(acc, pd->acc, pd->acc_bytes, cudaMemcpyDeviceToHost, pd->compute));
    GSVD_CUDA_TRY(cudaStreamSynchronize(pd->compute));
    GSVD_CUDA_TRY(cudaStreamSynchronize(pd->copy));
    for (int i = 0; i < 2; i++)
        gsvd_cuda_slot_count(&pd->slot[i], &pd->xfer);
    pd->d2h_bytes += pd->acc_bytes;
    pd->n_bands++;
out:
    return rc;
}
