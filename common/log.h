/* common/log.h - leveled messages, handed to the sink of the calling thread's scope
 * (common/scope.h): a library context's caller's callback, or outside any call the process
 * default's, which is silent (the library never writes to stderr) unless the program installs
 * one (include/gensvd.h, gensvd_set_default_log: the command line's "gensvd CMD: error: msg")
 * or, a program linking the layers directly (the unit tests), calls gsvd_log_set_level, which
 * turns on "[E::func] msg" lines on stderr.  Logging preserves errno.  Thread safety: a sink
 * gets whole messages, so lines from different threads do not interleave. */
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

/* The process default's level (the scope of threads that entered none), and its sink, when it
 * has none of its own: gsvd_log_stderr_sink.  For programs that link the layers directly
 * (tests); call before threads start. */
void gsvd_log_set_level(enum gsvd_log_level level);
/* Distributed runs: the process's rank, for sinks to name in every line (-1, the default:
 * not); set once before threads start. */
void gsvd_log_set_rank(int rank);
int gsvd_log_rank(void);
/* The level of the calling thread's scope. */
enum gsvd_log_level gsvd_log_get_level(void);

/* Hands the message to the calling thread's sink when level <= its scope's level. */
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

/* The sink gsvd_log_set_level turns on for the process default: "[E::func] msg" lines on
 * stderr (with the rank when one is set), one fputs each.  ud is unused. */
void gsvd_log_stderr_sink(void *ud, enum gsvd_log_level level, const char *func, const char *msg);

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_LOG_H */
