/* common/buf.c - growable byte buffer and string list. */
#include "gsvd_config.h"
#include "common/buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"

int gsvd_buf_reserve(struct gsvd_buf *b, size_t extra)
{
    size_t need;

    if (gsvd_add_size(b->len, extra, &need) < 0 || gsvd_add_size(need, 1, &need) < 0) {
        gsvd_log_error("out of memory: a buffer larger than the address space");
        return GSVD_EFORMAT;
    }
    return gsvd_grow(&b->data, &b->cap, need, 1, 64);
}

int gsvd_buf_append(struct gsvd_buf *b, const void *p, size_t n)
{
    int rc = gsvd_buf_reserve(b, n);
    if (rc < 0)
        return rc;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return GSVD_OK;
}

int gsvd_buf_puts(struct gsvd_buf *b, const char *s)
{
    return gsvd_buf_append(b, s, strlen(s));
}

int gsvd_buf_printf(struct gsvd_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n, rc;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return GSVD_EINTERNAL;
    rc = gsvd_buf_reserve(b, (size_t)n);
    if (rc < 0)
        return rc;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return GSVD_OK;
}

void gsvd_buf_clear(struct gsvd_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void gsvd_buf_free(struct gsvd_buf *b)
{
    gsvd_free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

int gsvd_strlist_pushn(struct gsvd_strlist *l, const char *s, size_t n)
{
    char *copy;

    if (gsvd_grow(&l->items, &l->cap, l->n + 1, sizeof *l->items, 8) < 0)
        return GSVD_ENOMEM;
    copy = gsvd_strndup(s, n);
    if (!copy)
        return GSVD_ENOMEM;
    l->items[l->n++] = copy;
    return GSVD_OK;
}

int gsvd_strlist_push(struct gsvd_strlist *l, const char *s)
{
    return gsvd_strlist_pushn(l, s, strlen(s));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void gsvd_strlist_sort(struct gsvd_strlist *l)
{
    if (l->n > 1)
        qsort(l->items, l->n, sizeof *l->items, cmp_str);
}

void gsvd_strlist_free(struct gsvd_strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        gsvd_free(l->items[i]);
    gsvd_free(l->items);
    l->items = NULL;
    l->n = l->cap = 0;
}

int gsvd_buf_read_file(struct gsvd_buf *b, const char *path)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *fp = is_stdin ? stdin : fopen(path, "rb");
    char chunk[65536];
    size_t n;
    int rc = GSVD_OK;

    if (!fp) {
        gsvd_log_error("%s: %s", path, strerror(errno));
        return GSVD_EIO;
    }
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
        if ((rc = gsvd_buf_append(b, chunk, n)) < 0)
            break;
    if (rc == GSVD_OK && ferror(fp)) {
        gsvd_log_error("%s: read error", is_stdin ? "standard input" : path);
        rc = GSVD_EIO;
    }
    if (!is_stdin)
        fclose(fp);
    return rc;
}

struct str_at {
    const char *s;
    size_t at;
};

static int cmp_str_at(const void *a, const void *b)
{
    const struct str_at *x = a, *y = b;
    int c = strcmp(x->s, y->s);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

size_t *gsvd_str_order(char *const *items, size_t n)
{
    struct str_at *tmp = gsvd_malloc((n ? n : 1) * sizeof *tmp);
    size_t *order = gsvd_malloc((n ? n : 1) * sizeof *order);
    if (!tmp || !order) {
        gsvd_free(tmp);
        gsvd_free(order);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        tmp[i] = (struct str_at){items[i], i};
    qsort(tmp, n, sizeof *tmp, cmp_str_at);
    for (size_t i = 0; i < n; i++)
        order[i] = tmp[i].at;
    gsvd_free(tmp);
    return order;
}

ptrdiff_t gsvd_str_find(char *const *items, const size_t *order, size_t n, const char *s)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(items[order[mid]], s);
        if (c == 0)
            return (ptrdiff_t)order[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}
