/* common/buf.h - growable byte buffer and string list.
 * A zero-initialised struct (GSVD_BUF_INIT, GSVD_STRLIST_INIT) is empty and valid.
 * Thread safety: none; a buffer belongs to one thread at a time. */
#ifndef GSVD_COMMON_BUF_H
#define GSVD_COMMON_BUF_H
#include <stddef.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

struct gsvd_buf {
    char *data; /* owned; NULL when cap == 0; kept NUL-terminated after appends */
    size_t len; /* bytes used */
    size_t cap; /* bytes allocated */
};
#define GSVD_BUF_INIT                                                                              \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

/* Make room for at least `extra` more bytes past len (+1 for a NUL).  GSVD_ENOMEM (logged)
 * or GSVD_EFORMAT if the size overflows.  May move data. */
GSVD_NODISCARD int gsvd_buf_reserve(struct gsvd_buf *b, size_t extra);
/* Append n bytes / a string / printf text.  May move data. */
GSVD_NODISCARD int gsvd_buf_append(struct gsvd_buf *b, const void *p, size_t n);
GSVD_NODISCARD int gsvd_buf_puts(struct gsvd_buf *b, const char *s);
GSVD_NODISCARD int gsvd_buf_printf(struct gsvd_buf *b, const char *fmt, ...) GSVD_PRINTF(2, 3);
void gsvd_buf_clear(struct gsvd_buf *b); /* len = 0, keeps the allocation */
void gsvd_buf_free(struct gsvd_buf *b);  /* accepts an empty buffer; leaves it empty */
/* Append a whole file (or standard input for "-") to b.  GSVD_OK, GSVD_EIO (logged with the
 * path: cannot open, read error), GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_buf_read_file(struct gsvd_buf *b, const char *path);

struct gsvd_strlist {
    char **items; /* owned, each owned */
    size_t n;     /* items used */
    size_t cap;   /* items allocated */
};
#define GSVD_STRLIST_INIT                                                                          \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

/* Append a copy of s (or of its first n bytes). */
GSVD_NODISCARD int gsvd_strlist_push(struct gsvd_strlist *l, const char *s);
GSVD_NODISCARD int gsvd_strlist_pushn(struct gsvd_strlist *l, const char *s, size_t n);
void gsvd_strlist_sort(struct gsvd_strlist *l); /* strcmp order */
/* IDs looked up by value: gsvd_str_order gives the permutation of 0..n-1 that sorts items[]
 * (strcmp order, equal items in their positions' order; caller owns it, gsvd_free; NULL: out of
 * memory), and gsvd_str_find the position of an item equal to s (any one of equal items) or -1,
 * in O(log n) through it.  items must not change while the order is used. */
size_t *gsvd_str_order(char *const *items, size_t n);
ptrdiff_t gsvd_str_find(char *const *items, const size_t *order, size_t n, const char *s);
void gsvd_strlist_free(struct gsvd_strlist *l); /* accepts an empty list; leaves it empty */

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_BUF_H */
