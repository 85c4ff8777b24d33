/* tests/unit/test_meta.c - zarr/meta.h and zarr/dtype.h against their contracts: .zarray
 * parsing of every dtype kind, order, separator and fill value (every parsed field checked),
 * every documented error code, emit + re-parse round trips, .zmetadata and .zgroup documents,
 * attribute helpers and JSON quoting.
 * `test_meta --one-parse` runs one parse + emit + .zmetadata round trip and exits 0, or 3 when
 * an allocation failed cleanly (GSVD_ENOMEM); tests/unit/alloc_sweep.sh drives it with
 * GENSVD_FAIL_ALLOC_AT=N so that each allocation (cJSON's included) fails in turn. */
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "tests/gsvd_test.h"
#include "zarr/codec.h"
#include "zarr/dtype.h"
#include "zarr/meta.h"

#define WHERE "t/.zarray"

static char doc[16384];

/* A .zarray text.  fill NULL leaves "fill_value" out; extra is spliced in before the closing
 * brace (", \"dimension_separator\": \"/\"").  |O arrays get the vlen-utf8 filter. */
static const char *zdoc(const char *shape, const char *chunks, const char *dtype, const char *fill,
                        const char *order, const char *extra)
{
    char fillpart[256] = "";

    if (fill)
        snprintf(fillpart, sizeof fillpart, "\"fill_value\": %s, ", fill);
    snprintf(doc, sizeof doc,
             "{\"zarr_format\": 2, \"shape\": %s, \"chunks\": %s, \"dtype\": \"%s\", "
             "\"compressor\": null, %s\"order\": \"%s\", \"filters\": %s%s}",
             shape, chunks, dtype, fillpart, order,
             strcmp(dtype, "|O") == 0 ? "[{\"id\": \"vlen-utf8\"}]" : "null", extra ? extra : "");
    return doc;
}

/* "[1, 1, ..., 1]" with n ones. */
static void ones(char *buf, size_t len, int n)
{
    size_t o = (size_t)snprintf(buf, len, "[1");
    for (int i = 1; i < n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, ", 1");
    if (o < len)
        snprintf(buf + o, len - o, "]");
}

static int parse(const char *json, struct gsvd_zarray *z)
{
    return gsvd_zarray_parse(json, strlen(json), WHERE, z);
}

/* Parse and expect rc; clears the result either way. */
static int parse_rc(const char *json)
{
    struct gsvd_zarray z;
    int rc = parse(json, &z);

    gsvd_zarray_clear(&z);
    return rc;
}

static struct gsvd_dtype dt_of(const char *s)
{
    struct gsvd_dtype dt = {0, 0, 0};

    GSVD_CHECK_RC(gsvd_dtype_parse(s, &dt), GSVD_OK);
    return dt;
}

/* Compare every field of two parsed arrays; 1 when equal.  Logs the first difference. */
static int same_zarray(const struct gsvd_zarray *a, const struct gsvd_zarray *b)
{
    struct gsvd_buf ca = GSVD_BUF_INIT, fa = GSVD_BUF_INIT, cb = GSVD_BUF_INIT, fb = GSVD_BUF_INIT;
    const char *why = NULL;

    if (a->ndim != b->ndim)
        why = "ndim";
    else if (memcmp(a->shape, b->shape, a->ndim * sizeof *a->shape) != 0)
        why = "shape";
    else if (memcmp(a->chunks, b->chunks, a->ndim * sizeof *a->chunks) != 0)
        why = "chunks";
    else if (memcmp(a->grid, b->grid, a->ndim * sizeof *a->grid) != 0)
        why = "grid";
    else if (a->dtype.kind != b->dtype.kind || a->dtype.byteorder != b->dtype.byteorder ||
             a->dtype.size != b->dtype.size)
        why = "dtype";
    else if (a->order != b->order)
        why = "order";
    else if (a->sep != b->sep)
        why = "sep";
    else if (a->chunk_items != b->chunk_items || a->chunk_bytes != b->chunk_bytes)
        why = "chunk_items/chunk_bytes";
    else if (a->has_fill != b->has_fill)
        why = "has_fill";
    else if ((a->fill == NULL) != (b->fill == NULL) ||
             (a->fill && memcmp(a->fill, b->fill, a->dtype.size) != 0))
        why = "fill";
    else if ((a->fill_str == NULL) != (b->fill_str == NULL) ||
             (a->fill_str && strcmp(a->fill_str, b->fill_str) != 0))
        why = "fill_str";
    else if (!a->codecs || !b->codecs || gsvd_codec_chain_to_json(a->codecs, &ca, &fa) < 0 ||
             gsvd_codec_chain_to_json(b->codecs, &cb, &fb) < 0 || ca.len != cb.len ||
             fa.len != fb.len || (ca.len && memcmp(ca.data, cb.data, ca.len) != 0) ||
             (fa.len && memcmp(fa.data, fb.data, fa.len) != 0))
        why = "codecs";
    if (why) {
        char ts[32];
        gsvd_dtype_format(&a->dtype, ts, sizeof ts);
        fprintf(stderr, "round trip of a %s array differs in %s\n", ts, why);
    }
    gsvd_buf_free(&ca);
    gsvd_buf_free(&fa);
    gsvd_buf_free(&cb);
    gsvd_buf_free(&fb);
    return why == NULL;
}

/* Emit z, parse the text again, compare; 1 when equal. */
static int roundtrip_ok(const struct gsvd_zarray *z)
{
    struct gsvd_buf text = GSVD_BUF_INIT;
    struct gsvd_zarray back;
    int ok = 0;

    memset(&back, 0, sizeof back);
    if (gsvd_zarray_emit(z, &text) == GSVD_OK &&
        gsvd_zarray_parse(text.data, text.len, "emitted/.zarray", &back) == GSVD_OK)
        ok = same_zarray(z, &back);
    else
        fprintf(stderr, "emitted text does not parse:\n%s\n", text.data ? text.data : "");
    gsvd_zarray_clear(&back);
    gsvd_buf_free(&text);
    return ok;
}

/* ---- dtype ---------------------------------------------------------------------------- */

static void test_dtype(void)
{
    static const struct {
        const char *s, *back;
        int swap;
    } cases[] = {
        {"|b1", "|b1", 0}, {"|i1", "|i1", 0}, {">i1", "|i1", 0}, {"<i2", "<i2", 0},
        {">i2", ">i2", 1}, {">i4", ">i4", 1}, {"<u8", "<u8", 0}, {">u8", ">u8", 1},
        {"<f2", "<f2", 0}, {">f4", ">f4", 1}, {"<f8", "<f8", 0}, {"|S7", "|S7", 0},
        {"<U3", "<U3", 0}, {">U3", ">U3", 1}, {"|O", "|O", 0},   {"|O8", "|O", 0},
    };
    struct gsvd_dtype dt;
    char buf[24];

    for (size_t i = 0; i < GSVD_ARRAY_LEN(cases); i++) {
        GSVD_CHECK_RC(gsvd_dtype_parse(cases[i].s, &dt), GSVD_OK);
        gsvd_dtype_format(&dt, buf, sizeof buf);
        GSVD_CHECK(strcmp(buf, cases[i].back) == 0);
        GSVD_CHECK(gsvd_dtype_needs_swap(&dt) == cases[i].swap);
    }
    GSVD_CHECK_RC(gsvd_dtype_parse("", &dt), GSVD_EFORMAT);
    GSVD_CHECK_RC(gsvd_dtype_parse("<i3", &dt), GSVD_EFORMAT);
    GSVD_CHECK_RC(gsvd_dtype_parse("|i4", &dt), GSVD_EFORMAT);
    GSVD_CHECK_RC(gsvd_dtype_parse("<c8", &dt), GSVD_EUNSUPPORTED);
    GSVD_CHECK_RC(gsvd_dtype_parse("<M8[ns]", &dt), GSVD_EUNSUPPORTED);
    GSVD_CHECK_RC(gsvd_dtype_parse("|V4", &dt), GSVD_EUNSUPPORTED);
    GSVD_CHECK(strstr(gsvd_dtype_supported(), "f8") != NULL);
    dt = dt_of("<U5");
    GSVD_CHECK(dt.kind == 'U' && dt.size == 20 && dt.byteorder == '<');
}

