/* cli/cli_parse.c - the command line's text: checked parsers of option values (numbers, sizes,
 * ranges, choices, LD windows, the device), ID files, and the command line as one string
 * (cli_base.h).
 * Why these exist twice: the library parses the same forms in common/parse.c (and the LD
 * window in analysis/ldprune/), for the options its callers set by name with text values.  The
 * command line is a client of the library (include/gensvd.h only, tests/check_sources.sh), and
 * a usage error is the driver's, reported before any call into the library; so the driver
 * parses with its own copy, written against libc alone.  The two copies must accept and refuse
 * the same strings with the same values: tests/unit/test_cli_parse.c checks the rules written
 * out by hand and compares both sides on generated strings, and tests/fuzz/fuzz_cli_parse.c
 * compares them on whatever libFuzzer finds.  A change to one side is a change to both. */
#include "gsvd_config.h"
#include "cli/cli_base.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gsvd_cli_parse_uint(const char *s, uint64_t lo, uint64_t hi, int suffix, uint64_t *out)
{
    char *end = NULL;
    unsigned long long v;
    uint64_t mult = 1;

    /* strtoull would take a sign and leading white space: refuse the sign and a space (the
     * library's rule, kept identical) */
    if (!s || *s < '0' || *s > '9') /* no sign, no white space (strtoull takes both) */
        return GENSVD_EINVAL;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || end == s)
        return GENSVD_EINVAL;
    if (suffix && *end) {
        switch (*end) {
        case 'k':
        case 'K':
            mult = 1000;
            break;
        case 'm':
        case 'M':
            mult = 1000000;
            break;
        case 'g':
        case 'G':
            mult = 1000000000;
            break;
        default:
            return GENSVD_EINVAL;
        }
        end++;
    }
    if (*end || (v && mult > UINT64_MAX / v))
        return GENSVD_EINVAL;
    v *= mult;
    if (v < lo || v > hi)
        return GENSVD_EINVAL;
    *out = v;
    return GENSVD_OK;
}

/* The multiplier of a size suffix (K, M, G, T in either case: powers of 1024), 1 for none, 0
 * for any other character. */
static double size_unit(char c)
{
    switch (c) {
    case '\0':
        return 1;
    case 'k':
    case 'K':
        return 1024.0;
    case 'm':
    case 'M':
        return 1024.0 * 1024;
    case 'g':
    case 'G':
        return 1024.0 * 1024 * 1024;
    case 't':
    case 'T':
        return 1024.0 * 1024 * 1024 * 1024;
    default:
        return 0;
    }
}

int gsvd_cli_parse_size(const char *s, uint64_t *out)
{
    char *end = NULL;
    double v, mult;

    /* a decimal number: no sign, no white space, no hexadecimal (strtod takes all three) */
    if (!s || !((*s >= '0' && *s <= '9') || *s == '.') || strpbrk(s, "xX"))
        return GENSVD_EINVAL;
    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || !isfinite(v) || v < 0)
        return GENSVD_EINVAL;
    mult = size_unit(*end);
    if (mult == 0)
        return GENSVD_EINVAL;
    /* after a suffix: nothing, or a B ("512MB") */
    if (*end && end[1] != '\0' && !((end[1] == 'B' || end[1] == 'b') && end[2] == '\0'))
        return GENSVD_EINVAL;
    v *= mult;
    if (v >= 18446744073709551616.0) /* 2^64 */
        return GENSVD_EINVAL;
    *out = (uint64_t)v;
    return GENSVD_OK;
}

