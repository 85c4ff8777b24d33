/* tests/unit/test_array.c - zarr/writer.h, zarr/tree.h, zarr/array.h and zarr/reader.h
 * against their contracts: writer -> reader round trips for every numeric dtype, rank 0-3, edge
 * chunks on every axis and fill values, through a file store and the same keys copied into a
 * mem: store; random sub-regions and row ranges compared with the source; string arrays ('O'
 * and 'S'); stores written by hand (F order, big-endian, missing chunks, "/" separator, 2-D
 * object arrays, consolidated metadata that disagrees with the store); chunk keys, stored
 * sizes, children, and every documented error code.
 * `test_array --one-roundtrip` writes a small hierarchy to mem: with the writer and reads a
 * hand-built mem: store back, exiting 0, or 3 when an allocation failed cleanly (GSVD_ENOMEM);
 * tests/unit/alloc_sweep.sh drives it with GENSVD_FAIL_ALLOC_AT=N. */
#include "gsvd_config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "tests/gsvd_test.h"
#include "tests/gsvd_test_fs.h"
#include "zarr/array.h"
#include "zarr/codec.h"
#include "zarr/dtype.h"
#include "zarr/meta.h"
#include "zarr/reader.h"
#include "zarr/store.h"
#include "zarr/tree.h"
#include "zarr/writer.h"

static char tmp[4096]; /* scratch directory under $TMPDIR */

/* ---- helpers --------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static uint64_t rnd_below(uint64_t n)
{
    return n ? rnd() % n : 0;
}

static size_t n_items(size_t nd, const uint64_t *shape)
{
    size_t n = 1;
    for (size_t d = 0; d < nd; d++)
        n *= (size_t)shape[d];
    return n;
}

/* Pseudo-random elements (bools 0/1). */
static void fill_random(unsigned char *p, size_t n, const struct gsvd_dtype *dt)
{
    for (size_t i = 0; i < n * dt->size; i++)
        p[i] = (unsigned char)(rnd() >> 24);
    if (dt->kind == 'b')
        for (size_t i = 0; i < n; i++)
            p[i] &= 1;
}

/* Copy box (start, count) of a C-order array (shape) into dst, the slow, obvious way. */
static void box_ref(const unsigned char *src, size_t nd, const uint64_t *shape, size_t esz,
                    const uint64_t *start, const uint64_t *count, unsigned char *dst)
{
    uint64_t idx[GSVD_MAX_DIMS] = {0};
    size_t total = n_items(nd, count);

    for (size_t i = 0; i < total; i++) {
        size_t off = 0;
        for (size_t d = 0; d < nd; d++)
            off = off * (size_t)shape[d] + (size_t)(start[d] + idx[d]);
        memcpy(dst + i * esz, src + off * esz, esz);
        for (size_t d = nd; d-- > 0;) {
            if (++idx[d] < count[d])
                break;
            idx[d] = 0;
        }
    }
}

static struct gsvd_dtype dtype_of(const char *s)
{
    struct gsvd_dtype dt = {0, 0, 0};

    GSVD_CHECK_RC(gsvd_dtype_parse(s, &dt), GSVD_OK);
    return dt;
}

/* Entries of tmp (not . and ..). */
static int count_tmp_entries(void)
{
    DIR *d = opendir(tmp);
    struct dirent *e;
    int n = 0;

    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    if (d)
        closedir(d);
    return n;
}

/* Copy every key under prefix of src into dst (file store -> mem store). */
static int copy_store(gsvd_store *src, gsvd_store *dst, const char *prefix)
{
    struct gsvd_strlist names = GSVD_STRLIST_INIT;
    struct gsvd_buf b = GSVD_BUF_INIT;
    char *key = NULL;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_store_list(src, prefix, &names));
    for (size_t i = 0; i < names.n; i++) {
        gsvd_free(key);
        GSVD_TRY(gsvd_key_join(prefix, names.items[i], &key));
        rc = gsvd_store_get(src, key, &b);
        if (rc == GSVD_EFORMAT) /* a directory */
            rc = copy_store(src, dst, key);
        else if (rc == GSVD_OK)
            rc = gsvd_store_put(dst, key, b.data, b.len);
        if (rc < 0)
            goto out;
    }
out:
    gsvd_free(key);
    gsvd_buf_free(&b);
    gsvd_strlist_free(&names);
    return rc;
}

static gsvd_store *mem_store(void)
{
    gsvd_store *st = NULL;

    GSVD_CHECK_RC(gsvd_store_open("mem:test", GSVD_STORE_WRITE, &st), GSVD_OK);
    return st;
}

static int put_text(gsvd_store *st, const char *key, const char *text)
{
    return gsvd_store_put(st, key, text, strlen(text));
}

/* ---- reading an array and comparing with its source ------------------------------------ */

/* Read all of `a` and random boxes and row ranges; compare with src (C order). */
static void check_reads(gsvd_array *a, const unsigned char *src)
{
    const struct gsvd_zarray *z = gsvd_array_meta(a);
    size_t nd = z->ndim, esz = z->dtype.size, total = n_items(nd, z->shape);
    uint64_t start[GSVD_MAX_DIMS] = {0}, count[GSVD_MAX_DIMS];
    unsigned char *got = gsvd_malloc(total * esz + 1), *want = gsvd_malloc(total * esz + 1);
    gsvd_reader *r = NULL;

    GSVD_CHECK_RC(gsvd_reader_new(a, &r), GSVD_OK);
    if (!r || !got || !want)
        goto out;
    GSVD_CHECK(gsvd_reader_array(r) == a);
    memcpy(count, z->shape, nd * sizeof *count);
    GSVD_CHECK_RC(gsvd_reader_read(r, start, count, got), GSVD_OK);
    GSVD_CHECK(total == 0 || memcmp(got, src, total * esz) == 0);

    for (int k = 0; k < 25; k++) {
        size_t n;
        for (size_t d = 0; d < nd; d++) {
            start[d] = rnd_below(z->shape[d] + 1);
            count[d] = rnd_below(z->shape[d] - start[d] + 1);
        }
        n = n_items(nd, count);
        memset(got, 0xa5, n * esz);
        GSVD_CHECK_RC(gsvd_reader_read(r, start, count, got), GSVD_OK);
        box_ref(src, nd, z->shape, esz, start, count, want);
        if (n && memcmp(got, want, n * esz) != 0) {
            fprintf(stderr, "region read differs (%s, box %d)\n", gsvd_array_name(a), k);
            GSVD_CHECK(0);
        }
    }
    if (nd > 0) {
        size_t row_bytes = total && z->shape[0] ? total / (size_t)z->shape[0] * esz : 0;
        for (int k = 0; k < 6; k++) {
            uint64_t row = rnd_below(z->shape[0] + 1);
            uint64_t n_rows = rnd_below(z->shape[0] - row + 1);
            GSVD_CHECK_RC(gsvd_reader_read_rows(r, row, n_rows, got), GSVD_OK);
            GSVD_CHECK(n_rows == 0 ||
                       memcmp(got, src + row * row_bytes, (size_t)n_rows * row_bytes) == 0);
        }
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, z->shape[0], 1, got), GSVD_EINVAL);
        /* regions that leave the array */
        memcpy(count, z->shape, nd * sizeof *count);
        memset(start, 0, sizeof start);
        count[nd - 1]++;
        GSVD_CHECK_RC(gsvd_reader_read(r, start, count, got), GSVD_EINVAL);
        count[nd - 1]--;
        start[0] = z->shape[0] + 1;
        count[0] = 0;
        GSVD_CHECK_RC(gsvd_reader_read(r, start, count, got), GSVD_EINVAL);
        start[0] = UINT64_MAX;
        count[0] = 2;
        GSVD_CHECK_RC(gsvd_reader_read(r, start, count, got), GSVD_EINVAL);
    }
out:
    gsvd_reader_free(r);
    gsvd_free(got);
    gsvd_free(want);
}

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