/* ---- valid documents ------------------------------------------------------------------- */

/* Every dtype kind with a null fill: every derived field. */
static void test_every_dtype(void)
{
    static const struct {
        const char *ts;
        char kind, order;
        size_t size;
    } kinds[] = {
        {"|b1", 'b', '|', 1}, {"|i1", 'i', '|', 1},
        {"<i2", 'i', '<', 2}, {">i4", 'i', '>', 4},
        {"<i8", 'i', '<', 8}, {"|u1", 'u', '|', 1},
        {"<u2", 'u', '<', 2}, {">u4", 'u', '>', 4},
        {"<u8", 'u', '<', 8}, {"<f2", 'f', '<', 2},
        {"<f4", 'f', '<', 4}, {">f8", 'f', '>', 8},
        {"|S4", 'S', '|', 4}, {"<U3", 'U', '<', 12},
        {">U2", 'U', '>', 8}, {"|O", 'O', '|', sizeof(char *)},
    };

    for (size_t i = 0; i < GSVD_ARRAY_LEN(kinds); i++) {
        struct gsvd_zarray z;
        int rc = parse(zdoc("[10, 7]", "[4, 3]", kinds[i].ts, "null", "C", NULL), &z);

        GSVD_CHECK_RC(rc, GSVD_OK);
        if (rc != GSVD_OK)
            continue;
        GSVD_CHECK(z.ndim == 2);
        GSVD_CHECK(z.shape[0] == 10 && z.shape[1] == 7);
        GSVD_CHECK(z.chunks[0] == 4 && z.chunks[1] == 3);
        GSVD_CHECK(z.grid[0] == 3 && z.grid[1] == 3);
        GSVD_CHECK(z.dtype.kind == kinds[i].kind && z.dtype.byteorder == kinds[i].order &&
                   z.dtype.size == kinds[i].size);
        GSVD_CHECK(z.order == 'C' && z.sep == '.');
        GSVD_CHECK(z.chunk_items == 12 && z.chunk_bytes == 12 * kinds[i].size);
        GSVD_CHECK(z.has_fill == 0);
        GSVD_CHECK(z.codecs != NULL);
        if (kinds[i].kind == 'O') {
            GSVD_CHECK(z.fill_str && strcmp(z.fill_str, "") == 0);
            GSVD_CHECK(gsvd_codec_chain_is_vlen(z.codecs));
        } else {
            static const unsigned char zeros[16];
            GSVD_CHECK(z.fill && memcmp(z.fill, zeros, z.dtype.size) == 0);
            GSVD_CHECK(!gsvd_codec_chain_is_vlen(z.codecs));
        }
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
        GSVD_CHECK(z.fill == NULL && z.codecs == NULL && z.ndim == 0); /* cleared to zero */
    }
}

