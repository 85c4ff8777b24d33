/* tests/unit/test_writer.c - zarr/writer.h against its contract: writer -> reader round trips
 * for every numeric dtype, rank 0-3, edge chunks on every axis and fill values, through a file
 * store and the same keys copied into a mem: store (random sub-regions and row ranges compared
 * with the source); Zarr v3 output (codecs, sharding, consolidated root); and every documented
 * writer error. */
#include "gsvd_config.h"

#include "tests/gsvd_test.h"
#include "tests/unit/array_util.h"

/* ---- writer -> reader round trips -------------------------------------------------------- */

struct rt_case {
    const char *path;
    const char *ts;
    size_t nd;
    uint64_t shape[3], chunks[3];
    int has_fill;
    uint64_t fill; /* bits, native order, low dtype.size bytes */
    const char *comp, *filters;
};

static const struct rt_case rt_cases[] = {
    {"b1", "|b1", 2, {7, 5}, {3, 2}, 1, 1, NULL, NULL},
    {"g/i1", "|i1", 3, {7, 5, 3}, {3, 2, 2}, 1, 0xff, "{\"id\": \"zstd\", \"level\": 1}", NULL},
    {"g/h/i2", "<i2", 1, {11}, {4}, 0, 0, "{\"id\": \"zlib\", \"level\": 1}", NULL},
    {"i4",
     "<i4",
     2,
     {9, 6},
     {4, 4},
     1,
     7,
     "{\"id\": \"gzip\", \"level\": 1}",
     "[{\"dtype\": \"<i4\", \"id\": \"delta\"}]"},
    {"i8", "<i8", 2, {5, 5}, {2, 3}, 1, 0x8000000000000000ull, "{\"id\": \"lz4\"}", NULL},
    {"u1",
     "|u1",
     3,
     {4, 6, 5},
     {3, 4, 2},
     1,
     255,
     "{\"blocksize\": 0, \"clevel\": 5, \"cname\": \"lz4\", \"id\": \"blosc\", \"shuffle\": 2}",
     NULL},
    {"u2", "<u2", 1, {10}, {10}, 1, 0, "null", NULL},
    {"u4", "<u4", 2, {3, 8}, {5, 3}, 1, 1, NULL, NULL},
    {"u8", "<u8", 1, {6}, {4}, 1, UINT64_MAX, "{\"id\": \"zstd\", \"level\": 3}", NULL},
    {"f2", "<f2", 2, {5, 4}, {2, 3}, 0, 0, NULL, NULL},
    {"f4",
     "<f4",
     2,
     {6, 7},
     {4, 3},
     1,
     0x7fc00000u,
     "{\"blocksize\": 0, \"clevel\": 1, \"cname\": \"zlib\", \"id\": \"blosc\", \"shuffle\": 1}",
     NULL},
    {"f8", "<f8", 3, {5, 4, 3}, {2, 3, 2}, 1, 0xbff8000000000000ull, NULL, NULL},
    {"f8d",
     "<f8",
     2,
     {4, 4},
     {3, 3},
     1,
     0,
     "{\"id\": \"zlib\", \"level\": 1}",
     "[{\"dtype\": \"<f8\", \"id\": \"delta\"}]"},
    {"scalar_f8", "<f8", 0, {0}, {0}, 1, 0x4004000000000000ull, NULL, NULL},
    {"scalar_i4", "<i4", 0, {0}, {0}, 0, 0, "null", NULL},
    {"empty", "<i4", 2, {0, 3}, {2, 2}, 1, 3, NULL, NULL},
    {"big_chunk", "<i2", 2, {3, 2}, {64, 64}, 1, 5, NULL, NULL},
};

