/* cli/backend_registry.c - the one file that names every compiled-in compute backend. */
#include "gsvd_config.h"

#include "analysis/backend.h"
#if GSVD_HAVE_CUDA
#include "gpu/backend_cuda.h"
#endif

const struct gsvd_backend_ops *const gsvd_backend_registry[] = {
#if GSVD_HAVE_CUDA
    &gsvd_backend_cuda_ops,
#endif
    &gsvd_backend_cpu_ops,
    NULL,
};

const char *gsvd_backend_list(void);
const char *gsvd_backend_cuda_info(void);

const char *gsvd_backend_list(void)
{
#if GSVD_HAVE_CUDA
    return "cuda, cpu";
#else
    return "cpu";
#endif
}

/* The --version line about CUDA. */
const char *gsvd_backend_cuda_info(void)
{
#if GSVD_HAVE_CUDA
    return gsvd_cuda_build_info();
#else
    return "not built in";
#endif
}
