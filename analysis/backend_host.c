/* analysis/backend_host.c - the table a backend module receives at init
 * (analysis/backend_internal.h, struct gsvd_backend_host): this program's logger, allocator
 * and CPU backend. */
#include "gsvd_config.h"

#include "analysis/backend_internal.h"
#include "common/alloc.h"
#include "common/log.h"

const struct gsvd_backend_host *gsvd_backend_host_table(void)
{
    static const struct gsvd_backend_host host = {
        .version = GSVD_BACKEND_HOST_VERSION,
        .size = sizeof host,
        .log_vmsg = gsvd_log_vmsg,
        .log_get_level = gsvd_log_get_level,
        .malloc = gsvd_malloc,
        .calloc = gsvd_calloc,
        .realloc = gsvd_realloc,
        .free = gsvd_free,
        .cpu = &gsvd_backend_cpu_ops,
    };
    return &host;
}
