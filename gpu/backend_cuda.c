/* gpu/backend_cuda.c - the CUDA backend (contract in gpu/backend_cuda.h), compiled as C against
 * the C APIs of the CUDA runtime, cuBLAS and cuSOLVER: the core ops (device selection, create
 * and destroy, the symmetric eigensolver, the analysis op) and pdist's device table, which
 * forwards to gpu/pdist_cuda.c.  PCA's device table is gpu/pca_cuda.c, with the data path of a
 * block (gpu/backend_cuda_internal.h holds the state both share). */
#include "gsvd_config.h"
#include "gpu/backend_cuda.h"

#include <stdio.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include "analysis/backend_internal.h"
#include "analysis/pca/pca_device.h"
#include "analysis/pdist/pdist_device.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "gpu/backend_cuda_internal.h"
#include "gpu/cuda_check.h"
#include "gpu/cuda_host.h"
#include "gpu/pdist_cuda.h"
#include "gpu/staging.h"

#define MIN_MAJOR 8 /* compute capability the build targets (sm_80 and newer) */

/* ---- device selection ---------------------------------------------------------------------- */

/* The nth (mod their count) device with compute capability >= MIN_MAJOR; reason in why
 * otherwise. */
static int pick_device(int *dev, size_t nth, char *why, size_t why_len)
{
    int usable[64], n_usable = 0;
    int count = 0, major = 0, minor = 0;
    cudaError_t e = cudaGetDeviceCount(&count);

    if (e != cudaSuccess)
        (void)cudaGetLastError(); /* not sticky, but leave no error behind */
    if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0)) {
        snprintf(why, why_len, "no CUDA device found");
        return 0;
    }
    if (e == cudaErrorInsufficientDriver) {
        snprintf(why, why_len, "no NVIDIA driver, or one older than the CUDA %d.%d runtime",
                 CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
        return 0;
    }
    if (e != cudaSuccess) {
        snprintf(why, why_len, "%s", cudaGetErrorString(e));
        return 0;
    }
    for (int d = 0; d < count; d++) {
        if (gsvd_cuda_tolerate(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                                                      d)) != cudaSuccess ||
            gsvd_cuda_tolerate(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor,
                                                      d)) != cudaSuccess)
            continue;
        if (major >= MIN_MAJOR && n_usable < 64)
            usable[n_usable++] = d;
    }
    if (n_usable > 0) {
        *dev = usable[gsvd_backend_device_pick(nth, (size_t)n_usable)];
        return 1;
    }
    snprintf(why, why_len, "device 0 has compute capability %d.%d; this build needs %d.0 or newer",
             major, minor, MIN_MAJOR);
    return 0;
}

static int cuda_probe(char *why, size_t why_len)
{
    int dev = 0;
    return pick_device(&dev, 0, why, why_len) ? 10 : 0; /* above the CPU's 1 */
}

const char *gsvd_cuda_build_info(void)
{
    return GSVD_CUDA_BUILD;
}

/* ---- lifetime ------------------------------------------------------------------------------ */

static void cuda_destroy(gsvd_backend *be)
{
    struct backend_cuda *b = (struct backend_cuda *)be;
    if (!b)
        return;
    if (b->compute)
        cudaStreamSynchronize(b->compute);
    if (b->copy)
        cudaStreamSynchronize(b->copy);
    gsvd_cuda_timer_drain(&b->timer);
    if (b->timer.on && b->timer.peak_used > 0) { /* PCA ran (pdist reports its own) */
        char line[320];
        gsvd_cuda_timer_format(&b->timer, line, sizeof line);
        gsvd_log_info("cuda: device time: %s", line);
    }
    gsvd_cuda_timer_fini(&b->timer);
    gsvd_cuda_pd_destroy(b->pd);
    for (int i = 0; i < 2; i++)
        gsvd_cuda_slot_fini(&b->slot[i], &b->xfer);
    if (b->xfer.n)
        gsvd_log_info("cuda: H2D %.1f MiB in %zu uploads, %.1f ms of copies: %.2f GB/s",
                      (double)b->xfer.bytes / 1048576.0, b->xfer.n, b->xfer.ms,
                      b->xfer.ms > 0 ? (double)b->xfer.bytes / (b->xfer.ms * 1e6) : 0.0);
    cudaFree(b->z);
    cudaFree(b->hist);
    cudaFree(b->rs);
    cudaFree(b->acc);
    cudaFree(b->ylo);
    cudaFree(b->glo);
    cudaFree(b->grids);
    cudaFree(b->over);
    cudaFree(b->x);
    cudaFree(b->t);
    cudaFree(b->yblk);
    cudaFree(b->y);
    cudaFree(b->gblk);
    cudaFree(b->zd);
    cudaFree(b->g);
    cudaFree(b->u);
    cudaFree(b->out);
    if (b->solver)
        cusolverDnDestroy(b->solver);
    if (b->blas)
        cublasDestroy(b->blas);
    if (b->copy)
        cudaStreamDestroy(b->copy);
    if (b->compute)
        cudaStreamDestroy(b->compute);
    if (b->host)
        b->host->ops->destroy(b->host);
    gsvd_free(b);
}

