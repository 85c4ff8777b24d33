/* tests/unit/test_array.c - zarr/array.h and zarr/reader.h against their contracts: string
 * arrays ('O' and 'S'), stores written by hand (F order, big-endian, missing chunks, every
 * dtype, "/" separator, 2-D object arrays), chunk keys and stored sizes.  The writer's round
 * trips are in test_writer.c, trees and open errors in test_tree.c.
 * `test_array --one-roundtrip` writes a small hierarchy to mem: with the writer and reads a
 * hand-built mem: store back, exiting 0, or 3 when an allocation failed cleanly (GSVD_ENOMEM);
 * tests/unit/alloc_sweep.sh drives it with GENSVD_FAIL_ALLOC_AT=N. */
#include "gsvd_config.h"

#include "tests/gsvd_test.h"
#include "tests/unit/array_util.h"

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
        char want[5][4][32], text[512];
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
            char key[32];
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
    int rc;

    gsvd_meta_global_init(); /* cJSON allocates through gsvd_malloc */
    if (argc > 1 && strcmp(argv[1], "--one-roundtrip") == 0) {
        rc = one_roundtrip();
        return rc == GSVD_OK ? 0 : rc == GSVD_ENOMEM ? 3 : 1;
    }
    if ((rc = array_test_begin("test_array", argc, argv)) != 0)
        return rc;
    test_strings();
    test_f_order_big_endian();
    test_hand_dtypes();
    test_objects_2d();
    test_chunk_keys();
    GSVD_CHECK_RC(one_roundtrip(), GSVD_OK);
    gsvd_test_remove_tree(tmp);
    return gsvd_test_report("test_array");
}
