/* common/scope.c - see scope.h.  The thread's scope is one thread-local pointer; the process
 * default is a static copy set before threads start. */
#include "gsvd_config.h"
#include "common/scope.h"

#include <stddef.h>

static struct gsvd_scope default_scope = {
    .log_level = GSVD_LOG_WARN,
    .log_fn = NULL, /* silent (log.c: stderr for test programs) */
    .log_ud = NULL,
    .cancel = NULL,
    .remote = NULL,
};
static _Thread_local const struct gsvd_scope *thread_scope;

const struct gsvd_scope *gsvd_scope_current(void)
{
    return thread_scope ? thread_scope : &default_scope;
}

const struct gsvd_scope *gsvd_scope_entered(void)
{
    return thread_scope;
}

const struct gsvd_scope *gsvd_scope_enter(const struct gsvd_scope *s)
{
    const struct gsvd_scope *prev = thread_scope;
    thread_scope = s;
    return prev;
}

void gsvd_scope_leave(const struct gsvd_scope *previous)
{
    thread_scope = previous;
}

void gsvd_scope_set_default(const struct gsvd_scope *s)
{
    default_scope = *s;
}

/* The process default's level lives in default_scope (log.c's set/get level use it). */
void gsvd_scope_default_level(enum gsvd_log_level level)
{
    default_scope.log_level = level;
}
