/* zarr/reader.c - region and string reads through a per-thread reader with a one-chunk cache. */
#include "gsvd_config.h"
#include "zarr/reader.h"

#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/ndcopy.h"
#include "common/textnum.h"

#define MAX_VLEN_CHUNK_BYTES ((size_t)1 << 30)

struct gsvd_reader {
    gsvd_array *arr;                /* borrowed */
    gsvd_codec_ws *ws;              /* owned */
    struct gsvd_buf raw;            /* encoded bytes of the last fetched chunk */
    struct gsvd_buf scratch;        /* F-order transpose */
    unsigned char *chunk;           /* owned; chunk_bytes; the decoded cached chunk */
    uint64_t cached[GSVD_MAX_DIMS]; /* index of the chunk in `chunk` */
    int have_cached;                /* 1 when `chunk` holds chunk `cached` */
    struct gsvd_chunk_span span;    /* sharded arrays: inner chunks read together */
    int ahead;                      /* 1: a region of several chunks is hinted to the store */
};

int gsvd_reader_new(gsvd_array *a, gsvd_reader **out)
{
    int rc = GSVD_OK;
    gsvd_reader *r = gsvd_calloc(1, sizeof *r);

    *out = NULL;
    if (!r)
        return GSVD_ENOMEM;
    r->arr = a;
    r->ahead = 1;
    GSVD_TRY(gsvd_codec_ws_new(&r->ws));
    *out = r;
    r = NULL;
out:
    gsvd_reader_free(r);
    return rc;
}

void gsvd_reader_free(gsvd_reader *r)
{
    if (!r)
        return;
    gsvd_codec_ws_free(r->ws);
    gsvd_buf_free(&r->raw);
    gsvd_buf_free(&r->scratch);
    gsvd_chunk_span_free(&r->span);
    gsvd_free(r->chunk);
    gsvd_free(r);
}

gsvd_array *gsvd_reader_array(const gsvd_reader *r)
{
    return r->arr;
}

void gsvd_reader_set_read_ahead(gsvd_reader *r, int on)
{
    r->ahead = on != 0;
}

/* A region of more than one chunk (the box [c_lo, c_hi)) read by a reader that reads ahead:
 * the store is told the chunks in the order they will be read (C order, as gsvd_nd_next
 * walks), so a remote whole-array read keeps requests in flight instead of paying one round
 * trip a chunk. */
static int hint_region(gsvd_reader *r, const uint64_t *start, const uint64_t *count,
                       const uint64_t *c_lo, const uint64_t *c_hi)
{
    const struct gsvd_zarray *z = gsvd_array_meta(r->arr);
    int several = 0;

    for (size_t d = 0; d < z->ndim; d++)
        several |= c_hi[d] - c_lo[d] > 1;
    if (!r->ahead || !several)
        return GSVD_OK;
    return gsvd_array_prefetch(r->arr, 0, start, count, NULL);
}

int gsvd_reader_pool_new(gsvd_array *a, size_t n, gsvd_reader ***out)
{
    gsvd_reader **pool = gsvd_calloc(n ? n : 1, sizeof *pool);
    int rc = GSVD_OK;

    *out = NULL;
    if (!pool)
        return GSVD_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        GSVD_TRY(gsvd_reader_new(a, &pool[i]));
        pool[i]->ahead = 0; /* the pool's scan gives its own plan */
    }
    *out = pool;
    pool = NULL;
out:
    gsvd_reader_pool_free(pool, n);
    return rc;
}

void gsvd_reader_pool_free(gsvd_reader **pool, size_t n)
{
    for (size_t i = 0; pool && i < n; i++)
        gsvd_reader_free(pool[i]);
    gsvd_free(pool);
}

/* Decode chunk idx (of a scan over the chunk box [lo, hi)) into r->chunk unless it is already
 * there. */
static int load_chunk(gsvd_reader *r, const uint64_t *idx, const uint64_t *lo, const uint64_t *hi)
{
    const struct gsvd_zarray *z = gsvd_array_meta(r->arr);
    int rc, present;

    if (r->have_cached && memcmp(r->cached, idx, z->ndim * sizeof *idx) == 0)
        return GSVD_OK;
    if (!r->chunk) {
        r->chunk = gsvd_malloc(z->chunk_bytes);
        if (!r->chunk)
            return GSVD_ENOMEM;
    }
    r->have_cached = 0;
    present = gsvd_array_fetch_chunk_in(r->arr, idx, lo, hi, &r->span, &r->raw);
    if (present < 0)
        return present;
    rc = gsvd_array_decode_chunk(r->arr, r->ws, idx, &r->raw, present, r->chunk, &r->scratch);
    if (rc < 0)
        return rc;
    memcpy(r->cached, idx, z->ndim * sizeof *idx);
    r->have_cached = 1;
    return GSVD_OK;
}