static void test_layout(void)
{
    struct gsvd_zarray z;

    /* F order, "/" separator */
    GSVD_CHECK_RC(
        parse(zdoc("[6, 5, 4]", "[2, 5, 3]", "<f4", "0", "F", ", \"dimension_separator\": \"/\""),
              &z),
        GSVD_OK);
    GSVD_CHECK(z.ndim == 3 && z.order == 'F' && z.sep == '/');
    GSVD_CHECK(z.grid[0] == 3 && z.grid[1] == 1 && z.grid[2] == 2);
    GSVD_CHECK(z.chunk_items == 30 && z.chunk_bytes == 120);
    GSVD_CHECK(roundtrip_ok(&z));
    gsvd_zarray_clear(&z);

    /* "." written out, and null meaning "." */
    GSVD_CHECK_RC(
        parse(zdoc("[6]", "[4]", "<i2", "0", "C", ", \"dimension_separator\": \".\""), &z),
        GSVD_OK);
    GSVD_CHECK(z.sep == '.' && z.grid[0] == 2);
    gsvd_zarray_clear(&z);
    GSVD_CHECK_RC(parse(zdoc("[6]", "[4]", "<i2", "0", "C", ", \"dimension_separator\": null"), &z),
                  GSVD_OK);
    GSVD_CHECK(z.sep == '.');
    gsvd_zarray_clear(&z);

    /* 0-d */
    GSVD_CHECK_RC(parse(zdoc("[]", "[]", "<f8", "1.5", "C", NULL), &z), GSVD_OK);
    GSVD_CHECK(z.ndim == 0 && z.chunk_items == 1 && z.chunk_bytes == 8 && z.has_fill);
    GSVD_CHECK(roundtrip_ok(&z));
    gsvd_zarray_clear(&z);

    /* chunks larger than the shape: one (edge) chunk */
    GSVD_CHECK_RC(parse(zdoc("[5, 3]", "[100, 7]", "|u1", "0", "C", NULL), &z), GSVD_OK);
    GSVD_CHECK(z.grid[0] == 1 && z.grid[1] == 1 && z.chunk_items == 700 && z.chunk_bytes == 700);
    gsvd_zarray_clear(&z);

    /* empty axis: no chunks */
    GSVD_CHECK_RC(parse(zdoc("[0, 3]", "[10, 3]", "<i4", "0", "C", NULL), &z), GSVD_OK);
    GSVD_CHECK(z.grid[0] == 0 && z.grid[1] == 1 && z.chunk_bytes == 120);
    GSVD_CHECK(roundtrip_ok(&z));
    gsvd_zarray_clear(&z);

    /* exact multiple */
    GSVD_CHECK_RC(parse(zdoc("[12]", "[4]", "<i4", "0", "C", NULL), &z), GSVD_OK);
    GSVD_CHECK(z.grid[0] == 3);
    gsvd_zarray_clear(&z);

    /* the largest exact shape, 2^53, and the largest chunk under 2 GiB */
    GSVD_CHECK_RC(parse(zdoc("[9007199254740992]", "[1073741823]", "<i2", "0", "C", NULL), &z),
                  GSVD_OK);
    GSVD_CHECK(z.shape[0] == 9007199254740992ull && z.chunk_bytes == 2147483646u);
    GSVD_CHECK(z.grid[0] == 8388608ull + 1); /* ceil(2^53 / (2^30 - 1)) */
    gsvd_zarray_clear(&z);

    /* 32 dimensions: the maximum */
    {
        char dims[200];
        ones(dims, sizeof dims, 32);
        GSVD_CHECK_RC(parse(zdoc(dims, dims, "|i1", "0", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.ndim == 32 && z.chunk_items == 1);
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
    }

    /* trailing whitespace and a NUL-free length shorter than the buffer are fine */
    {
        const char *text = zdoc("[3]", "[3]", "<i4", "0", "C", NULL);
        char padded[1024];
        snprintf(padded, sizeof padded, "%s \n\t\r\n", text);
        GSVD_CHECK_RC(gsvd_zarray_parse(padded, strlen(padded), WHERE, &z), GSVD_OK);
        gsvd_zarray_clear(&z);
        /* n excludes junk after the document: only n bytes are read */
        snprintf(padded, sizeof padded, "%sGARBAGE", text);
        GSVD_CHECK_RC(gsvd_zarray_parse(padded, strlen(text), WHERE, &z), GSVD_OK);
        gsvd_zarray_clear(&z);
    }

    /* a compressor and filters survive the round trip */
    snprintf(doc, sizeof doc,
             "{\"chunks\": [8], \"compressor\": {\"blocksize\": 0, \"clevel\": 3, \"cname\": "
             "\"lz4\", \"id\": \"blosc\", \"shuffle\": 1}, \"dtype\": \"<i4\", \"fill_value\": "
             "-1, \"filters\": [{\"dtype\": \"<i4\", \"id\": \"delta\"}], \"order\": \"C\", "
             "\"shape\": [20], \"zarr_format\": 2, \"unknown_member\": {\"x\": [1, 2]}}");
    GSVD_CHECK_RC(parse(doc, &z), GSVD_OK);
    GSVD_CHECK(roundtrip_ok(&z));
    gsvd_zarray_clear(&z);
}

/* Fill values: exact bytes in native order. */
static void test_fill_values(void)
{
    static const struct {
        const char *ts, *fill;
        int has;
        uint64_t bits; /* expected native value, zero-extended (f2: IEEE half bits) */
    } cases[] = {
        {"|b1", "true", 1, 1},
        {"|b1", "false", 1, 0},
        {"|b1", "1", 1, 1},
        {"|b1", "0", 1, 0},
        {"|i1", "-128", 1, 0x80},
        {"|i1", "127", 1, 0x7f},
        {"<i2", "-2", 1, 0xfffe},
        {">i4", "-5", 1, 0xfffffffb},
        {"<i4", "true", 1, 1},
        {"<i8", "-1", 1, UINT64_MAX},
        {"<i8", "-9223372036854775808", 1, 0x8000000000000000ull},
        {"<i8", "9223372036854775807", 1, 0x7fffffffffffffffull},
        {"<i8", "-9007199254740993", 1, (uint64_t)-9007199254740993ll}, /* not a double */
        {">i8", "9007199254740993", 1, 9007199254740993ull},
        {"|u1", "255", 1, 255},
        {"<u2", "65535", 1, 65535},
        {">u4", "4294967295", 1, 4294967295u},
        {"<u8", "18446744073709551615", 1, UINT64_MAX},
        {"<u8", "18446744073709551614", 1, UINT64_MAX - 1},
        {"<u8", "9007199254740993", 1, 9007199254740993ull},
        {"<u8", "0", 1, 0},
        {"<f2", "1.5", 1, 0x3e00},
        {"<f2", "65504", 1, 0x7bff},
        {"<f2", "-0.25", 1, 0xb400},
        {"<f2", "\"Infinity\"", 1, 0x7c00},
        {"<f2", "\"-Infinity\"", 1, 0xfc00},
        {"<i4", "null", 0, 0},
        {"<f8", "null", 0, 0},
        {"|S2", "null", 0, 0},
        {"<U1", "null", 0, 0},
    };

    for (size_t i = 0; i < GSVD_ARRAY_LEN(cases); i++) {
        struct gsvd_zarray z;
        uint64_t got = 0;
        int rc = parse(zdoc("[3]", "[2]", cases[i].ts, cases[i].fill, "C", NULL), &z);

        GSVD_CHECK_RC(rc, GSVD_OK);
        if (rc != GSVD_OK) {
            fprintf(stderr, "  dtype %s fill %s\n", cases[i].ts, cases[i].fill);
            continue;
        }
        GSVD_CHECK(z.has_fill == cases[i].has);
        memcpy(&got, z.fill, z.dtype.size < 8 ? z.dtype.size : 8); /* little-endian host */
        if (got != cases[i].bits)
            fprintf(stderr, "dtype %s fill %s: got 0x%llx, want 0x%llx\n", cases[i].ts,
                    cases[i].fill, (unsigned long long)got, (unsigned long long)cases[i].bits);
        GSVD_CHECK(got == cases[i].bits);
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
    }

    /* floats: numbers and the three strings */
    {
        struct gsvd_zarray z;
        float f;
        double d;

        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<f4", "0.1", "C", NULL), &z), GSVD_OK);
        memcpy(&f, z.fill, 4);
        GSVD_CHECK(z.has_fill && f == 0.1f);
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<f4", "\"NaN\"", "C", NULL), &z), GSVD_OK);
        memcpy(&f, z.fill, 4);
        GSVD_CHECK(z.has_fill && isnan(f));
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", ">f8", "\"Infinity\"", "C", NULL), &z), GSVD_OK);
        memcpy(&d, z.fill, 8);
        GSVD_CHECK(z.has_fill && isinf(d) && d > 0);
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<f8", "\"-Infinity\"", "C", NULL), &z), GSVD_OK);
        memcpy(&d, z.fill, 8);
        GSVD_CHECK(z.has_fill && isinf(d) && d < 0);
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<f8", "-2.5e-300", "C", NULL), &z), GSVD_OK);
        memcpy(&d, z.fill, 8);
        GSVD_CHECK(d == -2.5e-300);
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<f8", "\"NaN\"", "C", NULL), &z), GSVD_OK);
        memcpy(&d, z.fill, 8);
        GSVD_CHECK(isnan(d));
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<f2", "\"NaN\"", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill && (z.fill[1] & 0x7c) == 0x7c && (z.fill[0] | (z.fill[1] & 3)));
        gsvd_zarray_clear(&z);
    }

    /* missing fill_value: accepted as null */
    {
        struct gsvd_zarray z;
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<i4", NULL, "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill == 0 && z.fill && z.fill[0] == 0);
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
    }

    /* S: base64 of the raw bytes; 0 means empty */
    {
        struct gsvd_zarray z;
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "|S4", "\"YWJj\"", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill && memcmp(z.fill, "abc\0", 4) == 0);
        GSVD_CHECK(roundtrip_ok(&z)); /* emit must keep the fill */
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "|S4", "\"AAEC/w==\"", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill && memcmp(z.fill, "\x00\x01\x02\xff", 4) == 0);
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "|S2", "0", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill && z.fill[0] == 0 && z.fill[1] == 0);
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "|S2", "\"\"", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill && z.fill[0] == 0 && z.fill[1] == 0);
        gsvd_zarray_clear(&z);
    }

    /* U: text as UCS-4, native order, zero-padded */
    {
        struct gsvd_zarray z;
        static const unsigned char want[12] = {'a', 0, 0, 0, 0xe9, 0, 0, 0, 0, 0, 0, 0};
        static const unsigned char want_big[8] = {0x00, 0xf6, 0x01, 0, 'z', 0, 0, 0};

        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<U3", "\"a\\u00e9\"", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill && memcmp(z.fill, want, 12) == 0);
        GSVD_CHECK(roundtrip_ok(&z)); /* emit must keep the fill */
        gsvd_zarray_clear(&z);
        /* big-endian dtype: the fill is still native; U+1F600 via a surrogate pair */
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", ">U2", "\"\\ud83d\\ude00z\"", "C", NULL), &z),
                      GSVD_OK);
        GSVD_CHECK(z.has_fill && memcmp(z.fill, want_big, 8) == 0);
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<U2", "0", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill && memcmp(z.fill, "\0\0\0\0\0\0\0\0", 8) == 0);
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "<U2", "\"\"", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.has_fill && memcmp(z.fill, "\0\0\0\0\0\0\0\0", 8) == 0);
        gsvd_zarray_clear(&z);
    }

    /* O: the fill string; 0 (zarr-python 2) and null mean "" */
    {
        struct gsvd_zarray z;
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "|O", "0", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.fill_str && strcmp(z.fill_str, "") == 0);
        GSVD_CHECK(roundtrip_ok(&z));
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "|O", "\"\"", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.fill_str && strcmp(z.fill_str, "") == 0);
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "|O", "\"n/a\"", "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.fill_str && strcmp(z.fill_str, "n/a") == 0);
        GSVD_CHECK(roundtrip_ok(&z)); /* emit must keep the fill string */
        gsvd_zarray_clear(&z);
        GSVD_CHECK_RC(parse(zdoc("[3]", "[2]", "|O", NULL, "C", NULL), &z), GSVD_OK);
        GSVD_CHECK(z.fill_str && strcmp(z.fill_str, "") == 0);
        gsvd_zarray_clear(&z);
    }

    /* the exact 64-bit re-read must take the top-level fill_value, not a nested member */
    {
        struct gsvd_zarray z;
        uint64_t got = 0;
        snprintf(doc, sizeof doc,
                 "{\"zarr_format\": 2, \"attrs\": {\"fill_value\": 7}, \"shape\": [3], "
                 "\"chunks\": [2], \"dtype\": \"<u8\", \"compressor\": null, \"fill_value\": "
                 "18446744073709551615, \"order\": \"C\", \"filters\": null}");
        GSVD_CHECK_RC(parse(doc, &z), GSVD_OK);
        if (z.fill)
            memcpy(&got, z.fill, 8);
        GSVD_CHECK(got == UINT64_MAX);
        gsvd_zarray_clear(&z);
        /* and one written with spaces around the colon */
        snprintf(doc, sizeof doc,
                 "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [2], \"dtype\": \"<i8\", "
                 "\"compressor\": null, \"fill_value\"  :\n -9223372036854775807, \"order\": "
                 "\"C\", \"filters\": null}");
        GSVD_CHECK_RC(parse(doc, &z), GSVD_OK);
        if (z.fill)
            memcpy(&got, z.fill, 8);
        GSVD_CHECK(got == (uint64_t)(-9223372036854775807ll));
        gsvd_zarray_clear(&z);
    }
}