/* ---- strings -------------------------------------------------------------------------------- */

static void test_strings(void)
{
    static const char *const items[] = {
        "chr1", "", "caf\xc3\xa9", "a longer string with spaces", "\xf0\x9f\x98\x80", "x", "yz",
    };
    static const char *const sitems[] = {"ab", "", "abcd", "q", "xyz"};
    gsvd_writer *w = NULL;
    gsvd_warray *wo = NULL, *wsb = NULL;
    gsvd_codec_ws *ws = NULL;
    struct gsvd_array_spec spec = {0};
    char *url = gsvd_asprintf("%s/str.zarr", tmp);
    gsvd_store *st = NULL;
    gsvd_tree *t = NULL;
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    struct gsvd_strlist l = GSVD_STRLIST_INIT;

    GSVD_CHECK_RC(gsvd_codec_ws_new(&ws), GSVD_OK);
    GSVD_CHECK_RC(gsvd_writer_open(url, 1, &w), GSVD_OK);
    if (!w || !ws)
        goto out;
    spec.path = "names";
    spec.ndim = 1;
    spec.shape[0] = GSVD_ARRAY_LEN(items);
    spec.chunks[0] = 3;
    spec.dtype = dtype_of("|O");
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &wo), GSVD_OK);
    spec.path = "codes";
    spec.shape[0] = GSVD_ARRAY_LEN(sitems);
    spec.chunks[0] = 2;
    spec.dtype = dtype_of("|S4");
    spec.compressor_json = "{\"id\": \"zlib\", \"level\": 1}";
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &wsb), GSVD_OK);
    if (!wo || !wsb)
        goto out;
    GSVD_CHECK_RC(gsvd_warray_write_strings(wo, ws, items, 3), GSVD_EINVAL); /* count */
    GSVD_CHECK_RC(gsvd_warray_write_rows(wo, ws, 0, 3, items), GSVD_EINVAL); /* objects */
    GSVD_CHECK_RC(gsvd_warray_write_strings(wo, ws, items, GSVD_ARRAY_LEN(items)), GSVD_OK);
    {
        const char *too_long[] = {"ab", "abcde", "", "", ""};
        GSVD_CHECK_RC(gsvd_warray_write_strings(wsb, ws, too_long, 5), GSVD_EINVAL);
    }
    GSVD_CHECK_RC(gsvd_warray_write_strings(wsb, ws, sitems, GSVD_ARRAY_LEN(sitems)), GSVD_OK);
    GSVD_CHECK_RC(gsvd_writer_commit(w), GSVD_OK);
    gsvd_writer_close(w);
    w = NULL;

    GSVD_CHECK_RC(gsvd_store_open(url, GSVD_STORE_READ, &st), GSVD_OK);
    if (!st)
        goto out;
    GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
    if (!t)
        goto out;
    GSVD_CHECK_RC(gsvd_array_open(t, "names", &a), GSVD_OK);
    if (a) {
        uint64_t start = 0, count = GSVD_ARRAY_LEN(items);
        unsigned char dummy[64];
        GSVD_CHECK(gsvd_array_meta(a)->dtype.kind == 'O');
        GSVD_CHECK_RC(gsvd_reader_new(a, &r), GSVD_OK);
        GSVD_CHECK_RC(gsvd_reader_read_strings(r, 0, count, &l), GSVD_OK);
        GSVD_CHECK(l.n == count);
        for (size_t i = 0; i < l.n && i < count; i++)
            GSVD_CHECK(strcmp(l.items[i], items[i]) == 0);
        gsvd_strlist_free(&l);
        GSVD_CHECK_RC(gsvd_reader_read_strings(r, 2, 4, &l), GSVD_OK);
        GSVD_CHECK(l.n == 4 && strcmp(l.items[0], items[2]) == 0 &&
                   strcmp(l.items[3], items[5]) == 0);
        gsvd_strlist_free(&l);
        GSVD_CHECK_RC(gsvd_reader_read_objects(r, &start, &count, &l), GSVD_OK);
        GSVD_CHECK(l.n == count && strcmp(l.items[4], items[4]) == 0);
        gsvd_strlist_free(&l);
        GSVD_CHECK_RC(gsvd_reader_read_strings(r, 5, 3, &l), GSVD_EINVAL);
        GSVD_CHECK_RC(gsvd_reader_read(r, &start, &count, dummy), GSVD_EINVAL); /* objects */
        gsvd_strlist_free(&l);
        gsvd_reader_free(r);
        r = NULL;
    }
    gsvd_array_close(a);
    a = NULL;
    GSVD_CHECK_RC(gsvd_array_open(t, "codes", &a), GSVD_OK);
    if (a) {
        uint64_t start = 0, count = 2;
        GSVD_CHECK_RC(gsvd_reader_new(a, &r), GSVD_OK);
        GSVD_CHECK_RC(gsvd_reader_read_strings(r, 0, GSVD_ARRAY_LEN(sitems), &l), GSVD_OK);
        GSVD_CHECK(l.n == GSVD_ARRAY_LEN(sitems));
        for (size_t i = 0; i < l.n && i < GSVD_ARRAY_LEN(sitems); i++)
            GSVD_CHECK(strcmp(l.items[i], sitems[i]) == 0);
        gsvd_strlist_free(&l);
        GSVD_CHECK_RC(gsvd_reader_read_strings(r, 1, 0, &l), GSVD_OK);
        GSVD_CHECK(l.n == 0);
        GSVD_CHECK_RC(gsvd_reader_read_objects(r, &start, &count, &l), GSVD_EINCONSIST);
        gsvd_strlist_free(&l);
    }
out:
    gsvd_reader_free(r);
    gsvd_array_close(a);
    gsvd_tree_close(t);
    gsvd_store_close(st);
    gsvd_writer_close(w);
    gsvd_codec_ws_free(ws);
    gsvd_strlist_free(&l);
    if (url)
        gsvd_test_remove_tree(url);
    gsvd_free(url);
}

/* ---- stores written by hand ------------------------------------------------------------------ */

/* Value of element (r, c) of the hand-built 2-D arrays. */
static int32_t val2(uint64_t r, uint64_t c)
{
    return (int32_t)(r * 1000 + c) - 7000;
}

/* 2-D >i4 array in F order: shape 5 x 7, chunks 3 x 4, chunks (1, 1) missing (fill 99) and
 * every element big-endian; chunk (0, 1) holds junk in its padding. */