static int check_region(const gsvd_array *a, const uint64_t *start, const uint64_t *count)
{
    const struct gsvd_zarray *z = gsvd_array_meta(a);
    for (size_t d = 0; d < z->ndim; d++) {
        if (start[d] > z->shape[d] || count[d] > z->shape[d] - start[d]) {
            gsvd_log_error("%s: region [%llu, %llu) leaves axis %zu of length %llu",
                           gsvd_array_name(a), (unsigned long long)start[d],
                           (unsigned long long)(start[d] + count[d]), d,
                           (unsigned long long)z->shape[d]);
            return GSVD_EINVAL;
        }
    }
    return GSVD_OK;
}

/* The part of chunk `cidx` inside the region (start, count); 0 if they do not meet. */
static int intersect(const struct gsvd_zarray *z, const uint64_t *cidx, const uint64_t *start,
                     const uint64_t *count, uint64_t *corg, uint64_t *dorg, uint64_t *ext)
{
    for (size_t d = 0; d < z->ndim; d++) {
        uint64_t c0 = cidx[d] * z->chunks[d], c1 = c0 + z->chunks[d];
        uint64_t hi = start[d] + count[d] < c1 ? start[d] + count[d] : c1;
        uint64_t lo = start[d] > c0 ? start[d] : c0;
        if (lo >= hi)
            return 0;
        ext[d] = hi - lo;
        corg[d] = lo - c0;
        dorg[d] = lo - start[d];
    }
    return 1;
}

/* Shared by read and visit: check the region, and set the chunk box [c_lo, c_hi) and the
 * first index cidx.  Returns 1 to go on, 0 for an empty region, or an error. */
static int begin_region(gsvd_reader *r, const uint64_t *start, const uint64_t *count,
                        uint64_t *c_lo, uint64_t *c_hi, uint64_t *cidx)
{
    const struct gsvd_zarray *z = gsvd_array_meta(r->arr);
    int rc = check_region(r->arr, start, count);
    if (rc < 0)
        return rc;
    if (z->dtype.kind == 'O') {
        gsvd_log_error("%s: object arrays are read as strings", gsvd_array_name(r->arr));
        return GSVD_EINVAL;
    }
    for (size_t d = 0; d < z->ndim; d++) {
        if (count[d] == 0)
            return 0;
        c_lo[d] = start[d] / z->chunks[d];
        c_hi[d] = (start[d] + count[d] - 1) / z->chunks[d] + 1;
        cidx[d] = c_lo[d];
    }
    rc = hint_region(r, start, count, c_lo, c_hi);
    return rc < 0 ? rc : 1;
}

/* Visit the chunks [c_lo, c_hi) from cidx on (begin_region's box). */
static int visit_box(gsvd_reader *r, const uint64_t *start, const uint64_t *count,
                     const uint64_t *c_lo, const uint64_t *c_hi, uint64_t *cidx,
                     gsvd_reader_visit_fn fn, void *ctx)
{
    const struct gsvd_zarray *z = gsvd_array_meta(r->arr);
    uint64_t corg[GSVD_MAX_DIMS], dorg[GSVD_MAX_DIMS], ext[GSVD_MAX_DIMS];
    int rc = GSVD_OK;

    do {
        GSVD_TRY(load_chunk(r, cidx, c_lo, c_hi));
        if (!intersect(z, cidx, start, count, corg, dorg, ext))
            continue;
        struct gsvd_reader_piece p = {r->chunk, z->chunks, corg, dorg, ext};
        GSVD_TRY(fn(ctx, &p));
    } while (gsvd_nd_next(z->ndim, cidx, c_lo, c_hi));
out:
    return rc;
}

int gsvd_reader_visit(gsvd_reader *r, const uint64_t *start, const uint64_t *count,
                      gsvd_reader_visit_fn fn, void *ctx)
{
    uint64_t c_lo[GSVD_MAX_DIMS], c_hi[GSVD_MAX_DIMS], cidx[GSVD_MAX_DIMS];
    int rc = begin_region(r, start, count, c_lo, c_hi, cidx);
    return rc <= 0 ? rc : visit_box(r, start, count, c_lo, c_hi, cidx, fn, ctx);
}

/* A piece copied into its place in the region buffer dst (C order, shape count). */
struct copy_ctx {
    unsigned char *dst;
    const uint64_t *count;
    size_t ndim, esz;
};

static int copy_piece(void *ctx, const struct gsvd_reader_piece *p)
{
    const struct copy_ctx *c = ctx;
    gsvd_ndcopy(c->ndim, p->ext, c->esz, p->chunk, (struct gsvd_ndbox){p->chunk_shape, p->corg},
                c->dst, (struct gsvd_ndbox){c->count, p->dorg});
    return GSVD_OK;
}