/* ---- errors ---------------------------------------------------------------------------- */

static void test_bad_fill(void)
{
    static const struct {
        const char *ts, *fill;
    } bad[] = {
        {"|i1", "128"},
        {"|i1", "-129"},
        {"|u1", "256"},
        {"|u1", "-1"},
        {"<u2", "65536"},
        {"<i2", "32768"},
        {"<i4", "2147483648"},
        {"<i4", "3000000000"},
        {"<i4", "1e20"},
        {"<i4", "1.5"},
        {"<i4", "\"1\""},
        {"<i4", "[0]"},
        {"<i8", "9223372036854775808"},
        {"<i8", "-9223372036854775809"},
        {"<i8", "1e300"},
        {"<u8", "18446744073709551616"},
        {"<u8", "-1"},
        {"<u8", "-9223372036854775808"},
        {"<u4", "1e19"},
        {"|b1", "2"},
        {"|b1", "\"true\""},
        {"<f4", "\"nan\""},
        {"<f4", "\"inf\""},
        {"<f8", "true"},
        {"<f8", "{}"},
        {"|S4", "true"},
        {"|S4", "1"},
        {"<U2", "\"abc\""},
        {"<U2", "5"},
        {"<U2", "[\"a\"]"},
    };

    for (size_t i = 0; i < GSVD_ARRAY_LEN(bad); i++) {
        int rc = parse_rc(zdoc("[3]", "[2]", bad[i].ts, bad[i].fill, "C", NULL));
        if (rc != GSVD_EFORMAT)
            fprintf(stderr, "dtype %s fill %s accepted (rc %d)\n", bad[i].ts, bad[i].fill, rc);
        GSVD_CHECK_RC(rc, GSVD_EFORMAT);
    }
}

