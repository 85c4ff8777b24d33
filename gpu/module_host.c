/* gpu/module_host.c - in the module gensvd_cuda.so only: the functions of common/log.h and
 * common/alloc.h that gpu/ calls, forwarding to the program's table (gpu/cuda_host.h), so the
 * module keeps no log level or allocation counter of its own.  The module links no object of
 * common/ (gpu/CMakeLists.txt links it with --no-undefined and exports only its entry points),
 * so a function gpu/ starts to use that is missing here fails the module's link. */
#include "gsvd_config.h"

#include <stdarg.h>
#include <stddef.h>

#include "common/alloc.h"
#include "common/log.h"
#include "gpu/cuda_host.h"

/* The module's init sets the table before any of these can run (gpu/module.c). */

void gsvd_log_msg(enum gsvd_log_level level, const char *func, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    gsvd_cuda_host()->log_vmsg(level, func, fmt, ap);
    va_end(ap);
}

enum gsvd_log_level gsvd_log_get_level(void)
{
    return gsvd_cuda_host()->log_get_level();
}

void *gsvd_malloc(size_t n)
{
    return gsvd_cuda_host()->malloc(n);
}

void *gsvd_calloc(size_t count, size_t size)
{
    return gsvd_cuda_host()->calloc(count, size);
}

void *gsvd_realloc(void *p, size_t n)
{
    return gsvd_cuda_host()->realloc(p, n);
}

void gsvd_free(void *p)
{
    gsvd_cuda_host()->free(p);
}
