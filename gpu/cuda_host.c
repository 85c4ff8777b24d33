/* gpu/cuda_host.c - the program's table, kept for the CUDA backend (gpu/cuda_host.h). */
#include "gsvd_config.h"
#include "gpu/cuda_host.h"

#include "common/err.h"

static const struct gsvd_backend_host *cuda_host_table;

int gsvd_cuda_host_set(const struct gsvd_backend_host *host)
{
    if (!host || host->version < GSVD_BACKEND_HOST_VERSION ||
        host->size < sizeof(struct gsvd_backend_host))
        return GSVD_EINVAL;
    cuda_host_table = host;
    return GSVD_OK;
}

const struct gsvd_backend_host *gsvd_cuda_host(void)
{
    return cuda_host_table;
}
