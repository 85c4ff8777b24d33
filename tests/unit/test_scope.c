/* tests/unit/test_scope.c - common/scope.h: a thread's messages and cancel flag follow the scope
 * it entered, into every worker that gsvd_parallel and gsvd_threads_start give it, and two
 * threads under two scopes at once share nothing. */
#include "gsvd_config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/log.h"
#include "common/parallel.h"
#include "common/scope.h"
#include "gsvd_test.h"

#define N_SHARES 64

struct sink {
    pthread_mutex_t mu;
    int n_msgs;    /* messages received */
    int n_foreign; /* messages whose text names another scope */
    int n_debug;   /* debug messages (above the level: must be 0) */
    char tag[16];  /* the text each message of this scope starts with */
};

static void collect(void *ud, enum gsvd_log_level level, const char *func, const char *msg)
{
    struct sink *s = ud;
    (void)func;
    pthread_mutex_lock(&s->mu);
    s->n_msgs++;
    if (strncmp(msg, s->tag, strlen(s->tag)) != 0)
        s->n_foreign++;
    if (level == GSVD_LOG_DEBUG)
        s->n_debug++;
    pthread_mutex_unlock(&s->mu);
}

struct job {
    struct sink sink;
    atomic_int cancel;
    struct gsvd_scope scope;
    int n_cancel_seen; /* shares that saw the flag */
    atomic_int seen;
};

static int share(void *ctx, size_t t)
{
    struct job *j = ctx;
    gsvd_log_warn("%s share %zu", j->sink.tag, t);
    gsvd_log_debug("%s dropped", j->sink.tag); /* above the scope's level */
    if (gsvd_scope_cancelled())
        atomic_fetch_add(&j->seen, 1);
    return GSVD_OK;
}

static void *run_job(void *arg)
{
    struct job *j = arg;
    const struct gsvd_scope *prev = gsvd_scope_enter(&j->scope);
    for (int rep = 0; rep < 20; rep++)
        if (gsvd_parallel(N_SHARES, share, j) != GSVD_OK)
            break;
    gsvd_scope_leave(prev);
    return NULL;
}

static void job_init(struct job *j, const char *tag, int cancelled)
{
    memset(j, 0, sizeof *j);
    pthread_mutex_init(&j->sink.mu, NULL);
    snprintf(j->sink.tag, sizeof j->sink.tag, "%s", tag);
    atomic_init(&j->cancel, cancelled);
    atomic_init(&j->seen, 0);
    j->scope = (struct gsvd_scope){
        .log_level = GSVD_LOG_WARN, .log_fn = collect, .log_ud = &j->sink, .cancel = &j->cancel};
}

int main(int argc, char **argv)
{
    struct job a, b;
    pthread_t ta, tb;
    atomic_int flag;

    if (gsvd_test_args(argc, argv, "test_scope") != 0)
        return 2;
    /* no scope entered: the process default, never cancelled */
    GSVD_CHECK(gsvd_scope_entered() == NULL);
    GSVD_CHECK(gsvd_scope_current() != NULL);
    GSVD_CHECK(!gsvd_scope_cancelled());

    /* two threads at once, each with its scope and 4 workers per gsvd_parallel */
    job_init(&a, "alpha", 0);
    job_init(&b, "beta", 1);
    GSVD_CHECK(pthread_create(&ta, NULL, run_job, &a) == 0);
    GSVD_CHECK(pthread_create(&tb, NULL, run_job, &b) == 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    GSVD_CHECK(a.sink.n_msgs == 20 * N_SHARES);
    GSVD_CHECK(b.sink.n_msgs == 20 * N_SHARES);
    GSVD_CHECK(a.sink.n_foreign == 0 && b.sink.n_foreign == 0);
    GSVD_CHECK(a.sink.n_debug == 0 && b.sink.n_debug == 0);
    GSVD_CHECK(atomic_load(&a.seen) == 0);             /* never cancelled */
    GSVD_CHECK(atomic_load(&b.seen) == 20 * N_SHARES); /* every worker saw b's flag */

    /* nesting: enter/leave restore the outer scope; the flag is read live */
    atomic_init(&flag, 0);
    struct gsvd_scope outer = {.log_level = GSVD_LOG_OFF, .cancel = &flag};
    struct gsvd_scope inner = {.log_level = GSVD_LOG_OFF};
    const struct gsvd_scope *p0 = gsvd_scope_enter(&outer);
    GSVD_CHECK(p0 == NULL && gsvd_scope_current() == &outer && !gsvd_scope_cancelled());
    atomic_store(&flag, 1);
    GSVD_CHECK(gsvd_scope_cancelled());
    const struct gsvd_scope *p1 = gsvd_scope_enter(&inner);
    GSVD_CHECK(p1 == &outer && !gsvd_scope_cancelled());
    gsvd_scope_leave(p1);
    GSVD_CHECK(gsvd_scope_current() == &outer);
    gsvd_scope_leave(p0);
    GSVD_CHECK(gsvd_scope_entered() == NULL && !gsvd_scope_cancelled());
    pthread_mutex_destroy(&a.sink.mu);
    pthread_mutex_destroy(&b.sink.mu);
    return gsvd_test_report("test_scope");
}
