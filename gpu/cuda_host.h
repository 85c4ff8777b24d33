/* gpu/cuda_host.h - what the CUDA backend takes from the program that uses it: the table of
 * analysis/backend_internal.h (struct gsvd_backend_host), set once before the first backend
 * is created: by the module's init (gpu/module.c) in gensvd, by main() in tests that link the
 * backend directly.
 * Thread safety: set before any backend exists; read-only afterwards. */
#ifndef GSVD_GPU_CUDA_HOST_H
#define GSVD_GPU_CUDA_HOST_H
#include "analysis/backend_internal.h"
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* Keep `host` (borrowed; must outlive every backend).  GSVD_OK, or GSVD_EINVAL (not logged:
 * there may be no logger yet) when host is NULL or older than this build's
 * GSVD_BACKEND_HOST_VERSION. */
GSVD_NODISCARD int gsvd_cuda_host_set(const struct gsvd_backend_host *host);
/* The table set, or NULL before gsvd_cuda_host_set. */
const struct gsvd_backend_host *gsvd_cuda_host(void);

GSVD_EXTERN_C_END
#endif /* GSVD_GPU_CUDA_HOST_H */
