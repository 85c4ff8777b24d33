/* common/parallel.c - see parallel.h.  Nothing here allocates: the per-thread state lives in
 * arrays of GSVD_PARALLEL_MAX on the caller's stack, so starting work cannot fail for memory
 * (and the allocation-failure sweep does not see it). */
#include "gsvd_config.h"
#include "common/parallel.h"

#include <errno.h>
#include <stdatomic.h>

#include "common/err.h"
#include "common/scope.h"

size_t gsvd_parallel_workers(size_t n_threads)
{
    return n_threads < 1 ? 1 : n_threads > GSVD_PARALLEL_MAX ? GSVD_PARALLEL_MAX : n_threads;
}

/* ---- threads -------------------------------------------------------------------------------- */

static void *thread_main(void *arg)
{
    struct gsvd_thread *t = arg;
    gsvd_scope_enter(t->scope);
    t->fn(t->ctx, t->k);
    return NULL;
}

size_t gsvd_threads_start(struct gsvd_thread *t, size_t n, void (*fn)(void *ctx, size_t k),
                          void *ctx)
{
    for (size_t k = 0; k < n; k++) {
        t[k] = (struct gsvd_thread){.fn = fn, .ctx = ctx, .k = k, .scope = gsvd_scope_entered()};
        int e = pthread_create(&t[k].th, NULL, thread_main, &t[k]);
        if (e != 0) {
            errno = e;
            return k;
        }
    }
    return n;
}

void gsvd_threads_join(struct gsvd_thread *t, size_t n)
{
    for (size_t k = 0; k < n; k++)
        pthread_join(t[k].th, NULL);
}

/* ---- one team: member k of n runs run(ctx, k); member 0 is the caller ---------------------- */

struct team {
    void (*run)(void *ctx, size_t k);
    void *ctx;
};

static void team_thread(void *arg, size_t k)
{
    struct team *tm = arg;
    tm->run(tm->ctx, k + 1);
}

/* Run run(ctx, k) for k in [0, n), 1 <= n <= GSVD_PARALLEL_MAX: k >= 1 on threads of their own,
 * k = 0 and the members whose thread could not be started on the caller's; returns when all
 * have ended. */
static void team_run(size_t n, void (*run)(void *ctx, size_t k), void *ctx)
{
    struct gsvd_thread th[GSVD_PARALLEL_MAX];
    struct team tm = {run, ctx};
    size_t started = n > 1 ? gsvd_threads_start(th, n - 1, team_thread, &tm) : 0;

    for (size_t k = 0; k < n; k++)
        if (k == 0 || k > started)
            run(ctx, k);
    gsvd_threads_join(th, started);
}

/* ---- shares: member k runs shares k, k + n, ... ---------------------------------------------- */

struct shares {
    int (*fn)(void *, size_t);
    void *ctx;
    size_t n_shares, n_members;
    int rc[GSVD_PARALLEL_MAX];      /* each member's first failure, GSVD_OK if none */
    size_t fail[GSVD_PARALLEL_MAX]; /* ... and its share */
};

static void shares_member(void *arg, size_t k)
{
    struct shares *s = arg;
    s->rc[k] = GSVD_OK;
    for (size_t t = k; t < s->n_shares; t += s->n_members) {
        int rc = s->fn(s->ctx, t);
        if (rc < 0) {
            s->rc[k] = rc;
            s->fail[k] = t;
            return;
        }
    }
}

/* The failure of the lowest failing index among n members' first failures. */
static int lowest_failure(const int *rcs, const size_t *fail, size_t n)
{
    int rc = GSVD_OK;
    size_t at = 0;
    for (size_t k = 0; k < n; k++)
        if (rcs[k] < 0 && (rc == GSVD_OK || fail[k] < at)) {
            rc = rcs[k];
            at = fail[k];
        }
    return rc;
}

int gsvd_parallel(size_t n_shares, int (*fn)(void *ctx, size_t t), void *ctx)
{
    struct shares s = {.fn = fn, .ctx = ctx};

    s.n_shares = n_shares < 1 ? 1 : n_shares;
    s.n_members = gsvd_parallel_workers(s.n_shares);
    team_run(s.n_members, shares_member, &s);
    return lowest_failure(s.rc, s.fail, s.n_members);
}

/* ---- tasks: handed out in order to whichever member is free ---------------------------------- */

struct tasks {
    int (*fn)(void *, size_t, size_t);
    void *ctx;
    size_t n_tasks;
    atomic_size_t next; /* next task to hand out */
    atomic_int stop;    /* a task failed: hand out no more */
    int rc[GSVD_PARALLEL_MAX];
    size_t fail[GSVD_PARALLEL_MAX];
};

static void tasks_member(void *arg, size_t k)
{
    struct tasks *s = arg;
    s->rc[k] = GSVD_OK;
    while (!atomic_load(&s->stop)) {
        size_t j = atomic_fetch_add(&s->next, 1);
        if (j >= s->n_tasks)
            return;
        int rc = s->fn(s->ctx, k, j);
        if (rc < 0) {
            s->rc[k] = rc;
            s->fail[k] = j;
            atomic_store(&s->stop, 1);
            return;
        }
    }
}

int gsvd_parallel_tasks(size_t n_threads, size_t n_tasks,
                        int (*fn)(void *ctx, size_t worker, size_t task), void *ctx)
{
    struct tasks s = {.fn = fn, .ctx = ctx, .n_tasks = n_tasks};
    size_t n = gsvd_parallel_workers(n_threads);

    if (n_tasks == 0)
        return GSVD_OK;
    if (n > n_tasks)
        n = n_tasks;
    atomic_init(&s.next, 0);
    atomic_init(&s.stop, 0);
    team_run(n, tasks_member, &s);
    return lowest_failure(s.rc, s.fail, n);
}
