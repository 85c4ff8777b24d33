/* common/alloc.c - allocation wrappers with logging and fault injection. */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE (the build asks for POSIX 2008 only) */
#include "gsvd_config.h"
#include "common/alloc.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"

static _Thread_local unsigned long n_failures; /* per thread: see gsvd_alloc_failures */

unsigned long gsvd_alloc_failures(void)
{
    return n_failures;
}

#ifdef GSVD_FAIL_ALLOC
/* GENSVD_FAIL_ALLOC_AT=N: the N-th allocation fails.  Read once, on first use. */
static atomic_long alloc_count;
static long fail_at = -1;
static atomic_int fail_init;

static int should_fail(void)
{
    if (atomic_exchange(&fail_init, 1) == 0) {
        const char *s = getenv("GENSVD_FAIL_ALLOC_AT");
        fail_at = s ? strtol(s, NULL, 10) : 0;
    }
    if (fail_at <= 0)
        return 0;
    return atomic_fetch_add(&alloc_count, 1) + 1 == fail_at;
}
#else
static int should_fail(void)
{
    return 0;
}
#endif

void *gsvd_malloc(size_t n)
{
    void *p = should_fail() ? NULL : malloc(n ? n : 1);
    if (!p) {
        n_failures++;
        gsvd_log_error("out of memory (%zu bytes)", n);
    }
    return p;
}

void *gsvd_calloc(size_t count, size_t size)
{
    void *p = NULL;
    if (!should_fail())
        p = calloc(count ? count : 1, size ? size : 1);
    if (!p) {
        n_failures++;
        gsvd_log_error("out of memory (%zu x %zu bytes)", count, size);
    }
    return p;
}

void *gsvd_realloc(void *p, size_t n)
{
    void *q = should_fail() ? NULL : realloc(p, n ? n : 1);
    if (!q) {
        n_failures++;
        gsvd_log_error("out of memory (%zu bytes)", n);
    }
    return q;
}

char *gsvd_strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *p = gsvd_malloc(len + 1);
    if (!p)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *gsvd_strdup(const char *s)
{
    return gsvd_strndup(s, strlen(s));
}

void *gsvd_aligned_alloc(size_t align, size_t n)
{
    void *p = NULL;
    if (should_fail() || posix_memalign(&p, align, n ? n : 1) != 0)
        p = NULL;
    if (!p) {
        n_failures++;
        gsvd_log_error("out of memory (%zu bytes aligned to %zu)", n, align);
    }
    return p;
}

void *gsvd_alloc_large(size_t n)
{
    enum { HUGE = 2 << 20 };
    void *p;
    if (n < 2 * HUGE)
        return gsvd_aligned_alloc(64, n);
    p = gsvd_aligned_alloc(HUGE, n);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p)
        (void)madvise(p, n / HUGE * HUGE, MADV_HUGEPAGE); /* a hint: failure changes nothing */
#endif
    return p;
}

int gsvd_reserve_large(void *p, size_t *cap_bytes, size_t n, size_t size)
{
    void **pp = p;
    size_t bytes;
    if (gsvd_mul_size(n, size, &bytes) < 0)
        return GSVD_EINVAL;
    if (cap_bytes && bytes <= *cap_bytes && *pp)
        return GSVD_OK;
    gsvd_free(*pp);
    *pp = gsvd_alloc_large(bytes ? bytes : 1);
    if (cap_bytes)
        *cap_bytes = *pp ? bytes : 0;
    return *pp ? GSVD_OK : GSVD_ENOMEM;
}

int gsvd_grow(void *p, size_t *cap, size_t need, size_t elem, size_t first)
{
    void **pp = p, *q;
    size_t n = *cap ? *cap : first ? first : 1, bytes;

    if (need <= *cap)
        return GSVD_OK;
    while (n < need)
        n = n > SIZE_MAX / 2 ? need : n * 2;
    if (gsvd_mul_size(n, elem, &bytes) < 0) {
        gsvd_log_error("out of memory (%zu elements of %zu bytes overflow size_t)", n, elem);
        return GSVD_ENOMEM;
    }
    q = gsvd_realloc(*pp, bytes);
    if (!q)
        return GSVD_ENOMEM;
    *pp = q;
    *cap = n;
    return GSVD_OK;
}

void gsvd_free(void *p)
{
    free(p);
}

char *gsvd_asprintf(const char *fmt, ...)
{
    va_list ap;
    int n;
    char *p;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    p = gsvd_malloc((size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}
