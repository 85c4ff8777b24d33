/* tests/unit/test_parallel_tasks.c - gsvd_parallel_tasks and gsvd_threads_start/join
 * (common/parallel.h), against counts written out here: every task runs exactly once, worker
 * indices stay below gsvd_parallel_workers() and never run two tasks at once (per-worker
 * scratch), the lowest failing task decides the result and no task starts after a failure is
 * seen; started threads each run once with their own index. */
#include "gsvd_config.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "common/parallel.h"
#include "gsvd_test.h"

enum { MAX_TASKS = 5000 };

struct ctx {
    atomic_int calls[MAX_TASKS];
    atomic_int busy[GSVD_PARALLEL_MAX]; /* a worker index in use */
    atomic_int clash;                   /* a worker index ran two tasks at once */
    atomic_int bad_worker;              /* an index >= gsvd_parallel_workers(n_threads) */
    size_t n_workers, fail_a, fail_b;   /* fail_a: GSVD_EIO, fail_b: GSVD_ENOMEM */
};

static int task(void *vctx, size_t worker, size_t t)
{
    struct ctx *c = vctx;
    int rc = GSVD_OK;
    if (worker >= c->n_workers) {
        atomic_store(&c->bad_worker, 1);
        return GSVD_OK;
    }
    if (atomic_fetch_add(&c->busy[worker], 1) != 0)
        atomic_store(&c->clash, 1);
    if (t < MAX_TASKS)
        atomic_fetch_add(&c->calls[t], 1);
    rc = t == c->fail_a ? GSVD_EIO : t == c->fail_b ? GSVD_ENOMEM : GSVD_OK;
    atomic_fetch_sub(&c->busy[worker], 1);
    return rc;
}

static void run(size_t n_threads, size_t n_tasks, size_t fail_a, size_t fail_b, int want_rc)
{
    static struct ctx c;
    size_t once = 0, never = 0;
    for (size_t t = 0; t < MAX_TASKS; t++)
        atomic_init(&c.calls[t], 0);
    for (size_t k = 0; k < GSVD_PARALLEL_MAX; k++)
        atomic_init(&c.busy[k], 0);
    atomic_init(&c.clash, 0);
    atomic_init(&c.bad_worker, 0);
    c.n_workers = gsvd_parallel_workers(n_threads);
    c.fail_a = fail_a;
    c.fail_b = fail_b;
    GSVD_CHECK_RC(gsvd_parallel_tasks(n_threads, n_tasks, task, &c), want_rc);
    GSVD_CHECK(atomic_load(&c.clash) == 0);
    GSVD_CHECK(atomic_load(&c.bad_worker) == 0);
    for (size_t t = 0; t < MAX_TASKS; t++) {
        int k = atomic_load(&c.calls[t]);
        GSVD_CHECK(k <= 1);
        once += k == 1;
        never += t < n_tasks && k == 0;
    }
    if (fail_a == SIZE_MAX && fail_b == SIZE_MAX) { /* without failures: every task, once */
        GSVD_CHECK(once == n_tasks);
        if (once != n_tasks)
            fprintf(stderr, "  %zu threads, %zu tasks: %zu ran once\n", n_threads, n_tasks, once);
    } else { /* every task below the lowest failure ran (they were handed out before it) */
        size_t lo = fail_a < fail_b ? fail_a : fail_b;
        for (size_t t = 0; t <= lo && t < MAX_TASKS; t++)
            GSVD_CHECK(atomic_load(&c.calls[t]) == 1);
        (void)never;
    }
}

/* gsvd_threads_start/join: each started thread runs once with its own index. */
static atomic_int seen[64];

static void mark(void *ctx, size_t k)
{
    (void)ctx;
    atomic_fetch_add(&seen[k], 1);
}

static void threads(void)
{
    struct gsvd_thread th[64];
    for (size_t k = 0; k < 64; k++)
        atomic_init(&seen[k], 0);
    size_t started = gsvd_threads_start(th, 64, mark, NULL);
    gsvd_threads_join(th, started);
    GSVD_CHECK(started == 64);
    for (size_t k = 0; k < 64; k++)
        GSVD_CHECK(atomic_load(&seen[k]) == (k < started));
    GSVD_CHECK(gsvd_threads_start(th, 0, mark, NULL) == 0);
}

int main(void)
{
    const size_t none = SIZE_MAX;
    GSVD_CHECK(gsvd_parallel_workers(0) == 1);
    GSVD_CHECK(gsvd_parallel_workers(1) == 1);
    GSVD_CHECK(gsvd_parallel_workers(GSVD_PARALLEL_MAX) == GSVD_PARALLEL_MAX);
    GSVD_CHECK(gsvd_parallel_workers(GSVD_PARALLEL_MAX + 4) == GSVD_PARALLEL_MAX);
    GSVD_CHECK(gsvd_parallel_workers(SIZE_MAX) == GSVD_PARALLEL_MAX);
    run(4, 0, none, none, GSVD_OK); /* nothing to do */
    for (size_t nt = 0; nt <= 3; nt++)
        run(nt, 10, none, none, GSVD_OK);
    run(8, 3, none, none, GSVD_OK);                        /* fewer tasks than threads */
    run(GSVD_PARALLEL_MAX + 4, 1000, none, none, GSVD_OK); /* pdist_big's -t 260 */
    run(SIZE_MAX, MAX_TASKS, none, none, GSVD_OK);
    /* the lowest failing task decides, whichever worker ran it */
    run(1, 8, 5, 2, GSVD_ENOMEM);
    run(4, 8, 2, 5, GSVD_EIO);
    run(4, 3000, 2900, 1500, GSVD_ENOMEM);
    run(GSVD_PARALLEL_MAX + 4, 3000, 257, 2000, GSVD_EIO);
    threads();
    return gsvd_test_report("test_parallel_tasks");
}
