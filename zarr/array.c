/* zarr/array.c - chunk keys, chunk decoding (F order, byte order, fill) and region reads. */
#include "gsvd_config.h"
#include "zarr/array.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/ndcopy.h"

struct gsvd_array {
    gsvd_tree *tree;         /* borrowed */
    char *path;              /* owned; "" for a root array */
    char *name;              /* owned; "URL/path" for messages */
    struct gsvd_zarray meta; /* owned members */
    struct gsvd_buf zattrs;  /* .zattrs text, empty when absent */
};

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
    gsvd_free(a->path);
    gsvd_free(a->name);
    gsvd_free(a);
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
    a->tree = t;
    a->path = gsvd_strdup(path);
    a->name = *path ? gsvd_asprintf("%s/%s", url, path) : gsvd_strdup(url);
    if (!a->path || !a->name) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_key_join(path, ".zarray", &key));
    rc = gsvd_tree_get_meta(t, key, &json);
    if (rc == GSVD_ENOTFOUND) {
        gsvd_log_error("%s: no array here (no .zarray)", a->name);
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
    struct gsvd_buf b = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    *out = NULL;
    if (*a->path)
        GSVD_TRY(gsvd_buf_printf(&b, "%s/", a->path));
    if (a->meta.ndim == 0)
        GSVD_TRY(gsvd_buf_puts(&b, "0"));
    for (size_t d = 0; d < a->meta.ndim; d++) {
        if (d)
            GSVD_TRY(gsvd_buf_append(&b, &a->meta.sep, 1));
        GSVD_TRY(gsvd_buf_printf(&b, "%llu", (unsigned long long)idx[d]));
    }
    *out = b.data;
    b.data = NULL;
out:
    gsvd_buf_free(&b);
    return rc;
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

int gsvd_array_fetch_chunk(gsvd_array *a, const uint64_t *idx, struct gsvd_buf *raw)
{
    char *key = NULL;
    int rc = check_index(a, idx);

    if (rc < 0)
        return rc;
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

int gsvd_array_prefetch(gsvd_array *a, size_t axis, const uint64_t *start, const uint64_t *count)
{
    const struct gsvd_zarray *z = &a->meta;
    uint64_t lo[GSVD_MAX_DIMS], hi[GSVD_MAX_DIMS], idx[GSVD_MAX_DIMS];
    struct gsvd_strlist keys = GSVD_STRLIST_INIT;
    size_t nd = z->ndim, order[GSVD_MAX_DIMS], k = 0;
    char *key = NULL;
    int rc = GSVD_OK;

    if (nd == 0 || axis >= nd)
        return GSVD_OK;
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
    for (;;) {
        GSVD_TRY(gsvd_array_chunk_key(a, idx, &key));
        GSVD_TRY(gsvd_strlist_push(&keys, key));
        gsvd_free(key);
        key = NULL;
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
    int rc = GSVD_OK, f_order = z->order == 'F' && z->ndim > 1;
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
    GSVD_TRY(gsvd_array_chunk_key(a, idx, &key));
    if (f_order) {
        gsvd_buf_clear(scratch);
        GSVD_TRY(gsvd_buf_reserve(scratch, z->chunk_bytes));
        target = scratch->data;
    }
    GSVD_TRY(
        gsvd_codec_chain_decode(z->codecs, ws, raw->data, raw->len, target, z->chunk_bytes, key));
    if (f_order)
        gsvd_f_to_c(target, dst, z->chunks, z->ndim, z->dtype.size);
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
    char *key = NULL;
    int rc = GSVD_OK;

    for (size_t d = 0; d < z->ndim; d++)
        if (z->grid[d] == 0)
            goto done;
    for (;;) {
        uint64_t sz = 0;
        gsvd_free(key);
        key = NULL;
        GSVD_TRY(gsvd_array_chunk_key(a, idx, &key));
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
            if (++idx[d] < z->grid[d])
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
