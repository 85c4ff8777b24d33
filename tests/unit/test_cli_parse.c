/* tests/unit/test_cli_parse.c - the command line's own parsers (cli/cli_parse.c, libc only).
 * The oracle is the rules of cli/cli_base.h written out again as values by hand: boundaries,
 * overflow past 2^64, signs, white space, empty strings, trailing garbage, every suffix.  Then
 * the parsers are compared with the library's copies (common/parse.c, analysis/ldprune's LD
 * window; tests/cli_parse_diff.h) on 300,000 generated strings made of the tokens that matter
 * (digits, boundary numbers, suffixes, signs, spaces, ':', '.', exponents, "nan", "0x"), so that
 * neither side changes what it accepts without the other.  Last, ID files (blank and '#' lines,
 * '\r', NUL bytes, standard input) with the error lines they print, and the command line as one
 * string. */
#define _GNU_SOURCE /* open_memstream */
#include "gsvd_config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_base.h"
#include "cli_parse_diff.h"
#include "gsvd_test.h"

#define EINV GENSVD_EINVAL
#define MAX64 UINT64_MAX

static void check_uint(void)
{
    static const struct {
        const char *s;
        uint64_t lo, hi;
        int suffix, rc;
        uint64_t want;
    } t[] = {
        {"0", 0, 10, 0, 0, 0},
        {"10", 0, 10, 0, 0, 10},
        {"11", 0, 10, 0, EINV, 0}, /* above hi */
        {"1", 2, 10, 0, EINV, 0},  /* below lo */
        {"5", 5, 5, 0, 0, 5},      /* lo == hi */
        {"4", 5, 5, 0, EINV, 0},
        {"6", 5, 5, 0, EINV, 0},
        {"007", 0, 10, 0, 0, 7},   /* leading zeros are decimal, not octal */
        {"", 0, 10, 0, EINV, 0},   /* empty */
        {"-1", 0, 10, 0, EINV, 0}, /* signs */
        {"+1", 0, 10, 0, EINV, 0},
        {"-0", 0, 10, 0, EINV, 0},
        {" 1", 0, 10, 0, EINV, 0}, /* a leading space */
        {"1 ", 0, 10, 0, EINV, 0}, /* trailing garbage */
        {"1x", 0, 10, 0, EINV, 0},
        {"0x10", 0, 100, 0, EINV, 0}, /* no hex */
        {"1e3", 0, 10000, 0, EINV, 0},
        {"1.0", 0, 10, 0, EINV, 0},
        {"18446744073709551615", 0, MAX64, 0, 0, MAX64},
        {"18446744073709551616", 0, MAX64, 0, EINV, 0}, /* 2^64 */
        {"99999999999999999999999", 0, MAX64, 0, EINV, 0},
        {"4096", 0, 4096, 0, 0, 4096},
        {"4097", 0, 4096, 0, EINV, 0},
        /* suffixes: powers of 1000, either case, only with suffix 1 */
        {"2k", 0, MAX64, 1, 0, 2000},
        {"2K", 0, MAX64, 1, 0, 2000},
        {"3m", 0, MAX64, 1, 0, 3000000},
        {"3M", 0, MAX64, 1, 0, 3000000},
        {"4g", 0, MAX64, 1, 0, 4000000000},
        {"4G", 0, MAX64, 1, 0, 4000000000},
        {"0k", 0, MAX64, 1, 0, 0},
        {"2k", 0, MAX64, 0, EINV, 0},  /* suffix 0 */
        {"2t", 0, MAX64, 1, EINV, 0},  /* no T */
        {"2kk", 0, MAX64, 1, EINV, 0}, /* one suffix */
        {"2kb", 0, MAX64, 1, EINV, 0},
        {"2 k", 0, MAX64, 1, EINV, 0},
        {"k", 0, MAX64, 1, EINV, 0}, /* no digits */
        {"1.5k", 0, MAX64, 1, EINV, 0},
        {"2k", 0, 1999, 1, EINV, 0}, /* the range applies after the suffix */
        {"2k", 2001, MAX64, 1, EINV, 0},
        {"18446744073709551k", 0, MAX64, 1, 0, 18446744073709551000u},
        {"18446744073709552k", 0, MAX64, 1, EINV, 0}, /* past 2^64 once multiplied */
        {"18446744073g", 0, MAX64, 1, 0, 18446744073000000000u},
        {"18446744074g", 0, MAX64, 1, EINV, 0},
        /* no white space of any kind (strtoull would skip it), and so no wrapped negative */
        {"\t7", 0, 10, 0, EINV, 0},
        {"\t-5", 0, MAX64, 0, EINV, 0},
        {"\n7", 0, 10, 0, EINV, 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint64_t v = 12345;
        int rc = gsvd_cli_parse_uint(t[i].s, t[i].lo, t[i].hi, t[i].suffix, &v);
        GSVD_CHECK(rc == t[i].rc);
        if (rc != t[i].rc)
            fprintf(stderr, "  parse_uint('%s') = %d\n", t[i].s, rc);
        if (rc == 0)
            GSVD_CHECK(v == t[i].want);
        else
            GSVD_CHECK(v == 12345); /* nothing stored on failure */
    }
    GSVD_CHECK_RC(gsvd_cli_parse_uint(NULL, 0, 1, 0, &(uint64_t){0}), EINV);
}

static void check_size(void)
{
    static const struct {
        const char *s;
        int rc;
        uint64_t want;
    } t[] = {
        {"0", 0, 0},
        {"1", 0, 1},
        {"1.5", 0, 1}, /* truncated */
        {"1K", 0, 1024},
        {"1k", 0, 1024},
        {"1KB", 0, 1024},
        {"1Kb", 0, 1024},
        {"1kB", 0, 1024},
        {"0.5K", 0, 512},
        {"512MB", 0, 536870912},
        {"512m", 0, 536870912},
        {"1.5G", 0, 1610612736},
        {"1g", 0, 1073741824},
        {"2T", 0, 2199023255552},
        {"2t", 0, 2199023255552},
        {"1e3", 0, 1000},
        {"1.0e1M", 0, 10485760},
        {"0x10", EINV, 0}, /* strtod's hexadecimal form: refused */
        {"0X1", EINV, 0},
        {"+1", EINV, 0}, /* no sign */
        {" 1", EINV, 0}, /* no white space (strtod would skip it) */
        {"\t1", EINV, 0},
        {" -0", EINV, 0},
        {".5K", 0, 512},
        {"16777215T", 0, 18446742974197923840u},
        {"16777216T", EINV, 0},                             /* 2^64 */
        {"18446744073709549568", 0, 18446744073709549568u}, /* the largest double below 2^64 */
        {"18446744073709551615", EINV, 0},                  /* rounds to 2^64 */
        {"", EINV, 0},
        {"-1", EINV, 0},
        {"-0", EINV, 0},
        {" -1", EINV, 0},
        {"1 ", EINV, 0},
        {"1B", EINV, 0}, /* B only after a multiplier */
        {"1KiB", EINV, 0},
        {"1KBB", EINV, 0},
        {"1P", EINV, 0},
        {"K", EINV, 0},
        {"nan", EINV, 0},
        {"inf", EINV, 0},
        {"1e400", EINV, 0}, /* out of range */
        {"abc", EINV, 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint64_t v = 12345;
        int rc = gsvd_cli_parse_size(t[i].s, &v);
        GSVD_CHECK(rc == t[i].rc);
        if (rc != t[i].rc)
            fprintf(stderr, "  parse_size('%s') = %d\n", t[i].s, rc);
        if (rc == 0) {
            GSVD_CHECK(v == t[i].want);
            if (v != t[i].want)
                fprintf(stderr, "  parse_size('%s') -> %llu\n", t[i].s, (unsigned long long)v);
        } else {
            GSVD_CHECK(v == 12345);
        }
    }
}

static void check_double(void)
{
    static const struct {
        const char *s;
        double lo, hi;
        int rc;
        double want;
    } t[] = {
        {"0.5", 0, 1, 0, 0.5},
        {"0", 0, 1, 0, 0},
        {"1", 0, 1, 0, 1},
        {".5", 0, 1, 0, 0.5},
        {"5.", 0, 10, 0, 5},
        {"1e-5", 0, 1, 0, 1e-5},
        {"0x1p-1", 0, 1, EINV, 0}, /* decimal only, as the integers */
        {"0X1P-1", 0, 1, EINV, 0},
        {" 0.5", 0, 1, EINV, 0}, /* no white space (strtod would skip it) */
        {"\t0.5", 0, 1, EINV, 0},
        {"+0.5", 0, 1, 0, 0.5},
        {"-0.5", -1, 0, 0, -0.5},
        {"1.0000001", 0, 1, EINV, 0}, /* above hi */
        {"-0.1", 0, 1, EINV, 0},      /* below lo */
        {"", 0, 1, EINV, 0},
        {"0.5 ", 0, 1, EINV, 0},
        {"0.5x", 0, 1, EINV, 0},
        {"1,5", 0, 10, EINV, 0},
        {"nan", -DBL_MAX, DBL_MAX, EINV, 0}, /* never NaN or infinity */
        {"NaN", -DBL_MAX, DBL_MAX, EINV, 0},
        {"inf", -DBL_MAX, DBL_MAX, EINV, 0},
        {"-infinity", -DBL_MAX, DBL_MAX, EINV, 0},
        {"1e400", -DBL_MAX, DBL_MAX, EINV, 0},  /* overflow */
        {"1e-400", -DBL_MAX, DBL_MAX, EINV, 0}, /* underflow */
        {"1e308", -DBL_MAX, DBL_MAX, 0, 1e308},
        {"x", 0, 1, EINV, 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        double v = 42;
        int rc = gsvd_cli_parse_double(t[i].s, t[i].lo, t[i].hi, &v);
        GSVD_CHECK(rc == t[i].rc);
        if (rc != t[i].rc)
            fprintf(stderr, "  parse_double('%s') = %d\n", t[i].s, rc);
        GSVD_CHECK(rc == 0 ? v == t[i].want : v == 42);
    }
}

static void check_range_window_choice(void)
{
    static const struct {
        const char *s;
        int rc;
        uint64_t a, b;
    } r[] = {
        {"10:20", 0, 10, 20},
        {"10:", 0, 10, 0},
        {":20", 0, 0, 20},
        {":", 0, 0, 0}, /* everything */
        {"0:1", 0, 0, 1},
        {"1k:2M", 0, 1000, 2000000},
        {"18446744073709551615:", 0, MAX64, 0},
        {":18446744073709551615", 0, 0, MAX64},
        {"0000000000000000000000000000001:", 0, 1, 0},   /* a start of 31 characters */
        {"00000000000000000000000000000001:", -1, 0, 0}, /* of 32 */
        {"20:10", -1, 0, 0},
        {"10:10", -1, 0, 0}, /* empty */
        {":0", -1, 0, 0},
        {"", -1, 0, 0},
        {"10", -1, 0, 0},
        {"a:b", -1, 0, 0},
        {"1:2:3", -1, 0, 0},
        {"-1:", -1, 0, 0},
        {"1:-2", -1, 0, 0},
        {" 1:2", -1, 0, 0},
        {"1 :2", -1, 0, 0},
        {"1:2 ", -1, 0, 0},
        {"18446744073709551616:", -1, 0, 0},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        uint64_t a = 7, b = 7;
        int rc = gsvd_cli_parse_range(r[i].s, &a, &b);
        GSVD_CHECK(rc == r[i].rc);
        if (rc != r[i].rc)
            fprintf(stderr, "  parse_range('%s') = %d\n", r[i].s, rc);
        if (rc == 0)
            GSVD_CHECK(a == r[i].a && b == r[i].b);
    }

    static const struct {
        const char *s;
        int rc;
        uint64_t variants, bp;
    } w[] = {
        {"2", 0, 2, 0},
        {"50", 0, 50, 0},
        {"1099511627776", 0, 1099511627776, 0}, /* 2^40 */
        {"1099511627777", -1, 0, 0},
        {"1", -1, 0, 0}, /* a window of one variant */
        {"0", -1, 0, 0},
        {"10kb", 0, 0, 10000},
        {"1kb", 0, 0, 1000},
        {"10bp", 0, 0, 10},
        {"1bp", 0, 0, 1},
        {"1099511627776kb", 0, 0, 1099511627776000},
        {"1099511627776bp", 0, 0, 1099511627776},
        {"1099511627777bp", -1, 0, 0},
        {"0kb", -1, 0, 0},
        {"0bp", -1, 0, 0},
        {"kb", -1, 0, 0},
        {"1KB", -1, 0, 0}, /* lower case only */
        {"1Kb", -1, 0, 0},
        {"1k", -1, 0, 0},
        {"10 kb", -1, 0, 0},
        {"-1kb", -1, 0, 0},
        {"+2", -1, 0, 0},
        {"", -1, 0, 0},
        {"2x", -1, 0, 0},
        {"00000000000000000000000000001kb", 0, 0, 1000}, /* 31 characters */
        {"000000000000000000000000000001kb", -1, 0, 0},  /* 32: not read as bases */
    };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        uint64_t v = 7, bp = 7;
        int rc = gsvd_cli_parse_window(w[i].s, &v, &bp);
        GSVD_CHECK(rc == w[i].rc);
        if (rc != w[i].rc)
            fprintf(stderr, "  parse_window('%s') = %d\n", w[i].s, rc);
        if (rc == 0)
            GSVD_CHECK(v == w[i].variants && bp == w[i].bp);
    }

    static const char *const names[] = {"a", "bb", "", NULL};
    GSVD_CHECK(gsvd_cli_parse_choice("a", names) == 0);
    GSVD_CHECK(gsvd_cli_parse_choice("bb", names) == 1);
    GSVD_CHECK(gsvd_cli_parse_choice("", names) == 2);
    GSVD_CHECK(gsvd_cli_parse_choice("b", names) == -1);
    GSVD_CHECK(gsvd_cli_parse_choice("A", names) == -1);
    GSVD_CHECK(gsvd_cli_parse_choice("bb ", names) == -1);

    const char *dev = NULL;
    GSVD_CHECK(gsvd_cli_parse_device("auto", &dev) == GENSVD_OK && strcmp(dev, "auto") == 0);
    GSVD_CHECK(gsvd_cli_parse_device("cpu", &dev) == GENSVD_OK && strcmp(dev, "cpu") == 0);
    GSVD_CHECK(gsvd_cli_parse_device("gpu", &dev) == GENSVD_OK && strcmp(dev, "gpu") == 0);
    GSVD_CHECK(gsvd_cli_parse_device("GPU", &dev) == GENSVD_EINVAL);
    GSVD_CHECK(gsvd_cli_parse_device("", &dev) == GENSVD_EINVAL);
}

/* ---- the two sides on generated strings ---------------------------------------------------- */

static void check_differential(void)
{
    static const char *const tokens[] = {
        "0",
        "1",
        "2",
        "9",
        "007",
        "18446744073709551615",
        "18446744073709551616",
        "1099511627776",
        "16777216",
        "4096",
        "k",
        "K",
        "m",
        "M",
        "g",
        "G",
        "t",
        "T",
        "b",
        "B",
        "kb",
        "bp",
        ":",
        ".",
        "e",
        "e-",
        "e+",
        "E400",
        "-",
        "+",
        " ",
        "\t",
        "0x",
        "p",
        "nan",
        "inf",
        "x",
        "#",
        ",",
        "\n",
        "000000000000000",
    };
    uint64_t state = 0x9e3779b97f4a7c15ULL;
    char s[128];
    int bad = 0;

    for (int it = 0; it < 300000 && bad < 20; it++) {
        size_t at = 0, n = 1 + (size_t)(gsvd_test_uniform(&state) * 6);
        for (size_t k = 0; k < n; k++) {
            const char *t;
            char one[2] = {0, 0};
            if (gsvd_test_uniform(&state) < 0.2) { /* any printable byte, or a high one */
                one[0] = (char)(1 + (int)(gsvd_test_uniform(&state) * 255));
                t = one;
            } else {
                t = tokens[(size_t)(gsvd_test_uniform(&state) * (sizeof tokens / sizeof *tokens))];
            }
            size_t len = strlen(t);
            if (at + len >= sizeof s)
                break;
            memcpy(s + at, t, len);
            at += len;
        }
        s[at] = '\0';
        bad += cli_parse_diff(s);
    }
    GSVD_CHECK(bad == 0);
}

/* ---- ID files and the command line ---------------------------------------------------------- */

/* Write `len` bytes to a new temporary file; its path into path (64 bytes). */
static void temp_file(char *path, const char *bytes, size_t len)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, 64, "%.40s/idsXXXXXX", dir && *dir && strlen(dir) < 40 ? dir : "/tmp");
    int fd = mkstemp(path);
    GSVD_CHECK(fd >= 0);
    if (fd < 0)
        return;
    GSVD_CHECK(write(fd, bytes, len) == (ssize_t)len);
    close(fd);
}