/* Write every case with write_rows (write_chunk for 0-d), commit; the sources in srcs[i]. */
static int write_cases(const char *url, unsigned char **srcs)
{
    gsvd_writer *w = NULL;
    gsvd_codec_ws *ws = NULL;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_writer_open(url, 1, &w));
    GSVD_TRY(gsvd_codec_ws_new(&ws));
    GSVD_TRY(gsvd_writer_group(w, "", "{\"title\": \"round trip\"}"));
    for (size_t i = 0; i < GSVD_ARRAY_LEN(rt_cases); i++) {
        const struct rt_case *c = &rt_cases[i];
        struct gsvd_array_spec spec = {0};
        gsvd_warray *wa = NULL;
        const struct gsvd_zarray *z;
        size_t n = n_items(c->nd, c->shape);

        spec.path = c->path;
        spec.ndim = c->nd;
        memcpy(spec.shape, c->shape, c->nd * sizeof *c->shape);
        memcpy(spec.chunks, c->chunks, c->nd * sizeof *c->chunks);
        spec.dtype = dtype_of(c->ts);
        spec.fill = c->has_fill ? &c->fill : NULL;
        spec.compressor_json = c->comp;
        spec.filters_json = c->filters;
        spec.attrs_json = i == 0 ? "{\"units\": \"cm\"}" : NULL;
        if (i == 1) {
            spec.dims[0] = "variants";
            spec.dims[1] = "samples";
            spec.dims[2] = "ploidy";
        }
        GSVD_TRY(gsvd_writer_array(w, &spec, &wa));
        z = gsvd_warray_meta(wa);
        GSVD_CHECK(z->ndim == c->nd && z->order == 'C' && z->sep == '.');
        srcs[i] = gsvd_malloc(n * spec.dtype.size + 1);
        if (!srcs[i]) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        fill_random(srcs[i], n, &spec.dtype);
        if (c->filters && spec.dtype.kind == 'f') /* float deltas are exact on small integers */
            for (size_t k = 0; k < n; k++)
                ((double *)(void *)srcs[i])[k] = (double)(rnd_below(2001)) - 1000.0;
        if (c->nd == 0) {
            uint64_t idx = 0;
            struct gsvd_buf enc = GSVD_BUF_INIT;
            rc = gsvd_warray_write_chunk(wa, ws, &idx, srcs[i], &enc);
            gsvd_buf_free(&enc);
            GSVD_TRY(rc);
            continue;
        }
        for (uint64_t row = 0; row < c->shape[0]; row += c->chunks[0]) {
            uint64_t n_rows = c->shape[0] - row < c->chunks[0] ? c->shape[0] - row : c->chunks[0];
            size_t row_items = n / (size_t)c->shape[0];
            GSVD_TRY(gsvd_warray_write_rows(wa, ws, row, n_rows,
                                            srcs[i] + row * row_items * spec.dtype.size));
        }
    }
    GSVD_TRY(gsvd_writer_commit(w));
out:
    gsvd_codec_ws_free(ws);
    gsvd_writer_close(w);
    return rc;
}

/* Open each case in the tree and check metadata, reads and edge-chunk padding. */
static void check_cases(gsvd_tree *t, unsigned char **srcs)
{
    for (size_t i = 0; i < GSVD_ARRAY_LEN(rt_cases); i++) {
        const struct rt_case *c = &rt_cases[i];
        gsvd_array *a = NULL;
        const struct gsvd_zarray *z;
        struct gsvd_dtype dt = dtype_of(c->ts);

        GSVD_CHECK_RC(gsvd_array_open(t, c->path, &a), GSVD_OK);
        if (!a || !srcs[i]) {
            gsvd_array_close(a);
            continue;
        }
        z = gsvd_array_meta(a);
        GSVD_CHECK(strcmp(gsvd_array_path(a), c->path) == 0);
        GSVD_CHECK(z->ndim == c->nd && z->dtype.kind == dt.kind && z->dtype.size == dt.size);
        for (size_t d = 0; d < c->nd; d++)
            GSVD_CHECK(z->shape[d] == c->shape[d] && z->chunks[d] == c->chunks[d]);
        GSVD_CHECK(z->has_fill == c->has_fill);
        GSVD_CHECK(!c->has_fill || memcmp(z->fill, &c->fill, dt.size) == 0);
        check_reads(a, srcs[i]);

        /* _ARRAY_DIMENSIONS */
        {
            struct gsvd_strlist names = GSVD_STRLIST_INIT;
            GSVD_CHECK_RC(gsvd_array_dim_names(a, &names), GSVD_OK);
            GSVD_CHECK(names.n == c->nd);
            if (i == 1 && names.n == 3)
                GSVD_CHECK(strcmp(names.items[0], "variants") == 0 &&
                           strcmp(names.items[2], "ploidy") == 0);
            if (i == 0 && names.n == 2)
                GSVD_CHECK(strcmp(names.items[0], "dim_0") == 0 &&
                           strcmp(names.items[1], "dim_1") == 0);
            gsvd_strlist_free(&names);
        }

        /* the last chunk is an edge chunk on every axis: its padding is the fill value */
        if (c->nd > 0 && n_items(c->nd, c->shape) > 0) {
            uint64_t idx[GSVD_MAX_DIMS];
            unsigned char *chunk = gsvd_malloc(z->chunk_bytes);
            struct gsvd_buf raw = GSVD_BUF_INIT, scratch = GSVD_BUF_INIT;
            gsvd_codec_ws *ws = NULL;
            uint64_t pad = c->has_fill ? c->fill : 0;
            int edge = 0, ok = 1;

            for (size_t d = 0; d < c->nd; d++) {
                idx[d] = z->grid[d] - 1;
                edge |= c->shape[d] % c->chunks[d] != 0;
            }
            GSVD_CHECK_RC(gsvd_codec_ws_new(&ws), GSVD_OK);
            if (chunk && ws && edge) {
                GSVD_CHECK_RC(gsvd_array_read_chunk(a, ws, idx, chunk, &raw, &scratch), GSVD_OK);
                /* the chunk's last element lies outside the array on every edge axis */
                ok = memcmp(chunk + z->chunk_bytes - dt.size, &pad, dt.size) == 0;
                GSVD_CHECK(ok);
            }
            gsvd_codec_ws_free(ws);
            gsvd_buf_free(&raw);
            gsvd_buf_free(&scratch);
            gsvd_free(chunk);
        }
        gsvd_array_close(a);
    }
}

