/* tests/gsvd_test.h - minimal assertion harness for unit tests.
 * GSVD_CHECK(cond) records a failure with file:line and goes on; GSVD_CHECK_RC(expr, code)
 * checks a return code; gsvd_test_report() prints one summary line ("N passed, N failed") and
 * returns the process exit status (0 when all passed); gsvd_test_args() reads the command line
 * of a plain unit test. */
#ifndef GSVD_TESTS_GSVD_TEST_H
#define GSVD_TESTS_GSVD_TEST_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"

static int gsvd_test_pass;
static int gsvd_test_fail;

#define GSVD_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            gsvd_test_pass++;                                                                      \
        } else {                                                                                   \
            gsvd_test_fail++;                                                                      \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                        \
        }                                                                                          \
    } while (0)

#define GSVD_CHECK_RC(expr, want)                                                                  \
    do {                                                                                           \
        int gsvd_rc_ = (expr);                                                                     \
        if (gsvd_rc_ == (want)) {                                                                  \
            gsvd_test_pass++;                                                                      \
        } else {                                                                                   \
            gsvd_test_fail++;                                                                      \
            fprintf(stderr, "FAIL %s:%d: %s returned %d, want %d (%s)\n", __FILE__, __LINE__,      \
                    #expr, gsvd_rc_, (int)(want), #want);                                          \
        }                                                                                          \
    } while (0)

#define GSVD_CHECK_NEAR(a, b, tol)                                                                 \
    do {                                                                                           \
        double gsvd_a_ = (a), gsvd_b_ = (b);                                                       \
        if (fabs(gsvd_a_ - gsvd_b_) <= (tol)) {                                                    \
            gsvd_test_pass++;                                                                      \
        } else {                                                                                   \
            gsvd_test_fail++;                                                                      \
            fprintf(stderr, "FAIL %s:%d: %s = %.17g, %s = %.17g, tol %g\n", __FILE__, __LINE__,    \
                    #a, gsvd_a_, #b, gsvd_b_, (double)(tol));                                      \
        }                                                                                          \
    } while (0)

/* The command line of a plain unit test: nothing, or -v to show the logs its error paths write
 * by design (otherwise logging is off).  Returns 0, or 2 after a usage line on stderr. */
static inline int gsvd_test_args(int argc, char **argv, const char *name)
{
    if (argc > 1 && strcmp(argv[1], "-v") != 0) {
        fprintf(stderr, "usage: %s [-v]\n", name);
        return 2;
    }
    gsvd_log_set_level(argc > 1 ? GSVD_LOG_DEBUG : GSVD_LOG_OFF);
    return 0;
}

/* A uniform double in [0, 1) from the xorshift64* state *s (nonzero): test data that is the
 * same on every machine. */
static inline double gsvd_test_uniform(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 0x2545f4914f6cdd1dULL) >> 11) / 9007199254740992.0;
}

static inline int gsvd_test_report(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, gsvd_test_pass, gsvd_test_fail);
    return gsvd_test_fail ? 1 : 0;
}

#endif /* GSVD_TESTS_GSVD_TEST_H */