/* Read path with stderr captured; returns the rc, the IDs joined by '|' into got, stderr into
 * err. */
static int read_ids(const char *path, char *got, size_t cap, char *err, size_t errcap)
{
    char **ids = NULL, *buf = NULL;
    size_t n = 7, len = 0, at = 0;
    FILE *saved = stderr, *mem = open_memstream(&buf, &len);
    int rc;

    if (!mem)
        abort();
    stderr = mem;
    rc = gsvd_cli_read_id_list(path, &ids, &n);
    stderr = saved;
    fclose(mem);
    snprintf(err, errcap, "%s", buf ? buf : "");
    free(buf);
    got[0] = '\0';
    for (size_t i = 0; i < n && at < cap; i++)
        at += (size_t)snprintf(got + at, cap - at, "%s%s", i ? "|" : "", ids[i]);
    if (rc != GENSVD_OK)
        GSVD_CHECK(ids == NULL && n == 0);
    gsvd_cli_free_id_list(ids, n);
    return rc;
}

static void check_ids(void)
{
    static const struct {
        const char *bytes;
        size_t len;
        int rc;
        const char *ids;
        const char *err; /* after "PATH: " */
    } t[] = {
#define BYTES(lit) lit, sizeof lit - 1
        {BYTES("a\nb\n"), GENSVD_OK, "a|b", ""},
        {BYTES("a\nb"), GENSVD_OK, "a|b", ""}, /* no final newline */
        {BYTES("\n#c\n a\r\n\r\nb\r\r\n"), GENSVD_OK, " a|b", ""},
        {BYTES("x # y\n#\n"), GENSVD_OK, "x # y", ""}, /* '#' only at a line's start */
        {BYTES("NA12878\tx\n"), GENSVD_OK, "NA12878\tx", ""},
        {BYTES("#\0\nb\n"), GENSVD_OK, "b", ""}, /* a NUL in a comment line */
        {BYTES("#x\n\n\r\n"), GENSVD_EFORMAT, "", "no sample IDs"},
        {BYTES(""), GENSVD_EFORMAT, "", "no sample IDs"},
        {BYTES("a\nb\0c\n"), GENSVD_EFORMAT, "", "NUL byte in a sample ID"},
        {BYTES("a\n\0\r\n"), GENSVD_EFORMAT, "", "NUL byte in a sample ID"},
#undef BYTES
    };
    char path[64], got[256], err[512], want[600];

    gsvd_cli_msg_init("test");
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        temp_file(path, t[i].bytes, t[i].len);
        int rc = read_ids(path, got, sizeof got, err, sizeof err);
        GSVD_CHECK(rc == t[i].rc);
        GSVD_CHECK(strcmp(got, t[i].ids) == 0);
        if (t[i].err[0])
            snprintf(want, sizeof want, "gensvd test: error: %s: %s\n", path, t[i].err);
        else
            want[0] = '\0';
        GSVD_CHECK(strcmp(err, want) == 0);
        if (rc != t[i].rc || strcmp(got, t[i].ids) != 0 || strcmp(err, want) != 0)
            fprintf(stderr, "  case %zu: rc %d, ids '%s', stderr '%s'\n", i, rc, got, err);
        unlink(path);
    }
    /* a missing file: the system's reason */
    GSVD_CHECK(read_ids("/nonexistent/ids.txt", got, sizeof got, err, sizeof err) == GENSVD_EIO);
    snprintf(want, sizeof want, "gensvd test: error: /nonexistent/ids.txt: %s\n", strerror(ENOENT));
    GSVD_CHECK(strcmp(err, want) == 0);
    /* a directory opens but cannot be read */
    GSVD_CHECK(read_ids("/", got, sizeof got, err, sizeof err) == GENSVD_EIO);
    GSVD_CHECK(strcmp(err, "gensvd test: error: /: read error\n") == 0);
    /* "-": standard input */
    temp_file(path, "s1\ns2\n", 6);
    if (freopen(path, "rb", stdin)) {
        GSVD_CHECK(read_ids("-", got, sizeof got, err, sizeof err) == GENSVD_OK);
        GSVD_CHECK(strcmp(got, "s1|s2") == 0);
    } else {
        GSVD_CHECK(0); /* stdin could not be pointed at the file */
    }
    unlink(path);
    /* more than one read's worth (64 KiB): 20,000 IDs of 7 bytes */
    {
        size_t n = 20000, len = n * 7;
        char *big = malloc(len + 1), **ids = NULL; /* + 1: snprintf's last NUL */
        size_t got_n = 0;
        GSVD_CHECK(big != NULL);
        if (big) {
            for (size_t i = 0; i < n; i++)
                snprintf(big + 7 * i, 8, "S%05zu\n", i);
            temp_file(path, big, len);
            GSVD_CHECK(gsvd_cli_read_id_list(path, &ids, &got_n) == GENSVD_OK);
            GSVD_CHECK(got_n == n);
            GSVD_CHECK(got_n == n && strcmp(ids[0], "S00000") == 0 &&
                       strcmp(ids[n - 1], "S19999") == 0 && strcmp(ids[12345], "S12345") == 0);
            gsvd_cli_free_id_list(ids, got_n);
            unlink(path);
            free(big);
        }
    }
}

static void check_command_line(void)
{
    char *argv[] = {"pca", "-k", "2", "", "a b"};
    char *s = gsvd_cli_command_line(0, argv);
    GSVD_CHECK(s && strcmp(s, "gensvd") == 0);
    gsvd_cli_free(s);
    s = gsvd_cli_command_line(3, argv);
    GSVD_CHECK(s && strcmp(s, "gensvd pca -k 2") == 0);
    gsvd_cli_free(s);
    s = gsvd_cli_command_line(5, argv); /* words as given: no quoting */
    GSVD_CHECK(s && strcmp(s, "gensvd pca -k 2  a b") == 0);
    gsvd_cli_free(s);
    gsvd_cli_free(NULL);
}

int main(int argc, char **argv)
{
    int rc = gsvd_test_args(argc, argv, "test_cli_parse");
    if (rc)
        return rc;
    check_uint();
    check_size();
    check_double();
    check_range_window_choice();
    check_differential();
    check_ids();
    check_command_line();
    return gsvd_test_report("test_cli_parse");
}
