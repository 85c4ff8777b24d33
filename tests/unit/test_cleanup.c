/* tests/unit/test_cleanup.c - common/cleanup.h: registration and removal tokens, and
 * gsvd_cleanup_add_made's promise that the creation and the registration happen under the
 * registry's lock (a thread that registers meanwhile waits until both are done, as the
 * interrupt path does), that a failed creation registers nothing, and the same lock around
 * gsvd_cleanup_remove_undone's removal and unregistration.  The interrupt path
 * itself (gsvd_cleanup_run_and_hold) keeps the lock until exit, so test_reliability.py covers
 * it through real signals. */
#include "gsvd_config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/err.h"
#include "common/log.h"
#include "gsvd_test.h"

static void nothing(void *arg)
{
    (void)arg;
}

static atomic_int other_registered; /* the other thread's gsvd_cleanup_add returned */
static int other_token;

static void *register_other(void *arg)
{
    (void)arg;
    other_token = gsvd_cleanup_add(nothing, NULL);
    atomic_store(&other_registered, 1);
    return NULL;
}

struct make_job {
    pthread_t th;
    int started, seen_during; /* the thread started; it had registered before make returned */
};

/* Start a thread that registers, give it time to try, and note whether it got through. */
static int make_slow(void *arg)
{
    struct make_job *j = arg;
    struct timespec ts = {0, 100 * 1000 * 1000};
    j->started = pthread_create(&j->th, NULL, register_other, NULL) == 0;
    nanosleep(&ts, NULL);
    j->seen_during = atomic_load(&other_registered);
    return GSVD_OK;
}

/* gsvd_cleanup_remove_undone's undo: the same probe as make_slow */
static void undo_slow(void *arg)
{
    (void)make_slow(arg);
}

static void count_undo(void *arg)
{
    ++*(int *)arg;
}

static int make_fails(void *arg)
{
    (void)arg;
    return GSVD_EIO;
}

int main(int argc, char **argv)
{
    struct make_job j = {0};
    int t1, t2, t3, undone = 0;

    if (gsvd_test_args(argc, argv, "test_cleanup"))
        return 2;
    t1 = gsvd_cleanup_add(nothing, NULL);
    t2 = gsvd_cleanup_add(nothing, NULL);
    GSVD_CHECK(t1 > 0 && t2 > 0 && t1 != t2);
    gsvd_cleanup_remove(t1);
    gsvd_cleanup_remove(t1); /* twice, and 0: accepted */
    gsvd_cleanup_remove(0);

    t3 = gsvd_cleanup_add_made(make_slow, &j, nothing, NULL);
    GSVD_CHECK(t3 > 0 && t3 != t2);
    GSVD_CHECK(j.started);
    if (j.started)
        pthread_join(j.th, NULL);
    GSVD_CHECK(!j.seen_during); /* held off until the creation was registered */
    GSVD_CHECK(atomic_load(&other_registered) && other_token > 0);
    GSVD_CHECK(other_token != t3);

    GSVD_CHECK_RC(gsvd_cleanup_add_made(make_fails, NULL, nothing, NULL), GSVD_EIO);
    gsvd_cleanup_remove(t2);
    gsvd_cleanup_remove(other_token);

    /* the undo runs under the lock too: a registration meanwhile waits until it is done */
    atomic_store(&other_registered, 0);
    j = (struct make_job){0};
    gsvd_cleanup_remove_undone(t3, undo_slow, &j);
    GSVD_CHECK(j.started);
    if (j.started)
        pthread_join(j.th, NULL);
    GSVD_CHECK(!j.seen_during);
    GSVD_CHECK(atomic_load(&other_registered) && other_token > 0);
    gsvd_cleanup_remove(other_token);
    gsvd_cleanup_remove_undone(0, count_undo, &undone); /* token 0: the undo still runs */
    GSVD_CHECK(undone == 1);
    return gsvd_test_report("test_cleanup");
}
