/* gpu/module.c - the entry points of the gensvd_cuda.so module, the only symbols it exports
 * (gpu/module.map).  lib/backend_registry.c loads it with dlopen when a GPU is asked for or
 * probed, and calls gsvd_cuda_module_init with its table before anything else. */
#include "gsvd_config.h"

#include "gpu/backend_cuda.h"
#include "gpu/cuda_host.h"

/* exported even when the build hides symbols by default (-fvisibility=hidden) */
#define MODULE_EXPORT __attribute__((visibility("default")))

MODULE_EXPORT const struct gsvd_backend_ops *
gsvd_cuda_module_init(const struct gsvd_backend_host *host);
MODULE_EXPORT const char *gsvd_cuda_module_info(void);

/* Keep the program's table (borrowed: it must outlive the module's use) and return the CUDA
 * backend's vtable (static; valid while the module is loaded), or NULL when the table is
 * NULL or older than the module's GSVD_BACKEND_HOST_VERSION (nothing logged: no logger). */
const struct gsvd_backend_ops *gsvd_cuda_module_init(const struct gsvd_backend_host *host)
{
    return gsvd_cuda_host_set(host) == 0 ? &gsvd_backend_cuda_ops : NULL;
}

/* CUDA version and architectures the module was built for (static). */
const char *gsvd_cuda_module_info(void)
{
    return gsvd_cuda_build_info();
}
