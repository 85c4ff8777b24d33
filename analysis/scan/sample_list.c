/* analysis/scan/sample_list.c - plink2's sample-ID files (sample_list.h). */
#include "gsvd_config.h"
#include "analysis/scan/sample_list.h"

#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"

/* The most columns a header may name before its IID column. */
#define MAX_COLS 64

static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Word `k` (from 0) of line[0 .. n): its start in *w and length in *wn; 0 if the line has fewer. */
static int word_at(const char *line, size_t n, size_t k, const char **w, size_t *wn)
{
    size_t i = 0;
    for (size_t seen = 0;; seen++) {
        size_t j;
        while (i < n && blank(line[i]))
            i++;
        for (j = i; j < n && !blank(line[j]); j++)
            ;
        if (j == i)
            return 0;
        if (seen == k) {
            *w = line + i;
            *wn = j - i;
            return 1;
        }
        i = j;
    }
}

static int is_word(const char *w, size_t n, const char *s)
{
    return n == strlen(s) && memcmp(w, s, n) == 0;
}

/* The header's IID column, or -1 when the header names none. */
static long header_iid(const char *line, size_t n)
{
    const char *w;
    size_t wn;
    if (word_at(line, n, 0, &w, &wn) && is_word(w, wn, "#IID"))
        return 0;
    for (size_t k = 1; k < MAX_COLS && word_at(line, n, k, &w, &wn); k++)
        if (is_word(w, wn, "IID"))
            return (long)k;
    return -1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int gsvd_sample_list_parse(const char *text, size_t len, const char *file, struct gsvd_strlist *ids)
{
    const char *nul = memchr(text, '\0', len);
    long iid = -2; /* -2: no header (one word, or FID IID) */
    int rc = GSVD_OK, first = 1;

    if (nul) {
        gsvd_log_error("%s: a NUL byte at offset %zu: not a text file", file, (size_t)(nul - text));
        return GSVD_EFORMAT;
    }
    for (size_t i = 0, no = 1; i < len && rc == GSVD_OK; no++) {
        const char *eol = memchr(text + i, '\n', len - i), *line = text + i, *w;
        size_t n = eol ? (size_t)(eol - line) : len - i, wn, skip = 0;
        i += n + 1;
        while (skip < n && blank(line[skip]))
            skip++;
        if (skip == n)
            continue;
        if (first && (n - skip >= 4 && (memcmp(line + skip, "#FID", 4) == 0 ||
                                        memcmp(line + skip, "#IID", 4) == 0))) {
            first = 0;
            if ((iid = header_iid(line, n)) < 0) {
                gsvd_log_error("%s: line %zu: a header without an IID column", file, no);
                rc = GSVD_EFORMAT;
            }
            continue;
        }
        first = 0;
        if (line[skip] == '#')
            continue;
        if (iid >= 0 ? !word_at(line, n, (size_t)iid, &w, &wn)
                     : !word_at(line, n, 1, &w, &wn) && !word_at(line, n, 0, &w, &wn)) {
            gsvd_log_error("%s: line %zu: no IID (column %ld of the header)", file, no, iid + 1);
            rc = GSVD_EFORMAT;
            break;
        }
        if (gsvd_strlist_pushn(ids, w, wn) < 0)
            rc = GSVD_ENOMEM;
    }
    if (rc == GSVD_OK && ids->n > 1) {
        size_t kept = 1;
        qsort(ids->items, ids->n, sizeof *ids->items, cmp_str);
        for (size_t k = 1; k < ids->n; k++) {
            if (strcmp(ids->items[kept - 1], ids->items[k]) == 0)
                gsvd_free(ids->items[k]);
            else
                ids->items[kept++] = ids->items[k];
        }
        ids->n = kept;
    }
    if (rc < 0)
        gsvd_strlist_free(ids);
    return rc;
}

int gsvd_sample_list_read(const char *path, struct gsvd_strlist *ids)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    int rc = gsvd_buf_read_file(&b, path);
    if (rc == GSVD_OK)
        rc = gsvd_sample_list_parse(b.data ? b.data : "", b.len, path, ids);
    gsvd_buf_free(&b);
    return rc;
}
