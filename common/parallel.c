/* common/parallel.c - see parallel.h. */
#include "gsvd_config.h"
#include "common/parallel.h"

#include <pthread.h>

#include "common/err.h"

/* One thread's shares: t, t + step, ... below n; stops at its first failure (fail_t). */
struct par_job {
    int (*fn)(void *, size_t);
    void *ctx;
    size_t t, step, n, fail_t;
    int rc;
};

static void run_shares(struct par_job *j)
{
    for (size_t t = j->t; t < j->n; t += j->step) {
        int rc = j->fn(j->ctx, t);
        if (rc < 0) {
            j->rc = rc;
            j->fail_t = t;
            return;
        }
    }
}

static void *par_main(void *arg)
{
    run_shares(arg);
    return NULL;
}

int gsvd_parallel(size_t n_shares, int (*fn)(void *ctx, size_t t), void *ctx)
{
    enum { MAX_THREADS = GSVD_PARALLEL_MAX };
    pthread_t th[MAX_THREADS];
    struct par_job jobs[MAX_THREADS];
    int started[MAX_THREADS];
    size_t n_threads, fail_t = 0;
    int rc = GSVD_OK;

    if (n_shares < 1)
        n_shares = 1;
    n_threads = n_shares < MAX_THREADS ? n_shares : MAX_THREADS;
    for (size_t k = 0; k < n_threads; k++) {
        jobs[k] = (struct par_job){fn, ctx, k, n_threads, n_shares, 0, GSVD_OK};
        started[k] = k > 0 && pthread_create(&th[k], NULL, par_main, &jobs[k]) == 0;
    }
    for (size_t k = 0; k < n_threads; k++)
        if (!started[k])
            run_shares(&jobs[k]);
    for (size_t k = 0; k < n_threads; k++) {
        if (started[k])
            pthread_join(th[k], NULL);
        if (jobs[k].rc < 0 && (rc == GSVD_OK || jobs[k].fail_t < fail_t)) {
            rc = jobs[k].rc;
            fail_t = jobs[k].fail_t;
        }
    }
    return rc;
}
