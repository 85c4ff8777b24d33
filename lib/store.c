/* lib/store.c - gensvd_store_info (the tree `gensvd info` shows, as JSON) and gensvd_store_read
 * (an array, or a hyperslab of it, as a one-array result); lib_store_open, the store, tree and
 * node a URL names, for every file that reads a store by name. */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <inttypes.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/array.h"
#include "zarr/codec.h"
#include "zarr/meta.h"
#include "zarr/reader.h"

int lib_store_open(const char *url, struct lib_store *o)
{
    char *root = NULL;
    int rc = GSVD_OK;

    memset(o, 0, sizeof *o);
    if (!url || !*url)
        return lib_fail(GSVD_EINVAL, "no store URL");
    GSVD_TRY(gsvd_tree_locate(url, &root, &o->node));
    if (*o->node && gsvd_key_check(o->node) < 0) {
        rc = lib_fail(GSVD_EFORMAT, "%s: invalid node path '%s' (empty, '.' or '..' components)",
                      url, o->node);
        goto out;
    }
    GSVD_TRY(gsvd_store_open(root, GSVD_STORE_READ, &o->st));
    GSVD_TRY(gsvd_tree_open(o->st, &o->t));
out:
    gsvd_free(root);
    return rc;
}

void lib_store_close(struct lib_store *o)
{
    gsvd_tree_close(o->t);
    gsvd_store_close(o->st);
    gsvd_free(o->node);
    memset(o, 0, sizeof *o);
}

/* ---- info --------------------------------------------------------------------------------- */

uint64_t lib_grid_count(const struct gsvd_zarray *z, int shards)
{
    uint64_t n = 1;
    for (size_t d = 0; d < z->ndim; d++)
        n *= shards ? z->shard_grid[d] : z->grid[d]; /* below the shape's product, checked */
    return n;
}

struct info {
    gsvd_tree *t;
    struct gsvd_buf groups, arrays;
    int n_groups, n_arrays;
};

static int u64_list(struct gsvd_buf *b, const uint64_t *v, size_t n)
{
    int rc = GSVD_OK;
    GSVD_TRY(gsvd_buf_puts(b, "["));
    for (size_t i = 0; i < n; i++)
        GSVD_TRY(gsvd_buf_printf(b, "%s%" PRIu64, i ? ", " : "", v[i]));
    GSVD_TRY(gsvd_buf_puts(b, "]"));
out:
    return rc;
}

static int info_array(struct info *in, const char *path)
{
    struct gsvd_buf *b = &in->arrays;
    struct gsvd_strlist dims = GSVD_STRLIST_INIT;
    const struct gsvd_zarray *z;
    gsvd_array *a = NULL;
    char dt[32], codecs[256];
    uint64_t stored = 0, n_chunks = 0, items = 1;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_array_open(in->t, path, &a));
    z = gsvd_array_meta(a);
    GSVD_TRY(gsvd_array_dim_names(a, &dims));
    GSVD_TRY(gsvd_array_stored_bytes(a, &stored, &n_chunks));
    gsvd_dtype_format(&z->dtype, dt, sizeof dt);
    gsvd_codec_chain_describe(z->codecs, codecs, sizeof codecs);
    for (size_t d = 0; d < z->ndim; d++)
        if (gsvd_mul_u64(items, z->shape[d], &items) < 0)
            items = UINT64_MAX;
    GSVD_TRY(gsvd_buf_puts(b, in->n_arrays++ ? ",\n    {\"path\": " : "\n    {\"path\": "));
    GSVD_TRY(gsvd_json_quote(b, path));
    GSVD_TRY(gsvd_buf_puts(b, ", \"shape\": "));
    GSVD_TRY(u64_list(b, z->shape, z->ndim));
    GSVD_TRY(gsvd_buf_puts(b, ", \"chunks\": "));
    GSVD_TRY(u64_list(b, z->chunks, z->ndim));
    GSVD_TRY(gsvd_buf_puts(b, ", \"dtype\": "));
    GSVD_TRY(gsvd_json_quote(b, dt));
    GSVD_TRY(gsvd_buf_puts(b, ", \"codecs\": "));
    GSVD_TRY(gsvd_json_quote(b, codecs));
    GSVD_TRY(gsvd_buf_printf(b, ", \"zarr_format\": %d, \"stored_bytes\": %" PRIu64,
                             z->zarr_format == 3 ? 3 : 2, stored));
    if (z->dtype.kind != 'O')
        GSVD_TRY(gsvd_buf_printf(b, ", \"raw_bytes\": %" PRIu64,
                                 items == UINT64_MAX ? items : items * z->dtype.size));
    GSVD_TRY(gsvd_buf_puts(b, ", \"dims\": ["));
    for (size_t i = 0; i < dims.n; i++) {
        GSVD_TRY(gsvd_buf_puts(b, i ? ", " : ""));
        GSVD_TRY(gsvd_json_quote(b, dims.items[i]));
    }
    GSVD_TRY(gsvd_buf_puts(b, "]"));
    GSVD_TRY(gsvd_buf_printf(b,
                             ", \"order\": \"%c\", \"chunk_count\": %" PRIu64
                             ", \"shard_count\": %" PRIu64 ", \"stored_objects\": %" PRIu64 "}",
                             z->order == 'F' || z->order == 'P' ? z->order : 'C',
                             lib_grid_count(z, 0), z->sharded ? lib_grid_count(z, 1) : 0,
                             n_chunks));
