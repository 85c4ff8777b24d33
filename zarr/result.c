/* zarr/result.c - an analysis result in memory and its one writer (result.h).  The writer
 * gathers each chunk from the C-order data itself (edge chunks padded with the fill value, or
 * zeros where the array says so) and hands it to gsvd_warray_write_chunk, chunks of one array
 * spread over worker threads; strings go through gsvd_warray_write_strings. */
#include "gsvd_config.h"
#include "zarr/result.h"

#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/ndcopy.h"
#include "common/parallel.h"
#include "common/scope.h"
#include "zarr/codec.h"
#include "zarr/meta.h"

/* An array and the storage its spec points into. */
struct item {
    struct gsvd_result_array pub;
    char *path, *compressor, *filters, *attrs; /* owned */
    char *dims[GSVD_MAX_DIMS];                 /* owned */
    unsigned char fill[16];                    /* spec.fill points here when set */
    void *data;                                /* owned; strings: char *[shape[0]], each owned */
    uint64_t n_items;                          /* elements */
};

struct gsvd_result {
    struct item **items; /* owned, each owned: a spec points into its item, which never moves */
    size_t n, cap;
    char *attrs; /* owned */
    int attrs_where;
};

int gsvd_result_new(gsvd_result **out)
{
    *out = gsvd_calloc(1, sizeof **out);
    return *out ? GSVD_OK : GSVD_ENOMEM;
}

static void item_clear(struct item *it)
{
    if (it->pub.spec.dtype.kind == 'O' && it->data)
        for (uint64_t i = 0; i < it->n_items; i++)
            gsvd_free(((char **)it->data)[i]);
    gsvd_free(it->data);
    gsvd_free(it->path);
    gsvd_free(it->compressor);
    gsvd_free(it->filters);
    gsvd_free(it->attrs);
    for (size_t d = 0; d < GSVD_MAX_DIMS; d++)
        gsvd_free(it->dims[d]);
    memset(it, 0, sizeof *it);
}

void gsvd_result_free(gsvd_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        item_clear(r->items[i]);
        gsvd_free(r->items[i]);
    }
    gsvd_free(r->items);
    gsvd_free(r->attrs);
    gsvd_free(r);
}

int gsvd_result_set_attrs(gsvd_result *r, const char *json, int where)
{
    char *copy = NULL;
    if (json && !(copy = gsvd_strdup(json)))
        return GSVD_ENOMEM;
    gsvd_free(r->attrs);
    r->attrs = copy;
    r->attrs_where = where;
    return GSVD_OK;
}

/* NULL stays NULL; otherwise a copy in *dst.  0 or -1 (out of memory). */
static int dup_opt(const char *s, char **dst)
{
    *dst = s ? gsvd_strdup(s) : NULL;
    return s && !*dst ? -1 : 0;
}

/* The spec copied into `it`, with its strings owned there; it->n_items counted. */
static int copy_spec(struct item *it, const struct gsvd_array_spec *s)
{
    struct gsvd_array_spec *d = &it->pub.spec;
    uint64_t n = 1;

    if (!s->path || s->ndim > GSVD_MAX_DIMS || (s->fill && s->dtype.size > sizeof it->fill)) {
        gsvd_log_error("result array '%s': bad description", s->path ? s->path : "(null)");
        return GSVD_EINVAL;
    }
    for (size_t k = 0; k < s->ndim; k++)
        if (gsvd_mul_u64(n, s->shape[k], &n) < 0) {
            gsvd_log_error("%s: the shape overflows", s->path);
            return GSVD_EINVAL;
        }
    it->n_items = n;
    *d = *s;
    if (dup_opt(s->path, &it->path) < 0 || dup_opt(s->compressor_json, &it->compressor) < 0 ||
        dup_opt(s->filters_json, &it->filters) < 0 || dup_opt(s->attrs_json, &it->attrs) < 0)
        return GSVD_ENOMEM;
    d->path = it->path;
    d->compressor_json = it->compressor;
    d->filters_json = it->filters;
    d->attrs_json = it->attrs;
    for (size_t k = 0; k < GSVD_MAX_DIMS; k++) {
        if (dup_opt(k < s->ndim ? s->dims[k] : NULL, &it->dims[k]) < 0)
            return GSVD_ENOMEM;
        d->dims[k] = it->dims[k];
    }
    if (s->fill) {
        memcpy(it->fill, s->fill, s->dtype.size);
        d->fill = it->fill;
    }
    return GSVD_OK;
}

/* A new zeroed item for the end of r (the spec's name checked unique; room made for it in
 * r->items), or an error.  The caller fills it and appends it with `append`, or frees it. */
static int push(gsvd_result *r, const struct gsvd_array_spec *spec, struct item **out)
{
    *out = NULL;
    if (spec->path && gsvd_result_find(r, spec->path)) {
        gsvd_log_error("result array '%s' added twice", spec->path);
        return GSVD_EINVAL;
    }
    if (gsvd_grow(&r->items, &r->cap, r->n + 1, sizeof *r->items, 8) < 0)
        return GSVD_ENOMEM;
    *out = gsvd_calloc(1, sizeof **out);
    return *out ? GSVD_OK : GSVD_ENOMEM;
}

