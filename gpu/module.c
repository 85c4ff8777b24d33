/* gpu/module.c - the entry points of the gensvd_cuda.so module (cli/backend_registry.c loads
 * it with dlopen when a GPU is asked for or probed). */
#include "gsvd_config.h"

#include "gpu/backend_cuda.h"

const struct gsvd_backend_ops *gsvd_cuda_module_ops(void);
const char *gsvd_cuda_module_info(void);

/* The CUDA backend's vtable (static; valid while the module is loaded). */
const struct gsvd_backend_ops *gsvd_cuda_module_ops(void)
{
    return &gsvd_backend_cuda_ops;
}

/* CUDA version and architectures the module was built for (static). */
const char *gsvd_cuda_module_info(void)
{
    return gsvd_cuda_build_info();
}
