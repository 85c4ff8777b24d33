/* tests/cli_parse_diff.h - the command line's parsers (cli/cli_parse.c) against the library's
 * (common/parse.c, and analysis/ldprune's LD window) on one string: the two copies on either
 * side of the public boundary must accept and refuse the same strings with the same values.
 * Used by tests/unit/test_cli_parse.c (generated strings) and tests/fuzz/fuzz_cli_parse.c.
 * cli_parse_diff(s) checks every parser under a few ranges and suffix rules and returns the
 * number of disagreements, printing the first of each call on stderr. */
#ifndef GSVD_TESTS_CLI_PARSE_DIFF_H
#define GSVD_TESTS_CLI_PARSE_DIFF_H
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analysis/ldprune/ldprune.h"
#include "cli/cli_base.h"
#include "common/parse.h"

/* "..." with the bytes escaped, into out (for the report). */
static inline const char *cli_parse_diff_show(const char *s, char *out, size_t cap)
{
    size_t at = 0;
    for (; *s && at + 5 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        at += (size_t)snprintf(out + at, cap - at, c >= 0x20 && c < 0x7f ? "%c" : "\\x%02x", c);
    }
    out[at] = '\0';
    return out;
}

static inline int cli_parse_diff(const char *s)
{
    static const struct {
        uint64_t lo, hi;
        int suffix;
    } uints[] = {
        {0, UINT64_MAX, 0}, {0, UINT64_MAX, 1},        {1, 4096, 0}, {0, 4096, 1},
        {2, 3, 0},          {1, (uint64_t)1 << 40, 1}, {5, 5, 0},
    };
    static const double doubles[][2] = {{0, 1}, {-DBL_MAX, DBL_MAX}, {1e-9, 0.5}, {-1, 0}};
    char shown[256];
    int bad = 0;

    for (size_t i = 0; i < sizeof uints / sizeof uints[0]; i++) {
        uint64_t a = 0, b = 0;
        int ra = gsvd_cli_parse_uint(s, uints[i].lo, uints[i].hi, uints[i].suffix, &a);
        int rb = gsvd_parse_uint(s, uints[i].lo, uints[i].hi, uints[i].suffix, &b);
        if (ra != rb || (ra == 0 && a != b)) {
            fprintf(stderr, "parse_uint('%s', %llu, %llu, %d): cli %d %llu, library %d %llu\n",
                    cli_parse_diff_show(s, shown, sizeof shown), (unsigned long long)uints[i].lo,
                    (unsigned long long)uints[i].hi, uints[i].suffix, ra, (unsigned long long)a, rb,
                    (unsigned long long)b);
            bad++;
        }
    }
    {
        uint64_t a = 0, b = 0;
        int ra = gsvd_cli_parse_size(s, &a), rb = gsvd_parse_size(s, &b);
        if (ra != rb || (ra == 0 && a != b)) {
            fprintf(stderr, "parse_size('%s'): cli %d %llu, library %d %llu\n",
                    cli_parse_diff_show(s, shown, sizeof shown), ra, (unsigned long long)a, rb,
                    (unsigned long long)b);
            bad++;
        }
    }
    for (size_t i = 0; i < sizeof doubles / sizeof doubles[0]; i++) {
        double a = 0, b = 0;
        int ra = gsvd_cli_parse_double(s, doubles[i][0], doubles[i][1], &a);
        int rb = gsvd_parse_double(s, doubles[i][0], doubles[i][1], &b);
        if (ra != rb || (ra == 0 && memcmp(&a, &b, sizeof a) != 0)) {
            fprintf(stderr, "parse_double('%s', %g, %g): cli %d %.17g, library %d %.17g\n",
                    cli_parse_diff_show(s, shown, sizeof shown), doubles[i][0], doubles[i][1], ra,
                    a, rb, b);
            bad++;
        }
    }
    {
        uint64_t a[2] = {7, 7}, b[2] = {7, 7};
        int ra = gsvd_cli_parse_range(s, &a[0], &a[1]), rb = gsvd_parse_range(s, &b[0], &b[1]);
        if (ra != rb || (ra == 0 && (a[0] != b[0] || a[1] != b[1]))) {
            fprintf(stderr, "parse_range('%s'): cli %d %llu:%llu, library %d %llu:%llu\n",
                    cli_parse_diff_show(s, shown, sizeof shown), ra, (unsigned long long)a[0],
                    (unsigned long long)a[1], rb, (unsigned long long)b[0],
                    (unsigned long long)b[1]);
            bad++;
        }
    }
    {
        uint64_t a[2] = {7, 7}, b[2] = {7, 7};
        int ra = gsvd_cli_parse_window(s, &a[0], &a[1]);
        int rb = gsvd_ldprune_parse_window(s, &b[0], &b[1]) < 0 ? -1 : 0;
        if (ra != rb || (ra == 0 && (a[0] != b[0] || a[1] != b[1]))) {
            fprintf(stderr, "parse_window('%s'): cli %d %llu/%llu, library %d %llu/%llu\n",
                    cli_parse_diff_show(s, shown, sizeof shown), ra, (unsigned long long)a[0],
                    (unsigned long long)a[1], rb, (unsigned long long)b[0],
                    (unsigned long long)b[1]);
            bad++;
        }
    }
    {
        static const char *const names[] = {"auto", "cpu", "gpu", "", NULL};
        if (gsvd_cli_parse_choice(s, names) != gsvd_parse_choice(s, names)) {
            fprintf(stderr, "parse_choice('%s') differs\n",
                    cli_parse_diff_show(s, shown, sizeof shown));
            bad++;
        }
    }
    return bad;
}

#endif /* GSVD_TESTS_CLI_PARSE_DIFF_H */
