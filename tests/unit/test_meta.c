/* tests/unit/test_meta.c - zarr/meta.h's Zarr v2 documents against the contract: .zarray
 * parsing of every dtype kind, order and separator (every parsed field checked), every
 * documented error code, emit + re-parse round trips, .zmetadata and .zgroup documents (fill
 * values: test_meta_fill; the JSON layer, attribute helpers and quoting: test_meta_json).
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
#include "tests/unit/meta_util.h"
#include "zarr/codec.h"
#include "zarr/dtype.h"
#include "zarr/meta.h"

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
    test_errors();
    test_zgroup_attrs();
    test_zmetadata();
    return gsvd_test_report("test_meta");
}