static void test_errors(void)
{
    char big[1024];

    /* not JSON, not an object, trailing data */
    GSVD_CHECK_RC(gsvd_zarray_parse("", 0, WHERE, &(struct gsvd_zarray){0}), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc("{"), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc("{\"zarr_format\": 2,}"), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc("[1, 2]"), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc("null"), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc("\"zarr\""), GSVD_EFORMAT);
    snprintf(big, sizeof big, "%s x", zdoc("[3]", "[2]", "<i4", "0", "C", NULL));
    GSVD_CHECK_RC(parse_rc(big), GSVD_EFORMAT);
    snprintf(big, sizeof big, "%s{}", zdoc("[3]", "[2]", "<i4", "0", "C", NULL));
    GSVD_CHECK_RC(parse_rc(big), GSVD_EFORMAT);
    /* bare NaN is not accepted in .zarray (only in attributes) */
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[2]", "<f4", "NaN", "C", NULL)), GSVD_EFORMAT);

    /* zarr_format */
    GSVD_CHECK_RC(parse_rc("{\"shape\": [1], \"chunks\": [1], \"dtype\": \"<i4\", \"compressor\":"
                           " null, \"fill_value\": 0, \"order\": \"C\", \"filters\": null}"),
                  GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc("{\"zarr_format\": \"2\"}"), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc("{\"zarr_format\": 3, \"shape\": [1]}"), GSVD_EUNSUPPORTED);
    GSVD_CHECK_RC(parse_rc("{\"zarr_format\": 1}"), GSVD_EUNSUPPORTED);
    GSVD_CHECK_RC(parse_rc("{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4], "
                           "\"data_type\": \"int32\"}"),
                  GSVD_EUNSUPPORTED);

    /* missing or ill-typed members */
    static const char *const missing[] = {
        "{\"zarr_format\": 2, \"chunks\": [2], \"dtype\": \"<i4\", \"compressor\": null, "
        "\"fill_value\": 0, \"order\": \"C\", \"filters\": null}",
        "{\"zarr_format\": 2, \"shape\": [3], \"dtype\": \"<i4\", \"compressor\": null, "
        "\"fill_value\": 0, \"order\": \"C\", \"filters\": null}",
        "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [2], \"compressor\": null, "
        "\"fill_value\": 0, \"order\": \"C\", \"filters\": null}",
        "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [2], \"dtype\": \"<i4\", "
        "\"fill_value\": 0, \"order\": \"C\", \"filters\": null}",
        "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [2], \"dtype\": \"<i4\", "
        "\"compressor\": null, \"fill_value\": 0, \"filters\": null}",
        "{\"zarr_format\": 2, \"shape\": 3, \"chunks\": [2], \"dtype\": \"<i4\", "
        "\"compressor\": null, \"fill_value\": 0, \"order\": \"C\", \"filters\": null}",
        "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": {}, \"dtype\": \"<i4\", "
        "\"compressor\": null, \"fill_value\": 0, \"order\": \"C\", \"filters\": null}",
        "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [2], \"dtype\": 4, "
        "\"compressor\": null, \"fill_value\": 0, \"order\": \"C\", \"filters\": null}",
        "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [2], \"dtype\": \"<i4\", "
        "\"compressor\": \"zlib\", \"fill_value\": 0, \"order\": \"C\", \"filters\": null}",
        "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [2], \"dtype\": \"<i4\", "
        "\"compressor\": null, \"fill_value\": 0, \"order\": \"C\", \"filters\": {}}",
    };
    for (size_t i = 0; i < GSVD_ARRAY_LEN(missing); i++) {
        int rc = parse_rc(missing[i]);
        if (rc != GSVD_EFORMAT)
            fprintf(stderr, "missing/ill-typed case %zu: rc %d\n", i, rc);
        GSVD_CHECK_RC(rc, GSVD_EFORMAT);
    }

    /* shape and chunks values */
    GSVD_CHECK_RC(parse_rc(zdoc("[-1]", "[2]", "<i4", "0", "C", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[1.5]", "[2]", "<i4", "0", "C", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[\"3\"]", "[2]", "<i4", "0", "C", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[null]", "[2]", "<i4", "0", "C", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[9007199254740994]", "[2]", "<i4", "0", "C", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[1e300]", "[2]", "<i4", "0", "C", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[0]", "<i4", "0", "C", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[-2]", "<i4", "0", "C", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[2.5]", "<i4", "0", "C", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[3, 3]", "[2]", "<i4", "0", "C", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[2, 2]", "<i4", "0", "C", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[]", "[1]", "<i4", "0", "C", NULL)), GSVD_EFORMAT);
    {
        char dims[200];
        ones(dims, sizeof dims, 33);
        GSVD_CHECK_RC(parse_rc(zdoc(dims, dims, "|i1", "0", "C", NULL)), GSVD_EUNSUPPORTED);
        GSVD_CHECK_RC(parse_rc(zdoc(dims, "[1]", "|i1", "0", "C", NULL)), GSVD_EUNSUPPORTED);
    }
    /* chunk of 2 GiB or more, and products that overflow */
    GSVD_CHECK_RC(parse_rc(zdoc("[10]", "[1073741824]", "<i2", "0", "C", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[10]", "[2147483648]", "|i1", "0", "C", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[10, 10]", "[65536, 32768]", "|u1", "0", "C", NULL)),
                  GSVD_EFORMAT);
    GSVD_CHECK_RC(
        parse_rc(zdoc("[1, 1, 1]", "[4294967296, 4294967296, 4294967296]", "|u1", "0", "C", NULL)),
        GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[1]", "[9007199254740992]", "<f8", "0", "C", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[1]", "[268435456]", "|S8", "0", "C", NULL)), GSVD_EFORMAT);

    /* order and separator */
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[2]", "<i4", "0", "X", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[2]", "<i4", "0", "c", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[2]", "<i4", "0", "CF", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[2]", "<i4", "0", "", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[2]", "<i4", "0", "C", ", \"dimension_separator\": \"-\"")),
                  GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[2]", "<i4", "0", "C", ", \"dimension_separator\": \"\"")),
                  GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[2]", "<i4", "0", "C", ", \"dimension_separator\": 46")),
                  GSVD_EFORMAT);
    GSVD_CHECK_RC(
        parse_rc(zdoc("[3]", "[2]", "<i4", "0", "C", ", \"dimension_separator\": \"//\"")),
        GSVD_EFORMAT);

    /* dtypes */
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[2]", "<c8", "0", "C", NULL)), GSVD_EUNSUPPORTED);
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[2]", "<c16", "0", "C", NULL)), GSVD_EUNSUPPORTED);
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[2]", "<M8[ns]", "0", "C", NULL)), GSVD_EUNSUPPORTED);
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[2]", "|V8", "0", "C", NULL)), GSVD_EUNSUPPORTED);
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[2]", "<i3", "0", "C", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc(zdoc("[3]", "[2]", "int32", "0", "C", NULL)), GSVD_EFORMAT);
    GSVD_CHECK_RC(parse_rc("{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [2], \"dtype\": "
                           "[[\"a\", \"<f4\"], [\"b\", \"<i4\"]], \"compressor\": null, "
                           "\"fill_value\": null, \"order\": \"C\", \"filters\": null}"),
                  GSVD_EUNSUPPORTED);

    /* codecs */
    GSVD_CHECK_RC(parse_rc("{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [2], \"dtype\": "
                           "\"<i4\", \"compressor\": {\"id\": \"snappy\"}, \"fill_value\": 0, "
                           "\"order\": \"C\", \"filters\": null}"),
                  GSVD_EUNSUPPORTED);
    GSVD_CHECK_RC(parse_rc("{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [2], \"dtype\": "
                           "\"|O\", \"compressor\": null, \"fill_value\": 0, "
                           "\"order\": \"C\", \"filters\": [{\"id\": \"pickle\"}]}"),
                  GSVD_EUNSUPPORTED);
    GSVD_CHECK_RC(parse_rc("{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [2], \"dtype\": "
                           "\"|O\", \"compressor\": null, \"fill_value\": 0, "
                           "\"order\": \"C\", \"filters\": null}"),
                  GSVD_EUNSUPPORTED);
}

/* ---- .zgroup, .zattrs, .zmetadata, helpers --------------------------------------------- */

static int check_object(const char *s)
{
    return gsvd_meta_check_object(s, strlen(s), "t/.zattrs");
}

static int zgroup(const char *s)
{
    return gsvd_zgroup_parse(s, strlen(s), "t/.zgroup");
}

static void test_zgroup_attrs(void)
{
    GSVD_CHECK_RC(zgroup("{\"zarr_format\": 2}"), GSVD_OK);
    GSVD_CHECK_RC(zgroup("{\n    \"zarr_format\": 2\n}\n"), GSVD_OK);
    GSVD_CHECK_RC(zgroup("{\"zarr_format\": 3}"), GSVD_EUNSUPPORTED);
    GSVD_CHECK_RC(zgroup("{\"zarr_format\": 1}"), GSVD_EUNSUPPORTED);
    GSVD_CHECK_RC(zgroup("{\"zarr_format\": \"2\"}"), GSVD_EFORMAT);
    GSVD_CHECK_RC(zgroup("{}"), GSVD_EFORMAT);
    GSVD_CHECK_RC(zgroup("[2]"), GSVD_EFORMAT);
    GSVD_CHECK_RC(zgroup("2"), GSVD_EFORMAT);
    GSVD_CHECK_RC(zgroup(""), GSVD_EFORMAT);
    GSVD_CHECK_RC(zgroup("{\"zarr_format\": 2} x"), GSVD_EFORMAT);

    GSVD_CHECK_RC(check_object("{}"), GSVD_OK);
    GSVD_CHECK_RC(check_object("{\"a\": [1, \"NaN\"], \"b\": {\"c\": null}}"), GSVD_OK);
    /* bare NaN / Infinity: not JSON, but zarr-python writes them into attributes */
    GSVD_CHECK_RC(check_object("{\"a\": NaN}"), GSVD_OK);
    GSVD_CHECK_RC(check_object("{\"a\": [Infinity, -Infinity, NaN, 1.5]}"), GSVD_OK);
    GSVD_CHECK_RC(check_object("{\"s\": \"NaN \\\" NaN\", \"x\": NaN}"), GSVD_OK);
    GSVD_CHECK_RC(check_object("{\"a\": NaNx}"), GSVD_EFORMAT);
    GSVD_CHECK_RC(check_object("[]"), GSVD_EFORMAT);
    GSVD_CHECK_RC(check_object("5"), GSVD_EFORMAT);
    GSVD_CHECK_RC(check_object("{"), GSVD_EFORMAT);
    GSVD_CHECK_RC(check_object(""), GSVD_EFORMAT);
    GSVD_CHECK_RC(check_object("{} {}"), GSVD_EFORMAT);
    GSVD_CHECK_RC(check_object("{\"a\": NaN} x"), GSVD_EFORMAT);
}

