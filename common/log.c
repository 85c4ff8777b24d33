/* common/log.c - leveled messages, handed to the calling thread's sink (common/scope.h). */
#include "gsvd_config.h"
#include "common/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "common/scope.h"

/* Set once by main() before any thread starts; read-only afterwards. */
static int log_rank = -1; /* distributed runs: the sinks name the rank */
/* gsvd_log_set_level was called: the process default without a sink of its own writes to
 * stderr (programs that link the layers directly; the library never calls it) */
static int log_stderr_default;

void gsvd_log_set_rank(int rank)
{
    log_rank = rank;
}

int gsvd_log_rank(void)
{
    return log_rank;
}

void gsvd_log_set_level(enum gsvd_log_level level)
{
    gsvd_scope_default_level(level);
    log_stderr_default = 1;
}

enum gsvd_log_level gsvd_log_get_level(void)
{
    return gsvd_scope_current()->log_level;
}

void gsvd_log_vmsg(enum gsvd_log_level level, const char *func, const char *fmt, va_list ap)
{
    const struct gsvd_scope *sc = gsvd_scope_current();
    gsvd_log_sink_fn fn = sc->log_fn;
    char msg[2048];
    int saved = errno;

    if (!fn && !gsvd_scope_entered() && log_stderr_default)
        fn = gsvd_log_stderr_sink; /* a test program's default without a sink of its own */
    if (level > sc->log_level || level <= GSVD_LOG_OFF || !fn)
        return;
    vsnprintf(msg, sizeof msg, fmt, ap);
    fn(sc->log_ud, level, func, msg);
    errno = saved;
}

void gsvd_log_msg(enum gsvd_log_level level, const char *func, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    gsvd_log_vmsg(level, func, fmt, ap);
    va_end(ap);
}

void gsvd_log_stderr_sink(void *ud, enum gsvd_log_level level, const char *func, const char *msg)
{
    static const char tags[] = "-EWID";
    char line[2304];
    int rank = gsvd_log_rank();
    int n;

    (void)ud;
    if (level < GSVD_LOG_ERROR || level > GSVD_LOG_DEBUG)
        return;
    if (rank >= 0)
        n = snprintf(line, sizeof line, "[%c::%s] rank %d: %s\n", tags[level], func, rank, msg);
    else
        n = snprintf(line, sizeof line, "[%c::%s] %s\n", tags[level], func, msg);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line) { /* truncated: keep the newline */
        line[sizeof line - 2] = '\n';
        line[sizeof line - 1] = '\0';
    }
    fputs(line, stderr); /* one fputs of a whole line: stdio's lock keeps threads' lines apart */
}
