/* tests/mpi/fail_malloc.c - an LD_PRELOAD shim for tests/mpi/test_mpi.sh: malloc of exactly
 * GSVD_TEST_FAIL_SIZE bytes returns NULL, every other size goes to the C library, so that one
 * rank (the one started with the shim) runs out of memory at one chosen allocation.  Built by
 * the test with the system compiler; not part of gensvd. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

void *malloc(size_t n)
{
    static void *(*real)(size_t);
    static size_t fail = (size_t)-1;
    if (!real) {
        const char *s = getenv("GSVD_TEST_FAIL_SIZE");
        *(void **)&real = dlsym(RTLD_NEXT, "malloc");
        if (s)
            fail = (size_t)strtoull(s, NULL, 10);
    }
    return n == fail ? NULL : real(n);
}