static void append(gsvd_result *r, struct item *it)
{
    it->pub.data = it->data;
    r->items[r->n++] = it;
}

static void item_free(struct item *it)
{
    if (it)
        item_clear(it);
    gsvd_free(it);
}

int gsvd_result_adopt(gsvd_result *r, const struct gsvd_array_spec *spec, void *data)
{
    struct item *it = NULL;
    int rc = push(r, spec, &it);

    if (rc == GSVD_OK && spec->dtype.kind == 'O')
        rc = GSVD_EINVAL;
    if (rc == GSVD_OK)
        rc = copy_spec(it, spec);
    if (rc < 0) {
        item_free(it);
        gsvd_free(data);
        return rc;
    }
    it->data = data;
    append(r, it);
    return GSVD_OK;
}

int gsvd_result_add(gsvd_result *r, const struct gsvd_array_spec *spec, const void *data)
{
    struct item *it = NULL;
    size_t bytes = 0;
    int rc;

    GSVD_TRY(push(r, spec, &it));
    GSVD_TRY(copy_spec(it, spec));
    if (data && spec->dtype.kind == 'O') {
        const char *const *src = data;
        char **dst = gsvd_calloc(it->n_items ? (size_t)it->n_items : 1, sizeof *dst);
        if (!dst) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        it->data = dst;
        for (uint64_t i = 0; i < it->n_items; i++)
            if (!(dst[i] = gsvd_strdup(src[i] ? src[i] : ""))) {
                rc = GSVD_ENOMEM;
                goto out;
            }
    } else if (data) {
        if (it->n_items > SIZE_MAX / spec->dtype.size) {
            rc = GSVD_EINVAL;
            goto out;
        }
        bytes = (size_t)it->n_items * spec->dtype.size;
        if (!(it->data = gsvd_malloc(bytes ? bytes : 1))) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        memcpy(it->data, data, bytes);
    }
    append(r, it);
    it = NULL;
out:
    item_free(it);
    return rc;
}

void gsvd_result_pad_zero(gsvd_result *r)
{
    if (r->n)
        r->items[r->n - 1]->pub.pad_zero = 1;
}

size_t gsvd_result_count(const gsvd_result *r)
{
    return r ? r->n : 0;
}

const struct gsvd_result_array *gsvd_result_at(const gsvd_result *r, size_t i)
{
    return r && i < r->n ? &r->items[i]->pub : NULL;
}

const struct gsvd_result_array *gsvd_result_find(const gsvd_result *r, const char *path)
{
    for (size_t i = 0; r && path && i < r->n; i++)
        if (strcmp(r->items[i]->pub.spec.path, path) == 0)
            return &r->items[i]->pub;
    return NULL;
}

const char *gsvd_result_attrs(const gsvd_result *r)
{
    return r ? r->attrs : NULL;
}

int gsvd_result_attrs_where(const gsvd_result *r)
{
    return r ? r->attrs_where : GSVD_RESULT_ATTRS_FIRST;
}

int gsvd_result_check_shards(const gsvd_result *r, const struct gsvd_writer_params *wp)
{
    int rc = GSVD_OK;
    for (size_t i = 0; i < r->n && rc == GSVD_OK; i++) {
        const struct gsvd_array_spec *s = &r->items[i]->pub.spec;
        if (s->dtype.kind != 'O' && s->ndim >= 1)
            rc = gsvd_writer_shard_shape(wp, s->path, s->ndim, s->shape, s->chunks, NULL);
    }
    return rc;
}

/* ---- the writer ------------------------------------------------------------------------ */

struct chunk_job {
    const struct gsvd_result_array *a;
    gsvd_warray *wa;
    uint64_t grid[GSVD_MAX_DIMS];
    uint64_t n_chunks;
    size_t chunk_bytes;
    struct wk {
        gsvd_codec_ws *ws;
        struct gsvd_buf enc;
        unsigned char *buf;
    } * wk;
};

/* Chunk number `task` (C order of the grid) of the array, gathered, padded and written. */
static int write_one_chunk(void *ctx, size_t worker, size_t task)
{
    struct chunk_job *j = ctx;
    const struct gsvd_array_spec *s = &j->a->spec;
    struct wk *w = &j->wk[worker];
    uint64_t idx[GSVD_MAX_DIMS], org[GSVD_MAX_DIMS], ext[GSVD_MAX_DIMS];
    uint64_t zero[GSVD_MAX_DIMS] = {0}, t = task;
    size_t items = j->chunk_bytes / s->dtype.size;
    int edge = 0;

    if (gsvd_scope_cancelled())
        return GSVD_ECANCELED;
    for (size_t d = s->ndim; d-- > 0;) {
        idx[d] = t % j->grid[d];
        t /= j->grid[d];
    }
    for (size_t d = 0; d < s->ndim; d++) {
        org[d] = idx[d] * s->chunks[d];
        ext[d] = s->shape[d] - org[d] < s->chunks[d] ? s->shape[d] - org[d] : s->chunks[d];
        edge |= ext[d] < s->chunks[d];
    }
    if (edge && (j->a->pad_zero || !s->fill))
        memset(w->buf, 0, j->chunk_bytes);
    else if (edge)
        gsvd_fill_elems(w->buf, items, s->fill, s->dtype.size);
    gsvd_ndcopy(s->ndim, ext, s->dtype.size, j->a->data, (struct gsvd_ndbox){s->shape, org}, w->buf,
                (struct gsvd_ndbox){s->chunks, zero});
    return gsvd_warray_write_chunk(j->wa, w->ws, idx, w->buf, &w->enc);
}

