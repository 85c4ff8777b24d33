/* common/textmatrix.c - TSV/CSV numeric matrices, see the header for the rules. */
#include "gsvd_config.h"
#include "common/textmatrix.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"

void gsvd_textmatrix_clear(struct gsvd_textmatrix *m)
{
    gsvd_free(m->values);
    gsvd_strlist_free(&m->ids);
    memset(m, 0, sizeof *m);
}

/* Parse field [p, p + n) as a number; missing forms give NaN.  Returns 0 on success. */
static int parse_value(const char *p, size_t n, double *out)
{
    char tmp[64], *end;
    while (n > 0 && (*p == ' ' || *p == '"'))
        p++, n--;
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '"'))
        n--;
    if (n == 0 || (n == 2 && strncmp(p, "NA", 2) == 0) ||
        (n == 3 && (strncmp(p, "nan", 3) == 0 || strncmp(p, "NaN", 3) == 0))) {
        *out = NAN;
        return 0;
    }
    if (n >= sizeof tmp)
        return -1;
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    errno = 0;
    *out = strtod(tmp, &end);
    return *end == '\0' && errno != ERANGE ? 0 : -1;
}

struct line {
    const char *p;
    size_t n;
};

/* Fields of a line split at sep. */
static size_t count_fields(struct line l, char sep)
{
    size_t k = 1;
    for (size_t i = 0; i < l.n; i++)
        k += l.p[i] == sep;
    return k;
}

/* Field f of line l (0-based); assumes it exists. */
static struct line field(struct line l, char sep, size_t f)
{
    size_t i = 0, start = 0;
    for (size_t k = 0; k < f; k++) {
        while (i < l.n && l.p[i] != sep)
            i++;
        start = ++i;
    }
    while (i < l.n && l.p[i] != sep)
        i++;
    return (struct line){l.p + start, i - start};
}

int gsvd_textmatrix_parse(const char *text, size_t len, const char *where,
                          struct gsvd_textmatrix *out)
{
    int rc = GSVD_OK, header = 0, has_ids = 0;
    struct line *lines = NULL;
    size_t n_lines = 0, cap = 0, n_fields, first, cells;
    char sep;
    double v;

    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < len;) { /* split lines, '\r' stripped, blank lines skipped */
        size_t e = i;
        while (e < len && text[e] != '\n')
            e++;
        size_t n = e - i;
        while (n > 0 && text[i + n - 1] == '\r')
            n--;
        if (n > 0) {
            if (memchr(text + i, '\0', n)) {
                gsvd_log_error("%s: line %zu: NUL byte", where, n_lines + 1);
                rc = GSVD_EFORMAT;
                goto out;
            }
            GSVD_TRY(gsvd_grow(&lines, &cap, n_lines + 1, sizeof *lines, 256));
            lines[n_lines++] = (struct line){text + i, n};
        }
        i = e + 1;
    }
    if (n_lines == 0) {
        gsvd_log_error("%s: no data (expected a TSV or CSV matrix)", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    sep = memchr(lines[0].p, '\t', lines[0].n) ? '\t' : ',';
    n_fields = count_fields(lines[0], sep);
    if (n_fields == 1) {
        /* one column: no room for IDs; a header when the first line is not a number */
        struct line fl = field(lines[0], sep, 0);
        header = parse_value(fl.p, fl.n, &v) != 0;
    } else {
        /* a header when a value column of the first line is not a number; an ID column when
         * the first field of the first data line is not a number */
        for (size_t f = 1; f < n_fields && !header; f++) {
            struct line fl = field(lines[0], sep, f);
            header = parse_value(fl.p, fl.n, &v) != 0;
        }
        if ((size_t)header < n_lines) {
            struct line fl = field(lines[header], sep, 0);
            has_ids = parse_value(fl.p, fl.n, &v) != 0;
        }
    }
    first = (size_t)header;
    out->n_rows = n_lines - first;
    out->n_cols = n_fields - (size_t)has_ids;
    if (out->n_rows == 0) {
        gsvd_log_error("%s: a header but no data rows", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    if (gsvd_mul_size(out->n_rows, out->n_cols, &cells) < 0 || cells > SIZE_MAX / sizeof(double)) {
        gsvd_log_error("%s: matrix too large", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    out->values = gsvd_malloc((cells ? cells : 1) * sizeof *out->values);
    if (!out->values) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t r = 0; r < out->n_rows; r++) {
        struct line l = lines[first + r];
        size_t nf = count_fields(l, sep), at = 0, col = 0;
        if (nf != n_fields) {
            gsvd_log_error("%s: line %zu has %zu fields, the first line has %zu", where,
                           first + r + 1, nf, n_fields);
            rc = GSVD_EFORMAT;
            goto out;
        }
        for (size_t f = 0; f < nf; f++) {
            size_t e = at;
            while (e < l.n && l.p[e] != sep)
                e++;
            if (f == 0 && has_ids) {
                GSVD_TRY(gsvd_strlist_pushn(&out->ids, l.p + at, e - at));
            } else if (parse_value(l.p + at, e - at, &out->values[r * out->n_cols + col++]) != 0) {
                gsvd_log_error("%s: line %zu, field %zu: '%.*s' is not a number", where,
                               first + r + 1, f + 1, (int)(e - at < 40 ? e - at : 40), l.p + at);
                rc = GSVD_EFORMAT;
                goto out;
            }
            at = e + 1;
        }
        if (!has_ids) {
            char id[32];
            snprintf(id, sizeof id, "row_%zu", r);
            GSVD_TRY(gsvd_strlist_push(&out->ids, id));
        }
    }
out:
    gsvd_free(lines);
    if (rc < 0)
        gsvd_textmatrix_clear(out);
    return rc;
}