static void test_get_string(void)
{
    static const char attrs[] = "{\"vcf_zarr_version\": \"0.4\", \"n\": 5, \"esc\": "
                                "\"a\\\"b\\u00e9\", \"_ARRAY_DIMENSIONS\": [\"variants\", "
                                "\"samples\"], \"empty\": [], \"mixed\": [\"a\", 1]}";
    static const char with_nan[] = "{\"v\": \"1\", \"d\": [\"a\"], \"x\": NaN}";
    char *s = NULL;
    struct gsvd_strlist l = GSVD_STRLIST_INIT;
    size_t n = strlen(attrs);

    GSVD_CHECK_RC(gsvd_meta_get_string(attrs, n, "vcf_zarr_version", "t", &s), GSVD_OK);
    GSVD_CHECK(s && strcmp(s, "0.4") == 0);
    gsvd_free(s);
    GSVD_CHECK_RC(gsvd_meta_get_string(attrs, n, "esc", "t", &s), GSVD_OK);
    GSVD_CHECK(s && strcmp(s, "a\"b\xc3\xa9") == 0);
    gsvd_free(s);
    GSVD_CHECK_RC(gsvd_meta_get_string(attrs, n, "n", "t", &s), GSVD_ENOTFOUND);
    GSVD_CHECK(s == NULL);
    GSVD_CHECK_RC(gsvd_meta_get_string(attrs, n, "absent", "t", &s), GSVD_ENOTFOUND);
    GSVD_CHECK(s == NULL);
    GSVD_CHECK_RC(gsvd_meta_get_string("[\"a\"]", 5, "a", "t", &s), GSVD_ENOTFOUND);
    GSVD_CHECK_RC(gsvd_meta_get_string("{\"a\": ", 6, "a", "t", &s), GSVD_EFORMAT);
    GSVD_CHECK(s == NULL);

    GSVD_CHECK_RC(gsvd_meta_get_string_list(attrs, n, "_ARRAY_DIMENSIONS", "t", &l), GSVD_OK);
    GSVD_CHECK(l.n == 2 && strcmp(l.items[0], "variants") == 0 &&
               strcmp(l.items[1], "samples") == 0);
    gsvd_strlist_free(&l);
    GSVD_CHECK_RC(gsvd_meta_get_string_list(attrs, n, "empty", "t", &l), GSVD_OK);
    GSVD_CHECK(l.n == 0);
    GSVD_CHECK_RC(gsvd_meta_get_string_list(attrs, n, "mixed", "t", &l), GSVD_EFORMAT);
    gsvd_strlist_free(&l);
    GSVD_CHECK_RC(gsvd_meta_get_string_list(attrs, n, "absent", "t", &l), GSVD_ENOTFOUND);
    GSVD_CHECK_RC(gsvd_meta_get_string_list(attrs, n, "vcf_zarr_version", "t", &l), GSVD_ENOTFOUND);
    GSVD_CHECK_RC(gsvd_meta_get_string_list("{", 1, "a", "t", &l), GSVD_EFORMAT);
    GSVD_CHECK(l.n == 0);
    gsvd_strlist_free(&l);

    /* attributes with bare NaN (zarr-python writes them) */
    GSVD_CHECK_RC(gsvd_meta_get_string(with_nan, strlen(with_nan), "v", "t", &s), GSVD_OK);
    GSVD_CHECK(s && strcmp(s, "1") == 0);
    gsvd_free(s);
    GSVD_CHECK_RC(gsvd_meta_get_string_list(with_nan, strlen(with_nan), "d", "t", &l), GSVD_OK);
    GSVD_CHECK(l.n == 1);
    gsvd_strlist_free(&l);
}

static void test_json_quote(void)
{
    static const char *const strs[] = {
        "",        "plain", "a\"b", "back\\slash", "tab\there\nnl\r", "\x01\x1f\x7f", "caf\xc3\xa9",
        "/slash/",
    };
    struct gsvd_buf b = GSVD_BUF_INIT;

    GSVD_CHECK_RC(gsvd_json_quote(&b, "a\"b\\c\n\x01 \xc3\xa9"), GSVD_OK);
    GSVD_CHECK(b.data && strcmp(b.data, "\"a\\\"b\\\\c\\u000a\\u0001 \xc3\xa9\"") == 0);
    gsvd_buf_free(&b);
    GSVD_CHECK_RC(gsvd_json_quote(&b, ""), GSVD_OK);
    GSVD_CHECK(b.data && strcmp(b.data, "\"\"") == 0);
    /* appends */
    GSVD_CHECK_RC(gsvd_json_quote(&b, "x"), GSVD_OK);
    GSVD_CHECK(b.data && strcmp(b.data, "\"\"\"x\"") == 0);
    gsvd_buf_free(&b);

    /* every quoted string reads back as itself */
    for (size_t i = 0; i < GSVD_ARRAY_LEN(strs); i++) {
        char *s = NULL;
        GSVD_CHECK_RC(gsvd_buf_puts(&b, "{\"k\": "), GSVD_OK);
        GSVD_CHECK_RC(gsvd_json_quote(&b, strs[i]), GSVD_OK);
        GSVD_CHECK_RC(gsvd_buf_puts(&b, "}"), GSVD_OK);
        GSVD_CHECK_RC(gsvd_meta_get_string(b.data, b.len, "k", "t", &s), GSVD_OK);
        GSVD_CHECK(s && strcmp(s, strs[i]) == 0);
        gsvd_free(s);
        gsvd_buf_free(&b);
    }
}

static int zmeta(const char *s, struct gsvd_strlist *k, struct gsvd_strlist *d)
{
    return gsvd_zmetadata_parse(s, strlen(s), "t/.zmetadata", k, d);
}

static int zmeta_rc(const char *s)
{
    struct gsvd_strlist k = GSVD_STRLIST_INIT, d = GSVD_STRLIST_INIT;
    int rc = zmeta(s, &k, &d);

    gsvd_strlist_free(&k);
    gsvd_strlist_free(&d);
    return rc;
}