static void test_f_order_big_endian(void)
{
    static const char zarray[] =
        "{\"zarr_format\": 2, \"shape\": [5, 7], \"chunks\": [3, 4], \"dtype\": \">i4\", "
        "\"order\": \"F\", \"compressor\": null, \"filters\": null, \"fill_value\": 99, "
        "\"dimension_separator\": \"/\"}";
    gsvd_store *st = mem_store();
    gsvd_tree *t = NULL;
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    int32_t want[5 * 7], got[5 * 7];

    if (!st)
        return;
    GSVD_CHECK_RC(put_text(st, ".zarray", zarray), GSVD_OK);
    for (uint64_t ci = 0; ci < 2; ci++)
        for (uint64_t cj = 0; cj < 2; cj++) {
            unsigned char chunk[3 * 4 * 4];
            char key[32];
            if (ci == 1 && cj == 1)
                continue; /* missing */
            for (uint64_t i = 0; i < 3; i++)
                for (uint64_t j = 0; j < 4; j++) {
                    uint64_t r0 = ci * 3 + i, c0 = cj * 4 + j;
                    uint32_t v = (uint32_t)val2(r0, c0);
                    size_t off = (size_t)(i + j * 3) * 4; /* F order */
                    if (r0 >= 5 || c0 >= 7)
                        v = 0xdeadbeef; /* padding */
                    chunk[off] = (unsigned char)(v >> 24);
                    chunk[off + 1] = (unsigned char)(v >> 16);
                    chunk[off + 2] = (unsigned char)(v >> 8);
                    chunk[off + 3] = (unsigned char)v;
                }
            snprintf(key, sizeof key, "%llu/%llu", (unsigned long long)ci, (unsigned long long)cj);
            GSVD_CHECK_RC(gsvd_store_put(st, key, chunk, sizeof chunk), GSVD_OK);
        }
    for (uint64_t i = 0; i < 5; i++)
        for (uint64_t j = 0; j < 7; j++)
            want[i * 7 + j] = i >= 3 && j >= 4 ? 99 : val2(i, j);

    GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
    GSVD_CHECK(t && gsvd_tree_is_consolidated(t) == 0);
    if (t)
        GSVD_CHECK_RC(gsvd_array_open(t, "", &a), GSVD_OK);
    if (a) {
        const struct gsvd_zarray *z = gsvd_array_meta(a);
        uint64_t idx[2] = {1, 0}, bytes = 0, n = 0;
        char *key = NULL;

        GSVD_CHECK(z->order == 'F' && z->sep == '/' && z->dtype.byteorder == '>');
        GSVD_CHECK(strcmp(gsvd_array_path(a), "") == 0);
        GSVD_CHECK(strcmp(gsvd_array_name(a), "mem:test") == 0);
        GSVD_CHECK_RC(gsvd_array_chunk_key(a, idx, &key), GSVD_OK);
        GSVD_CHECK(key && strcmp(key, "1/0") == 0);
        gsvd_free(key);
        GSVD_CHECK_RC(gsvd_array_stored_bytes(a, &bytes, &n), GSVD_OK);
        GSVD_CHECK(n == 3 && bytes == 3 * 48);
        GSVD_CHECK_RC(gsvd_reader_new(a, &r), GSVD_OK);
        check_reads(a, (const unsigned char *)want);
        memset(got, 0, sizeof got);
        if (r) {
            uint64_t start[2] = {0, 0}, count[2] = {5, 7};
            GSVD_CHECK_RC(gsvd_reader_read(r, start, count, got), GSVD_OK);
            GSVD_CHECK(memcmp(got, want, sizeof want) == 0);
        }
        /* a raw chunk read: C order, native, padding as stored */
        {
            int32_t chunk[12];
            struct gsvd_buf raw = GSVD_BUF_INIT, scratch = GSVD_BUF_INIT;
            gsvd_codec_ws *ws = NULL;
            uint64_t cidx[2] = {0, 1};
            GSVD_CHECK_RC(gsvd_codec_ws_new(&ws), GSVD_OK);
            GSVD_CHECK_RC(gsvd_array_fetch_chunk(a, cidx, &raw), 1);
            GSVD_CHECK_RC(gsvd_array_decode_chunk(a, ws, cidx, &raw, 1, chunk, &scratch), GSVD_OK);
            GSVD_CHECK(chunk[0] == val2(0, 4) && chunk[1] == val2(0, 5) && chunk[4] == val2(1, 4) &&
                       chunk[3] == (int32_t)0xdeadbeef);
            cidx[0] = 1;
            GSVD_CHECK_RC(gsvd_array_fetch_chunk(a, cidx, &raw), 0); /* missing */
            GSVD_CHECK(raw.len == 0);
            GSVD_CHECK_RC(gsvd_array_decode_chunk(a, ws, cidx, &raw, 0, chunk, &scratch), GSVD_OK);
            GSVD_CHECK(chunk[0] == 99 && chunk[11] == 99);
            cidx[0] = 2;
            GSVD_CHECK_RC(gsvd_array_fetch_chunk(a, cidx, &raw), GSVD_EINVAL);
            GSVD_CHECK_RC(gsvd_array_read_chunk(a, ws, cidx, chunk, &raw, &scratch), GSVD_EINVAL);
            gsvd_codec_ws_free(ws);
            gsvd_buf_free(&raw);
            gsvd_buf_free(&scratch);
        }
    }
    gsvd_reader_free(r);
    gsvd_array_close(a);
    gsvd_tree_close(t);
    gsvd_store_close(st);
}

/* 3-D >f8 F order, 2-D >u2 C order, >U3 and <U2 strings, 1-D >f2; missing chunks read as the
 * fill (or zeros when it is null). */
