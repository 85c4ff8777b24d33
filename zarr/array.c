/* zarr/array.c - chunk keys, chunk decoding (element order, byte order, fill) and region reads.
 *
 * Sharded Zarr v3 arrays: the reader's chunk is the inner chunk.  Chunk index idx lives in the
 * shard idx / per_shard (whose store key is what gsvd_array_chunk_key gives) at inner position
 * idx % per_shard, C order within the shard; shard indexes, inner chunk fetches and the remote
 * read-ahead plan are in zarr/array_shard.c. */
#include "gsvd_config.h"
#include "zarr/array.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/ndcopy.h"
#include "common/scope.h"
#include "zarr/array_internal.h"
#include "zarr/meta_v3.h"

const struct gsvd_zarray *gsvd_array_meta(const gsvd_array *a)
{
    return &a->meta;
}

const char *gsvd_array_path(const gsvd_array *a)
{
    return a->path;
}

const char *gsvd_array_name(const gsvd_array *a)
{
    return a->name;
}

void gsvd_array_close(gsvd_array *a)
{
    if (!a)
        return;
    gsvd_zarray_clear(&a->meta);
    gsvd_buf_free(&a->zattrs);
    for (size_t i = 0; i < SHARD_CACHE; i++)
        gsvd_free(a->slots[i].entries);
    pthread_cond_destroy(&a->loaded);
    pthread_mutex_destroy(&a->lock);
    gsvd_free(a->path);
    gsvd_free(a->name);
    gsvd_free(a);
}

/* v3: zarr.json into meta, attributes into zattrs. */
static int open_v3(gsvd_array *a, const char *path)
{
    int rc = GSVD_OK;
    char *key = NULL, *where = NULL;
    struct gsvd_buf json = GSVD_BUF_INIT;

    GSVD_TRY(gsvd_key_join(path, "zarr.json", &key));
    rc = gsvd_tree_get_meta(a->tree, key, &json);
    if (rc == GSVD_ENOTFOUND)
        gsvd_log_error("%s: no array here (no zarr.json)", a->name);
    if (rc < 0)
        goto out;
    where = gsvd_asprintf("%s/zarr.json", a->name);
    if (!where) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_zarray_parse_v3(json.data, json.len, where, &a->meta));
    GSVD_TRY(gsvd_v3_attrs(json.data, json.len, where, &a->zattrs));
out:
    gsvd_buf_free(&json);
    gsvd_free(key);
    gsvd_free(where);
    return rc;
}

int gsvd_array_open(gsvd_tree *t, const char *path, gsvd_array **out)
{
    int rc = GSVD_OK;
    gsvd_array *a = NULL;
    char *key = NULL, *where = NULL;
    struct gsvd_buf json = GSVD_BUF_INIT;
    const char *url = gsvd_store_url(gsvd_tree_store(t));

    *out = NULL;
    if (*path && gsvd_key_check(path) < 0) {
        gsvd_log_error("%s: invalid array path '%s'", url, path);
        return GSVD_EINVAL;
    }
    a = gsvd_calloc(1, sizeof *a);
    if (!a)
        return GSVD_ENOMEM;
    pthread_mutex_init(&a->lock, NULL);
    pthread_cond_init(&a->loaded, NULL);
    a->tree = t;
    a->path = gsvd_strdup(path);
    a->name = *path ? gsvd_asprintf("%s/%s", url, path) : gsvd_strdup(url);
    if (!a->path || !a->name) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (gsvd_tree_format(t) == 3) {
        GSVD_TRY(open_v3(a, path));
        *out = a;
        a = NULL;
        goto out;
    }
    GSVD_TRY(gsvd_key_join(path, ".zarray", &key));
    rc = gsvd_tree_get_meta(t, key, &json);
    if (rc == GSVD_ENOTFOUND) {
        /* a v3 node inside a v2 hierarchy: say so rather than "nothing here" */
        gsvd_free(key);
        key = NULL;
        GSVD_TRY(gsvd_key_join(path, "zarr.json", &key));
        if (gsvd_store_get(gsvd_tree_store(t), key, &json) == GSVD_OK) {
            gsvd_log_error("%s: a Zarr v3 node (zarr.json) inside a Zarr v2 hierarchy; open a v3 "
                           "store at its root",
                           a->name);
            rc = GSVD_EUNSUPPORTED;
        } else {
            gsvd_log_error("%s: no array here (no .zarray)", a->name);
            rc = GSVD_ENOTFOUND;
        }
        goto out;
    }
    if (rc < 0)
        goto out;
    where = gsvd_asprintf("%s/.zarray", a->name);
    if (!where) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_zarray_parse(json.data, json.len, where, &a->meta));
    gsvd_free(key);
    key = NULL;
    GSVD_TRY(gsvd_key_join(path, ".zattrs", &key));
    rc = gsvd_tree_get_meta(t, key, &a->zattrs);
    if (rc == GSVD_ENOTFOUND) {
        gsvd_buf_clear(&a->zattrs);
        rc = GSVD_OK;
    } else if (rc == GSVD_OK) {
        gsvd_free(where);
        where = gsvd_asprintf("%s/.zattrs", a->name);
        if (!where) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        GSVD_TRY(gsvd_meta_check_object(a->zattrs.data, a->zattrs.len, where));
    } else {
        goto out;
    }
    *out = a;
    a = NULL;
