/* common/parse.c - checked text parsers (parse.h).
 * Why these exist twice: the command line parses the same forms with its own copy,
 * cli/cli_parse.c, written against libc alone, because cli/ is a client of the library
 * (include/gensvd.h only) and its usage errors come before any call into it; these serve the
 * library itself (options set by name with text values, environment variables).  Both must
 * accept and refuse the same strings with the same values: tests/unit/test_cli_parse.c and
 * tests/fuzz/fuzz_cli_parse.c compare them.  A change to one side is a change to both. */
#include "gsvd_config.h"
#include "common/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"

int gsvd_parse_uint(const char *s, uint64_t lo, uint64_t hi, int suffix, uint64_t *out)
{
    char *end = NULL;
    unsigned long long v;
    uint64_t mult = 1;

    if (!s || *s < '0' || *s > '9') /* no sign, no white space (strtoull takes both) */
        return GSVD_EINVAL;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || end == s)
        return GSVD_EINVAL;
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
            return GSVD_EINVAL;
        }
        end++;
    }
    if (*end || (v && mult > UINT64_MAX / v))
        return GSVD_EINVAL;
    v *= mult;
    if (v < lo || v > hi)
        return GSVD_EINVAL;
    *out = v;
    return GSVD_OK;
}

int gsvd_parse_size(const char *s, uint64_t *out)
{
    char *end = NULL;
    double v;
    double mult = 1;

    /* a decimal number: no sign, no white space, no hexadecimal (strtod takes all three) */
    if (!s || !((*s >= '0' && *s <= '9') || *s == '.') || strpbrk(s, "xX"))
        return GSVD_EINVAL;
    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || !isfinite(v) || v < 0)
        return GSVD_EINVAL;
    switch (*end) {
    case '\0':
        break;
    case 'k':
    case 'K':
        mult = 1024.0;
        break;
    case 'm':
    case 'M':
        mult = 1024.0 * 1024;
        break;
    case 'g':
    case 'G':
        mult = 1024.0 * 1024 * 1024;
        break;
    case 't':
    case 'T':
        mult = 1024.0 * 1024 * 1024 * 1024;
        break;
    default:
        return GSVD_EINVAL;
    }
    if (*end && end[1] != '\0' && !((end[1] == 'B' || end[1] == 'b') && end[2] == '\0'))
        return GSVD_EINVAL;
    v *= mult;
    if (v >= 18446744073709551616.0)
        return GSVD_EINVAL;
    *out = (uint64_t)v;
    return GSVD_OK;
}

int gsvd_parse_choice(const char *s, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

int gsvd_parse_double(const char *s, double lo, double hi, double *out)
{
    char *end = NULL;
    double v;

    /* a decimal number: no white space, no hexadecimal (strtod takes both) */
    if (!s || !*s || isspace((unsigned char)*s) || strpbrk(s, "xX"))
        return GSVD_EINVAL;
    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
        return GSVD_EINVAL;
    *out = v;
    return GSVD_OK;
}

int gsvd_parse_range(const char *s, uint64_t *a, uint64_t *b)
{
    const char *colon = strchr(s, ':');
    char left[32];
    size_t len;

    if (!colon || (len = (size_t)(colon - s)) >= sizeof left)
        return -1;
    memcpy(left, s, len);
    left[len] = '\0';
    *a = 0;
    *b = 0;
    if (len && gsvd_parse_uint(left, 0, UINT64_MAX, 1, a) < 0)
        return -1;
    if (colon[1] && gsvd_parse_uint(colon + 1, 1, UINT64_MAX, 1, b) < 0)
        return -1;
    return *b && *b <= *a ? -1 : 0;
}

/* One ID per line; blank lines and lines starting with '#' are skipped, '\r' stripped. */
int gsvd_read_ids(const char *path, struct gsvd_strlist *out)
{
    struct gsvd_buf text = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_buf_read_file(&text, path));
    for (size_t i = 0; i < text.len;) {
        size_t e = i, len;
        while (e < text.len && text.data[e] != '\n')
            e++;
        len = e - i;
        while (len > 0 && text.data[i + len - 1] == '\r')
            len--;
        if (len > 0 && text.data[i] != '#') {
            if (memchr(text.data + i, '\0', len)) {
                gsvd_log_error("%s: NUL byte in a sample ID", path);
                rc = GSVD_EFORMAT;
                goto out;
            }
            GSVD_TRY(gsvd_strlist_pushn(out, text.data + i, len));
        }
        i = e + 1;
    }
    if (out->n == 0) {
        gsvd_log_error("%s: no sample IDs", path);
        rc = GSVD_EFORMAT;
    }
out:
    gsvd_buf_free(&text);
    return rc;
}