static void test_hand_dtypes(void)
{
    gsvd_store *st = mem_store();
    gsvd_tree *t = NULL;

    if (!st)
        return;
    GSVD_CHECK_RC(put_text(st, ".zgroup", "{\"zarr_format\": 2}"), GSVD_OK);
    /* d3: 3-D >f8, F order, shape 3x2x2 = one chunk, value 100 i + 10 j + k */
    GSVD_CHECK_RC(put_text(st, "d3/.zarray",
                           "{\"zarr_format\": 2, \"shape\": [3, 2, 2], \"chunks\": [3, 2, 2], "
                           "\"dtype\": \">f8\", \"order\": \"F\", \"compressor\": null, "
                           "\"filters\": null, \"fill_value\": \"NaN\"}"),
                  GSVD_OK);
    {
        unsigned char chunk[12 * 8];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++)
                for (int k = 0; k < 2; k++) {
                    double v = 100.0 * i + 10.0 * j + k + 0.5;
                    uint64_t bits;
                    size_t off = (size_t)(i + 3 * j + 6 * k) * 8;
                    memcpy(&bits, &v, 8);
                    for (int b = 0; b < 8; b++)
                        chunk[off + (size_t)b] = (unsigned char)(bits >> (56 - 8 * b));
                }
        GSVD_CHECK_RC(gsvd_store_put(st, "d3/0.0.0", chunk, sizeof chunk), GSVD_OK);
    }
    /* u2: 2-D >u2, shape 4x3, chunks 3x2, fill null, only chunk 0.0 present */
    GSVD_CHECK_RC(put_text(st, "u2/.zarray",
                           "{\"zarr_format\": 2, \"shape\": [4, 3], \"chunks\": [3, 2], "
                           "\"dtype\": \">u2\", \"order\": \"C\", \"compressor\": null, "
                           "\"filters\": null, \"fill_value\": null}"),
                  GSVD_OK);
    {
        static const unsigned char chunk[12] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
                                                0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c};
        GSVD_CHECK_RC(gsvd_store_put(st, "u2/0.0", chunk, sizeof chunk), GSVD_OK);
    }
    /* text: >U3 and <U2, one chunk of 2 each, the second of >U3 missing (fill "zz") */
    GSVD_CHECK_RC(put_text(st, "bu/.zarray",
                           "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [2], "
                           "\"dtype\": \">U3\", \"order\": \"C\", \"compressor\": null, "
                           "\"filters\": null, \"fill_value\": \"zz\"}"),
                  GSVD_OK);
    {
        static const unsigned char chunk[24] = {0, 0, 0,    'a',  0, 0, 0, 0xe9, 0, 0, 0, 'b',
                                                0, 1, 0xf6, 0x00, 0, 0, 0, 0,    0, 0, 0, 0};
        GSVD_CHECK_RC(gsvd_store_put(st, "bu/0", chunk, sizeof chunk), GSVD_OK);
    }
    GSVD_CHECK_RC(put_text(st, "lu/.zarray",
                           "{\"zarr_format\": 2, \"shape\": [2], \"chunks\": [2], "
                           "\"dtype\": \"<U2\", \"order\": \"C\", \"compressor\": null, "
                           "\"filters\": null, \"fill_value\": \"\"}"),
                  GSVD_OK);
    {
        static const unsigned char chunk[16] = {'h', 0, 0, 0, 'i', 0, 0, 0,
                                                'x', 0, 0, 0, 0,   0, 0, 0};
        GSVD_CHECK_RC(gsvd_store_put(st, "lu/0", chunk, sizeof chunk), GSVD_OK);
    }
    /* f2: 1-D >f2, two chunks of 2, second missing, fill 1.5 */
    GSVD_CHECK_RC(put_text(st, "f2/.zarray",
                           "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [2], "
                           "\"dtype\": \">f2\", \"order\": \"C\", \"compressor\": null, "
                           "\"filters\": null, \"fill_value\": 1.5}"),
                  GSVD_OK);
    {
        static const unsigned char chunk[4] = {0x3c, 0x00, 0xc0, 0x00}; /* 1.0, -2.0 */
        GSVD_CHECK_RC(gsvd_store_put(st, "f2/0", chunk, sizeof chunk), GSVD_OK);
    }

    GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
    if (!t)
        goto out;
    {
        gsvd_array *a = NULL;
        gsvd_reader *r = NULL;
        double d3[12], want[12];
        uint64_t start[3] = {0, 0, 0}, count[3] = {3, 2, 2};
        for (int i = 0; i < 12; i++)
            want[i] = 100.0 * (i / 4) + 10.0 * ((i / 2) % 2) + (i % 2) + 0.5;
        GSVD_CHECK_RC(gsvd_array_open(t, "d3", &a), GSVD_OK);
        if (a) {
            GSVD_CHECK_RC(gsvd_reader_new(a, &r), GSVD_OK);
            if (r)
                GSVD_CHECK_RC(gsvd_reader_read(r, start, count, d3), GSVD_OK);
            GSVD_CHECK(memcmp(d3, want, sizeof want) == 0);
            check_reads(a, (const unsigned char *)want);
        }
        gsvd_reader_free(r);
        gsvd_array_close(a);
    }
    {
        gsvd_array *a = NULL;
        static const uint16_t want[12] = {0x0102, 0x0304, 0, 0x0506, 0x0708, 0,
                                          0x090a, 0x0b0c, 0, 0,      0,      0};
        GSVD_CHECK_RC(gsvd_array_open(t, "u2", &a), GSVD_OK);
        if (a)
            check_reads(a, (const unsigned char *)want);
        gsvd_array_close(a);
    }
    {
        gsvd_array *a = NULL;
        gsvd_reader *r = NULL;
        struct gsvd_strlist l = GSVD_STRLIST_INIT;
        GSVD_CHECK_RC(gsvd_array_open(t, "bu", &a), GSVD_OK);
        if (a)
            GSVD_CHECK_RC(gsvd_reader_new(a, &r), GSVD_OK);
        if (r) {
            GSVD_CHECK_RC(gsvd_reader_read_strings(r, 0, 3, &l), GSVD_OK);
            GSVD_CHECK(l.n == 3 &&
                       strcmp(l.items[0], "a\xc3\xa9"
                                          "b") == 0 &&
                       strcmp(l.items[1], "\xf0\x9f\x98\x80") == 0 &&
                       strcmp(l.items[2], "zz") == 0);
        }
        gsvd_strlist_free(&l);
        gsvd_reader_free(r);
        gsvd_array_close(a);
        a = NULL;
        r = NULL;
        GSVD_CHECK_RC(gsvd_array_open(t, "lu", &a), GSVD_OK);
        if (a)
            GSVD_CHECK_RC(gsvd_reader_new(a, &r), GSVD_OK);
        if (r) {
            GSVD_CHECK_RC(gsvd_reader_read_strings(r, 0, 2, &l), GSVD_OK);
            GSVD_CHECK(l.n == 2 && strcmp(l.items[0], "hi") == 0 && strcmp(l.items[1], "x") == 0);
        }
        gsvd_strlist_free(&l);
        gsvd_reader_free(r);
        gsvd_array_close(a);
    }
    {
        gsvd_array *a = NULL;
        static const uint16_t want[3] = {0x3c00, 0xc000, 0x3e00};
        GSVD_CHECK_RC(gsvd_array_open(t, "f2", &a), GSVD_OK);
        if (a)
            check_reads(a, (const unsigned char *)want);
        gsvd_array_close(a);
    }
out:
    gsvd_tree_close(t);
    gsvd_store_close(st);
}

/* Encode n strings as one vlen-utf8 chunk with zlib. */
static int put_vlen(gsvd_store *st, const gsvd_codec_chain *c, gsvd_codec_ws *ws, const char *key,
                    const char *const *items, size_t n)
{
    struct gsvd_buf enc = GSVD_BUF_INIT;
    int rc = gsvd_codec_chain_encode_vlen(c, ws, items, n, &enc);

    if (rc == GSVD_OK)
        rc = gsvd_store_put(st, key, enc.data, enc.len);
    gsvd_buf_free(&enc);
    return rc;
}

/* 2-D object arrays, C and F order, shape 5x4, chunks 2x3, chunk (1, 1) missing. */
static void test_objects_2d(void)
{
    static const char *const orders[] = {"C", "F"};

    for (int o = 0; o < 2; o++) {
        gsvd_store *st = mem_store();
        gsvd_tree *t = NULL;
        gsvd_array *a = NULL;
        gsvd_reader *r = NULL;
        gsvd_codec_chain *c = NULL;
        gsvd_codec_ws *ws = NULL;
        struct gsvd_dtype dt = dtype_of("|O");
        char want[5][4][16], text[512];
        struct gsvd_strlist l = GSVD_STRLIST_INIT;

        if (!st)
            return;
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 4; j++) {
                if (i >= 2 && i < 4 && j >= 3)
                    snprintf(want[i][j], sizeof want[i][j], "fill");
                else
                    snprintf(want[i][j], sizeof want[i][j], "s%d_%d%s", i, j,
                             (i + j) % 3 ? "" : "\xc3\xa9");
            }
        snprintf(text, sizeof text,
                 "{\"zarr_format\": 2, \"shape\": [5, 4], \"chunks\": [2, 3], \"dtype\": \"|O\", "
                 "\"order\": \"%s\", \"compressor\": {\"id\": \"zlib\", \"level\": 1}, "
                 "\"filters\": [{\"id\": \"vlen-utf8\"}], \"fill_value\": \"fill\"}",
                 orders[o]);
        GSVD_CHECK_RC(put_text(st, ".zarray", text), GSVD_OK);
        GSVD_CHECK_RC(gsvd_codec_chain_parse_json("{\"id\": \"zlib\", \"level\": 1}",
                                                  "[{\"id\": \"vlen-utf8\"}]", &dt, "t", &c),
                      GSVD_OK);
        GSVD_CHECK_RC(gsvd_codec_ws_new(&ws), GSVD_OK);
        if (!c || !ws)
            goto next;
        for (int ci = 0; ci < 3; ci++)
            for (int cj = 0; cj < 2; cj++) {
                const char *items[6];
                char key[16];
                if (ci == 1 && cj == 1)
                    continue;
                for (int i = 0; i < 2; i++)
                    for (int j = 0; j < 3; j++) {
                        int gi = ci * 2 + i, gj = cj * 3 + j;
                        int pos = o == 0 ? i * 3 + j : i + j * 2;
                        items[pos] = gi < 5 && gj < 4 ? want[gi][gj] : "pad";
                    }
                snprintf(key, sizeof key, "%d.%d", ci, cj);
                GSVD_CHECK_RC(put_vlen(st, c, ws, key, items, 6), GSVD_OK);
            }
        GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
        if (t)
            GSVD_CHECK_RC(gsvd_array_open(t, "", &a), GSVD_OK);
        if (a)
            GSVD_CHECK_RC(gsvd_reader_new(a, &r), GSVD_OK);
        if (!r)
            goto next;
        for (int k = 0; k < 30; k++) {
            uint64_t start[2], count[2];
            int ok;
            start[0] = rnd_below(6);
            count[0] = rnd_below(5 - start[0] + 1);
            start[1] = rnd_below(5);
            count[1] = rnd_below(4 - start[1] + 1);
            if (k == 0) {
                start[0] = start[1] = 0;
                count[0] = 5;
                count[1] = 4;
            }
            GSVD_CHECK_RC(gsvd_reader_read_objects(r, start, count, &l), GSVD_OK);
            ok = l.n == count[0] * count[1];
            for (size_t i = 0; ok && i < l.n; i++)
                ok =
                    strcmp(l.items[i], want[start[0] + i / count[1]][start[1] + i % count[1]]) == 0;
            if (!ok)
                fprintf(stderr, "objects (%s order) [%llu+%llu, %llu+%llu] differ\n", orders[o],
                        (unsigned long long)start[0], (unsigned long long)count[0],
                        (unsigned long long)start[1], (unsigned long long)count[1]);
            GSVD_CHECK(ok);
            gsvd_strlist_free(&l);
        }
        {
            uint64_t start[2] = {4, 0}, count[2] = {2, 1};
            unsigned char dummy[64];
            GSVD_CHECK_RC(gsvd_reader_read_objects(r, start, count, &l), GSVD_EINVAL);
            GSVD_CHECK_RC(gsvd_reader_read(r, start, count, dummy), GSVD_EINVAL);
            GSVD_CHECK_RC(gsvd_reader_read_strings(r, 0, 1, &l), GSVD_EINCONSIST); /* 2-D */
            gsvd_strlist_free(&l);
        }
    next:
        gsvd_reader_free(r);
        gsvd_array_close(a);
        gsvd_tree_close(t);
        gsvd_codec_chain_free(c);
        gsvd_codec_ws_free(ws);
        gsvd_store_close(st);
    }
}