out:
    gsvd_array_close(a);
    gsvd_buf_free(&json);
    gsvd_free(key);
    gsvd_free(where);
    return rc;
}

int gsvd_array_dim_names(const gsvd_array *a, struct gsvd_strlist *out)
{
    int rc;
    if (a->zattrs.len == 0)
        return GSVD_OK;
    rc =
        gsvd_meta_get_string_list(a->zattrs.data, a->zattrs.len, "_ARRAY_DIMENSIONS", a->name, out);
    return rc == GSVD_ENOTFOUND ? GSVD_OK : rc;
}

int gsvd_array_chunk_key(const gsvd_array *a, const uint64_t *idx, char **out)
{
    uint64_t sidx[GSVD_MAX_DIMS];

    if (!a->meta.sharded)
        return gsvd_array_object_key(a, idx, out);
    gsvd_array_shard_of(&a->meta, idx, sidx);
    return gsvd_array_object_key(a, sidx, out);
}

/* Name of chunk idx in messages: its key, and for sharded arrays its place in the shard. */
char *gsvd_array_chunk_label(const gsvd_array *a, const uint64_t *idx)
{
    char *key = NULL, *label;
    const char *url = gsvd_store_url(gsvd_tree_store(a->tree));
    uint64_t sidx[GSVD_MAX_DIMS], inner;

    if (gsvd_array_chunk_key(a, idx, &key) < 0)
        return NULL;
    if (!a->meta.sharded) {
        label = gsvd_asprintf("%s: corrupt chunk '%s' of array '%s'", url, key,
                              *a->path ? a->path : "/");
    } else {
        inner = gsvd_array_shard_of(&a->meta, idx, sidx);
        label = gsvd_asprintf("%s: corrupt chunk '%s' (inner chunk %llu) of array '%s'", url, key,
                              (unsigned long long)inner, *a->path ? a->path : "/");
    }
    gsvd_free(key);
    return label;
}

static int check_index(const gsvd_array *a, const uint64_t *idx)
{
    for (size_t d = 0; d < a->meta.ndim; d++) {
        if (idx[d] >= a->meta.grid[d]) {
            gsvd_log_error("%s: chunk index %llu out of range on axis %zu", a->name,
                           (unsigned long long)idx[d], d);
            return GSVD_EINVAL;
        }
    }
    return GSVD_OK;
}

int gsvd_array_fetch_chunk_in(gsvd_array *a, const uint64_t *idx, const uint64_t *lo,
                              const uint64_t *hi, struct gsvd_chunk_span *span,
                              struct gsvd_buf *raw)
{
    int rc = check_index(a, idx);

    if (rc < 0)
        return rc;
    if (!a->meta.sharded)
        return gsvd_array_fetch_chunk(a, idx, raw);
    for (size_t d = 0; d < a->meta.ndim; d++) {
        if (!(lo[d] <= idx[d] && idx[d] < hi[d] && hi[d] <= a->meta.grid[d])) {
            gsvd_log_error("%s: chunk scan box does not hold chunk %llu on axis %zu", a->name,
                           (unsigned long long)idx[d], d);
            return GSVD_EINVAL;
        }
    }
    return gsvd_array_fetch_inner(a, idx, lo, hi, span, raw);
}

