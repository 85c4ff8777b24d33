/* lib/array.c - an array of a source opened for reading (include/gensvd.h, "reading stores"):
 * its layout, what the store holds of it, and its values block by block.  A read cuts the
 * region into chunk rows along axis 0; the context's threads fetch and decode them ahead
 * (common/pipeline.h: each worker with its own reader, at most two blocks per worker in
 * memory) and the calling thread hands them to the caller's function in order, so what the
 * caller sees does not depend on the thread count and memory does not grow with the region. */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <inttypes.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/pipeline.h"
#include "zarr/array.h"
#include "zarr/codec.h"
#include "zarr/reader.h"

struct gensvd_array {
    gensvd_source *src; /* borrowed */
    gsvd_array *a;
    struct gsvd_strlist dims;
    enum gensvd_dtype dtype;
    char typestr[32], codecs[256], order[2];
};

int gensvd_array_open(gensvd_source *src, const char *path, gensvd_array **out)
{
    const struct gsvd_scope *prev;
    const struct gsvd_zarray *z;
    gensvd_array *arr = NULL;
    char *full = NULL;
    int rc = GSVD_OK;

    if (out)
        *out = NULL;
    if (!src || !out)
        return GENSVD_EINVAL;
    prev = lib_begin(src->ctx);
    GSVD_TRY(lib_source_ready(src));
    GSVD_TRY(lib_node_path(src, path, &full));
    if (!(arr = gsvd_calloc(1, sizeof *arr))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    arr->src = src;
    GSVD_TRY(gsvd_array_open(src->tree, full, &arr->a));
    GSVD_TRY(gsvd_array_dim_names(arr->a, &arr->dims));
    z = gsvd_array_meta(arr->a);
    arr->dtype = lib_public_dtype(&z->dtype);
    gsvd_dtype_format(&z->dtype, arr->typestr, sizeof arr->typestr);
    gsvd_codec_chain_describe(z->codecs, arr->codecs, sizeof arr->codecs);
    arr->order[0] = z->order == 'F' || z->order == 'P' ? z->order : 'C';
    *out = arr;
    arr = NULL;
out:
    gensvd_array_close(arr);
    gsvd_free(full);
    return lib_end(src->ctx, prev, rc, "gensvd_array_open");
}

void gensvd_array_close(gensvd_array *arr)
{
    if (!arr)
        return;
    gsvd_array_close(arr->a);
    gsvd_strlist_free(&arr->dims);
    gsvd_free(arr);
}

size_t gensvd_array_shape(const gensvd_array *arr, const uint64_t **shape, const uint64_t **chunks)
{
    const struct gsvd_zarray *z = arr ? gsvd_array_meta(arr->a) : NULL;
    if (shape)
        *shape = z ? z->shape : NULL;
    if (chunks)
        *chunks = z ? z->chunks : NULL;
    return z ? z->ndim : 0;
}

enum gensvd_dtype gensvd_array_dtype(const gensvd_array *arr)
{
    return arr ? arr->dtype : 0;
}

const char *gensvd_array_dim_name(const gensvd_array *arr, size_t i)
{
    return arr && i < arr->dims.n ? arr->dims.items[i] : NULL;
}

int gensvd_array_get_int(const gensvd_array *arr, const char *name, int64_t *out)
{
    const struct gsvd_zarray *z;
    if (!arr || !name || !out)
        return GENSVD_EINVAL;
    z = gsvd_array_meta(arr->a);
    if (!strcmp(name, "zarr-format"))
        *out = z->zarr_format == 3 ? 3 : 2;
    else if (!strcmp(name, "item-size"))
        *out = (int64_t)z->dtype.size;
    else if (!strcmp(name, "chunk-count"))
        *out = (int64_t)lib_grid_count(z, 0);
    else if (!strcmp(name, "shard-count"))
        *out = z->sharded ? (int64_t)lib_grid_count(z, 1) : 0;
    else {
        const struct gsvd_scope *prev = lib_begin(arr->src->ctx);
        int rc = lib_fail(GSVD_EINVAL,
                          "unknown array fact '%s' (zarr-format, item-size, chunk-count, "
                          "shard-count)",
                          name);
        return lib_end(arr->src->ctx, prev, rc, "gensvd_array_get_int");
    }
    return GENSVD_OK;
}

const char *gensvd_array_get_string(const gensvd_array *arr, const char *name)
{
    if (!arr || !name)
        return NULL;
    if (!strcmp(name, "dtype"))
        return arr->typestr;
    if (!strcmp(name, "codecs"))
        return arr->codecs;
    if (!strcmp(name, "order"))
        return arr->order;
    return NULL;
}

int gensvd_array_stored_bytes(gensvd_array *arr, uint64_t *bytes, uint64_t *objects)
{
    const struct gsvd_scope *prev;
    uint64_t b = 0, n = 0;
    int rc;

    if (bytes)
        *bytes = 0;
    if (objects)
        *objects = 0;
    if (!arr)
        return GENSVD_EINVAL;
    prev = lib_begin(arr->src->ctx);
    rc = gsvd_array_stored_bytes(arr->a, &b, &n);
    if (rc == GSVD_OK && bytes)
        *bytes = b;
    if (rc == GSVD_OK && objects)
        *objects = n;
    return lib_end(arr->src->ctx, prev, rc, "gensvd_array_stored_bytes");
}

/* ---- reading block by block --------------------------------------------------------------- */

struct blocks {
    const struct gsvd_zarray *z;
    gsvd_reader **readers; /* one per worker */
    uint64_t start[GSVD_MAX_DIMS], count[GSVD_MAX_DIMS];
    uint64_t n_blocks;
    struct gsvd_progress progress;
    gensvd_block_fn fn;
    void *user;
};

struct block_slot {
    uint64_t start[GSVD_MAX_DIMS], count[GSVD_MAX_DIMS];
    unsigned char *data;      /* numeric and fixed-width values */
    struct gsvd_strlist strs; /* or the strings of an 'O' array */
};

/* Block b: chunk row first/c0 + b of axis 0, cut to the region (axis 0 follows the grid so
 * that each block decodes each of its chunks once). */
static void block_region(const struct blocks *c, uint64_t b, struct block_slot *s)
{
    const struct gsvd_zarray *z = c->z;

    memcpy(s->start, c->start, sizeof s->start);
    memcpy(s->count, c->count, sizeof s->count);
    if (z->ndim > 0) {
        uint64_t c0 = z->chunks[0], first = c->start[0], end = c->start[0] + c->count[0];
        uint64_t lo = b == 0 ? first : (first / c0 + b) * c0;
        uint64_t hi = (first / c0 + b + 1) * c0;
        s->start[0] = lo;
        s->count[0] = (hi < end ? hi : end) - lo;
    }
}

static int block_produce(void *vctx, size_t worker, uint64_t b, void *vslot)
{
    struct blocks *c = vctx;
    struct block_slot *s = vslot;

    if (gsvd_scope_cancelled())
        return GSVD_ECANCELED;
    block_region(c, b, s);
    if (c->z->dtype.kind == 'O') {
        gsvd_strlist_free(&s->strs);
        return gsvd_reader_read_objects(c->readers[worker], s->start, s->count, &s->strs);
    }
    return gsvd_reader_read(c->readers[worker], s->start, s->count, s->data);
}

static int block_consume(void *vctx, uint64_t b, void *vslot)
{
    struct blocks *c = vctx;
    struct block_slot *s = vslot;
    const void *data = c->z->dtype.kind == 'O' ? (const void *)s->strs.items : s->data;

    if (gsvd_scope_cancelled())
        return GSVD_ECANCELED;
    gsvd_progress_report(&c->progress, "reading", b + 1, c->n_blocks);
    if (c->fn(c->user, s->start, s->count, data) != 0)
        return gsvd_scope_cancelled() ? GSVD_ECANCELED : GSVD_EIO;
    return GSVD_OK;
}

/* The region [start, stop) into c (NULL: from 0, to the end), checked against the shape, and
 * the number of its blocks and the bytes of the largest. */
static int plan(gensvd_array *arr, const uint64_t *start, const uint64_t *stop, struct blocks *c,
                size_t *block_bytes)
{
    const struct gsvd_zarray *z = c->z;
    size_t bytes = z->dtype.size;

    for (size_t d = 0; d < z->ndim; d++) {
        uint64_t a = start ? start[d] : 0, b = stop ? stop[d] : z->shape[d];
        if (a > b || b > z->shape[d])
            return lib_fail(GSVD_EINVAL,
                            "%s: axis %zu: [%" PRIu64 ", %" PRIu64 ") is outside 0..%" PRIu64,
                            gsvd_array_name(arr->a), d, a, b, z->shape[d]);
        c->start[d] = a;
        c->count[d] = b - a;
    }
    c->n_blocks = 1;
    for (size_t d = 0; d < z->ndim; d++) {
        uint64_t rows = d ? c->count[d] : c->count[0] < z->chunks[0] ? c->count[0] : z->chunks[0];
        if (c->count[d] == 0)
            c->n_blocks = 0;
        if (gsvd_mul_size(bytes, (size_t)rows, &bytes) < 0)
            return lib_fail(GSVD_ENOMEM, "%s: a chunk row of the region does not fit in memory",
                            gsvd_array_name(arr->a));
    }
    if (z->ndim > 0 && c->n_blocks) {
        uint64_t c0 = z->chunks[0];
        c->n_blocks = (c->start[0] + c->count[0] + c0 - 1) / c0 - c->start[0] / c0;
    }
    *block_bytes = bytes ? bytes : 1;
    return GSVD_OK;
}

int gensvd_array_read_blocks(gensvd_array *arr, const uint64_t *start, const uint64_t *stop,
                             gensvd_block_fn fn, void *user)
{
    const struct gsvd_scope *prev;
    struct blocks c = {0};
    struct block_slot *slots = NULL;
    void **ptrs = NULL;
    size_t nw = 1, depth = 0, block_bytes = 0;
    int rc = GSVD_OK;

    if (!arr || !fn)
        return GENSVD_EINVAL;
    prev = lib_begin(arr->src->ctx);
    c.z = gsvd_array_meta(arr->a);
    c.fn = fn;
    c.user = user;
    c.progress = lib_progress(arr->src->ctx);
    GSVD_TRY(plan(arr, start, stop, &c, &block_bytes));
    nw = lib_threads(arr->src->ctx);
    if (c.n_blocks < nw)
        nw = c.n_blocks ? (size_t)c.n_blocks : 1;
    depth = 2 * nw;
    slots = gsvd_calloc(depth, sizeof *slots);
    ptrs = gsvd_calloc(depth, sizeof *ptrs);
    if (!slots || !ptrs) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < depth; i++) {
        if (c.z->dtype.kind != 'O' && !(slots[i].data = gsvd_malloc(block_bytes))) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        ptrs[i] = &slots[i];
    }
    GSVD_TRY(gsvd_reader_pool_new(arr->a, nw, &c.readers));
    if (c.n_blocks > 0)
        GSVD_TRY(gsvd_array_prefetch(arr->a, 0, c.start, c.count, NULL)); /* remote read-ahead */
    struct gsvd_pipeline_params pp = {.n_workers = nw, .depth = depth, .slots = ptrs};
    GSVD_TRY(gsvd_pipeline_run(&pp, c.n_blocks, block_produce, block_consume, &c));
out:
    gsvd_reader_pool_free(c.readers, nw);
    for (size_t i = 0; slots && i < depth; i++) {
        gsvd_free(slots[i].data);
        gsvd_strlist_free(&slots[i].strs);
    }
    gsvd_free(slots);
    gsvd_free(ptrs);
    return lib_end(arr->src->ctx, prev, rc, "gensvd_array_read_blocks");
}
