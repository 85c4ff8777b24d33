/* gpu/kernels.h - launchers of the CUDA backend's custom kernels (gpu/kernels.cu).
 * Each launcher enqueues one kernel on `stream` and returns GSVD_OK, or GSVD_EGPU (logged) when
 * the launch fails; kernels run asynchronously, so their own faults surface at the next
 * synchronising call.  Pointers are device memory, borrowed for the life of the kernel.  The
 * per-thread bodies live in gpu/kernel_body.h, where their grids are documented.
 * Thread safety: launchers share no state; streams belong to the caller. */
#ifndef GSVD_GPU_KERNELS_H
#define GSVD_GPU_KERNELS_H
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "common/gsvd_defs.h"
#include "gpu/kernel_body.h"
#include "gpu/pdist_body.h"
GSVD_EXTERN_C_BEGIN

/* Standardise a->rows rows into a->z (and count into a->hist when set); rows <= 65535. */
GSVD_NODISCARD int gsvd_cuda_standardise(cudaStream_t stream, const struct gsvd_kb_std_args *a);

/* a->rs[r] = sum of squares of row r. */
GSVD_NODISCARD int gsvd_cuda_rowsq(cudaStream_t stream, const struct gsvd_kb_rowsq_args *a);

/* *acc += rs[0..rows) in order (one thread). */
GSVD_NODISCARD int gsvd_cuda_sum_ordered(cudaStream_t stream, const double *rs, size_t rows,
                                         double *acc);

/* dst[i] += src[i] for i < count (float32 into float64). */
GSVD_NODISCARD int gsvd_cuda_acc_f32(cudaStream_t stream, double *dst, const float *src,
                                     size_t count);

/* Exact sums (gpu/kernel_body.h): hi[i], lo[i] += src[i] on grid[i % c] (device array of c
 * grids; c 1 for one grid), *over (device) += values beyond their bound. */
GSVD_NODISCARD int gsvd_cuda_acc_xsum(cudaStream_t stream, double *hi, double *lo, const float *src,
                                      size_t count, size_t c, const struct gsvd_kb_grid *grid,
                                      uint32_t *over);

/* acc[0], acc[1] += rs[0..rows) exactly on grid g (one thread); *over as above. */
GSVD_NODISCARD int gsvd_cuda_sum_xsum(cudaStream_t stream, const double *rs, size_t rows,
                                      double *acc, struct gsvd_kb_grid g, uint32_t *over);

/* dst[i] = src[i] for i < count (float32 to float64). */
GSVD_NODISCARD int gsvd_cuda_widen(cudaStream_t stream, double *dst, const float *src,
                                   size_t count);

/* Fill the upper triangle (column-major) of the n x n matrix g from its lower triangle (one
 * launch per GSVD_KB_GRID_Y_MAX columns). */
GSVD_NODISCARD int gsvd_cuda_symmetrise(cudaStream_t stream, double *g, size_t n);

/* out[4 t + w] = Philox word w of counter (row0 + t / cols, t % cols), t < count. */
GSVD_NODISCARD int gsvd_cuda_rng_words(cudaStream_t stream, uint64_t seed, uint32_t rng_stream,
                                       uint64_t row0, uint64_t cols, size_t count, uint32_t *out);

/* pdist: add a band's bit-plane counts of a->nw words per plane to a->cnt (grid from nb, nc;
 * rows split into launches of <= 65535 row tiles). */
GSVD_NODISCARD int gsvd_cuda_pd_counts(cudaStream_t stream, const struct gsvd_pdk_counts_args *a);

/* pdist: add a band's float64 sums over a->nf features to a->sums (rows split likewise). */
GSVD_NODISCARD int gsvd_cuda_pd_sums(cudaStream_t stream, const struct gsvd_pdk_sums_args *a);

GSVD_EXTERN_C_END
#endif /* GSVD_GPU_KERNELS_H */