/* Chunk keys for both separators, root arrays and 0-d arrays. */
static void test_chunk_keys(void)
{
    static const struct {
        const char *path, *sep;
        size_t nd;
        uint64_t idx[3];
        const char *want;
    } cases[] = {
        {"x", ".", 3, {3, 0, 12}, "x/3.0.12"},
        {"x", "/", 3, {3, 0, 12}, "x/3/0/12"},
        {"g/x", ".", 1, {7}, "g/x/7"},
        {"g/x", "/", 2, {0, 0}, "g/x/0/0"},
        {"", ".", 2, {1, 2}, "1.2"},
        {"", "/", 2, {1, 2}, "1/2"},
        {"s", ".", 0, {0}, "s/0"},
        {"", "/", 0, {0}, "0"},
    };

    for (size_t i = 0; i < GSVD_ARRAY_LEN(cases); i++) {
        gsvd_store *st = mem_store();
        gsvd_tree *t = NULL;
        gsvd_array *a = NULL;
        char text[512], *key = NULL, *zkey = NULL;
        const char *shape = cases[i].nd == 0   ? "[]"
                            : cases[i].nd == 1 ? "[100]"
                            : cases[i].nd == 2 ? "[100, 100]"
                                               : "[100, 100, 100]";

        if (!st)
            return;
        snprintf(text, sizeof text,
                 "{\"zarr_format\": 2, \"shape\": %s, \"chunks\": %s, \"dtype\": \"<i4\", "
                 "\"order\": \"C\", \"compressor\": null, \"filters\": null, \"fill_value\": 0, "
                 "\"dimension_separator\": \"%s\"}",
                 shape, shape, cases[i].sep);
        /* chunk shape == array shape; index 12 on a grid of 1 is still a valid key to format */
        GSVD_CHECK_RC(gsvd_key_join(cases[i].path, ".zarray", &zkey), GSVD_OK);
        GSVD_CHECK_RC(put_text(st, zkey, text), GSVD_OK);
        if (*cases[i].path)
            GSVD_CHECK_RC(put_text(st, ".zgroup", "{\"zarr_format\": 2}"), GSVD_OK);
        GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
        if (t)
            GSVD_CHECK_RC(gsvd_array_open(t, cases[i].path, &a), GSVD_OK);
        if (a) {
            GSVD_CHECK_RC(gsvd_array_chunk_key(a, cases[i].idx, &key), GSVD_OK);
            if (!key || strcmp(key, cases[i].want) != 0)
                fprintf(stderr, "chunk key '%s', want '%s'\n", key ? key : "", cases[i].want);
            GSVD_CHECK(key && strcmp(key, cases[i].want) == 0);
        }
        gsvd_free(key);
        gsvd_free(zkey);
        gsvd_array_close(a);
        gsvd_tree_close(t);
        gsvd_store_close(st);
    }
}

/* ---- trees: children, consolidated metadata, open errors ------------------------------------ */

static const char za_i4[] = "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": "
                            "\"<i4\", \"order\": \"C\", \"compressor\": null, \"filters\": null, "
                            "\"fill_value\": 5}";

static int children_are(gsvd_tree *t, const char *path, const char *const *want, size_t n)
{
    struct gsvd_strlist l = GSVD_STRLIST_INIT;
    int rc = gsvd_tree_children(t, path, &l), ok = rc == GSVD_OK && l.n == n;

    for (size_t i = 0; ok && i < n; i++)
        ok = strcmp(l.items[i], want[i]) == 0;
    if (!ok) {
        fprintf(stderr, "children of '%s' (rc %d):", path, rc);
        for (size_t i = 0; i < l.n; i++)
            fprintf(stderr, " '%s'", l.items[i]);
        fprintf(stderr, "\n");
    }
    gsvd_strlist_free(&l);
    return ok;
}

