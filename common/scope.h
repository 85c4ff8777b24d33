/* common/scope.h - what the calling thread's work runs under: where its messages go, the flag
 * that cancels it, and the settings of remote stores.
 * A library call (include/gensvd.h) enters the scope of its context for its duration; threads
 * started by gsvd_threads_start (and the http engine's thread) inherit the scope of the thread
 * that starts them, so everything one call does, on any worker, logs to and stops by its own
 * context, and two calls in two threads share nothing here.  A thread that has entered no scope
 * runs under the process default: messages dropped unless the program installs a sink
 * (gsvd_scope_set_default; include/gensvd.h's gensvd_set_default_log; common/log.h for test
 * programs), never cancelled, remote settings from the environment.
 * Thread safety: the default is set once before threads start; a scope is read-only while
 * entered, except the cancel flag, which any thread (or a signal handler) may set. */
#ifndef GSVD_COMMON_SCOPE_H
#define GSVD_COMMON_SCOPE_H
#include <stdatomic.h>
#include <stdint.h>
#include "common/gsvd_defs.h"
#include "common/log.h"
#include "common/remote.h"
GSVD_EXTERN_C_BEGIN

/* Receives one message: `func` names the function that logged it (for -v detail lines, never
 * for users), `msg` is the text without prefix or newline; both borrowed for the call.  Called
 * from any thread of the work, possibly several at once: it must be thread-safe. */
typedef void (*gsvd_log_sink_fn)(void *ud, enum gsvd_log_level level, const char *func,
                                 const char *msg);

struct gsvd_scope {
    enum gsvd_log_level log_level; /* messages above this level are dropped */
    gsvd_log_sink_fn log_fn;       /* NULL: messages are dropped (in the process default:
                                      unless gsvd_log_set_level was called, common/log.h) */
    void *log_ud;
    const atomic_int *cancel;                /* nonzero: stop; NULL: never */
    const struct gsvd_remote_params *remote; /* NULL: the process default (zarr/store.h,
                                                gsvd_store_set_remote) */
};

/* The calling thread's scope: the one it entered, else the process default.  Never NULL. */
const struct gsvd_scope *gsvd_scope_current(void);

/* Make s (borrowed: must outlive the matching leave) the calling thread's scope; returns the
 * previous one, to be passed to gsvd_scope_leave.  Scopes nest. */
const struct gsvd_scope *gsvd_scope_enter(const struct gsvd_scope *s);
void gsvd_scope_leave(const struct gsvd_scope *previous);

/* The thread's own entered scope, or NULL (used to hand it to a new thread). */
const struct gsvd_scope *gsvd_scope_entered(void);

/* Replace the process default (copied), or only its level.  Call before any thread starts. */
void gsvd_scope_set_default(const struct gsvd_scope *s);
void gsvd_scope_default_level(enum gsvd_log_level level);

/* 1 when the calling thread's scope has been cancelled.  Cheap (one relaxed load): call it
 * between chunks, bands and passes, and return GSVD_ECANCELED (not logged: the caller asked). */
static inline int gsvd_scope_cancelled(void)
{
    const atomic_int *c = gsvd_scope_current()->cancel;
    return c && atomic_load_explicit(c, memory_order_relaxed) != 0;
}

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_SCOPE_H */