out:
    gsvd_strlist_free(&dims);
    gsvd_array_close(a);
    return rc;
}

/* The node at path and, for a group, everything below it. */
static int info_node(struct info *in, const char *path, int depth)
{
    struct gsvd_strlist children = GSVD_STRLIST_INIT;
    char *sub = NULL;
    int rc = GSVD_OK, kind = gsvd_tree_node_kind(in->t, path);

    if (kind < 0)
        return kind;
    if (depth > 64)
        return lib_fail(GSVD_EFORMAT, "%s: groups nested deeper than 64", path);
    if (kind == GSVD_NODE_ARRAY)
        return info_array(in, path);
    if (kind == GSVD_NODE_NONE)
        return lib_fail(GSVD_ENOTFOUND, "%s/%s: no Zarr group or array here",
                        gsvd_store_url(gsvd_tree_store(in->t)), path);
    GSVD_TRY(gsvd_buf_puts(&in->groups, in->n_groups++ ? ", " : ""));
    GSVD_TRY(gsvd_json_quote(&in->groups, path));
    GSVD_TRY(gsvd_tree_children(in->t, path, &children));
    for (size_t i = 0; i < children.n; i++) {
        GSVD_TRY(gsvd_key_join(path, children.items[i], &sub));
        GSVD_TRY(info_node(in, sub, depth + 1));
        gsvd_free(sub);
        sub = NULL;
    }
out:
    gsvd_free(sub);
    gsvd_strlist_free(&children);
    return rc;
}

int gensvd_store_info(gensvd_ctx *ctx, const char *url, char **json_out)
{
    const struct gsvd_scope *prev;
    struct lib_store o;
    struct info in = {0};
    struct gsvd_buf out = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    if (json_out)
        *json_out = NULL;
    if (!ctx || !json_out)
        return GENSVD_EINVAL;
    prev = lib_begin(ctx);
    GSVD_TRY(lib_store_open(url, &o));
    in.t = o.t;
    GSVD_TRY(info_node(&in, o.node, 0));
    GSVD_TRY(gsvd_buf_printf(
        &out,
        "{\"zarr_format\": %d, \"consolidated\": %s, \"groups\": [%s],"
        " \"arrays\": [%s\n]}",
        gsvd_tree_format(o.t), gsvd_tree_is_consolidated(o.t) ? "true" : "false",
        in.groups.data ? in.groups.data : "", in.arrays.data ? in.arrays.data : ""));
    *json_out = out.data;
    out.data = NULL;
out:
    gsvd_buf_free(&out);
    gsvd_buf_free(&in.groups);
    gsvd_buf_free(&in.arrays);
    lib_store_close(&o);
    return lib_end(ctx, prev, rc, "gensvd_store_info");
}

/* ---- read --------------------------------------------------------------------------------- */