static void test_trees(void)
{
    static const char *const top[] = {"alpha", "zeta"};
    static const char *const in_alpha[] = {"inner"};
    gsvd_store *st = mem_store();
    gsvd_tree *t = NULL;
    gsvd_array *a = NULL;
    struct gsvd_buf b = GSVD_BUF_INIT;
    struct gsvd_strlist l = GSVD_STRLIST_INIT;

    if (!st)
        return;
    /* listing: groups and arrays only, sorted; metadata files, hidden entries and plain keys
     * are no children */
    GSVD_CHECK_RC(put_text(st, ".zgroup", "{\"zarr_format\": 2}"), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, ".zattrs", "{\"a\": 1}"), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "zeta/.zarray", za_i4), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, "zeta/0", "\1\0\0\0\2\0\0\0", 8), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "alpha/.zgroup", "{\"zarr_format\": 2}"), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "alpha/inner/.zarray", za_i4), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "alpha/inner/.zattrs", "{\"_ARRAY_DIMENSIONS\": [\"x\"]}"), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "plain/data", "x"), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, ".hidden/.zgroup", "{\"zarr_format\": 2}"), GSVD_OK);
    GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
    if (!t)
        goto out;
    GSVD_CHECK(gsvd_tree_is_consolidated(t) == 0);
    GSVD_CHECK(children_are(t, "", top, 2));
    GSVD_CHECK(children_are(t, "alpha", in_alpha, 1));
    GSVD_CHECK(children_are(t, "alpha/inner", NULL, 0));
    GSVD_CHECK(children_are(t, "nope", NULL, 0));
    GSVD_CHECK(gsvd_tree_node_kind(t, "alpha") == GSVD_NODE_GROUP);
    GSVD_CHECK(gsvd_tree_node_kind(t, "alpha/inner") == GSVD_NODE_ARRAY);
    GSVD_CHECK(gsvd_tree_node_kind(t, "plain") == GSVD_NODE_NONE);
    GSVD_CHECK_RC(gsvd_tree_get_meta(t, "zeta/.zarray", &b), GSVD_OK);
    GSVD_CHECK(b.len == strlen(za_i4));
    GSVD_CHECK_RC(gsvd_tree_get_meta(t, "nope/.zarray", &b), GSVD_ENOTFOUND);
    /* gsvd_array_open: no array there */
    GSVD_CHECK_RC(gsvd_array_open(t, "alpha", &a), GSVD_ENOTFOUND);
    GSVD_CHECK(a == NULL);
    GSVD_CHECK_RC(gsvd_array_open(t, "nope", &a), GSVD_ENOTFOUND);
    GSVD_CHECK_RC(gsvd_array_open(t, "../zeta", &a), GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_array_open(t, "zeta/", &a), GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_array_open(t, "alpha/inner", &a), GSVD_OK);
    if (a) {
        GSVD_CHECK_RC(gsvd_array_dim_names(a, &l), GSVD_OK);
        GSVD_CHECK(l.n == 1 && strcmp(l.items[0], "x") == 0);
        GSVD_CHECK(strcmp(gsvd_array_name(a), "mem:test/alpha/inner") == 0);
        gsvd_strlist_free(&l);
    }
    gsvd_array_close(a);
    a = NULL;
    GSVD_CHECK_RC(gsvd_array_open(t, "zeta", &a), GSVD_OK);
    if (a) {
        int32_t v[4];
        gsvd_reader *r = NULL;
        GSVD_CHECK_RC(gsvd_array_dim_names(a, &l), GSVD_OK); /* no .zattrs: nothing */
        GSVD_CHECK(l.n == 0);
        GSVD_CHECK_RC(gsvd_reader_new(a, &r), GSVD_OK);
        if (r)
            GSVD_CHECK_RC(gsvd_reader_read_rows(r, 0, 4, v), GSVD_OK);
        GSVD_CHECK(v[0] == 1 && v[1] == 2 && v[2] == 5 && v[3] == 5); /* chunk 1: fill */
        GSVD_CHECK_RC(gsvd_reader_read_strings(r, 0, 1, &l), GSVD_EINCONSIST);
        gsvd_reader_free(r);
    }
    gsvd_array_close(a);
    a = NULL;
    gsvd_tree_close(t);
    t = NULL;
    gsvd_store_close(st);

    /* consolidated: .zmetadata is authoritative for metadata and children */
    st = mem_store();
    if (!st)
        goto out;
    GSVD_CHECK_RC(put_text(st, ".zgroup", "{\"zarr_format\": 2}"), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "a/.zarray", za_i4), GSVD_OK); /* shape [4]; .zmetadata says 6 */
    GSVD_CHECK_RC(put_text(st, "c/.zarray", za_i4), GSVD_OK); /* not in .zmetadata */
    GSVD_CHECK_RC(
        put_text(
            st, ".zmetadata",
            "{\"metadata\": {\".zgroup\": {\"zarr_format\": 2}, \"a/.zarray\": {\"zarr_format\": "
            "2, \"shape\": [6], \"chunks\": [2], \"dtype\": \"<i4\", \"order\": \"C\", "
            "\"compressor\": null, \"filters\": null, \"fill_value\": 5}, \"g/.zgroup\": "
            "{\"zarr_format\": 2}, \"g/b/.zarray\": {}, \"g/b/.zattrs\": {}, \"g/.zattrs\": "
            "{}}, \"zarr_consolidated_format\": 1}"),
        GSVD_OK);
    GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
    if (!t)
        goto out;
    {
        static const char *const want_top[] = {"a", "g"};
        static const char *const want_g[] = {"b"};
        GSVD_CHECK(gsvd_tree_is_consolidated(t) == 1);
        GSVD_CHECK(children_are(t, "", want_top, 2));
        GSVD_CHECK(children_are(t, "g", want_g, 1));
        GSVD_CHECK(children_are(t, "g/b", NULL, 0));
        GSVD_CHECK(gsvd_tree_node_kind(t, "c") == GSVD_NODE_NONE);
        GSVD_CHECK(gsvd_tree_node_kind(t, "g/b") == GSVD_NODE_ARRAY);
        GSVD_CHECK_RC(gsvd_tree_get_meta(t, "c/.zarray", &b), GSVD_ENOTFOUND);
        GSVD_CHECK_RC(gsvd_tree_get_meta(t, "g/.zattrs", &b), GSVD_OK);
        GSVD_CHECK(b.len == 2 && memcmp(b.data, "{}", 2) == 0);
        GSVD_CHECK_RC(gsvd_array_open(t, "c", &a), GSVD_ENOTFOUND);
        GSVD_CHECK_RC(gsvd_array_open(t, "g/b", &a), GSVD_EFORMAT); /* {} is no .zarray */
        GSVD_CHECK_RC(gsvd_array_open(t, "a", &a), GSVD_OK);
        if (a) {
            int32_t v[6];
            gsvd_reader *r = NULL;
            GSVD_CHECK(gsvd_array_meta(a)->shape[0] == 6);
            GSVD_CHECK_RC(gsvd_reader_new(a, &r), GSVD_OK);
            if (r)
                GSVD_CHECK_RC(gsvd_reader_read_rows(r, 0, 6, v), GSVD_OK); /* all missing */
            GSVD_CHECK(v[0] == 5 && v[5] == 5);
            gsvd_reader_free(r);
        }
    }
out:
    gsvd_strlist_free(&l);
    gsvd_buf_free(&b);
    gsvd_array_close(a);
    gsvd_tree_close(t);
    gsvd_store_close(st);
}

/* gsvd_tree_open / gsvd_array_open on broken hierarchies. */
static void test_open_errors(void)
{
    static const struct {
        const char *key, *text;
        int tree_rc;
        const char *array_path; /* NULL: no array open */
        int array_rc;
    } cases[] = {
        {NULL, NULL, GSVD_EFORMAT, NULL, 0},
        {"zarr.json", "{\"zarr_format\": 3, \"node_type\": \"group\"}", GSVD_OK, NULL, 0},
        {"zarr.json", "{\"zarr_format\": 4, \"node_type\": \"group\"}", GSVD_EUNSUPPORTED, NULL, 0},
        {"zarr.json", "{\"zarr_format\": 3, \"node_type\": \"folder\"}", GSVD_EFORMAT, NULL, 0},
        {"zarr.json", "{\"zarr_format\": 3, \"node_type\": \"group\", \"x\": {}}",
         GSVD_EUNSUPPORTED, NULL, 0},
        {"zarr.json",
         "{\"zarr_format\": 3, \"node_type\": \"group\", \"x\": {\"must_understand\": false}}",
         GSVD_OK, NULL, 0},
        {".zmetadata", "{\"metadata\": ", GSVD_EFORMAT, NULL, 0},
        {".zmetadata", "{\"metadata\": {\"../.zgroup\": {}}, \"zarr_consolidated_format\": 1}",
         GSVD_EFORMAT, NULL, 0},
        {".zmetadata", "{\"metadata\": {}, \"zarr_consolidated_format\": 1}", GSVD_EFORMAT, NULL,
         0},
        {".zarray", "{\"zarr_format\": 2", GSVD_OK, "", GSVD_EFORMAT},
        {".zarray", "{\"zarr_format\": 3, \"shape\": [1]}", GSVD_OK, "", GSVD_EUNSUPPORTED},
        {".zarray",
         "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": \"<c8\", "
         "\"order\": \"C\", \"compressor\": null, \"filters\": null, "
         "\"fill_value\": 0}",
         GSVD_OK, "", GSVD_EUNSUPPORTED},
        {".zattrs", "[1]", GSVD_OK, "", GSVD_EFORMAT}, /* with a good .zarray */
        {".zattrs", "{\"_ARRAY_DIMENSIONS\": [1]}", GSVD_OK, "", GSVD_OK},
    };

    for (size_t i = 0; i < GSVD_ARRAY_LEN(cases); i++) {
        gsvd_store *st = mem_store();
        gsvd_tree *t = (gsvd_tree *)&t;
        gsvd_array *a = NULL;
        struct gsvd_strlist l = GSVD_STRLIST_INIT;

        if (!st)
            return;
        if (cases[i].key && strcmp(cases[i].key, ".zmetadata") == 0)
            GSVD_CHECK_RC(put_text(st, ".zgroup", "{\"zarr_format\": 2}"), GSVD_OK);
        if (cases[i].key && strcmp(cases[i].key, ".zattrs") == 0)
            GSVD_CHECK_RC(put_text(st, ".zarray", za_i4), GSVD_OK);
        if (cases[i].key)
            GSVD_CHECK_RC(put_text(st, cases[i].key, cases[i].text), GSVD_OK);
        GSVD_CHECK_RC(gsvd_tree_open(st, &t), cases[i].tree_rc);
        if (cases[i].tree_rc != GSVD_OK)
            GSVD_CHECK(t == NULL);
        if (t && cases[i].array_path) {
            GSVD_CHECK_RC(gsvd_array_open(t, cases[i].array_path, &a), cases[i].array_rc);
            if (a) /* the last case: _ARRAY_DIMENSIONS of the wrong type */
                GSVD_CHECK_RC(gsvd_array_dim_names(a, &l), GSVD_EFORMAT);
        }
        gsvd_strlist_free(&l);
        gsvd_array_close(a);
        gsvd_tree_close(t);
        gsvd_store_close(st);
    }
}