/* Every chunk of numeric array a into wa. */
static int write_numeric(const struct gsvd_result_array *a, gsvd_warray *wa, size_t threads)
{
    const struct gsvd_array_spec *s = &a->spec;
    struct chunk_job j = {.a = a, .wa = wa, .n_chunks = 1, .chunk_bytes = s->dtype.size};
    size_t n_wk = 0;
    int rc = GSVD_OK;

    for (size_t d = 0; d < s->ndim; d++) {
        j.grid[d] = s->shape[d] ? (s->shape[d] + s->chunks[d] - 1) / s->chunks[d] : 0;
        j.n_chunks *= j.grid[d];
        j.chunk_bytes *= (size_t)s->chunks[d];
    }
    if (j.n_chunks == 0)
        return GSVD_OK;
    n_wk = gsvd_parallel_workers(threads);
    if (n_wk > j.n_chunks)
        n_wk = (size_t)j.n_chunks;
    if (!(j.wk = gsvd_calloc(n_wk, sizeof *j.wk)))
        return GSVD_ENOMEM;
    for (size_t t = 0; t < n_wk; t++) {
        GSVD_TRY(gsvd_codec_ws_new(&j.wk[t].ws));
        if (!(j.wk[t].buf = gsvd_malloc(j.chunk_bytes))) {
            rc = GSVD_ENOMEM;
            goto out;
        }
    }
    rc = gsvd_parallel_tasks(n_wk, (size_t)j.n_chunks, write_one_chunk, &j);
out:
    for (size_t t = 0; t < n_wk; t++) {
        gsvd_codec_ws_free(j.wk[t].ws);
        gsvd_buf_free(&j.wk[t].enc);
        gsvd_free(j.wk[t].buf);
    }
    gsvd_free(j.wk);
    return rc;
}

/* Strings are written as 1-D arrays only. */
static int strings_error(const char *url, const char *path)
{
    gsvd_log_error("%s: the string array %s has more than one axis; gensvd writes 1-D string "
                   "arrays only",
                   url, path);
    return GSVD_EUNSUPPORTED;
}

int gsvd_result_write(const gsvd_result *r, const char *url, int overwrite,
                      const struct gsvd_writer_params *wp, size_t threads)
{
    gsvd_writer *w = NULL;
    gsvd_codec_ws *ws = NULL;
    int rc = GSVD_OK;

    for (size_t i = 0; i < r->n; i++)
        if (!r->items[i]->pub.data) {
            gsvd_log_error("%s: the array %s was written as it was computed and is not held; "
                           "run again with the output",
                           url, r->items[i]->pub.spec.path);
            return GSVD_EINVAL;
        }
    GSVD_TRY(gsvd_codec_ws_new(&ws));
    GSVD_TRY(gsvd_writer_open_params(url, overwrite, wp, &w));
    if (r->attrs && r->attrs_where == GSVD_RESULT_ATTRS_FIRST)
        GSVD_TRY(gsvd_writer_group(w, "", r->attrs));
    for (size_t i = 0; i < r->n; i++) {
        const struct gsvd_result_array *a = &r->items[i]->pub;
        gsvd_warray *wa;
        if (gsvd_scope_cancelled()) {
            rc = GSVD_ECANCELED;
            goto out;
        }
        GSVD_TRY(gsvd_writer_array(w, &a->spec, &wa));
        if (a->spec.dtype.kind == 'O' && a->spec.ndim != 1) {
            rc = strings_error(url, a->spec.path);
            goto out;
        }
        if (a->spec.dtype.kind == 'O')
            GSVD_TRY(gsvd_warray_write_strings(wa, ws, (const char *const *)a->data,
                                               (size_t)a->spec.shape[0]));
        else
            GSVD_TRY(write_numeric(a, wa, threads));
    }
    if (r->attrs && r->attrs_where == GSVD_RESULT_ATTRS_LAST)
        GSVD_TRY(gsvd_writer_group(w, "", r->attrs));
    if (gsvd_scope_cancelled()) {
        rc = GSVD_ECANCELED;
        goto out;
    }
    GSVD_TRY(gsvd_writer_commit(w));
out:
    gsvd_writer_close(w);
    gsvd_codec_ws_free(ws);
    return rc;
}