/* The region [start, stop) of array a (NULL: all) into *out, with its spec. */
static int read_region(gsvd_array *a, const uint64_t *start, const uint64_t *stop,
                       gsvd_result **out)
{
    const struct gsvd_zarray *z = gsvd_array_meta(a);
    struct gsvd_array_spec s = {.ndim = z->ndim};
    struct gsvd_strlist dims = GSVD_STRLIST_INIT, strs = GSVD_STRLIST_INIT;
    uint64_t org[GSVD_MAX_DIMS], cnt[GSVD_MAX_DIMS], items = 1;
    const char *name = strrchr(gsvd_array_name(a), '/');
    gsvd_reader *r = NULL;
    void *data = NULL;
    int rc = GSVD_OK, text = z->dtype.kind == 'O' || z->dtype.kind == 'S' || z->dtype.kind == 'U';

    s.path = name ? name + 1 : gsvd_array_name(a);
    if (z->ndim > GENSVD_MAX_DIMS || (z->dtype.kind == 'f' && z->dtype.size == 2))
        return lib_fail(GSVD_EUNSUPPORTED, "%s: %s", gsvd_array_name(a),
                        z->ndim > GENSVD_MAX_DIMS ? "more than 8 axes" : "float16 values");
    GSVD_TRY(gsvd_array_dim_names(a, &dims));
    for (size_t d = 0; d < z->ndim; d++) {
        org[d] = start ? start[d] : 0;
        cnt[d] = stop ? stop[d] - org[d] : z->shape[d] - org[d];
        if (org[d] > z->shape[d] || (stop && (stop[d] < org[d] || stop[d] > z->shape[d]))) {
            rc = lib_fail(GSVD_EINVAL,
                          "%s: axis %zu: [%" PRIu64 ", %" PRIu64 ") is outside 0..%" PRIu64,
                          gsvd_array_name(a), d, org[d], org[d] + cnt[d], z->shape[d]);
            goto out;
        }
        s.shape[d] = cnt[d];
        s.chunks[d] = cnt[d] < z->chunks[d] ? (cnt[d] ? cnt[d] : 1) : z->chunks[d];
        s.dims[d] = d < dims.n ? dims.items[d] : NULL;
        items *= cnt[d];
    }
    GSVD_TRY(gsvd_reader_new(a, &r));
    GSVD_TRY(gsvd_result_new(out));
    if (text) {
        s.dtype = (struct gsvd_dtype){'O', '|', sizeof(char *)};
        GSVD_TRY(gsvd_reader_read_objects(r, org, cnt, &strs));
        GSVD_TRY(gsvd_result_add(*out, &s, strs.items));
    } else {
        s.dtype = z->dtype;
        s.dtype.byteorder = s.dtype.size == 1 ? '|' : '<';
        if (z->has_fill)
            s.fill = z->fill;
        if (!(data = gsvd_malloc((size_t)(items ? items : 1) * z->dtype.size))) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        GSVD_TRY(gsvd_reader_read(r, org, cnt, data));
        rc = gsvd_result_adopt(*out, &s, data);
        data = NULL;
    }
out:
    if (rc < 0) {
        gsvd_result_free(*out);
        *out = NULL;
    }
    gsvd_free(data);
    gsvd_reader_free(r);
    gsvd_strlist_free(&dims);
    gsvd_strlist_free(&strs);
    return rc;
}

int gensvd_store_read(gensvd_ctx *ctx, const char *url, const char *array, const uint64_t *start,
                      const uint64_t *stop, gensvd_result **out)
{
    const struct gsvd_scope *prev;
    struct lib_store o;
    gsvd_array *a = NULL;
    gsvd_result *r = NULL;
    char *path = NULL;
    int rc = GSVD_OK;

    if (out)
        *out = NULL;
    if (!ctx || !out)
        return GENSVD_EINVAL;
    prev = lib_begin(ctx);
    GSVD_TRY(lib_store_open(url, &o));
    GSVD_TRY(gsvd_key_join(o.node, array ? array : "", &path));
    GSVD_TRY(gsvd_array_open(o.t, path, &a));
    GSVD_TRY(read_region(a, start, stop, &r));
    GSVD_TRY(lib_result_new(ctx, (enum gensvd_analysis)0, r, gsvd_tree_format(o.t), out));
out:
    gsvd_array_close(a);
    gsvd_free(path);
    lib_store_close(&o);
    return lib_end(ctx, prev, rc, "gensvd_store_read");
}