/* Corrupt and wrong-size chunks: ECODEC naming the chunk; a failed chunk does not poison the
 * reader's cache. */
static void test_corrupt_chunks(void)
{
    gsvd_store *st = mem_store();
    gsvd_tree *t = NULL;
    gsvd_array *a = NULL, *o = NULL;
    gsvd_reader *r = NULL, *ro = NULL;
    struct gsvd_strlist l = GSVD_STRLIST_INIT;

    if (!st)
        return;
    GSVD_CHECK_RC(put_text(st, ".zgroup", "{\"zarr_format\": 2}"), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "z/.zarray",
                           "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": "
                           "\"<i4\", \"order\": \"C\", \"compressor\": {\"id\": \"zlib\", "
                           "\"level\": 1}, \"filters\": null, \"fill_value\": 0}"),
                  GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "z/0", "this is not zlib data"), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "n/.zarray", za_i4), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, "n/0", "\1\0\0\0\2\0\0", 7), GSVD_OK); /* 7 of 8 bytes */
    GSVD_CHECK_RC(gsvd_store_put(st, "n/1", "\3\0\0\0\4\0\0\0", 8), GSVD_OK);
    GSVD_CHECK_RC(put_text(st, "o/.zarray",
                           "{\"zarr_format\": 2, \"shape\": [2], \"chunks\": [2], \"dtype\": "
                           "\"|O\", \"order\": \"C\", \"compressor\": null, \"filters\": "
                           "[{\"id\": \"vlen-utf8\"}], \"fill_value\": 0}"),
                  GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_put(st, "o/0", "\2\0\0\0\1\0\0\0a\11\0\0\0b", 14), GSVD_OK);
    GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
    if (!t)
        goto out;
    GSVD_CHECK_RC(gsvd_array_open(t, "z", &a), GSVD_OK);
    if (a && gsvd_reader_new(a, &r) == GSVD_OK) {
        int32_t v[4];
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, 0, 4, v), GSVD_ECODEC);
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, 2, 2, v), GSVD_OK); /* chunk 1 missing: fill */
        GSVD_CHECK(v[0] == 0 && v[1] == 0);
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, 0, 1, v), GSVD_ECODEC); /* again, not cached */
    }
    gsvd_reader_free(r);
    r = NULL;
    gsvd_array_close(a);
    a = NULL;
    GSVD_CHECK_RC(gsvd_array_open(t, "n", &a), GSVD_OK);
    if (a && gsvd_reader_new(a, &r) == GSVD_OK) {
        int32_t v[4];
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, 2, 2, v), GSVD_OK);
        GSVD_CHECK(v[0] == 3 && v[1] == 4);
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, 0, 2, v), GSVD_ECODEC); /* short chunk */
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, 3, 1, v), GSVD_OK);
        GSVD_CHECK(v[0] == 4);
    }
    GSVD_CHECK_RC(gsvd_array_open(t, "o", &o), GSVD_OK);
    if (o && gsvd_reader_new(o, &ro) == GSVD_OK) {
        uint64_t start = 0, count = 2;
        GSVD_CHECK_RC(gsvd_reader_read_objects(ro, &start, &count, &l), GSVD_ECODEC);
    }
out:
    gsvd_strlist_free(&l);
    gsvd_reader_free(r);
    gsvd_reader_free(ro);
    gsvd_array_close(a);
    gsvd_array_close(o);
    gsvd_tree_close(t);
    gsvd_store_close(st);
}

/* A file store whose chunk key is a directory: EFORMAT through the reader. */
static void test_chunk_is_dir(void)
{
    char *url = gsvd_asprintf("%s/dir_chunk.zarr", tmp), *chunk = NULL;
    gsvd_writer *w = NULL;
    gsvd_warray *wa = NULL;
    gsvd_codec_ws *ws = NULL;
    gsvd_store *st = NULL;
    gsvd_tree *t = NULL;
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    struct gsvd_array_spec spec = {0};
    int32_t v[4] = {1, 2, 3, 4};

    spec.path = "x";
    spec.ndim = 1;
    spec.shape[0] = 4;
    spec.chunks[0] = 2;
    spec.dtype = dtype_of("<i4");
    GSVD_CHECK_RC(gsvd_codec_ws_new(&ws), GSVD_OK);
    GSVD_CHECK_RC(gsvd_writer_open(url, 1, &w), GSVD_OK);
    if (!w || !ws)
        goto out;
    GSVD_CHECK_RC(gsvd_writer_array(w, &spec, &wa), GSVD_OK);
    if (wa) {
        GSVD_CHECK_RC(gsvd_warray_write_rows(wa, ws, 0, 2, v), GSVD_OK);
        GSVD_CHECK_RC(gsvd_warray_write_rows(wa, ws, 2, 2, v + 2), GSVD_OK);
    }
    GSVD_CHECK_RC(gsvd_writer_commit(w), GSVD_OK);
    chunk = gsvd_asprintf("%s/x/1", url);
    GSVD_CHECK(chunk && unlink(chunk) == 0 && mkdir(chunk, 0777) == 0);
    GSVD_CHECK_RC(gsvd_store_open(url, GSVD_STORE_READ, &st), GSVD_OK);
    if (st)
        GSVD_CHECK_RC(gsvd_tree_open(st, &t), GSVD_OK);
    if (t)
        GSVD_CHECK_RC(gsvd_array_open(t, "x", &a), GSVD_OK);
    if (a && gsvd_reader_new(a, &r) == GSVD_OK) {
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, 0, 2, v), GSVD_OK);
        GSVD_CHECK(v[0] == 1 && v[1] == 2);
        GSVD_CHECK_RC(gsvd_reader_read_rows(r, 2, 2, v), GSVD_EFORMAT);
    }
out:
    gsvd_reader_free(r);
    gsvd_array_close(a);
    gsvd_tree_close(t);
    gsvd_store_close(st);
    gsvd_writer_close(w);
    gsvd_codec_ws_free(ws);
    if (url)
        gsvd_test_remove_tree(url);
    gsvd_free(url);
    gsvd_free(chunk);
}

/* ---- --one-roundtrip --------------------------------------------------------------------- */

/* Encode the 2x2 chunks of a 5x3 <i4 array (C order, padding 0) into st under "v/". */
static int put_v_chunks(gsvd_store *st, const gsvd_codec_chain *c, gsvd_codec_ws *ws,
                        const int32_t *src)
{
    struct gsvd_buf enc = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    for (int ci = 0; ci < 3; ci++)
        for (int cj = 0; cj < 2; cj++) {
            int32_t chunk[4] = {0, 0, 0, 0};
            char key[16];
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++)
                    if (ci * 2 + i < 5 && cj * 2 + j < 3)
                        chunk[i * 2 + j] = src[(ci * 2 + i) * 3 + cj * 2 + j];
            snprintf(key, sizeof key, "v/%d.%d", ci, cj);
            GSVD_TRY(gsvd_codec_chain_encode(c, ws, chunk, sizeof chunk, &enc));
            GSVD_TRY(gsvd_store_put(st, key, enc.data, enc.len));
        }
out:
    gsvd_buf_free(&enc);
    return rc;
}

