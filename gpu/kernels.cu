/* gpu/kernels.cu - the CUDA backend's custom kernels: thin __global__ wrappers that hand
 * blockIdx/threadIdx to the bodies in gpu/kernel_body.h (shared with the CPU tests), and their
 * launchers.  Kept small on purpose: nvcc compile time is paid for every target architecture. */
#include "gsvd_config.h"
#include "gpu/kernels.h"

#include <cuda_runtime.h>

#include "common/err.h"
#include "common/log.h"

namespace
{

__global__ void k_standardise(gsvd_kb_std_args a)
{
    gsvd_kb_std(&a, blockIdx.x, blockIdx.y, threadIdx.x);
}

__global__ void k_rowsq(gsvd_kb_rowsq_args a)
{
    gsvd_kb_rowsq(&a, blockIdx.x, threadIdx.x);
}

__global__ void k_sum_ordered(const double *rs, size_t rows, double *acc)
{
    gsvd_kb_sum_ordered(rs, rows, acc, blockIdx.x, threadIdx.x);
}

__global__ void k_acc_f32(double *dst, const float *src, size_t count)
{
    gsvd_kb_acc_f32(dst, src, count, blockIdx.x, threadIdx.x);
}

__global__ void k_acc_xsum(double *hi, double *lo, const float *src, size_t count, size_t c,
                           const gsvd_kb_grid *grid, uint32_t *over)
{
    gsvd_kb_acc_xsum(hi, lo, src, count, c, grid, over, blockIdx.x, threadIdx.x);
}

__global__ void k_sum_xsum(const double *rs, size_t rows, double *acc, gsvd_kb_grid g,
                           uint32_t *over)
{
    gsvd_kb_sum_xsum(rs, rows, acc, g, over, blockIdx.x, threadIdx.x);
}

__global__ void k_widen(double *dst, const float *src, size_t count)
{
    gsvd_kb_widen(dst, src, count, blockIdx.x, threadIdx.x);
}

__global__ void k_symmetrise(double *g, size_t n, size_t col0)
{
    gsvd_kb_symmetrise(g, n, col0, blockIdx.x, blockIdx.y, threadIdx.x);
}

__global__ void k_rng_words(uint64_t seed, uint32_t stream, uint64_t row0, uint64_t cols,
                            size_t count, uint32_t *out)
{
    gsvd_kb_rng_words(seed, stream, row0, cols, count, out, blockIdx.x, threadIdx.x);
}

__global__ void k_pd_counts(gsvd_pdk_counts_args a)
{
    __shared__ gsvd_pdk_tile t;
    gsvd_pdk_acc acc = {};
    uint32_t tid = threadIdx.y * GSVD_PDK_TILE + threadIdx.x;

    if (gsvd_pdk_counts_skip(&a, blockIdx.x, blockIdx.y))
        return; /* the whole block: no thread reaches a barrier */
    for (size_t w0 = 0; w0 < a.nw; w0 += GSVD_PDK_CH) {
        gsvd_pdk_counts_load(&a, &t, blockIdx.x, blockIdx.y, tid, w0);
        __syncthreads();
        gsvd_pdk_counts_chunk(&a, &t, threadIdx.x, threadIdx.y, &acc);
        __syncthreads();
    }
    gsvd_pdk_counts_store(&a, blockIdx.x, blockIdx.y, threadIdx.x, threadIdx.y, &acc);
}

__global__ void k_pd_sums(gsvd_pdk_sums_args a)
{
    gsvd_pdk_sums(&a, blockIdx.x, blockIdx.y, threadIdx.x);
}

/* Forget the runtime's last error before a launch, so that launched() reads that launch's
 * status alone.  cudaGetLastError also returns (and clears) an error an earlier call left
 * behind, one its caller tolerated (cudaGetDeviceProperties, cudaMemGetInfo, a timing query
 * of an unfinished event): without this an innocent kernel would be reported as failed.
 * Nothing is lost: every launch is checked right after it, API calls return their own errors,
 * and a fault of a running kernel is sticky (every later call reports it). */
void before_launch()
{
    (void)cudaGetLastError();
}

/* Check a launch; grid dimensions beyond CUDA's limits are a caller bug. */
int launched(const char *what)
{
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        gsvd_log_error("GPU error (CUDA) at a kernel launch: %s", cudaGetErrorString(e));
        gsvd_log_debug("kernel: %s", what);
        return GSVD_EGPU;
    }
    return GSVD_OK;
}

