/* common/parallel.c - see parallel.h. */
#include "gsvd_config.h"
#include "common/parallel.h"

#include <pthread.h>

#include "common/err.h"

struct par_job {
    int (*fn)(void *, size_t);
    void *ctx;
    size_t t;
    int rc;
};

static void *par_main(void *arg)
{
    struct par_job *j = arg;
    j->rc = j->fn(j->ctx, j->t);
    return NULL;
}

int gsvd_parallel(size_t n_threads, int (*fn)(void *ctx, size_t t), void *ctx)
{
    enum { MAX_THREADS = GSVD_PARALLEL_MAX };
    pthread_t th[MAX_THREADS];
    struct par_job jobs[MAX_THREADS];
    int started[MAX_THREADS];
    int rc = GSVD_OK;

    if (n_threads < 1)
        n_threads = 1;
    if (n_threads > MAX_THREADS)
        n_threads = MAX_THREADS;
    for (size_t t = 0; t < n_threads; t++) {
        jobs[t] = (struct par_job){fn, ctx, t, GSVD_OK};
        started[t] = t > 0 && pthread_create(&th[t], NULL, par_main, &jobs[t]) == 0;
    }
    for (size_t t = 0; t < n_threads; t++)
        if (!started[t])
            jobs[t].rc = fn(ctx, t);
    for (size_t t = 0; t < n_threads; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        if (rc == GSVD_OK && jobs[t].rc < 0)
            rc = jobs[t].rc;
    }
    return rc;
}
