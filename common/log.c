/* common/log.c - "[E::func] msg" lines on stderr. */
#include "gsvd_config.h"
#include "common/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

/* Set once by main() before any thread starts; read-only afterwards. */
static enum gsvd_log_level log_level = GSVD_LOG_WARN;
static int log_rank = -1; /* distributed runs: "[E::func] rank 2: msg" */

void gsvd_log_set_rank(int rank)
{
    log_rank = rank;
}

void gsvd_log_set_level(enum gsvd_log_level level)
{
    log_level = level;
}

enum gsvd_log_level gsvd_log_get_level(void)
{
    return log_level;
}

void gsvd_log_vmsg(enum gsvd_log_level level, const char *func, const char *fmt, va_list ap)
{
    static const char tags[] = "-EWID";
    char line[2048];
    int saved = errno;
    int n;

    if (level > log_level || level <= GSVD_LOG_OFF)
        return;
    if (log_rank >= 0)
        n = snprintf(line, sizeof line, "[%c::%s] rank %d: ", tags[level], func, log_rank);
    else
        n = snprintf(line, sizeof line, "[%c::%s] ", tags[level], func);
    if (n < 0 || (size_t)n >= sizeof line)
        n = 0;
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    /* one fputs of a whole line: stdio's lock keeps threads' lines apart */
    n = 0;
    while (line[n] != '\0')
        n++;
    line[n] = '\n';
    line[n + 1] = '\0';
    fputs(line, stderr);
    errno = saved;
}

void gsvd_log_msg(enum gsvd_log_level level, const char *func, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    gsvd_log_vmsg(level, func, fmt, ap);
    va_end(ap);
}
