/* zarr/store_view.c - the in-memory and chunk-callback arrays as a read-only Zarr v2 store
 * (store_view.h).  The metadata documents are made once at open (and consolidated, so the tree
 * never lists); a chunk is made on each get: gathered from the caller's strided memory (the
 * trailing axes a chunk spans whole and the memory holds contiguously are copied as one run)
 * or filled by the callback, strings encoded as vlen-utf8. */
#include "gsvd_config.h"
#include "zarr/store_view.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "common/ndcopy.h"
#include "zarr/store_internal.h"

struct varr {
    struct gsvd_view_array a; /* name and dims point into owned copies below */
    char *name;
    char *dims[GSVD_MAX_DIMS];
    uint64_t grid[GSVD_MAX_DIMS];
    size_t chunk_items;
};

struct store_view {
    struct gsvd_store base;
    struct varr *arr; /* owned */
    size_t n;
    struct gsvd_strlist keys, docs; /* metadata keys and their texts */
    struct gsvd_buf zmeta;          /* .zmetadata */
};

static void view_close(gsvd_store *st)
{
    struct store_view *v = (struct store_view *)st;
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        gsvd_free(v->arr[i].name);
        for (size_t d = 0; d < GSVD_MAX_DIMS; d++)
            gsvd_free(v->arr[i].dims[d]);
    }
    gsvd_free(v->arr);
    gsvd_strlist_free(&v->keys);
    gsvd_strlist_free(&v->docs);
    gsvd_buf_free(&v->zmeta);
    gsvd_free(v);
}

/* ---- metadata ----------------------------------------------------------------------------- */

static int add_doc(struct store_view *v, const char *key, const char *text)
{
    int rc = GSVD_OK;
    for (size_t i = 0; i < v->keys.n; i++)
        if (strcmp(v->keys.items[i], key) == 0)
            return GSVD_OK; /* a group already made for another array */
    GSVD_TRY(gsvd_strlist_push(&v->keys, key));
    GSVD_TRY(gsvd_strlist_push(&v->docs, text));
out:
    return rc;
}

/* .zgroup of every group on the way to `name` ("a/b/c": "a", "a/b"). */
static int add_parents(struct store_view *v, const char *name)
{
    int rc = GSVD_OK;
    char *key = NULL;
    for (const char *s = strchr(name, '/'); s; s = strchr(s + 1, '/')) {
        key = gsvd_asprintf("%.*s/.zgroup", (int)(s - name), name);
        if (!key)
            return GSVD_ENOMEM;
        GSVD_TRY(add_doc(v, key, "{\"zarr_format\": 2}"));
        gsvd_free(key);
        key = NULL;
    }
out:
    gsvd_free(key);
    return rc;
}

