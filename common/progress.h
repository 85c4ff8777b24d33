/* common/progress.h - progress of long work, reported to a callback the caller supplies (the
 * command line draws a bar on a terminal; the library layers never print).  curl's
 * CURLOPT_XFERINFOFUNCTION model: the library says how far it is, the caller decides what to
 * show and when.
 * Thread safety: a report is made from the thread that runs the work's main loop. */
#ifndef GSVD_COMMON_PROGRESS_H
#define GSVD_COMMON_PROGRESS_H
#include <stddef.h>
#include <stdint.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* `what` names the current stage ("pass 3", "band 2/5", "chunks"; borrowed for the call); done
 * of total units (total 0: unknown).  done == total closes the stage.  The callback must not
 * fail and should be cheap (it may be called thousands of times a second). */
typedef void (*gsvd_progress_fn)(void *ctx, const char *what, uint64_t done, uint64_t total);

struct gsvd_progress {
    gsvd_progress_fn fn; /* NULL: no reports */
    void *ctx;
};

static inline void gsvd_progress_report(const struct gsvd_progress *p, const char *what,
                                        uint64_t done, uint64_t total)
{
    if (p && p->fn)
        p->fn(p->ctx, what, done, total);
}

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_PROGRESS_H */