static void test_zmetadata(void)
{
    static const char text[] =
        "{\"metadata\": {\".zgroup\": {\"zarr_format\": 2}, \".zattrs\": {\"a\": 1, \"s\": "
        "\"x\"}, \"calls/.zarray\": {\"zarr_format\": 2, \"shape\": [2]}, \"calls/.zattrs\": {}, "
        "\"g/.zgroup\": {\"zarr_format\": 2}, \"g/h/v.1/.zarray\": {\"k\": [1, 2]}}, "
        "\"zarr_consolidated_format\": 1}";
    static const char *const want_keys[] = {".zgroup",       ".zattrs",   "calls/.zarray",
                                            "calls/.zattrs", "g/.zgroup", "g/h/v.1/.zarray"};
    struct gsvd_strlist k = GSVD_STRLIST_INIT, d = GSVD_STRLIST_INIT;
    struct gsvd_strlist k2 = GSVD_STRLIST_INIT, d2 = GSVD_STRLIST_INIT;
    struct gsvd_buf out = GSVD_BUF_INIT;

    GSVD_CHECK_RC(zmeta(text, &k, &d), GSVD_OK);
    GSVD_CHECK(k.n == GSVD_ARRAY_LEN(want_keys) && d.n == k.n);
    for (size_t i = 0; i < k.n && i < GSVD_ARRAY_LEN(want_keys); i++) {
        GSVD_CHECK(strcmp(k.items[i], want_keys[i]) == 0);
        GSVD_CHECK_RC(check_object(d.items[i]), GSVD_OK);
    }
    if (k.n == GSVD_ARRAY_LEN(want_keys)) {
        char *s = NULL;
        GSVD_CHECK_RC(zgroup(d.items[0]), GSVD_OK);
        GSVD_CHECK_RC(gsvd_meta_get_string(d.items[1], strlen(d.items[1]), "s", "t", &s), GSVD_OK);
        GSVD_CHECK(s && strcmp(s, "x") == 0);
        gsvd_free(s);
    }
    /* emit + parse gives the same lists */
    GSVD_CHECK_RC(gsvd_zmetadata_emit(&k, &d, &out), GSVD_OK);
    GSVD_CHECK_RC(gsvd_zmetadata_parse(out.data, out.len, "emitted", &k2, &d2), GSVD_OK);
    GSVD_CHECK(k2.n == k.n && d2.n == d.n);
    for (size_t i = 0; i < k.n && i < k2.n; i++)
        GSVD_CHECK(strcmp(k.items[i], k2.items[i]) == 0 && strcmp(d.items[i], d2.items[i]) == 0);
    gsvd_strlist_free(&k);
    gsvd_strlist_free(&d);
    gsvd_strlist_free(&k2);
    gsvd_strlist_free(&d2);
    gsvd_buf_free(&out);

    /* appends to non-empty lists; an empty "metadata" is valid */
    GSVD_CHECK_RC(gsvd_strlist_push(&k, "pre"), GSVD_OK);
    GSVD_CHECK_RC(gsvd_strlist_push(&d, "{}"), GSVD_OK);
    GSVD_CHECK_RC(
        zmeta("{\"metadata\": {\"a/.zgroup\": {}}, \"zarr_consolidated_format\": 1}", &k, &d),
        GSVD_OK);
    GSVD_CHECK(k.n == 2 && d.n == 2 && strcmp(k.items[1], "a/.zgroup") == 0);
    gsvd_strlist_free(&k);
    gsvd_strlist_free(&d);
    GSVD_CHECK_RC(gsvd_zmetadata_emit(&k, &d, &out), GSVD_OK);
    GSVD_CHECK_RC(zmeta(out.data, &k, &d), GSVD_OK);
    GSVD_CHECK(k.n == 0 && d.n == 0);
    gsvd_buf_free(&out);

    /* bare NaN in an attribute document is accepted, as in .zattrs */
    GSVD_CHECK_RC(zmeta("{\"metadata\": {\".zattrs\": {\"a\": NaN}, \".zgroup\": {\"zarr_format\": "
                        "2}}, \"zarr_consolidated_format\": 1}",
                        &k, &d),
                  GSVD_OK);
    GSVD_CHECK(k.n == 2 && d.n == 2);
    gsvd_strlist_free(&k);
    gsvd_strlist_free(&d);

    /* rejections */
    static const char *const bad_keys[] = {
        "a/../b/.zarray",    "../.zarray",     "/a/.zarray", "a//.zarray", "./.zgroup",
        "a/./.zgroup",       "a\\\\b/.zarray", "a/data",     "a/0.0",      "a.zarray",
        "a/x.zgroup",        ".zarrayx",       "a/.zarray/", "",           "..",
        "a/\\u0001/.zattrs",
    };
    for (size_t i = 0; i < GSVD_ARRAY_LEN(bad_keys); i++) {
        char buf[256];
        int rc;
        snprintf(buf, sizeof buf,
                 "{\"metadata\": {\".zgroup\": {\"zarr_format\": 2}, \"%s\": {}}, "
                 "\"zarr_consolidated_format\": 1}",
                 bad_keys[i]);
        rc = zmeta_rc(buf);
        if (rc != GSVD_EFORMAT)
            fprintf(stderr, "zmetadata key '%s' accepted\n", bad_keys[i]);
        GSVD_CHECK_RC(rc, GSVD_EFORMAT);
    }
    GSVD_CHECK_RC(zmeta_rc("{\"metadata\": {\"a/.zarray\": 5}, \"zarr_consolidated_format\": 1}"),
                  GSVD_EFORMAT);
    GSVD_CHECK_RC(zmeta_rc("{\"metadata\": {\"a/.zattrs\": [1]}, \"zarr_consolidated_format\": 1}"),
                  GSVD_EFORMAT);
    GSVD_CHECK_RC(
        zmeta_rc("{\"metadata\": {\"a/.zattrs\": \"{}\"}, \"zarr_consolidated_format\": 1}"),
        GSVD_EFORMAT);
    GSVD_CHECK_RC(zmeta_rc("{\"metadata\": {}, \"zarr_consolidated_format\": 2}"), GSVD_EFORMAT);
    GSVD_CHECK_RC(zmeta_rc("{\"metadata\": {}, \"zarr_consolidated_format\": \"1\"}"),
                  GSVD_EFORMAT);
    GSVD_CHECK_RC(zmeta_rc("{\"metadata\": {}}"), GSVD_EFORMAT);
    GSVD_CHECK_RC(zmeta_rc("{\"zarr_consolidated_format\": 1}"), GSVD_EFORMAT);
    GSVD_CHECK_RC(zmeta_rc("{\"metadata\": [], \"zarr_consolidated_format\": 1}"), GSVD_EFORMAT);
    GSVD_CHECK_RC(zmeta_rc("[]"), GSVD_EFORMAT);
    GSVD_CHECK_RC(zmeta_rc("{\"metadata\": {}, \"zarr_consolidated_format\": 1"), GSVD_EFORMAT);
    GSVD_CHECK_RC(zmeta_rc("{\"metadata\": {}, \"zarr_consolidated_format\": 1} []"), GSVD_EFORMAT);
    GSVD_CHECK_RC(zmeta_rc(""), GSVD_EFORMAT);
}

/* Control bytes (NUL above all) are not JSON anywhere, inside strings or out: cJSON skips every
 * byte <= 0x20 as whitespace and a C string ends at a NUL, so a document holding one used to
 * be accepted and then copied out short (the .zmetadata emit + parse round trip lost keys). */