static void test_roundtrips(void)
{
    unsigned char *srcs[GSVD_ARRAY_LEN(rt_cases)] = {0};
    char *url = gsvd_asprintf("%s/rt.zarr", tmp);
    gsvd_store *st = NULL, *mem = NULL;
    gsvd_tree *t = NULL, *tm = NULL;

    GSVD_CHECK_RC(write_cases(url, srcs), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_open(url, GSVD_STORE_READ, &st), GSVD_OK);
    if (!st)
        goto out;
    GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
    if (!t)
        goto out;
    GSVD_CHECK(gsvd_tree_is_consolidated(t) == 1); /* the writer adds .zmetadata */
    GSVD_CHECK(gsvd_tree_store(t) == st);
    GSVD_CHECK(gsvd_tree_node_kind(t, "") == GSVD_NODE_GROUP);
    GSVD_CHECK(gsvd_tree_node_kind(t, "g") == GSVD_NODE_GROUP);
    GSVD_CHECK(gsvd_tree_node_kind(t, "g/h") == GSVD_NODE_GROUP);
    GSVD_CHECK(gsvd_tree_node_kind(t, "g/h/i2") == GSVD_NODE_ARRAY);
    GSVD_CHECK(gsvd_tree_node_kind(t, "nope") == GSVD_NODE_NONE);
    check_cases(t, srcs);

    /* the .zarray files hold the exact 64-bit fills (the consolidated copies must, too) */
    {
        struct gsvd_buf b = GSVD_BUF_INIT;
        struct gsvd_zarray z;
        uint64_t fill = 0;
        GSVD_CHECK_RC(gsvd_store_get(st, "u8/.zarray", &b), GSVD_OK);
        GSVD_CHECK_RC(gsvd_zarray_parse(b.data, b.len, "u8/.zarray", &z), GSVD_OK);
        if (z.fill)
            memcpy(&fill, z.fill, 8);
        GSVD_CHECK(fill == UINT64_MAX);
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(gsvd_tree_get_meta(t, "u8/.zarray", &b), GSVD_OK);
        GSVD_CHECK_RC(gsvd_zarray_parse(b.data, b.len, ".zmetadata: u8/.zarray", &z), GSVD_OK);
        gsvd_zarray_clear(&z);
        gsvd_buf_free(&b);
    }

    /* stored bytes: the sum of the chunk files */
    {
        gsvd_array *a = NULL;
        uint64_t bytes = 0, n = 0, size = 0, want = 0;
        GSVD_CHECK_RC(gsvd_array_open(t, "u2", &a), GSVD_OK); /* one chunk, no compressor */
        if (a) {
            GSVD_CHECK_RC(gsvd_array_stored_bytes(a, &bytes, &n), GSVD_OK);
            GSVD_CHECK(n == 1 && bytes == 20);
        }
        gsvd_array_close(a);
        a = NULL;
        GSVD_CHECK_RC(gsvd_array_open(t, "g/i1", &a), GSVD_OK);
        if (a) {
            const struct gsvd_zarray *z = gsvd_array_meta(a);
            uint64_t idx[3];
            for (idx[0] = 0; idx[0] < z->grid[0]; idx[0]++)
                for (idx[1] = 0; idx[1] < z->grid[1]; idx[1]++)
                    for (idx[2] = 0; idx[2] < z->grid[2]; idx[2]++) {
                        char *key = NULL;
                        GSVD_CHECK_RC(gsvd_array_chunk_key(a, idx, &key), GSVD_OK);
                        GSVD_CHECK_RC(gsvd_store_size(st, key, &size), GSVD_OK);
                        want += size;
                        gsvd_free(key);
                    }
            GSVD_CHECK_RC(gsvd_array_stored_bytes(a, &bytes, &n), GSVD_OK);
            GSVD_CHECK(n == 3 * 3 * 2 && bytes == want);
        }
        gsvd_array_close(a);
        a = NULL;
        GSVD_CHECK_RC(gsvd_array_open(t, "empty", &a), GSVD_OK);
        if (a) {
            GSVD_CHECK_RC(gsvd_array_stored_bytes(a, &bytes, &n), GSVD_OK);
            GSVD_CHECK(n == 0 && bytes == 0);
        }
        gsvd_array_close(a);
    }
    /* root attributes */
    {
        struct gsvd_buf b = GSVD_BUF_INIT;
        char *title = NULL;
        GSVD_CHECK_RC(gsvd_tree_get_meta(t, ".zattrs", &b), GSVD_OK);
        GSVD_CHECK_RC(gsvd_meta_get_string(b.data, b.len, "title", "t", &title), GSVD_OK);
        GSVD_CHECK(title && strcmp(title, "round trip") == 0);
        gsvd_free(title);
        GSVD_CHECK_RC(gsvd_tree_get_meta(t, "b1/.zattrs", &b), GSVD_OK);
        GSVD_CHECK_RC(gsvd_meta_get_string(b.data, b.len, "units", "t", &title), GSVD_OK);
        GSVD_CHECK(title && strcmp(title, "cm") == 0);
        gsvd_free(title);
        GSVD_CHECK_RC(gsvd_tree_get_meta(t, "b1/.zgroup", &b), GSVD_ENOTFOUND);
        gsvd_buf_free(&b);
    }

    /* the same keys in a mem: store read the same */
    mem = mem_store();
    if (mem) {
        GSVD_CHECK_RC(copy_store(st, mem, ""), GSVD_OK);
        GSVD_CHECK_RC(gsvd_tree_open(mem, &tm), GSVD_OK);
        if (tm)
            check_cases(tm, srcs);
    }
out:
    gsvd_tree_close(tm);
    gsvd_store_close(mem);
    gsvd_tree_close(t);
    gsvd_store_close(st);
    for (size_t i = 0; i < GSVD_ARRAY_LEN(rt_cases); i++)
        gsvd_free(srcs[i]);
    if (url)
        gsvd_test_remove_tree(url);
    gsvd_free(url);
}