#define GSVD_TRY_LAUNCH(what)                                                                      \
    do {                                                                                           \
        int rc_ = launched(what);                                                                  \
        if (rc_ < 0)                                                                               \
            return rc_;                                                                            \
    } while (0)

int grid_ok(const char *what, size_t x, size_t y)
{
    if (x > 0x7fffffffu || y > GSVD_KB_GRID_Y_MAX) {
        gsvd_log_error("internal error: a GPU kernel's grid %zu x %zu is over CUDA's limits", x, y);
        gsvd_log_debug("kernel: %s", what);
        return 0;
    }
    return 1;
}

} // namespace

int gsvd_cuda_standardise(cudaStream_t stream, const struct gsvd_kb_std_args *a)
{
    size_t gx = gsvd_kb_std_grid_x(a->n);
    if (a->rows == 0 || gx == 0)
        return GSVD_OK;
    if (!grid_ok("standardise", gx, a->rows))
        return GSVD_EINTERNAL;
    before_launch();
    k_standardise<<<dim3((unsigned)gx, (unsigned)a->rows), GSVD_KB_THREADS, 0, stream>>>(*a);
    return launched("standardise");
}

int gsvd_cuda_rowsq(cudaStream_t stream, const struct gsvd_kb_rowsq_args *a)
{
    if (a->rows == 0)
        return GSVD_OK;
    before_launch();
    k_rowsq<<<(unsigned)gsvd_kb_blocks(a->rows), GSVD_KB_THREADS, 0, stream>>>(*a);
    return launched("rowsq");
}

int gsvd_cuda_sum_ordered(cudaStream_t stream, const double *rs, size_t rows, double *acc)
{
    if (rows == 0)
        return GSVD_OK;
    before_launch();
    k_sum_ordered<<<1, 1, 0, stream>>>(rs, rows, acc);
    return launched("sum_ordered");
}

int gsvd_cuda_acc_f32(cudaStream_t stream, double *dst, const float *src, size_t count)
{
    size_t gx = gsvd_kb_blocks(count);
    if (count == 0)
        return GSVD_OK;
    if (!grid_ok("acc_f32", gx, 1))
        return GSVD_EINTERNAL;
    before_launch();
    k_acc_f32<<<(unsigned)gx, GSVD_KB_THREADS, 0, stream>>>(dst, src, count);
    return launched("acc_f32");
}

int gsvd_cuda_acc_xsum(cudaStream_t stream, double *hi, double *lo, const float *src, size_t count,
                       size_t c, const struct gsvd_kb_grid *grid, uint32_t *over)
{
    size_t gx = gsvd_kb_blocks(count);
    if (count == 0)
        return GSVD_OK;
    if (!grid_ok("acc_xsum", gx, 1))
        return GSVD_EINTERNAL;
    before_launch();
    k_acc_xsum<<<(unsigned)gx, GSVD_KB_THREADS, 0, stream>>>(hi, lo, src, count, c, grid, over);
    return launched("acc_xsum");
}

int gsvd_cuda_sum_xsum(cudaStream_t stream, const double *rs, size_t rows, double *acc,
                       struct gsvd_kb_grid g, uint32_t *over)
{
    if (rows == 0)
        return GSVD_OK;
    before_launch();
    k_sum_xsum<<<1, 1, 0, stream>>>(rs, rows, acc, g, over);
    return launched("sum_xsum");
}

int gsvd_cuda_widen(cudaStream_t stream, double *dst, const float *src, size_t count)
{
    size_t gx = gsvd_kb_blocks(count);
    if (count == 0)
        return GSVD_OK;
    if (!grid_ok("widen", gx, 1))
        return GSVD_EINTERNAL;
    before_launch();
    k_widen<<<(unsigned)gx, GSVD_KB_THREADS, 0, stream>>>(dst, src, count);
    return launched("widen");
}

