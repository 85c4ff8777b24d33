/* common/log.h - leveled messages on stderr: "[E::func] msg".
 * The level is process-wide, set once in main() before threads start (GENSVD_LOG_LEVEL or -v/-q).
 * Logging preserves errno.  Thread safety: each message is written with one fputs under stdio's
 * stream lock, so lines from different threads do not interleave. */
#ifndef GSVD_COMMON_LOG_H
#define GSVD_COMMON_LOG_H
#include <stdarg.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

enum gsvd_log_level {
    GSVD_LOG_OFF = 0,
    GSVD_LOG_ERROR = 1,
    GSVD_LOG_WARN = 2,
    GSVD_LOG_INFO = 3,
    GSVD_LOG_DEBUG = 4,
};

void gsvd_log_set_level(enum gsvd_log_level level);
/* Distributed runs: name the process's rank in every line (-1, the default: not). */
void gsvd_log_set_rank(int rank);
enum gsvd_log_level gsvd_log_get_level(void);

/* Writes "[L::func] message\n" to stderr when level <= the current level. */
void gsvd_log_msg(enum gsvd_log_level level, const char *func, const char *fmt, ...)
    GSVD_PRINTF(3, 4);
/* The same with a va_list (ap is consumed); a module loaded at run time logs through this
 * (analysis/backend_internal.h, struct gsvd_backend_host). */
void gsvd_log_vmsg(enum gsvd_log_level level, const char *func, const char *fmt, va_list ap)
    GSVD_PRINTF(3, 0);

#define gsvd_log_error(...) gsvd_log_msg(GSVD_LOG_ERROR, __func__, __VA_ARGS__)
#define gsvd_log_warn(...) gsvd_log_msg(GSVD_LOG_WARN, __func__, __VA_ARGS__)
#define gsvd_log_info(...) gsvd_log_msg(GSVD_LOG_INFO, __func__, __VA_ARGS__)
#define gsvd_log_debug(...) gsvd_log_msg(GSVD_LOG_DEBUG, __func__, __VA_ARGS__)

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_LOG_H */