/* Copy the part of decoded chunk `cidx` (C order, full chunk shape, elements of esz bytes)
 * that falls inside the region (start, count) into dst (C order, shape count). */
static void copy_intersection_esz(const struct gsvd_zarray *z, const uint64_t *cidx,
                                  const unsigned char *chunk, const uint64_t *start,
                                  const uint64_t *count, unsigned char *dst, size_t esz)
{
    uint64_t corg[GSVD_MAX_DIMS], dorg[GSVD_MAX_DIMS], ext[GSVD_MAX_DIMS];
    struct copy_ctx c = {dst, count, z->ndim, esz};
    if (intersect(z, cidx, start, count, corg, dorg, ext))
        (void)copy_piece(&c, &(struct gsvd_reader_piece){chunk, z->chunks, corg, dorg, ext});
}

int gsvd_reader_read(gsvd_reader *r, const uint64_t *start, const uint64_t *count, void *dst)
{
    const struct gsvd_zarray *z = gsvd_array_meta(r->arr);
    uint64_t c_lo[GSVD_MAX_DIMS], c_hi[GSVD_MAX_DIMS], cidx[GSVD_MAX_DIMS];
    int rc = begin_region(r, start, count, c_lo, c_hi, cidx);
    int whole = 1; /* the region is exactly one full chunk: decode straight into dst */

    if (rc <= 0)
        return rc;
    for (size_t d = 0; d < z->ndim; d++)
        whole &= start[d] % z->chunks[d] == 0 && count[d] == z->chunks[d];
    if (whole && z->ndim > 0) {
        r->have_cached = 0;
        return gsvd_array_read_chunk(r->arr, r->ws, cidx, dst, &r->raw, &r->scratch);
    }
    struct copy_ctx c = {dst, count, z->ndim, z->dtype.size};
    return visit_box(r, start, count, c_lo, c_hi, cidx, copy_piece, &c);
}

int gsvd_reader_read_rows(gsvd_reader *r, uint64_t row, uint64_t n_rows, void *dst)
{
    const struct gsvd_zarray *z = gsvd_array_meta(r->arr);
    uint64_t start[GSVD_MAX_DIMS] = {0}, count[GSVD_MAX_DIMS];

    memcpy(count, z->shape, z->ndim * sizeof *count);
    if (z->ndim > 0) {
        start[0] = row;
        count[0] = n_rows;
    }
    return gsvd_reader_read(r, start, count, dst);
}

/* Append a UCS-4 (native order) string of up to n code points as UTF-8, trailing NULs cut. */
static int push_ucs4(struct gsvd_strlist *out, const uint32_t *s, size_t n)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    while (n > 0 && s[n - 1] == 0)
        n--;
    GSVD_TRY(gsvd_buf_reserve(&b, 4 * n));
    for (size_t i = 0; i < n; i++) {
        unsigned char u[4];
        size_t k = gsvd_utf8_encode(s[i], u);
        if (k == 0) {
            rc = GSVD_EFORMAT;
            goto out;
        }
        GSVD_TRY(gsvd_buf_append(&b, u, k));
    }
    rc = gsvd_strlist_pushn(out, b.data ? b.data : "", b.len);
out:
    gsvd_buf_free(&b);
    return rc;
}

/* Decoded strings of object chunk idx (C order) into the empty list `items`. */
static int load_object_chunk(gsvd_reader *r, const uint64_t *idx, struct gsvd_strlist *items)
{
    gsvd_array *a = r->arr;
    const struct gsvd_zarray *z = gsvd_array_meta(a);
    struct gsvd_strlist raw_items = GSVD_STRLIST_INIT;
    char *key = NULL;
    int rc = GSVD_OK, present = gsvd_array_fetch_chunk(a, idx, &r->raw);

    if (present < 0)
        return present;
    if (!present) {
        for (size_t i = 0; i < z->chunk_items; i++)
            GSVD_TRY(gsvd_strlist_push(items, z->fill_str ? z->fill_str : ""));
        goto out;
    }
    key = gsvd_array_chunk_label(a, idx);
    if (!key) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_codec_chain_decode_vlen(z->codecs, r->ws, r->raw.data, r->raw.len, z->chunk_items,
                                          MAX_VLEN_CHUNK_BYTES, key, &raw_items));
    if (z->order != 'C' && z->ndim > 1) {
        /* reorder the pointers, then hand them over */
        char **c_order = gsvd_malloc(z->chunk_items * sizeof *c_order);
        if (!c_order) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        gsvd_array_to_c_order(z, raw_items.items, c_order, sizeof *c_order);
        gsvd_free(raw_items.items);
        raw_items.items = c_order;
        raw_items.cap = z->chunk_items;
    }
    *items = raw_items; /* ownership moves; `items` was empty */
    raw_items = (struct gsvd_strlist)GSVD_STRLIST_INIT;
