/* tests/unit/test_parallel.c - gsvd_parallel (common/parallel.h): every share t in [0, n) is
 * called exactly once, also for more shares than the threads it starts (GSVD_PARALLEL_MAX), and
 * the result is the failure of the lowest failing share. */
#include "gsvd_config.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "common/parallel.h"
#include "gsvd_test.h"

enum { MAX_SHARES = 1000 };

struct ctx {
    atomic_int calls[MAX_SHARES];
    size_t fail_a, fail_b; /* shares that fail: fail_a with GSVD_EIO, fail_b with GSVD_ENOMEM */
};

static int share(void *vctx, size_t t)
{
    struct ctx *c = vctx;
    if (t < MAX_SHARES)
        atomic_fetch_add(&c->calls[t], 1);
    if (t == c->fail_a)
        return GSVD_EIO;
    if (t == c->fail_b)
        return GSVD_ENOMEM;
    return GSVD_OK;
}

static void run(size_t n, size_t fail_a, size_t fail_b, int want_rc)
{
    static struct ctx c;
    size_t once = 0, want = n ? n : 1; /* 0 shares run share 0 once */
    for (size_t t = 0; t < MAX_SHARES; t++)
        atomic_init(&c.calls[t], 0);
    c.fail_a = fail_a;
    c.fail_b = fail_b;
    GSVD_CHECK_RC(gsvd_parallel(n, share, &c), want_rc);
    for (size_t t = 0; t < want; t++)
        once += atomic_load(&c.calls[t]) == 1;
    if (fail_a == SIZE_MAX && fail_b == SIZE_MAX) { /* without failures: every share, once */
        GSVD_CHECK(once == want);
        if (once != want)
            fprintf(stderr, "  %zu shares: %zu called exactly once\n", n, once);
    }
    for (size_t t = want; t < MAX_SHARES; t++)
        GSVD_CHECK(atomic_load(&c.calls[t]) == 0);
}

int main(void)
{
    const size_t none = SIZE_MAX;
    for (size_t n = 0; n <= 3; n++)
        run(n, none, none, GSVD_OK);
    run(GSVD_PARALLEL_MAX, none, none, GSVD_OK);
    run(GSVD_PARALLEL_MAX + 1, none, none, GSVD_OK);
    run(GSVD_PARALLEL_MAX + 4, none, none, GSVD_OK); /* the shares pdist_big's -t 260 makes */
    run(MAX_SHARES, none, none, GSVD_OK);
    /* the lowest failing share decides, whichever thread ran it */
    run(8, 5, 2, GSVD_ENOMEM);
    run(8, 2, 5, GSVD_EIO);
    run(700, 600, 300, GSVD_ENOMEM); /* both beyond one share per thread */
    run(700, 257, 513, GSVD_EIO);    /* one thread runs both (1 mod 256) and stops at 257 */
    return gsvd_test_report("test_parallel");
}
