/* cli/backend_registry.c - the one file that names the compiled-in compute backends.
 * The compute-backend vtable arrives with the PCA issue; until then gensvd computes on the
 * CPU only and this file reports it. */
#include "gsvd_config.h"

const char *gsvd_backend_list(void);

const char *gsvd_backend_list(void)
{
#if GSVD_HAVE_CUDA
    return "cuda, cpu";
#else
    return "cpu";
#endif
}