/* ---- Zarr v3 writer ------------------------------------------------------------------------ */

/* A v3 output read back by gensvd's own v3 reader: a sharded int32 array (edge shards), an
 * unsharded string array, group attributes and consolidated metadata; then the v3-only errors. */
static void test_writer_v3(void)
{
    struct gsvd_writer_params p = {.zarr_format = 3, .shard = {4, 0}};
    gsvd_writer *w = NULL;
    gsvd_warray *wa = NULL, *wo = NULL;
    gsvd_codec_ws *ws = NULL;
    gsvd_store *st = NULL;
    gsvd_tree *t = NULL;
    gsvd_array *a = NULL, *s = NULL;
    gsvd_reader *r = NULL, *rs = NULL;
    struct gsvd_array_spec spec = {0};
    struct gsvd_strlist l = GSVD_STRLIST_INIT;
    struct gsvd_buf enc = GSVD_BUF_INIT, attrs = GSVD_BUF_INIT;
    char *url = gsvd_asprintf("%s/v3.zarr", tmp);
    const char *items[] = {"a", "bc", "d\xc3\xa9"};
    int32_t src[15], got[15] = {0}, fill = -7;
    uint64_t start[2] = {0, 0}, count[2] = {5, 3}, sh[2];

    for (int i = 0; i < 15; i++)
        src[i] = i * 13 - 50;
    GSVD_CHECK_RC(gsvd_codec_ws_new(&ws), GSVD_OK);
    GSVD_CHECK_RC(gsvd_writer_open_params(url, 1, &p, &w), GSVD_OK);
    if (!w || !ws)
        goto out;
    GSVD_CHECK_RC(gsvd_writer_group(w, "", "{\"k\": \"v\"}"), GSVD_OK);
    spec.path = "x";
    spec.ndim = 2;
    spec.shape[0] = 5;
    spec.shape[1] = 3;
    spec.chunks[0] = 2;
    spec.chunks[1] = 2;
    spec.dtype = dtype_of("<i4");
    spec.fill = &fill;
    spec.dims[0] = "rows";
    spec.attrs_json = "{\"unit\": \"count\"}";
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &wa), GSVD_OK);
    if (!wa)
        goto out;
    GSVD_CHECK(gsvd_warray_meta(wa)->sharded && gsvd_warray_meta(wa)->shard[0] == 4 &&
               gsvd_warray_meta(wa)->shard[1] == 4 && gsvd_warray_meta(wa)->chunks[0] == 2);
    for (uint64_t row = 0; row < 5; row += 2)
        GSVD_CHECK_RC(gsvd_warray_write_rows(wa, ws, row, row + 2 <= 5 ? 2 : 1, src + row * 3),
                      GSVD_OK);
    /* the first shard is complete and stored: its chunks cannot be written again */
    GSVD_CHECK_RC(gsvd_warray_write_rows(wa, ws, 0, 2, src), GSVD_EINVAL);
    spec.path = "g/names";
    spec.ndim = 1;
    spec.shape[0] = 3;
    spec.dtype = (struct gsvd_dtype){'O', '|', sizeof(char *)};
    spec.fill = NULL;
    spec.attrs_json = NULL;
    spec.dims[0] = NULL;
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &wo), GSVD_OK);
    if (wo)
        GSVD_CHECK_RC(gsvd_warray_write_strings(wo, ws, items, 3), GSVD_OK);
    GSVD_CHECK_RC(gsvd_writer_commit(w), GSVD_OK);

    GSVD_CHECK_RC(gsvd_store_open(url, 0, &st), GSVD_OK);
    if (!st)
        goto out;
    GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
    if (!t)
        goto out;
    GSVD_CHECK(gsvd_tree_format(t) == 3 && gsvd_tree_is_consolidated(t));
    GSVD_CHECK_RC(gsvd_tree_get_meta(t, ".zattrs", &attrs), GSVD_OK);
    GSVD_CHECK(attrs.data && strstr(attrs.data, "\"k\"") != NULL);
    gsvd_buf_clear(&attrs);
    GSVD_CHECK_RC(gsvd_tree_get_meta(t, "x/.zattrs", &attrs), GSVD_OK);
    GSVD_CHECK(attrs.data && strstr(attrs.data, "\"rows\"") != NULL &&
               strstr(attrs.data, "\"dim_1\"") != NULL && strstr(attrs.data, "\"unit\"") != NULL);
    GSVD_CHECK_RC(gsvd_array_open(t, "x", &a), GSVD_OK);
    if (a) {
        GSVD_CHECK_RC(gsvd_reader_new(a, &r), GSVD_OK);
        if (r)
            GSVD_CHECK_RC(gsvd_reader_read(r, start, count, got), GSVD_OK);
        GSVD_CHECK(memcmp(got, src, sizeof src) == 0);
    }
    GSVD_CHECK_RC(gsvd_array_open(t, "g/names", &s), GSVD_OK);
    if (s) {
        GSVD_CHECK_RC(gsvd_reader_new(s, &rs), GSVD_OK);
        if (rs)
            GSVD_CHECK_RC(gsvd_reader_read_strings(rs, 0, 3, &l), GSVD_OK);
        GSVD_CHECK(l.n == 3 && strcmp(l.items[2], items[2]) == 0);
    }

    /* errors: format, shards with v2, a shard that is no multiple of the chunks */
    gsvd_writer_close(w);
    w = NULL;
    p.zarr_format = 4;
    GSVD_CHECK_RC(gsvd_writer_open_params(url, 1, &p, &w), GSVD_EINVAL);
    p.zarr_format = 2;
    GSVD_CHECK_RC(gsvd_writer_open_params(url, 1, &p, &w), GSVD_EINVAL);
    p.zarr_format = 3;
    p.shard[0] = 3;
    {
        const uint64_t shape[2] = {5, 2}, chunks[2] = {2, 2};
        GSVD_CHECK_RC(gsvd_writer_shard_shape(&p, "x", 2, shape, chunks, sh), GSVD_EINVAL);
        p.shard[0] = 8;
        GSVD_CHECK_RC(gsvd_writer_shard_shape(&p, "x", 2, shape, chunks, sh), GSVD_OK);
        /* clipped to the chunks the array has; one chunk on axis 1: the shard is the chunk */
        GSVD_CHECK(sh[0] == 6 && sh[1] == 2);
    }
