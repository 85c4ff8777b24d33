/* tests/lib/lib_check.h - the library tests' one assertion, shared by tests/lib/test_lib_*.c:
 * check(ok, "what", ...) prints "ok   what" or "FAIL what" and counts it in `passed` or
 * `failed`.  The lines go to `rep` when a test opens one (the silent tests, whose stdout and
 * stderr must stay empty, write a report file), else to stdout.  Single-threaded use only. */
#ifndef GSVD_TESTS_LIB_LIB_CHECK_H
#define GSVD_TESTS_LIB_LIB_CHECK_H
#include <stdarg.h>
#include <stdio.h>

static FILE *rep; /* the report: NULL for stdout */
static int passed, failed;

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void check(int ok, const char *fmt, ...)
{
    FILE *out = rep ? rep : stdout;
    va_list ap;
    va_start(ap, fmt);
    fputs(ok ? "ok   " : "FAIL ", out);
    vfprintf(out, fmt, ap);
    fputc('\n', out);
    va_end(ap);
    if (ok)
        passed++;
    else
        failed++;
}

#endif /* GSVD_TESTS_LIB_LIB_CHECK_H */