/* Writer into mem: (a group, a numeric and a string array, commit); then a hand-built,
 * consolidated mem: store read back through tree, array and reader.  GSVD_OK, or the first
 * error (GSVD_ENOMEM when an injected allocation failure hit). */
static int one_roundtrip(void)
{
    static const char zv[] = "{\"zarr_format\": 2, \"shape\": [5, 3], \"chunks\": [2, 2], "
                             "\"dtype\": \"<i4\", \"order\": \"C\", \"compressor\": {\"id\": "
                             "\"zstd\", \"level\": 1}, \"filters\": null, \"fill_value\": -1}";
    static const char zs[] = "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [2], \"dtype\": "
                             "\"|O\", \"order\": \"C\", \"compressor\": null, \"filters\": "
                             "[{\"id\": \"vlen-utf8\"}], \"fill_value\": \"\"}";
    const char *items[] = {"a", "bc", "d"}, *pad[] = {"d", ""};
    int32_t src[15], got[15];
    int rc = GSVD_OK;
    gsvd_writer *w = NULL;
    gsvd_warray *wa = NULL;
    gsvd_codec_ws *ws = NULL;
    gsvd_codec_chain *cv = NULL, *cs = NULL;
    gsvd_store *st = NULL;
    gsvd_tree *t = NULL;
    gsvd_array *a = NULL, *s = NULL;
    gsvd_reader *r = NULL, *rs = NULL;
    struct gsvd_array_spec spec = {0};
    struct gsvd_strlist keys = GSVD_STRLIST_INIT, docs = GSVD_STRLIST_INIT;
    struct gsvd_strlist l = GSVD_STRLIST_INIT;
    struct gsvd_buf enc = GSVD_BUF_INIT;
    struct gsvd_dtype dti = {'i', '<', 4}, dto = {'O', '|', sizeof(char *)};
    uint64_t start[2] = {0, 0}, count[2] = {5, 3}, bytes, n;

    for (int i = 0; i < 15; i++)
        src[i] = i * 11 - 40;
    GSVD_TRY(gsvd_codec_ws_new(&ws));

    /* writer */
    GSVD_TRY(gsvd_writer_open("mem:w", 0, &w));
    GSVD_TRY(gsvd_writer_group(w, "g", "{\"k\": \"v\"}"));
    spec.path = "g/x";
    spec.ndim = 2;
    spec.shape[0] = 5;
    spec.shape[1] = 3;
    spec.chunks[0] = 2;
    spec.chunks[1] = 2;
    spec.dtype = dti;
    spec.fill = &src[0];
    GSVD_TRY(gsvd_writer_array(w, &spec, &wa));
    for (uint64_t row = 0; row < 5; row += 2)
        GSVD_TRY(gsvd_warray_write_rows(wa, ws, row, row + 2 <= 5 ? 2 : 1, src + row * 3));
    spec.path = "names";
    spec.ndim = 1;
    spec.shape[0] = 3;
    spec.dtype = dto;
    spec.fill = NULL;
    GSVD_TRY(gsvd_writer_array(w, &spec, &wa));
    GSVD_TRY(gsvd_warray_write_strings(wa, ws, items, 3));
    GSVD_TRY(gsvd_writer_commit(w));

    /* a consolidated store by hand */
    GSVD_TRY(gsvd_store_open("mem:r", GSVD_STORE_WRITE, &st));
    GSVD_TRY(gsvd_codec_chain_parse_json("{\"id\": \"zstd\", \"level\": 1}", NULL, &dti, "v", &cv));
    GSVD_TRY(gsvd_codec_chain_parse_json(NULL, "[{\"id\": \"vlen-utf8\"}]", &dto, "s", &cs));
    GSVD_TRY(put_v_chunks(st, cv, ws, src));
    GSVD_TRY(gsvd_codec_chain_encode_vlen(cs, ws, items, 2, &enc));
    GSVD_TRY(gsvd_store_put(st, "s/0", enc.data, enc.len));
    GSVD_TRY(gsvd_codec_chain_encode_vlen(cs, ws, pad, 2, &enc));
    GSVD_TRY(gsvd_store_put(st, "s/1", enc.data, enc.len));
    GSVD_TRY(gsvd_strlist_push(&keys, ".zgroup"));
    GSVD_TRY(gsvd_strlist_push(&docs, "{\"zarr_format\": 2}"));
    GSVD_TRY(gsvd_strlist_push(&keys, "v/.zarray"));
    GSVD_TRY(gsvd_strlist_push(&docs, zv));
    GSVD_TRY(gsvd_strlist_push(&keys, "s/.zarray"));
    GSVD_TRY(gsvd_strlist_push(&docs, zs));
    gsvd_buf_clear(&enc);
    GSVD_TRY(gsvd_zmetadata_emit(&keys, &docs, &enc));
    GSVD_TRY(gsvd_store_put(st, ".zmetadata", enc.data, enc.len));

    /* read it back */
    GSVD_TRY(gsvd_tree_open(st, &t));
    GSVD_TRY(gsvd_tree_children(t, "", &l));
    if (l.n != 2 || !gsvd_tree_is_consolidated(t)) {
        rc = GSVD_EINTERNAL;
        goto out;
    }
    GSVD_TRY(gsvd_array_open(t, "v", &a));
    GSVD_TRY(gsvd_reader_new(a, &r));
    GSVD_TRY(gsvd_reader_read(r, start, count, got));
    GSVD_TRY(gsvd_array_stored_bytes(a, &bytes, &n));
    if (memcmp(got, src, sizeof src) != 0 || n != 6) {
        rc = GSVD_EINTERNAL;
        goto out;
    }
    GSVD_TRY(gsvd_array_open(t, "s", &s));
    GSVD_TRY(gsvd_reader_new(s, &rs));
    gsvd_strlist_free(&l);
    GSVD_TRY(gsvd_reader_read_strings(rs, 0, 3, &l));
    if (l.n != 3 || strcmp(l.items[1], "bc") != 0) {
        rc = GSVD_EINTERNAL;
        goto out;
    }
out:
    gsvd_reader_free(r);
    gsvd_reader_free(rs);
    gsvd_array_close(a);
    gsvd_array_close(s);
    gsvd_tree_close(t);
    gsvd_store_close(st);
    gsvd_writer_close(w);
    gsvd_codec_chain_free(cv);
    gsvd_codec_chain_free(cs);
    gsvd_codec_ws_free(ws);
    gsvd_strlist_free(&keys);
    gsvd_strlist_free(&docs);
    gsvd_strlist_free(&l);
    gsvd_buf_free(&enc);
    return rc;
}

int main(int argc, char **argv)
{
    const char *base = getenv("TMPDIR");

    gsvd_meta_global_init(); /* cJSON allocates through gsvd_malloc */
    if (argc > 1 && strcmp(argv[1], "--one-roundtrip") == 0) {
        int rc = one_roundtrip();
        return rc == GSVD_OK ? 0 : rc == GSVD_ENOMEM ? 3 : 1;
    }
    if (argc > 1 && strcmp(argv[1], "-v") != 0) {
        fprintf(stderr, "usage: test_array [-v | --one-roundtrip]\n");
        return 2;
    }
    /* error paths log by design; -v shows them */
    gsvd_log_set_level(argc > 1 ? GSVD_LOG_DEBUG : GSVD_LOG_OFF);
    snprintf(tmp, sizeof tmp, "%s/test_array.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "test_array: cannot create %s: %s\n", tmp, strerror(errno));
        return 1;
    }
    test_roundtrips();
    test_writer_errors();
    test_writer_v3();
    test_strings();
    test_f_order_big_endian();
    test_hand_dtypes();
    test_objects_2d();
    test_chunk_keys();
    test_trees();
    test_open_errors();
    test_corrupt_chunks();
    test_chunk_is_dir();
    GSVD_CHECK_RC(one_roundtrip(), GSVD_OK);
    gsvd_test_remove_tree(tmp);
    return gsvd_test_report("test_array");
}