out:
    gsvd_reader_free(r);
    gsvd_reader_free(rs);
    gsvd_array_close(a);
    gsvd_array_close(s);
    gsvd_tree_close(t);
    gsvd_store_close(st);
    gsvd_writer_close(w);
    gsvd_codec_ws_free(ws);
    gsvd_strlist_free(&l);
    gsvd_buf_free(&enc);
    gsvd_buf_free(&attrs);
    if (url)
        gsvd_test_remove_tree(url);
    gsvd_free(url);
}

/* ---- writer errors ------------------------------------------------------------------------- */

static void test_writer_errors(void)
{
    gsvd_writer *w = NULL;
    gsvd_warray *wa = NULL, *wo = NULL, *ws0 = NULL;
    gsvd_codec_ws *ws = NULL;
    struct gsvd_array_spec spec = {0};
    struct gsvd_buf enc = GSVD_BUF_INIT;
    char *url = gsvd_asprintf("%s/bad.zarr", tmp);
    int32_t data[64] = {0};
    const char *items[] = {"a", "b", "c"};
    int before = count_tmp_entries();

    GSVD_CHECK_RC(gsvd_codec_ws_new(&ws), GSVD_OK);
    GSVD_CHECK_RC(gsvd_writer_open(url, 0, &w), GSVD_OK);
    if (!w || !ws)
        goto out;
    spec.path = "a";
    spec.ndim = 2;
    spec.shape[0] = 10;
    spec.shape[1] = 3;
    spec.chunks[0] = 4;
    spec.chunks[1] = 2;
    spec.dtype = dtype_of("<i4");
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &wa), GSVD_OK);
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &wo), GSVD_EINVAL); /* exists */
    if (!wa)
        goto out;

    /* rows must be whole chunk rows */
    GSVD_CHECK_RC(gsvd_warray_write_rows(wa, ws, 1, 4, data), GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_warray_write_rows(wa, ws, 0, 3, data), GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_warray_write_rows(wa, ws, 0, 5, data), GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_warray_write_rows(wa, ws, 8, 1, data), GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_warray_write_rows(wa, ws, 8, 3, data), GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_warray_write_rows(wa, ws, 12, 0, data), GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_warray_write_rows(wa, ws, 4, 4, data), GSVD_OK);
    GSVD_CHECK_RC(gsvd_warray_write_rows(wa, ws, 8, 2, data), GSVD_OK);
    GSVD_CHECK_RC(gsvd_warray_write_strings(wa, ws, items, 3), GSVD_EINVAL);
    {
        uint64_t idx[2] = {3, 0}, idx2[2] = {0, 2};
        GSVD_CHECK_RC(gsvd_warray_write_chunk(wa, ws, idx, data, &enc), GSVD_EINVAL);
        GSVD_CHECK_RC(gsvd_warray_write_chunk(wa, ws, idx2, data, &enc), GSVD_EINVAL);
    }

    /* bad specs */
    spec.path = "../x";
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &wo), GSVD_EINVAL);
    spec.path = "";
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &wo), GSVD_EINVAL);
    spec.path = NULL;
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &wo), GSVD_EINVAL);
    spec.path = "z";
    spec.chunks[1] = 0;
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &wo), GSVD_EINVAL);
    spec.chunks[1] = 2;
    spec.ndim = GSVD_MAX_DIMS + 1;
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &wo), GSVD_EINVAL);
    spec.ndim = 2;
    spec.path = "a/sub"; /* a is an array, not a group */
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &wo), GSVD_EINVAL);
    spec.path = "c";
    spec.compressor_json = "{\"id\": \"snappy\"}";
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &wo), GSVD_EUNSUPPORTED);
    spec.compressor_json = NULL;
    spec.attrs_json = "[1]";
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &wo), GSVD_EINVAL);
    spec.attrs_json = NULL;
    GSVD_CHECK(wo == NULL);
    GSVD_CHECK_RC(gsvd_writer_group(w, "../g", NULL), GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_writer_group(w, "g", "not json"), GSVD_EFORMAT);
    GSVD_CHECK_RC(gsvd_writer_group(w, "a", NULL), GSVD_EINVAL); /* an array */

    /* 0-d: no rows */
    spec.path = "s0";
    spec.ndim = 0;
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &ws0), GSVD_OK);
    if (ws0)
        GSVD_CHECK_RC(gsvd_warray_write_rows(ws0, ws, 0, 1, data), GSVD_EINVAL);

    /* chunks of "a" in row 0 were never written: commit refuses, nothing is left behind */
    GSVD_CHECK_RC(gsvd_writer_commit(w), GSVD_EINTERNAL);
    gsvd_writer_close(w);
    w = NULL;
    GSVD_CHECK(count_tmp_entries() == before);

    /* writing one chunk twice does not make up for one never written */
    GSVD_CHECK_RC(gsvd_writer_open(url, 0, &w), GSVD_OK);
    if (!w)
        goto out;
    spec.path = "twice";
    spec.ndim = 1;
    spec.shape[0] = 8;
    spec.chunks[0] = 4;
    wa = NULL;
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &wa), GSVD_OK);
    if (wa) {
        uint64_t idx = 0;
        GSVD_CHECK_RC(gsvd_warray_write_chunk(wa, ws, &idx, data, &enc), GSVD_OK);
        GSVD_CHECK_RC(gsvd_warray_write_chunk(wa, ws, &idx, data, &enc), GSVD_OK);
    }
    GSVD_CHECK_RC(gsvd_writer_commit(w), GSVD_EINTERNAL);
    gsvd_writer_close(w);
    w = NULL;
    if (count_tmp_entries() != before) { /* the bug committed a store: remove it */
        gsvd_test_remove_tree(url);
        GSVD_CHECK(0);
    }

    /* an existing output without overwrite */
    {
        gsvd_writer *w2 = NULL;
        GSVD_CHECK_RC(gsvd_writer_open(url, 0, &w), GSVD_OK);
        if (w)
            GSVD_CHECK_RC(gsvd_writer_commit(w), GSVD_OK);
        gsvd_writer_close(w);
        w = NULL;
        GSVD_CHECK_RC(gsvd_writer_open(url, 0, &w2), GSVD_EIO);
        GSVD_CHECK(w2 == NULL);
        GSVD_CHECK_RC(gsvd_writer_open(url, 1, &w2), GSVD_OK);
        gsvd_writer_close(w2);
        gsvd_test_remove_tree(url);
    }
    GSVD_CHECK_RC(gsvd_writer_open("foo://x", 0, &w), GSVD_EINVAL);
    GSVD_CHECK(w == NULL);
out:
    gsvd_writer_close(w);
    gsvd_codec_ws_free(ws);
    gsvd_buf_free(&enc);
    gsvd_free(url);
}

int main(int argc, char **argv)
{
    int rc;

    gsvd_meta_global_init(); /* cJSON allocates through gsvd_malloc */
    if ((rc = array_test_begin("test_writer", argc, argv)) != 0)
        return rc;
    test_roundtrips();
    test_writer_errors();
    test_writer_v3();
    gsvd_test_remove_tree(tmp);
    return gsvd_test_report("test_writer");
}