static void test_control_bytes(void)
{
    static const char zm[] = "{\"metadata\": {\"a/.zarray\": {\"zarr_format\":\0002}, "
                             "\"a/.zattrs\": {}}, \"zarr_consolidated_format\": 1}";
#define DOC(lit)                                                                                   \
    {                                                                                              \
        lit, sizeof lit - 1                                                                        \
    }
    static const struct {
        const char *text;
        size_t n;
    } docs[] = {
        DOC("{\"zarr_format\":\0002}"),
        DOC("{\"zarr_format\": 2}\0"),
        DOC("\0{\"zarr_format\": 2}"),
        DOC("{\"zarr_format\":\0012}"),
        DOC("{\"zarr_format\": 2, \"s\": \"a\0b\"}"),
        DOC("{\"zarr_format\": 2, \"s\": \"a\037b\"}"),
        DOC("{\"zarr_format\": 2, \"s\": \"a\\u0000b\"}"),
        DOC("{\"zarr_format\": 2, \"a\\u0000b\": 1}"),
    };
#undef DOC
    struct gsvd_strlist k = GSVD_STRLIST_INIT, d = GSVD_STRLIST_INIT;
    struct gsvd_zarray z;
    char *s = NULL;

    GSVD_CHECK_RC(gsvd_zmetadata_parse(zm, sizeof zm - 1, "t/.zmetadata", &k, &d), GSVD_EFORMAT);
    GSVD_CHECK(k.n == 0 && d.n == 0);
    gsvd_strlist_free(&k);
    gsvd_strlist_free(&d);
    for (size_t i = 0; i < GSVD_ARRAY_LEN(docs); i++) {
        const char *t = docs[i].text;
        size_t n = docs[i].n;
        GSVD_CHECK_RC(gsvd_zgroup_parse(t, n, "t/.zgroup"), GSVD_EFORMAT);
        GSVD_CHECK_RC(gsvd_meta_check_object(t, n, "t/.zattrs"), GSVD_EFORMAT);
        GSVD_CHECK_RC(gsvd_meta_get_string(t, n, "s", "t/.zattrs", &s), GSVD_EFORMAT);
        GSVD_CHECK(s == NULL);
        GSVD_CHECK_RC(gsvd_meta_get_string_list(t, n, "s", "t/.zattrs", &k), GSVD_EFORMAT);
        GSVD_CHECK_RC(gsvd_zarray_parse(t, n, "t/.zarray", &z), GSVD_EFORMAT);
        gsvd_zarray_clear(&z);
        gsvd_strlist_free(&k);
    }
    /* tab, LF and CR stay whitespace; \u0001 is a string character, "\\u0000" plain text */
    GSVD_CHECK_RC(zgroup("\t{\r\n\"zarr_format\":\t2}\r\n"), GSVD_OK);
    GSVD_CHECK_RC(check_object("{\"s\": \"a\\u0001b\"}"), GSVD_OK);
    GSVD_CHECK_RC(check_object("{\"s\": \"a\\\\u0000b\"}"), GSVD_OK);
    GSVD_CHECK_RC(
        zmeta_rc("{\"metadata\": {\".zarray\\u0000x\": {}}, \"zarr_consolidated_format\": 1}"),
        GSVD_EFORMAT);
}

/* ---- --one-parse ----------------------------------------------------------------------- */

/* One of each: .zarray parse + emit + parse, .zmetadata parse + emit + parse, .zgroup, .zattrs,
 * attribute helpers.  GSVD_OK, or the first error (GSVD_ENOMEM when an injected allocation
 * failure hit). */
static int one_parse(void)
{
    static const char zarray[] =
        "{\"chunks\": [4, 3], \"compressor\": {\"blocksize\": 0, \"clevel\": 5, \"cname\": "
        "\"zstd\", \"id\": \"blosc\", \"shuffle\": 1}, \"dimension_separator\": \"/\", "
        "\"dtype\": \"<u8\", \"fill_value\": 18446744073709551615, \"filters\": [{\"dtype\": "
        "\"<u8\", \"id\": \"delta\"}], \"order\": \"F\", \"shape\": [10, 7], \"zarr_format\": 2}";
    static const char zmetadata[] =
        "{\"metadata\": {\".zgroup\": {\"zarr_format\": 2}, \".zattrs\": {\"a\": [1.5]}, "
        "\"x/.zarray\": {\"zarr_format\": 2}, \"x/.zattrs\": {\"_ARRAY_DIMENSIONS\": [\"v\", "
        "\"s\"]}}, \"zarr_consolidated_format\": 1}";
    int rc = GSVD_OK;
    struct gsvd_zarray z, back;
    struct gsvd_buf text = GSVD_BUF_INIT;
    struct gsvd_strlist keys = GSVD_STRLIST_INIT, docs = GSVD_STRLIST_INIT;
    struct gsvd_strlist k2 = GSVD_STRLIST_INIT, d2 = GSVD_STRLIST_INIT;
    char *s = NULL;

    memset(&z, 0, sizeof z);
    memset(&back, 0, sizeof back);
    GSVD_TRY(gsvd_zarray_parse(zarray, strlen(zarray), WHERE, &z));
    GSVD_TRY(gsvd_zarray_emit(&z, &text));
    GSVD_TRY(gsvd_zarray_parse(text.data, text.len, WHERE, &back));
    if (back.chunk_bytes != z.chunk_bytes || memcmp(back.fill, z.fill, 8) != 0) {
        rc = GSVD_EINTERNAL;
        goto out;
    }
    GSVD_TRY(gsvd_zmetadata_parse(zmetadata, strlen(zmetadata), "t", &keys, &docs));
    gsvd_buf_clear(&text);
    GSVD_TRY(gsvd_zmetadata_emit(&keys, &docs, &text));
    GSVD_TRY(gsvd_zmetadata_parse(text.data, text.len, "t", &k2, &d2));
    if (k2.n != 4) {
        rc = GSVD_EINTERNAL;
        goto out;
    }
    GSVD_TRY(gsvd_zgroup_parse(docs.items[0], strlen(docs.items[0]), "t"));
    GSVD_TRY(gsvd_meta_check_object(docs.items[1], strlen(docs.items[1]), "t"));
    gsvd_strlist_free(&k2);
    GSVD_TRY(gsvd_meta_get_string_list(docs.items[3], strlen(docs.items[3]), "_ARRAY_DIMENSIONS",
                                       "t", &k2));
    GSVD_TRY(gsvd_meta_get_string("{\"v\": \"0.4\"}", 12, "v", "t", &s));
    gsvd_buf_clear(&text);
    GSVD_TRY(gsvd_json_quote(&text, "a\"b\n"));
out:
    gsvd_zarray_clear(&z);
    gsvd_zarray_clear(&back);
    gsvd_buf_free(&text);
    gsvd_strlist_free(&keys);
    gsvd_strlist_free(&docs);
    gsvd_strlist_free(&k2);
    gsvd_strlist_free(&d2);
    gsvd_free(s);
    return rc;
}

int main(int argc, char **argv)
{
    gsvd_meta_global_init(); /* cJSON allocates through gsvd_malloc */
    if (argc > 1 && strcmp(argv[1], "--one-parse") == 0) {
        int rc = one_parse();
        return rc == GSVD_OK ? 0 : rc == GSVD_ENOMEM ? 3 : 1;
    }
    if (argc > 1 && strcmp(argv[1], "-v") != 0) {
        fprintf(stderr, "usage: test_meta [-v | --one-parse]\n");
        return 2;
    }
    /* error paths log by design; -v shows them */
    gsvd_log_set_level(argc > 1 ? GSVD_LOG_DEBUG : GSVD_LOG_OFF);
    test_dtype();
    test_every_dtype();
    test_layout();
    test_fill_values();
    test_bad_fill();
    test_errors();
    test_zgroup_attrs();
    test_get_string();
    test_json_quote();
    test_zmetadata();
    test_control_bytes();
    return gsvd_test_report("test_meta");
}
