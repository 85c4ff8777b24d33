/* gpu/cuda_check.h - error checks for CUDA runtime, cuBLAS and cuSOLVER calls in the C files of
 * gpu/. Each macro runs the call; on failure it logs the library's reason (and, at debug level,
 * the call), sets the caller's `rc` to GSVD_EGPU (GSVD_ENOMEM when the device or pinned memory
 * is exhausted) and jumps to the caller's `out:` label (docs/dev/style.md, section 4).
 * Thread safety: as the wrapped call. */
#ifndef GSVD_GPU_CUDA_CHECK_H
#define GSVD_GPU_CUDA_CHECK_H
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>
#include "common/err.h"
#include "common/log.h"

#define GSVD_CUDA_TRY(call)                                                                        \
    do {                                                                                           \
        cudaError_t gsvd_ce_ = (call);                                                             \
        if (gsvd_ce_ != cudaSuccess) {                                                             \
            gsvd_log_error("GPU error (CUDA): %s", cudaGetErrorString(gsvd_ce_));                  \
            gsvd_log_debug("failed: %s", #call);                                                   \
            rc = gsvd_ce_ == cudaErrorMemoryAllocation ? GSVD_ENOMEM : GSVD_EGPU;                  \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

#define GSVD_CUBLAS_TRY(call)                                                                      \
    do {                                                                                           \
        cublasStatus_t gsvd_bs_ = (call);                                                          \
        if (gsvd_bs_ != CUBLAS_STATUS_SUCCESS) {                                                   \
            gsvd_log_error("GPU error (cuBLAS): %s", cublasGetStatusString(gsvd_bs_));             \
            gsvd_log_debug("failed: %s", #call);                                                   \
            rc = gsvd_bs_ == CUBLAS_STATUS_ALLOC_FAILED ? GSVD_ENOMEM : GSVD_EGPU;                 \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

#define GSVD_CUSOLVER_TRY(call)                                                                    \
    do {                                                                                           \
        cusolverStatus_t gsvd_ss_ = (call);                                                        \
        if (gsvd_ss_ != CUSOLVER_STATUS_SUCCESS) {                                                 \
            gsvd_log_error("GPU error (cuSOLVER): status %d", (int)gsvd_ss_);                      \
            gsvd_log_debug("failed: %s", #call);                                                   \
            rc = gsvd_ss_ == CUSOLVER_STATUS_ALLOC_FAILED ? GSVD_ENOMEM : GSVD_EGPU;               \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* For a call whose failure the caller tolerates (a device property for a log line, free
 * memory for a check, the time of a copy): returns its result and, on failure, clears the
 * error it leaves behind, which cudaGetLastError would otherwise hand to the next launch
 * check (gpu/kernels.cu's, or cuBLAS's own). */
static inline cudaError_t gsvd_cuda_tolerate(cudaError_t e)
{
    if (e != cudaSuccess)
        (void)cudaGetLastError();
    return e;
}

#endif /* GSVD_GPU_CUDA_CHECK_H */