/* The program's CPU backend (gpu/cuda_host.h), for eigenproblems too small for the device. */
static int host_backend_create(const struct gsvd_backend_params *p, gsvd_backend **out)
{
    const struct gsvd_backend_host *host = gsvd_cuda_host();
    int rc;

    *out = NULL;
    if (!host) {
        gsvd_log_error("internal error: the CUDA module was used before it was initialised");
        return GSVD_EINTERNAL;
    }
    rc = host->cpu->create(p, out);
    if (rc == GSVD_OK && !(*out)->ops)
        (*out)->ops = host->cpu;
    return rc;
}

/* Bind the first usable device, create the two streams (copy, compute), the cuBLAS and
 * cuSOLVER handles on the compute stream, the slot events, and the CPU helper backend.
 * GSVD_ENODEVICE (logged) when no device qualifies; GSVD_EGPU / GSVD_ENOMEM when the runtime
 * fails.  Buffers are allocated by the first pass, Gram or projection. */
static int cuda_create(const struct gsvd_backend_params *p, gsvd_backend **out)
{
    int rc = GSVD_OK;
    char why[256] = "";
    struct cudaDeviceProp prop;
    struct backend_cuda *b = gsvd_calloc(1, sizeof *b);

    *out = NULL;
    if (!b)
        return GSVD_ENOMEM;
    b->base.ops = &gsvd_backend_cuda_ops;
    GSVD_TRY(host_backend_create(p, &b->host));
    if (!pick_device(&b->device, p ? p->local_rank : 0, why, sizeof why)) {
        gsvd_log_error("no usable cuda device: %s", why);
        rc = GSVD_ENODEVICE;
        goto out;
    }
    GSVD_CUDA_TRY(cudaSetDevice(b->device));
    GSVD_CUDA_TRY(cudaStreamCreateWithFlags(&b->copy, cudaStreamNonBlocking));
    GSVD_CUDA_TRY(cudaStreamCreateWithFlags(&b->compute, cudaStreamNonBlocking));
    GSVD_CUBLAS_TRY(cublasCreate(&b->blas));
    GSVD_CUBLAS_TRY(cublasSetStream(b->blas, b->compute));
    /* float32 GEMMs stay float32 (TF32 tensor cores would round the inputs to 10 bits) */
    GSVD_CUBLAS_TRY(cublasSetMathMode(b->blas, CUBLAS_DEFAULT_MATH));
    GSVD_CUSOLVER_TRY(cusolverDnCreate(&b->solver));
    GSVD_CUSOLVER_TRY(cusolverDnSetStream(b->solver, b->compute));
    gsvd_cuda_timer_init(&b->timer);
    for (int i = 0; i < 2; i++)
        GSVD_TRY(gsvd_cuda_slot_init(&b->slot[i]));
    GSVD_CUDA_TRY(cudaMalloc((void **)&b->acc, 2 * sizeof *b->acc));
    GSVD_CUDA_TRY(cudaMalloc((void **)&b->over, sizeof *b->over));
    if (gsvd_cuda_tolerate(cudaGetDeviceProperties(&prop, b->device)) == cudaSuccess)
        gsvd_log_info("cuda: device %d %s (compute capability %d.%d, %.1f GiB)", b->device,
                      prop.name, prop.major, prop.minor,
                      (double)prop.totalGlobalMem / 1073741824.0);
    *out = &b->base;
    b = NULL;
out:
    cuda_destroy(b ? &b->base : NULL);
    return rc;
}

/* ---- symmetric eigensolver ------------------------------------------------------------------ */

/* cuSOLVER's 64-bit syevd on the device for large orders (the exact method's Gram); the small
 * Rayleigh-Ritz problems stay on the host, where a transfer would cost more than the solve.
 * The column-major eigenvectors are transposed on the device (cublasDgeam) into the row-major
 * "eigenvectors in columns" layout of the contract. */
