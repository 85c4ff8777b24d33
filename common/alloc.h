/* common/alloc.h - the only heap allocator of gensvd.
 * Every call logs "[E::func] out of memory (N bytes)" and returns NULL on failure.  In builds
 * with GSVD_FAIL_ALLOC (Debug), GENSVD_FAIL_ALLOC_AT=N makes the N-th allocation (1-based) fail,
 * so tests can drive every error path.  Thread safety: all functions are thread-safe. */
#ifndef GSVD_COMMON_ALLOC_H
#define GSVD_COMMON_ALLOC_H
#include <stddef.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

void *gsvd_malloc(size_t n);                  /* caller owns; free with gsvd_free */
void *gsvd_calloc(size_t count, size_t size); /* zeroed; count*size overflow fails */
void *gsvd_realloc(void *p, size_t n);        /* on failure p is untouched and still owned */
char *gsvd_strdup(const char *s);             /* caller owns */
char *gsvd_strndup(const char *s, size_t n);  /* at most n bytes, NUL-terminated */
/* Aligned (for SIMD and BLAS); `align` a power of two >= sizeof(void *). Free with gsvd_free. */
void *gsvd_aligned_alloc(size_t align, size_t n);
void gsvd_free(void *p); /* accepts NULL */
/* For large buffers read at random or in long strides (pair accumulators, bit planes): from
 * 4 MiB on, aligned to 2 MiB and advised as transparent huge pages (Linux madvise; a hint that
 * is ignored where unsupported), so first touch maps 512x fewer pages and the TLB covers
 * more.  Smaller sizes are aligned to 64 bytes.  Free with gsvd_free. */
void *gsvd_alloc_large(size_t n);
/* Make *p (the address of any pointer, passed as void *) hold at least n elements of `size`
 * bytes from gsvd_alloc_large.  *cap_bytes is what *p holds now (0 for nothing); NULL
 * reallocates every time (for callers that keep one capacity for several arrays).  Contents
 * are dropped when it grows.  Returns GSVD_OK, GSVD_EINVAL (n x size overflows) or
 * GSVD_ENOMEM (then *p is NULL and *cap_bytes 0). */
int gsvd_reserve_large(void *p, size_t *cap_bytes, size_t n, size_t size);

/* Make room for `need` elements of `elem` bytes in the array *p (p is the address of any
 * pointer, passed as void *; *p NULL or from this allocator) whose capacity is *cap elements:
 * when need > *cap, *p is reallocated (gsvd_realloc, contents kept) to `first` elements if it
 * held none, doubled until it holds `need` (or to exactly `need` where doubling would
 * overflow), and *cap is set.  The one growth rule of the arrays that grow an element at a
 * time, so that none hand-writes the doubling or the overflow check.  Returns GSVD_OK, or
 * GSVD_ENOMEM (logged: the allocation failed or the size overflows size_t), with *p and *cap
 * unchanged and *p still owned by the caller. */
GSVD_NODISCARD int gsvd_grow(void *p, size_t *cap, size_t need, size_t elem, size_t first);

/* Number of allocations that have failed on the calling thread so far.  Lets code that calls a
 * library allocating through these functions (cJSON) tell out-of-memory from bad input. */
unsigned long gsvd_alloc_failures(void);

/* printf into a new string; caller owns. */
char *gsvd_asprintf(const char *fmt, ...) GSVD_PRINTF(1, 2);

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_ALLOC_H */