int gsvd_cli_parse_choice(const char *s, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

int gsvd_cli_parse_double(const char *s, double lo, double hi, double *out)
{
    char *end = NULL;
    double v;

    /* a decimal number: no white space, no hexadecimal (strtod takes both) */
    if (!s || !*s || isspace((unsigned char)*s) || strpbrk(s, "xX"))
        return GENSVD_EINVAL;
    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
        return GENSVD_EINVAL;
    *out = v;
    return GENSVD_OK;
}

int gsvd_cli_parse_range(const char *s, uint64_t *a, uint64_t *b)
{
    const char *colon = strchr(s, ':');
    char left[32]; /* a longer start is refused, as the library does */
    size_t len;

    if (!colon || (len = (size_t)(colon - s)) >= sizeof left)
        return -1;
    memcpy(left, s, len);
    left[len] = '\0';
    *a = 0;
    *b = 0;
    if (len && gsvd_cli_parse_uint(left, 0, UINT64_MAX, 1, a) < 0)
        return -1;
    if (colon[1] && gsvd_cli_parse_uint(colon + 1, 1, UINT64_MAX, 1, b) < 0)
        return -1;
    return *b && *b <= *a ? -1 : 0;
}

int gsvd_cli_parse_window(const char *s, uint64_t *variants, uint64_t *bp)
{
    const uint64_t max = (uint64_t)1 << 40;
    size_t n = strlen(s);
    uint64_t v;
    char num[32];

    *variants = 0;
    *bp = 0;
    if (n >= 3 && n < sizeof num &&
        (strcmp(s + n - 2, "kb") == 0 || strcmp(s + n - 2, "bp") == 0)) {
        memcpy(num, s, n - 2);
        num[n - 2] = '\0';
        if (gsvd_cli_parse_uint(num, 1, max, 0, &v) < 0)
            return -1;
        *bp = s[n - 2] == 'k' ? v * 1000 : v;
        return 0;
    }
    if (gsvd_cli_parse_uint(s, 2, max, 0, &v) < 0)
        return -1;
    *variants = v;
    return 0;
}

int gsvd_cli_parse_device(const char *s, const char **out)
{
    static const char *const names[] = {"auto", "cpu", "gpu"};
    for (size_t i = 0; i < GSVD_CLI_LEN(names); i++)
        if (strcmp(s, names[i]) == 0) {
            *out = names[i];
            return GENSVD_OK;
        }
    return GENSVD_EINVAL;
}

/* ---- the command line as one string ---------------------------------------------------------
 */

char *gsvd_cli_command_line(int argc, char **argv)
{
    static const char head[] = "gensvd";
    size_t len = sizeof head - 1, at;
    char *s;

    for (int i = 0; i < argc; i++) {
        size_t k = strlen(argv[i]);
        if (k > SIZE_MAX - 2 - len)
            return NULL;
        len += 1 + k;
    }
    s = malloc(len + 1);
    if (!s)
        return NULL;
    memcpy(s, head, sizeof head - 1);
    at = sizeof head - 1;
    for (int i = 0; i < argc; i++) {
        size_t k = strlen(argv[i]);
        s[at++] = ' ';
        memcpy(s + at, argv[i], k);
        at += k;
    }
    s[at] = '\0';
    return s;
}

void gsvd_cli_free(void *p)
{
    free(p);
}

/* ---- ID files ---------------------------------------------------------------------------------
 */

/* An error line in the library's wording (the messages of its ID reader, unchanged). */
static void id_error(const char *fmt, ...) GSVD_CLI_PRINTF(1, 2);
static void id_error(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gsvd_cli_msg_log(GENSVD_LOG_ERROR, msg);
}

/* The whole of `path` ("-": standard input) into a new buffer of *len bytes (NULL when empty;
 * the caller frees *text).  GENSVD_EIO or GENSVD_ENOMEM, reported. */
static int read_all(const char *path, char **text, size_t *len)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *fp = is_stdin ? stdin : fopen(path, "rb");
    char chunk[65536], *buf = NULL;
    size_t n, used = 0, cap = 0;
    int rc = GENSVD_OK;

    *text = NULL;
    *len = 0;
    if (!fp) {
        id_error("%s: %s", path, strerror(errno));
        return GENSVD_EIO;
    }
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        if (n > cap - used) { /* doubling from 64 bytes, as the library's buffer grows */
            size_t want = cap ? cap : 64;
            char *grown = NULL;
            while (want - used < n && want <= SIZE_MAX / 2)
                want *= 2;
            if (want - used >= n)
                grown = realloc(buf, want);
            if (!grown) {
                id_error("out of memory (%zu bytes)", want);
                rc = GENSVD_ENOMEM;
                break;
            }
            buf = grown;
            cap = want;
        }
        memcpy(buf + used, chunk, n);
        used += n;
    }
    if (rc == GENSVD_OK && ferror(fp)) {
        id_error("%s: read error", is_stdin ? "standard input" : path);
        rc = GENSVD_EIO;
    }
    if (!is_stdin)
        fclose(fp);
    if (rc != GENSVD_OK) {
        free(buf);
        return rc;
    }
    *text = buf;
    *len = used;
    return GENSVD_OK;
}

/* The next line of text[0..len) from *at: its start in *line and its length without the
 * '\r's at its end in *n; *at moves past the '\n'.  0 when no line is left. */
static int next_line(const char *text, size_t len, size_t *at, size_t *line, size_t *n)
{
    size_t i = *at, e = i;

    if (i >= len)
        return 0;
    while (e < len && text[e] != '\n')
        e++;
    *line = i;
    *n = e - i;
    while (*n > 0 && text[i + *n - 1] == '\r')
        (*n)--;
    *at = e + 1;
    return 1;
}

int gsvd_cli_read_id_list(const char *path, char ***ids, size_t *n)
{
    char *text = NULL, **list = NULL;
    size_t len = 0, at, line, k, count = 0, got = 0;
    int rc;

    *ids = NULL;
    *n = 0;
    if ((rc = read_all(path, &text, &len)) != GENSVD_OK)
        return rc;
    /* one pass to count and check the IDs, one to copy them */
    for (at = 0; next_line(text, len, &at, &line, &k);) {
        if (k == 0 || text[line] == '#')
            continue;
        if (memchr(text + line, '\0', k)) {
            id_error("%s: NUL byte in a sample ID", path);
            rc = GENSVD_EFORMAT;
            goto out;
        }
        count++;
    }
    if (count == 0) {
        id_error("%s: no sample IDs", path);
        rc = GENSVD_EFORMAT;
        goto out;
    }
    if (count > SIZE_MAX / sizeof *list || !(list = calloc(count, sizeof *list))) {
        id_error("out of memory (%zu x %zu bytes)", count, sizeof *list);
        rc = GENSVD_ENOMEM;
        goto out;
    }
    for (at = 0; next_line(text, len, &at, &line, &k);) {
        if (k == 0 || text[line] == '#')
            continue;
        if (!(list[got] = malloc(k + 1))) {
            id_error("out of memory (%zu bytes)", k + 1);
            rc = GENSVD_ENOMEM;
            goto out;
        }
        memcpy(list[got], text + line, k);
        list[got++][k] = '\0';
    }
    *ids = list;
    *n = count;
    list = NULL;
out:
    gsvd_cli_free_id_list(list, got);
    free(text);
    return rc;
}

void gsvd_cli_free_id_list(char **ids, size_t n)
{
    if (!ids)
        return;
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
}
