/* common/parallel.h - the one threading layer: starting and joining threads, handing out work
 * by index, and carrying the first error back.  Every thread gensvd's analyses start comes from
 * here (common/pipeline.c builds its workers on gsvd_threads_start), so thread counts are
 * clamped, and thread or task indices assigned, in this file alone.
 * Thread safety: the callbacks run concurrently on different indices; the calls themselves
 * share no state. */
#ifndef GSVD_COMMON_PARALLEL_H
#define GSVD_COMMON_PARALLEL_H
#include <pthread.h>
#include <stddef.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* Most threads one call starts. */
#define GSVD_PARALLEL_MAX 256

/* Threads a call with n_threads wanted runs on: n_threads clamped to 1..GSVD_PARALLEL_MAX.
 * Per-worker scratch for gsvd_parallel_tasks is sized by this. */
size_t gsvd_parallel_workers(size_t n_threads);

/* Call fn(ctx, t) for every share t in [0, n_shares) on min(n_shares, GSVD_PARALLEL_MAX)
 * threads: thread k runs shares k, k + threads, ... (thread 0 is the caller's; a thread that
 * cannot be started has its shares run on the caller's).  A thread stops at its first failing
 * share.  Returns GSVD_OK or the failure of the lowest failing share. */
GSVD_NODISCARD int gsvd_parallel(size_t n_shares, int (*fn)(void *ctx, size_t t), void *ctx);

/* Call fn(ctx, worker, task) for every task in [0, n_tasks), handed out in increasing order
 * to whichever of min(gsvd_parallel_workers(n_threads), n_tasks) workers is free; `worker`
 * (below gsvd_parallel_workers(n_threads)) names per-worker scratch, never two tasks at once.
 * Which worker runs a task must not change its result (that is what keeps results independent
 * of the thread count).  After the first failure no new task starts.  Returns GSVD_OK (also for
 * n_tasks 0) or the failure of the lowest failing task. */
GSVD_NODISCARD int gsvd_parallel_tasks(size_t n_threads, size_t n_tasks,
                                       int (*fn)(void *ctx, size_t worker, size_t task), void *ctx);

/* A thread started by gsvd_threads_start: caller-provided storage, one per thread. */
struct gsvd_thread {
    pthread_t th;
    void (*fn)(void *ctx, size_t k);
    void *ctx;
    size_t k;
    const struct gsvd_scope *scope; /* the starter's entered scope (common/scope.h), or NULL */
};

/* Start fn(ctx, k) for k = 0, 1, ... n - 1 on threads of their own (t[k]), each under the
 * calling thread's scope (common/scope.h: its log sink, cancel flag), stopping at the
 * first thread that cannot be started (errno is then pthread_create's error, e.g. EAGAIN when
 * there is no room for its stack).  Returns how many were started (t[0 .. returned));
 * the caller runs or gives up the rest, and joins the started ones with gsvd_threads_join. */
size_t gsvd_threads_start(struct gsvd_thread *t, size_t n, void (*fn)(void *ctx, size_t k),
                          void *ctx);
/* Wait for the n threads t[0 .. n) started by gsvd_threads_start. */
void gsvd_threads_join(struct gsvd_thread *t, size_t n);

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_PARALLEL_H */