/* NAME/.zarray and NAME/.zattrs of one array. */
static int add_array_docs(struct store_view *v, const struct varr *x)
{
    const struct gsvd_view_array *a = &x->a;
    struct gsvd_buf b = GSVD_BUF_INIT;
    char typestr[32], *key = NULL;
    int rc = GSVD_OK;

    gsvd_dtype_format(&a->dtype, typestr, sizeof typestr);
    GSVD_TRY(gsvd_buf_puts(&b, "{\"chunks\": ["));
    for (size_t d = 0; d < a->ndim; d++)
        GSVD_TRY(gsvd_buf_printf(&b, "%s%" PRIu64, d ? ", " : "", a->chunks[d]));
    GSVD_TRY(gsvd_buf_printf(&b,
                             "], \"compressor\": null, \"dimension_separator\": \".\", "
                             "\"dtype\": \"%s\", \"fill_value\": null, \"filters\": %s, "
                             "\"order\": \"C\", \"shape\": [",
                             typestr, a->dtype.kind == 'O' ? "[{\"id\": \"vlen-utf8\"}]" : "null"));
    for (size_t d = 0; d < a->ndim; d++)
        GSVD_TRY(gsvd_buf_printf(&b, "%s%" PRIu64, d ? ", " : "", a->shape[d]));
    GSVD_TRY(gsvd_buf_puts(&b, "], \"zarr_format\": 2}"));
    if (!(key = gsvd_asprintf("%s/.zarray", a->name))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(add_doc(v, key, b.data));
    if (a->dims[0]) {
        gsvd_buf_clear(&b);
        GSVD_TRY(gsvd_buf_puts(&b, "{\"_ARRAY_DIMENSIONS\": ["));
        for (size_t d = 0; d < a->ndim; d++) {
            GSVD_TRY(gsvd_buf_puts(&b, d ? ", " : ""));
            GSVD_TRY(gsvd_json_quote(&b, a->dims[d] ? a->dims[d] : ""));
        }
        GSVD_TRY(gsvd_buf_puts(&b, "]}"));
        gsvd_free(key);
        if (!(key = gsvd_asprintf("%s/.zattrs", a->name))) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        GSVD_TRY(add_doc(v, key, b.data));
    }
out:
    gsvd_free(key);
    gsvd_buf_free(&b);
    return rc;
}

/* Check one description and copy it into x.  GSVD_EINVAL (logged) or GSVD_ENOMEM. */
static int copy_array(const struct gsvd_view_array *a, struct varr *x)
{
    char k = a->dtype.kind;
    size_t items = 1;

    if (!a->name || gsvd_key_check(a->name) < 0 || a->ndim < 1 || a->ndim > GSVD_MAX_DIMS ||
        !((k == 'O' && a->data && a->dtype.size == sizeof(char *)) ||
          ((k == 'b' || k == 'i' || k == 'u' || k == 'f') && a->dtype.size >= 1 &&
           a->dtype.size <= 8)) ||
        (!a->data) == (!a->fn)) {
        gsvd_log_error("in-memory array '%s': bad name, rank, dtype or data",
                       a->name ? a->name : "(null)");
        return GSVD_EINVAL;
    }
    x->a = *a;
    for (size_t d = 0; d < a->ndim; d++) {
        uint64_t c = a->chunks[d];
        if (a->shape[d] >= ((uint64_t)1 << 48) || c == 0) {
            gsvd_log_error("in-memory array '%s': bad shape or chunk on axis %zu", a->name, d);
            return GSVD_EINVAL;
        }
        if (a->fn == NULL && c > a->shape[d]) /* a chunk never reaches past the array */
            x->a.chunks[d] = c = a->shape[d] ? a->shape[d] : 1;
        x->grid[d] = (a->shape[d] + c - 1) / c;
        if (c > GSVD_MAX_CHUNK_BYTES / a->dtype.size / items) {
            gsvd_log_error("in-memory array '%s': a chunk of more than %zu bytes", a->name,
                           GSVD_MAX_CHUNK_BYTES);
            return GSVD_EINVAL;
        }
        items *= (size_t)c;
    }
    x->chunk_items = items;
    if (!(x->name = gsvd_strdup(a->name)))
        return GSVD_ENOMEM;
    x->a.name = x->name;
    for (size_t d = 0; d < GSVD_MAX_DIMS; d++) {
        x->a.dims[d] = NULL;
        if (d < a->ndim && a->dims[d] && !(x->a.dims[d] = x->dims[d] = gsvd_strdup(a->dims[d])))
            return GSVD_ENOMEM;
    }
    return GSVD_OK;
}

int gsvd_store_view_open(const char *name, const struct gsvd_view_array *arrays, size_t n,
                         gsvd_store **out)
{
    struct store_view *v = gsvd_calloc(1, sizeof *v);
    int rc = GSVD_OK;

    *out = NULL;
    if (!v)
        return GSVD_ENOMEM;
    v->base.ops = &gsvd_store_view_ops;
    v->base.flags = GSVD_STORE_READ;
    if (!(v->base.url = gsvd_strdup(name && *name ? name : "memory")) ||
        !(v->arr = gsvd_calloc(n ? n : 1, sizeof *v->arr))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(add_doc(v, ".zgroup", "{\"zarr_format\": 2}"));
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < i; j++)
            if (arrays[i].name && strcmp(arrays[i].name, v->arr[j].name) == 0) {
                gsvd_log_error("in-memory array '%s' given twice", arrays[i].name);
                rc = GSVD_EINVAL;
                goto out;
            }
        v->n = i + 1;
        GSVD_TRY(copy_array(&arrays[i], &v->arr[i]));
        GSVD_TRY(add_parents(v, v->arr[i].name));
        GSVD_TRY(add_array_docs(v, &v->arr[i]));
    }
    GSVD_TRY(gsvd_zmetadata_emit(&v->keys, &v->docs, &v->zmeta));
    *out = &v->base;
    v = NULL;
out:
    if (v) {
        gsvd_free(v->base.url);
        view_close(&v->base);
    }
    return rc;
}

/* ---- chunks ------------------------------------------------------------------------------- */

/* The array whose chunk `key` names, and the chunk's grid position in idx; NULL when key is no
 * chunk key of an array. */
static const struct varr *chunk_of(const struct store_view *v, const char *key, uint64_t *idx)
{
    for (size_t i = 0; i < v->n; i++) {
        const struct varr *x = &v->arr[i];
        size_t len = strlen(x->name);
        const char *p = key + len + 1;
        if (strncmp(key, x->name, len) != 0 || key[len] != '/')
            continue;
        for (size_t d = 0; d < x->a.ndim; d++) {
            uint64_t val = 0;
            if (*p < '0' || *p > '9')
                return NULL;
            for (; *p >= '0' && *p <= '9'; p++) {
                val = val * 10 + (uint64_t)(*p - '0');
                if (val >= x->grid[d])
                    return NULL;
            }
            idx[d] = val;
            if (*p != (d + 1 < x->a.ndim ? '.' : '\0'))
                return NULL;
            p++;
        }
        return x;
    }
    return NULL;
}

