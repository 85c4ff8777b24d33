/* gpu/backend_cuda.h - the CUDA compute backend (C only; no CUDA type leaves gpu/).
 * Implements analysis/backend_internal.h (core) with the device tables of PCA
 * (analysis/pca/pca_device.h) and pdist (analysis/pdist/pdist_device.h, gpu/pdist_cuda.h) with
 * the CUDA runtime, cuBLAS and cuSOLVER:
 *  - blocks arrive in their compact form (int8 dosages, 2-bit codes, or float64) and are copied
 *    into one of two pinned staging buffers, uploaded on a copy stream and standardised on the
 *    device by the kernels of gpu/kernels.cu, while the host prepares the next block;
 *  - a pass multiplies each group of standardised rows with cuBLAS sgemm (T = Z X, then Z^T T)
 *    and adds the group's float32 result into a float64 accumulator, as the CPU backend does;
 *  - the exact Gram uses cublasSsyrk per group (cublasDsyrk straight into float64 above 16,384
 *    samples); symmetric eigenproblems of order >= GSVD_CUDA_EIGH_DEVICE_MIN use cuSOLVER
 *    (64-bit syevd), smaller ones (the Rayleigh-Ritz matrices of the iterative methods) run on
 *    the host with the CPU backend's solver;
 *  - sums of squares are bit-identical to the CPU backend's (exact per-row histograms, ordered
 *    float64 sums); products agree to float32 rounding (different summation order).
 * Sums of squares passed to pass_block / gram_block are added when pass_end / gram_end
 * return (the device work is asynchronous), so callers read them after the end call.
 * Every copy runs on the copy or the compute stream, never on the legacy default stream.  At
 * log level info (-v) the backend times its work on the device (gpu/timer.h) and reports it,
 * with the peak device memory in use, when it is destroyed.
 * Thread safety: one thread per backend handle; probe may be called from any thread. */
#ifndef GSVD_GPU_BACKEND_CUDA_H
#define GSVD_GPU_BACKEND_CUDA_H
#include "analysis/backend.h"
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

#define GSVD_CUDA_EIGH_DEVICE_MIN 512 /* eigh orders from here on run on the device */

extern const struct gsvd_backend_ops gsvd_backend_cuda_ops;

/* One line describing the build, e.g. "CUDA 13.0, sm_80 sm_90 + PTX compute_90" (static
 * storage; never NULL). */
const char *gsvd_cuda_build_info(void);

GSVD_EXTERN_C_END
#endif /* GSVD_GPU_BACKEND_CUDA_H */