out:
    gsvd_strlist_free(&raw_items);
    gsvd_free(key);
    return rc;
}

int gsvd_reader_read_objects(gsvd_reader *r, const uint64_t *start, const uint64_t *count,
                             struct gsvd_strlist *out)
{
    gsvd_array *a = r->arr;
    const struct gsvd_zarray *z = gsvd_array_meta(a);
    const char **region = NULL;
    struct gsvd_strlist *lists = NULL;
    uint64_t c_lo[GSVD_MAX_DIMS], c_hi[GSVD_MAX_DIMS], cidx[GSVD_MAX_DIMS];
    size_t nd = z->ndim, total = 1, n_lists = 0, cap_lists = 0;
    int rc = GSVD_OK;

    if (z->dtype.kind != 'O') {
        gsvd_log_error("%s: not an object array", gsvd_array_name(a));
        return GSVD_EINCONSIST;
    }
    GSVD_TRY(check_region(a, start, count));
    for (size_t d = 0; d < nd; d++) {
        if (count[d] == 0)
            return GSVD_OK;
        if (gsvd_mul_size(total, (size_t)count[d], &total) < 0) {
            rc = GSVD_EINVAL;
            goto out;
        }
        c_lo[d] = start[d] / z->chunks[d];
        c_hi[d] = (start[d] + count[d] - 1) / z->chunks[d] + 1;
        cidx[d] = c_lo[d];
    }
    GSVD_TRY(hint_region(r, start, count, c_lo, c_hi));
    region = gsvd_calloc(total, sizeof *region);
    if (!region) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    /* decoded chunks stay alive until the region is assembled from their pointers */
    for (;;) {
        if (n_lists == cap_lists) {
            size_t old = cap_lists;
            GSVD_TRY(gsvd_grow(&lists, &cap_lists, n_lists + 1, sizeof *lists, 8));
            for (size_t i = old; i < cap_lists; i++)
                lists[i] = (struct gsvd_strlist)GSVD_STRLIST_INIT;
        }
        GSVD_TRY(load_object_chunk(r, cidx, &lists[n_lists]));
        copy_intersection_esz(z, cidx, (const unsigned char *)lists[n_lists].items, start, count,
                              (unsigned char *)region, sizeof(char *));
        n_lists++;
        if (!gsvd_nd_next(nd, cidx, c_lo, c_hi))
            break;
    }
    for (size_t i = 0; i < total; i++)
        GSVD_TRY(gsvd_strlist_push(out, region[i]));
out:
    for (size_t i = 0; i < cap_lists; i++)
        gsvd_strlist_free(&lists[i]);
    gsvd_free(lists);
    gsvd_free(region);
    return rc;
}

int gsvd_reader_read_strings(gsvd_reader *r, uint64_t start, uint64_t count,
                             struct gsvd_strlist *out)
{
    gsvd_array *a = r->arr;
    const struct gsvd_zarray *z = gsvd_array_meta(a);
    unsigned char *buf = NULL;
    size_t esz = z->dtype.size, bytes;
    int rc = GSVD_OK;

    if (z->ndim != 1 || (z->dtype.kind != 'O' && z->dtype.kind != 'S' && z->dtype.kind != 'U')) {
        gsvd_log_error("%s: expected a 1-D array of strings", gsvd_array_name(a));
        return GSVD_EINCONSIST;
    }
    GSVD_TRY(check_region(a, &start, &count));
    if (z->dtype.kind == 'O')
        return gsvd_reader_read_objects(r, &start, &count, out);
    if (gsvd_mul_size((size_t)count, esz, &bytes) < 0) {
        rc = GSVD_EFORMAT;
        goto out;
    }
    buf = gsvd_malloc(bytes);
    if (!buf) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_reader_read(r, &start, &count, buf));
    for (size_t i = 0; i < (size_t)count; i++) {
        const unsigned char *s = buf + i * esz;
        if (z->dtype.kind == 'S') {
            GSVD_TRY(gsvd_strlist_pushn(out, (const char *)s, esz)); /* stops at the first NUL */
        } else {
            uint32_t cps[256];
            size_t n = esz / 4;
            uint32_t *cp = n <= 256 ? cps : gsvd_malloc(n * 4);
            if (!cp) {
                rc = GSVD_ENOMEM;
                goto out;
            }
            memcpy(cp, s, n * 4);
            rc = push_ucs4(out, cp, n);
            if (cp != cps)
                gsvd_free(cp);
            if (rc == GSVD_EFORMAT)
                gsvd_log_error("%s: element %zu is not valid UCS-4 text", gsvd_array_name(a), i);
            if (rc < 0)
                goto out;
        }
    }
out:
    gsvd_free(buf);
    return rc;
}