/* Copy the part of chunk idx that lies in the array from the strided memory into dst (C order,
 * full chunk shape), `esz` bytes an element.  The trailing axes from `run` on are whole in the
 * chunk and contiguous in memory, so each step of the leading axes copies one run. */
static void gather(const struct varr *x, const uint64_t *idx, unsigned char *dst)
{
    const struct gsvd_view_array *a = &x->a;
    size_t nd = a->ndim, esz = a->dtype.size, run = nd - 1;
    uint64_t org[GSVD_MAX_DIMS], ext[GSVD_MAX_DIMS], at[GSVD_MAX_DIMS], lo[GSVD_MAX_DIMS] = {0};
    size_t run_items = 1;

    for (size_t d = 0; d < nd; d++) {
        org[d] = idx[d] * a->chunks[d];
        ext[d] = a->shape[d] - org[d] < a->chunks[d] ? a->shape[d] - org[d] : a->chunks[d];
        at[d] = 0;
    }
    /* widen the run while the axis below it is whole and packed right after it */
    if (a->strides[nd - 1] == (int64_t)esz) {
        while (run > 0 && ext[run] == a->chunks[run] && ext[run] == a->shape[run] &&
               a->strides[run - 1] == a->strides[run] * (int64_t)a->shape[run])
            run--;
        for (size_t d = run; d < nd; d++)
            run_items *= (size_t)ext[d];
    } else {
        run = nd; /* no contiguous run: element by element */
    }
    for (;;) {
        const unsigned char *src = a->data;
        size_t off = 0;
        for (size_t d = 0; d < nd; d++) {
            src += (int64_t)(org[d] + at[d]) * a->strides[d];
            off = off * (size_t)a->chunks[d] + (size_t)at[d];
        }
        if (run < nd)
            memcpy(dst + off * esz, src, run_items * esz);
        else
            memcpy(dst + off * esz, src, esz);
        if (!gsvd_nd_next(run < nd ? run : nd, at, lo, ext))
            break;
    }
}

/* vlen-utf8 of the chunk's strings (padding items ""): u32le count, then u32le length and the
 * bytes of each. */
static int encode_strings(const struct varr *x, const uint64_t *idx, struct gsvd_buf *dst)
{
    const char **items = gsvd_calloc(x->chunk_items, sizeof *items);
    unsigned char le[4];
    int rc = GSVD_OK;

    if (!items)
        return GSVD_ENOMEM;
    gather(x, idx, (unsigned char *)items);
    for (int b = 0; b < 4; b++)
        le[b] = (unsigned char)((uint32_t)x->chunk_items >> (8 * b));
    GSVD_TRY(gsvd_buf_append(dst, le, 4));
    for (size_t i = 0; i < x->chunk_items; i++) {
        const char *s = items[i] ? items[i] : "";
        size_t len = strlen(s);
        if (len > UINT32_MAX / 2) {
            rc = GSVD_EINVAL;
            goto out;
        }
        for (int b = 0; b < 4; b++)
            le[b] = (unsigned char)((uint32_t)len >> (8 * b));
        GSVD_TRY(gsvd_buf_append(dst, le, 4));
        GSVD_TRY(gsvd_buf_append(dst, s, len));
    }
out:
    gsvd_free(items);
    return rc;
}

static int view_chunk(const struct varr *x, const char *key, const uint64_t *idx,
                      struct gsvd_buf *dst)
{
    size_t bytes = x->chunk_items * x->a.dtype.size;
    int rc = GSVD_OK;

    if (x->a.dtype.kind == 'O')
        return encode_strings(x, idx, dst);
    GSVD_TRY(gsvd_buf_reserve(dst, bytes));
    memset(dst->data, 0, bytes);
    if (x->a.fn) {
        int r = x->a.fn(x->a.user, idx, dst->data, bytes);
        if (r != 0) {
            gsvd_log_error("%s: the chunk callback failed (it returned %d)", key, r);
            return GSVD_EIO;
        }
    } else {
        gather(x, idx, (unsigned char *)dst->data);
    }
    dst->len = bytes;
out:
    return rc;
}

static int view_get(gsvd_store *st, const char *key, struct gsvd_buf *dst)
{
    struct store_view *v = (struct store_view *)st;
    uint64_t idx[GSVD_MAX_DIMS];
    const struct varr *x;

    gsvd_buf_clear(dst);
    if (strcmp(key, ".zmetadata") == 0)
        return gsvd_buf_append(dst, v->zmeta.data, v->zmeta.len);
    for (size_t i = 0; i < v->keys.n; i++)
        if (strcmp(key, v->keys.items[i]) == 0)
            return gsvd_buf_puts(dst, v->docs.items[i]);
    x = chunk_of(v, key, idx);
    return x ? view_chunk(x, key, idx, dst) : GSVD_ENOTFOUND;
}

const struct gsvd_store_ops gsvd_store_view_ops = {
    .version = GSVD_STORE_OPS_VERSION,
    .name = "memory",
    .open = NULL, /* opened by gsvd_store_view_open, never by a URL */
    .close = view_close,
    .get = view_get,
};