int gsvd_cuda_symmetrise(cudaStream_t stream, double *g, size_t n)
{
    size_t gx = gsvd_kb_blocks(n);
    if (n < 2)
        return GSVD_OK;
    if (!grid_ok("symmetrise", gx, 1))
        return GSVD_EINTERNAL;
    for (size_t col0 = 0; col0 < n; col0 += GSVD_KB_GRID_Y_MAX) {
        size_t ny = n - col0 < GSVD_KB_GRID_Y_MAX ? n - col0 : GSVD_KB_GRID_Y_MAX;
        before_launch();
        k_symmetrise<<<dim3((unsigned)gx, (unsigned)ny), GSVD_KB_THREADS, 0, stream>>>(g, n, col0);
        GSVD_TRY_LAUNCH("symmetrise");
    }
    return GSVD_OK;
}

int gsvd_cuda_rng_words(cudaStream_t stream, uint64_t seed, uint32_t rng_stream, uint64_t row0,
                        uint64_t cols, size_t count, uint32_t *out)
{
    size_t gx = gsvd_kb_blocks(count);
    if (count == 0 || cols == 0)
        return GSVD_OK;
    if (!grid_ok("rng_words", gx, 1))
        return GSVD_EINTERNAL;
    before_launch();
    k_rng_words<<<(unsigned)gx, GSVD_KB_THREADS, 0, stream>>>(seed, rng_stream, row0, cols, count,
                                                              out);
    return launched("rng_words");
}

int gsvd_cuda_pd_counts(cudaStream_t stream, const struct gsvd_pdk_counts_args *a)
{
    size_t gx = gsvd_pdk_tiles(a->nc), gy = gsvd_pdk_tiles(a->nb);
    gsvd_pdk_counts_args l = *a;

    if (a->nb == 0 || a->nw == 0)
        return GSVD_OK;
    if (a->nw % GSVD_PDK_CH != 0 || a->nw > a->W || a->W % GSVD_PDK_CH != 0) {
        gsvd_log_error("internal error: pdist counts of %zu words of %zu per plane (chunks of %d)",
                       a->nw, a->W, GSVD_PDK_CH);
        return GSVD_EINTERNAL;
    }
    for (size_t y0 = 0; y0 < gy; y0 += GSVD_PDK_GRID_Y_MAX) {
        size_t ny = gy - y0 < GSVD_PDK_GRID_Y_MAX ? gy - y0 : GSVD_PDK_GRID_Y_MAX;
        if (!grid_ok("pd_counts", gx, 1))
            return GSVD_EINTERNAL;
        l.tile_row0 = a->tile_row0 + y0;
        before_launch();
        k_pd_counts<<<dim3((unsigned)gx, (unsigned)ny), dim3(GSVD_PDK_TILE, GSVD_PDK_TY), 0,
                      stream>>>(l);
        GSVD_TRY_LAUNCH("pd_counts");
    }
    return GSVD_OK;
}

int gsvd_cuda_pd_sums(cudaStream_t stream, const struct gsvd_pdk_sums_args *a)
{
    size_t gx = gsvd_pdk_sums_blocks(a->nc);
    gsvd_pdk_sums_args l = *a;

    if (a->nb == 0 || a->nf == 0)
        return GSVD_OK;
    if (!grid_ok("pd_sums", gx, 1))
        return GSVD_EINTERNAL;
    for (size_t y0 = 0; y0 < a->nb; y0 += GSVD_PDK_GRID_Y_MAX) {
        size_t ny = a->nb - y0 < GSVD_PDK_GRID_Y_MAX ? a->nb - y0 : GSVD_PDK_GRID_Y_MAX;
        l.row_first = a->row_first + y0;
        before_launch();
        k_pd_sums<<<dim3((unsigned)gx, (unsigned)ny), GSVD_PDK_SUMS_THREADS, 0, stream>>>(l);
        GSVD_TRY_LAUNCH("pd_sums");
    }
    return GSVD_OK;
}