static int cuda_eigh(gsvd_backend *be, size_t n, double *a, double *w)
{
    struct backend_cuda *b = (struct backend_cuda *)be;
    int rc = GSVD_OK, info = 0;
    double *da = NULL, *dw = NULL, *dt = NULL;
    int *dinfo = NULL;
    void *dwork = NULL, *hwork = NULL;
    size_t dbytes = 0, hbytes = 0, nn = n * n;
    cusolverDnParams_t prm = NULL;
    const double one = 1.0, zero = 0.0;

    if (n < GSVD_CUDA_EIGH_DEVICE_MIN)
        return b->host->ops->eigh(b->host, n, a, w);
    if (n > 0x7fffffff)
        return GSVD_EINVAL;
    GSVD_CUDA_TRY(cudaMalloc((void **)&da, nn * sizeof *da));
    GSVD_CUDA_TRY(cudaMalloc((void **)&dw, n * sizeof *dw));
    GSVD_CUDA_TRY(cudaMalloc((void **)&dinfo, sizeof *dinfo));
    GSVD_CUDA_TRY(cudaMemcpyAsync(da, a, nn * sizeof *da, cudaMemcpyHostToDevice, b->compute));
    GSVD_CUSOLVER_TRY(cusolverDnCreateParams(&prm));
    GSVD_CUSOLVER_TRY(cusolverDnXsyevd_bufferSize(
        b->solver, prm, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, (int64_t)n, CUDA_R_64F,
        da, (int64_t)n, CUDA_R_64F, dw, CUDA_R_64F, &dbytes, &hbytes));
    GSVD_CUDA_TRY(cudaMalloc(&dwork, dbytes ? dbytes : 1));
    gsvd_cuda_timer_memory(&b->timer);
    hwork = gsvd_malloc(hbytes ? hbytes : 1);
    if (!hwork) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    gsvd_cuda_timer_start(&b->timer, b->compute);
    GSVD_CUSOLVER_TRY(cusolverDnXsyevd(
        b->solver, prm, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, (int64_t)n, CUDA_R_64F,
        da, (int64_t)n, CUDA_R_64F, dw, CUDA_R_64F, dwork, dbytes, hwork, hbytes, dinfo));
    gsvd_cuda_timer_stop(&b->timer, b->compute, GSVD_CUDA_SOLVER, 0);
    GSVD_CUDA_TRY(cudaMemcpyAsync(&info, dinfo, sizeof info, cudaMemcpyDeviceToHost, b->compute));
    GSVD_CUDA_TRY(cudaStreamSynchronize(b->compute));
    if (info != 0) {
        gsvd_log_error("symmetric eigensolver failed (cusolverDnXsyevd info %d, n %zu)", info, n);
        rc = info < 0 ? GSVD_EINTERNAL : GSVD_EDEGENERATE;
        goto out;
    }
    cudaFree(dwork); /* before the transpose buffer: the largest matrices need the room */
    dwork = NULL;
    GSVD_CUDA_TRY(cudaMalloc((void **)&dt, nn * sizeof *dt));
    gsvd_cuda_timer_memory(&b->timer);
    gsvd_cuda_timer_start(&b->timer, b->compute);
    GSVD_CUBLAS_TRY(cublasDgeam(b->blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)n, (int)n, &one, da, (int)n,
                                &zero, da, (int)n, dt, (int)n));
    gsvd_cuda_timer_stop(&b->timer, b->compute, GSVD_CUDA_SOLVER, 0);
    GSVD_CUDA_TRY(cudaMemcpyAsync(a, dt, nn * sizeof *a, cudaMemcpyDeviceToHost, b->compute));
    GSVD_CUDA_TRY(cudaMemcpyAsync(w, dw, n * sizeof *w, cudaMemcpyDeviceToHost, b->compute));
    GSVD_CUDA_TRY(cudaStreamSynchronize(b->compute));
out:
    if (prm)
        cusolverDnDestroyParams(prm);
    cudaStreamSynchronize(b->compute);
    cudaFree(da);
    cudaFree(dw);
    cudaFree(dt);
    cudaFree(dinfo);
    cudaFree(dwork);
    gsvd_free(hwork);
    return rc;
}

/* ---- pdist (gpu/pdist_cuda.c) ------------------------------------------------------------- */

static int cuda_pd_memory(gsvd_backend *be, uint64_t *bytes)
{
    (void)be;
    return gsvd_cuda_pd_memory(bytes);
}

static int cuda_pd_begin(gsvd_backend *be, const struct gsvd_pd_dev_band *band)
{
    return gsvd_cuda_pd_begin(&((struct backend_cuda *)be)->pd, band);
}

static int cuda_pd_planes(gsvd_backend *be, const uint64_t *planes, size_t nw)
{
    return gsvd_cuda_pd_planes(((struct backend_cuda *)be)->pd, planes, nw);
}

static int cuda_pd_rows(gsvd_backend *be, const double *x, size_t nf)
{
    return gsvd_cuda_pd_rows(((struct backend_cuda *)be)->pd, x, nf);
}

static int cuda_pd_end(gsvd_backend *be, void *acc)
{
    return gsvd_cuda_pd_end(((struct backend_cuda *)be)->pd, acc);
}

static const struct gsvd_pdist_device_ops cuda_pdist_ops = {
    .version = GSVD_PDIST_DEVICE_VERSION,
    .pd_memory = cuda_pd_memory,
    .pd_begin = cuda_pd_begin,
    .pd_planes = cuda_pd_planes,
    .pd_rows = cuda_pd_rows,
    .pd_end = cuda_pd_end,
};

static const void *cuda_analysis(const gsvd_backend *be, enum gsvd_analysis_id an)
{
    (void)be;
    switch (an) {
    case GSVD_AN_PCA:
        return &gsvd_cuda_pca_ops;
    case GSVD_AN_PDIST:
        return &cuda_pdist_ops;
    }
    return NULL;
}

const struct gsvd_backend_ops gsvd_backend_cuda_ops = {
    .version = GSVD_BACKEND_OPS_VERSION,
    .name = "cuda",
    .kind = GSVD_BACKEND_DEVICE,
    .probe = cuda_probe,
    .create = cuda_create,
    .destroy = cuda_destroy,
    .eigh = cuda_eigh,
    .analysis = cuda_analysis,
};