int gsvd_array_fetch_chunk(gsvd_array *a, const uint64_t *idx, struct gsvd_buf *raw)
{
    char *key = NULL;
    int rc = check_index(a, idx);

    if (rc < 0)
        return rc;
    if (a->meta.sharded)
        return gsvd_array_fetch_inner(a, idx, NULL, NULL, NULL, raw);
    GSVD_TRY(gsvd_array_chunk_key(a, idx, &key));
    rc = gsvd_store_get(gsvd_tree_store(a->tree), key, raw);
    if (rc == GSVD_ENOTFOUND) {
        gsvd_buf_clear(raw);
        rc = 0;
    } else if (rc == GSVD_OK) {
        rc = 1;
    }
out:
    gsvd_free(key);
    return rc;
}

int gsvd_array_prefetch(gsvd_array *a, size_t axis, const uint64_t *start, const uint64_t *count,
                        const uint8_t *skip)
{
    const struct gsvd_zarray *z = &a->meta;
    uint64_t lo[GSVD_MAX_DIMS], hi[GSVD_MAX_DIMS], idx[GSVD_MAX_DIMS];
    struct gsvd_strlist keys = GSVD_STRLIST_INIT;
    size_t nd = z->ndim, order[GSVD_MAX_DIMS], k = 0;
    char *key = NULL;
    int rc = GSVD_OK;

    if (nd == 0 || axis >= nd)
        return GSVD_OK;
    if (z->sharded && !gsvd_store_can_prefetch_ranges(gsvd_tree_store(a->tree)))
        return GSVD_OK; /* local shards: read on demand, coalesced per reader */
    if (!z->sharded && !gsvd_store_can_prefetch(gsvd_tree_store(a->tree)))
        return GSVD_OK; /* nothing to tell a store that reads on demand */
    for (size_t d = 0; d < nd; d++) {
        if (start[d] > z->shape[d] || count[d] > z->shape[d] - start[d]) {
            gsvd_log_error("%s: prefetch region leaves axis %zu", a->name, d);
            return GSVD_EINVAL;
        }
        if (count[d] == 0)
            return GSVD_OK;
        lo[d] = start[d] / z->chunks[d];
        hi[d] = (start[d] + count[d] - 1) / z->chunks[d] + 1;
        idx[d] = lo[d];
    }
    /* odometer over the axes with `axis` slowest, the others in C order */
    order[k++] = axis;
    for (size_t d = 0; d < nd; d++)
        if (d != axis)
            order[k++] = d;
    if (z->sharded)
        return gsvd_array_plan_sharded(a, order, lo, hi, skip);
    for (;;) {
        if (!skip || !skip[idx[axis] - lo[axis]]) {
            GSVD_TRY(gsvd_array_chunk_key(a, idx, &key));
            GSVD_TRY(gsvd_strlist_push(&keys, key));
            gsvd_free(key);
            key = NULL;
        }
        size_t j = nd;
        while (j-- > 0) {
            size_t d = order[j];
            if (++idx[d] < hi[d])
                break;
            idx[d] = lo[d];
        }
        if (j == (size_t)-1)
            break;
    }
    rc = gsvd_store_prefetch(gsvd_tree_store(a->tree), (const char *const *)keys.items, keys.n);
out:
    gsvd_free(key);
    gsvd_strlist_free(&keys);
    return rc;
}

void gsvd_array_to_c_order(const struct gsvd_zarray *z, const void *src, void *dst, size_t esz)
{
    uint64_t stride[GSVD_MAX_DIMS], step[GSVD_MAX_DIMS], ext[GSVD_MAX_DIMS], j[GSVD_MAX_DIMS];
    const unsigned char *s = src;
    unsigned char *d = dst;
    size_t nd = z->ndim, o = 0;

    if (z->order == 'F') {
        gsvd_f_to_c(src, dst, z->chunks, nd, esz);
        return;
    }
    if (z->order != 'P') {
        memcpy(dst, src, z->chunk_items * esz);
        return;
    }
    /* walk the stored chunk (shape chunks[perm[i]]) in C order; stored axis i moves the C-order
     * destination by the stride of chunk axis perm[i] */
    for (size_t k = nd; k-- > 0;)
        stride[k] = k + 1 < nd ? stride[k + 1] * z->chunks[k + 1] : 1;
    for (size_t i = 0; i < nd; i++) {
        step[i] = stride[z->perm[i]];
        ext[i] = z->chunks[z->perm[i]];
        j[i] = 0;
    }
    for (size_t n = 0; n < z->chunk_items; n++, s += esz) {
        memcpy(d + o * esz, s, esz);
        for (size_t i = nd; i-- > 0;) {
            o += step[i];
            if (++j[i] < ext[i])
                break;
            o -= step[i] * ext[i];
            j[i] = 0;
        }
    }
}

