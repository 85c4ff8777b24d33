/* common/cleanup.h - undo work when the process is interrupted (SIGINT, SIGTERM, SIGHUP).
 * A lower layer registers a callback while it holds something that must not outlive the run
 * (a local output's staging directory) and removes it when done.  cli/signals.c catches the
 * signals with a self-pipe and runs the registered callbacks from an ordinary thread, never
 * from a signal handler, then exits; so the callbacks may allocate, log and walk directories.
 * Thread safety: every call may come from any thread; one mutex guards the registry. */
#ifndef GSVD_COMMON_CLEANUP_H
#define GSVD_COMMON_CLEANUP_H
#include <stddef.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

typedef void (*gsvd_cleanup_fn)(void *arg);

/* Register fn(arg) (arg borrowed: it must stay valid until gsvd_cleanup_remove).  Returns a
 * token > 0 for gsvd_cleanup_remove, or GSVD_ENOMEM (logged). */
GSVD_NODISCARD int gsvd_cleanup_add(gsvd_cleanup_fn fn, void *arg);

/* make(make_arg), then (if it returned >= 0) register fn(arg), both under the registry's lock: an
 * interrupt that comes between the creation and the registration still finds the callback (the
 * interrupt path waits for the lock).  make must not call this header's functions.  Returns
 * the token > 0, make's error (< 0, nothing registered), or GSVD_ENOMEM (logged; what make
 * created stays, for the caller to undo). */
GSVD_NODISCARD int gsvd_cleanup_add_made(int (*make)(void *make_arg), void *make_arg,
                                         gsvd_cleanup_fn fn, void *arg);

/* Unregister a token from gsvd_cleanup_add; once this returns, its callback is not running and
 * will not run.  Accepts 0 and tokens already removed; cannot fail.  While the interrupt path
 * runs the callbacks this blocks until the process exits. */
void gsvd_cleanup_remove(int token);

/* undo(undo_arg), then unregister token, both under the registry's lock: the counterpart of
 * gsvd_cleanup_add_made for an owner that removes what it made itself (an unfinished output
 * closed without committing).  An interrupt meanwhile waits, then finds nothing left to
 * remove; without the lock it could exit between the unregistration and the removal and
 * leave part of the work behind.  undo must not call this header's functions.  Accepts
 * token 0 (undo still runs); cannot fail. */
void gsvd_cleanup_remove_undone(int token, void (*undo)(void *undo_arg), void *undo_arg);

/* Run every registered callback once and keep the registry locked so that no
 * registration or removal proceeds until the caller exits: the interrupt path, just before
 * _exit().  Returns how many callbacks ran (0: nothing was staged, so the message says
 * nothing was removed).  Cannot fail. */
size_t gsvd_cleanup_run_and_hold(void);

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_CLEANUP_H */
