/* tests/unit/test_alloc.c - the growing buffers of common/alloc.h: gsvd_reserve_large keeps a
 * buffer that is big enough, replaces one that is not (capacity in bytes), always replaces
 * without a capacity, refuses an n x size that overflows, and reports a failed allocation with
 * nothing held; gsvd_alloc_large aligns large blocks to 2 MiB; gsvd_grow follows its growth
 * rule, keeps the contents and refuses a size that overflows. */
#include "gsvd_config.h"

#include <stdint.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "gsvd_test.h"

/* AddressSanitizer aborts on a request larger than it supports instead of returning NULL */
#if defined(__SANITIZE_ADDRESS__)
#define HUGE_REQUEST_FAILS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HUGE_REQUEST_FAILS 0
#endif
#endif
#ifndef HUGE_REQUEST_FAILS
#define HUGE_REQUEST_FAILS 1
#endif

static void check_reserve(void)
{
    double *d = NULL;
    size_t cap = 0;

    GSVD_CHECK_RC(gsvd_reserve_large(&d, &cap, 100, sizeof *d), GSVD_OK);
    GSVD_CHECK(d != NULL && cap == 100 * sizeof *d);
    if (d)
        d[99] = 1.5;
    double *first = d;
    GSVD_CHECK_RC(gsvd_reserve_large(&d, &cap, 50, sizeof *d), GSVD_OK); /* fits: kept */
    GSVD_CHECK(d == first && cap == 100 * sizeof *d && d[99] == 1.5);
    GSVD_CHECK_RC(gsvd_reserve_large(&d, &cap, 800, 1), GSVD_OK); /* 800 bytes fit too */
    GSVD_CHECK(d == first);
    GSVD_CHECK_RC(gsvd_reserve_large(&d, &cap, 3u << 20, sizeof *d), GSVD_OK); /* 24 MiB */
    GSVD_CHECK(d != NULL && cap == (size_t)(3u << 20) * sizeof *d);
    GSVD_CHECK(((uintptr_t)d & ((2u << 20) - 1)) == 0); /* huge-page aligned */
    if (d)
        memset(d, 0, cap); /* all of it is there (ASan would see an overrun) */

    /* n x size overflows: refused, the buffer untouched */
    first = d;
    GSVD_CHECK_RC(gsvd_reserve_large(&d, &cap, SIZE_MAX / 4, 8), GSVD_EINVAL);
    GSVD_CHECK(d == first && cap == (size_t)(3u << 20) * sizeof *d);
    if (HUGE_REQUEST_FAILS) { /* more than any allocator gives: ENOMEM, nothing held */
        GSVD_CHECK_RC(gsvd_reserve_large(&d, &cap, SIZE_MAX / 2, 1), GSVD_ENOMEM);
        GSVD_CHECK(d == NULL && cap == 0);
    }
    gsvd_free(d);
    d = NULL;
    cap = 0;
    GSVD_CHECK_RC(gsvd_reserve_large(&d, &cap, 0, 8), GSVD_OK); /* nothing asked: a valid block */
    GSVD_CHECK(d != NULL && cap == 0);
    gsvd_free(d);

    /* no capacity: a new block every time */
    unsigned char *b = NULL;
    GSVD_CHECK_RC(gsvd_reserve_large(&b, NULL, 64, 1), GSVD_OK);
    GSVD_CHECK(b != NULL);
    GSVD_CHECK_RC(gsvd_reserve_large(&b, NULL, 32, 1), GSVD_OK);
    GSVD_CHECK(b != NULL);
    gsvd_free(b);
}

/* gsvd_grow against the rule written out: nothing to do while need <= cap; else `first`
 * elements for an empty array, doubled until need fits; contents kept; an element count
 * whose size overflows is refused with the array untouched. */
static void check_grow(void)
{
    int *a = NULL;
    size_t cap = 0, want = 0;

    GSVD_CHECK_RC(gsvd_grow(&a, &cap, 0, sizeof *a, 8), GSVD_OK); /* nothing needed */
    GSVD_CHECK(a == NULL && cap == 0);
    for (size_t n = 0; n < 1000; n++) {
        GSVD_CHECK_RC(gsvd_grow(&a, &cap, n + 1, sizeof *a, 8), GSVD_OK);
        if (n + 1 > want)
            want = want ? 2 * want : 8;
        if (cap != want) {
            GSVD_CHECK(cap == want);
            break;
        }
        a[n] = (int)(3 * n + 1);
    }
    for (size_t n = 0; n < 1000; n++)
        if (a[n] != (int)(3 * n + 1)) {
            GSVD_CHECK(a[n] == (int)(3 * n + 1)); /* kept across every reallocation */
            break;
        }
    GSVD_CHECK(cap == 1024);
    GSVD_CHECK_RC(gsvd_grow(&a, &cap, 5000, sizeof *a, 8), GSVD_OK); /* a jump: doubled past it */
    GSVD_CHECK(cap == 8192 && a[999] == 2998);

    int *before = a;
    GSVD_CHECK_RC(gsvd_grow(&a, &cap, SIZE_MAX / 2, sizeof *a, 8), GSVD_ENOMEM); /* overflows */
    GSVD_CHECK(a == before && cap == 8192 && a[999] == 2998);
    gsvd_free(a);

    char *c = NULL; /* a first capacity of 0 still makes room */
    size_t ccap = 0;
    GSVD_CHECK_RC(gsvd_grow(&c, &ccap, 3, 1, 0), GSVD_OK);
    GSVD_CHECK(c != NULL && ccap == 4);
    gsvd_free(c);
}

int main(int argc, char **argv)
{
    int rc = gsvd_test_args(argc, argv, "test_alloc");
    if (rc)
        return rc;
    check_reserve();
    check_grow();
    return gsvd_test_report("test_alloc");
}