/* Reverse the bytes of each of n elements of size esz in place. */
static void byteswap(unsigned char *p, size_t n, size_t esz)
{
    for (size_t i = 0; i < n; i++, p += esz)
        for (size_t j = 0; j < esz / 2; j++) {
            unsigned char t = p[j];
            p[j] = p[esz - 1 - j];
            p[esz - 1 - j] = t;
        }
}

static void fill_chunk(const struct gsvd_zarray *z, unsigned char *dst)
{
    gsvd_fill_elems(dst, z->chunk_items, z->fill, z->dtype.size);
}

int gsvd_array_decode_chunk(gsvd_array *a, gsvd_codec_ws *ws, const uint64_t *idx,
                            const struct gsvd_buf *raw, int present, void *dst,
                            struct gsvd_buf *scratch)
{
    const struct gsvd_zarray *z = &a->meta;
    int rc = GSVD_OK, f_order = z->order != 'C' && z->ndim > 1;
    char *key = NULL;
    void *target = dst;

    if (z->dtype.kind == 'O') {
        gsvd_log_error("%s: object arrays are read as strings, not raw chunks", a->name);
        return GSVD_EINTERNAL;
    }
    if (!present) {
        fill_chunk(z, dst);
        return GSVD_OK;
    }
    key = gsvd_array_chunk_label(a, idx);
    if (!key) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (f_order) {
        gsvd_buf_clear(scratch);
        GSVD_TRY(gsvd_buf_reserve(scratch, z->chunk_bytes));
        target = scratch->data;
    }
    GSVD_TRY(
        gsvd_codec_chain_decode(z->codecs, ws, raw->data, raw->len, target, z->chunk_bytes, key));
    if (f_order)
        gsvd_array_to_c_order(z, target, dst, z->dtype.size);
    if (gsvd_dtype_needs_swap(&z->dtype))
        byteswap(dst, z->dtype.kind == 'U' ? z->chunk_items * (z->dtype.size / 4) : z->chunk_items,
                 z->dtype.kind == 'U' ? 4 : z->dtype.size);
out:
    gsvd_free(key);
    return rc;
}

int gsvd_array_read_chunk(gsvd_array *a, gsvd_codec_ws *ws, const uint64_t *idx, void *dst,
                          struct gsvd_buf *raw, struct gsvd_buf *scratch)
{
    int present = gsvd_array_fetch_chunk(a, idx, raw);
    if (present < 0)
        return present;
    return gsvd_array_decode_chunk(a, ws, idx, raw, present, dst, scratch);
}

int gsvd_array_stored_bytes(gsvd_array *a, uint64_t *bytes, uint64_t *n_chunks)
{
    const struct gsvd_zarray *z = &a->meta;
    uint64_t idx[GSVD_MAX_DIMS] = {0}, total = 0, n = 0;
    const uint64_t *grid = z->sharded ? z->shard_grid : z->grid;
    char *key = NULL;
    int rc = GSVD_OK;

    for (size_t d = 0; d < z->ndim; d++)
        if (grid[d] == 0)
            goto done;
    for (;;) {
        uint64_t sz = 0;
        if (gsvd_scope_cancelled()) { /* a request per chunk on some stores: long */
            rc = GSVD_ECANCELED;
            goto out;
        }
        gsvd_free(key);
        key = NULL;
        GSVD_TRY(gsvd_array_object_key(a, idx, &key));
        rc = gsvd_store_size(gsvd_tree_store(a->tree), key, &sz);
        if (rc == GSVD_OK) {
            total += sz;
            n++;
        } else if (rc != GSVD_ENOTFOUND) {
            goto out;
        }
        rc = GSVD_OK;
        size_t d = z->ndim;
        while (d-- > 0) {
            if (++idx[d] < grid[d])
                break;
            idx[d] = 0;
        }
        if (d == (size_t)-1)
            break;
    }
done:
    *bytes = total;
    *n_chunks = n;
out:
    gsvd_free(key);
    return rc;
}
