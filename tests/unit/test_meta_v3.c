/* tests/unit/test_meta_v3.c - zarr/meta_v3.h, the v3 codec chains of zarr/codec.h and ranged
 * store reads (gsvd_store_get_range) against their contracts: every parsed field of plain and
 * sharded arrays, key encodings, transposes, fill values in every form (hex bits included),
 * attributes with dimension_names, consolidated metadata (exact 64-bit fills inside it), and
 * every documented error code.  Reference values (CRC-32C of "123456789", IEEE bit patterns)
 * are the published ones, not gensvd's output.
 * `test_meta_v3 --one-parse` runs one array parse and one consolidated parse and exits 0, or 3
 * when an allocation failed cleanly (GSVD_ENOMEM), for tests/unit/alloc_sweep.sh. */
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
#include "zarr/meta.h"
#include "zarr/meta_v3.h"
#include "zarr/store.h"

#define WHERE "t/zarr.json"
#define LE "{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}"
#define BE "{\"name\": \"bytes\", \"configuration\": {\"endian\": \"big\"}}"

static char doc[8192];

/* An array zarr.json: shape, chunk_shape, data_type (JSON), codecs (JSON list), fill (JSON),
 * extra members spliced in before the closing brace. */
static const char *adoc(const char *shape, const char *chunks, const char *dt, const char *codecs,
                        const char *fill, const char *extra)
{
    snprintf(doc, sizeof doc,
             "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": %s, \"data_type\": %s, "
             "\"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": %s}}, "
             "\"chunk_key_encoding\": {\"name\": \"default\", \"configuration\": "
             "{\"separator\": \"/\"}}, \"codecs\": %s, \"fill_value\": %s%s}",
             shape, dt, chunks, codecs, fill, extra ? extra : "");
    return doc;
}

static int parse(const char *json, struct gsvd_zarray *z)
{
    return gsvd_zarray_parse_v3(json, strlen(json), WHERE, z);
}

static void expect_rc(const char *json, int want, int line)
{
    struct gsvd_zarray z;
    int rc = parse(json, &z);
    if (rc != want)
        fprintf(stderr, "line %d: %s\n", line, json);
    GSVD_CHECK_RC(rc, want);
    gsvd_zarray_clear(&z);
}
#define EXPECT(json, rc) expect_rc((json), (rc), __LINE__)

static void test_plain(void)
{
    struct gsvd_zarray z;
    char desc[256];

    GSVD_CHECK_RC(parse(adoc("[10, 7]", "[4, 3]", "\"int16\"",
                             "[" BE ", {\"name\": \"zstd\", \"configuration\": {\"level\": 3, "
                             "\"checksum\": true}}, {\"name\": \"crc32c\"}]",
                             "-7", NULL),
                        &z),
                  GSVD_OK);
    GSVD_CHECK(z.zarr_format == 3 && z.ndim == 2 && z.shape[0] == 10 && z.shape[1] == 7);
    GSVD_CHECK(z.chunks[0] == 4 && z.chunks[1] == 3 && z.grid[0] == 3 && z.grid[1] == 3);
    GSVD_CHECK(z.dtype.kind == 'i' && z.dtype.size == 2 && z.dtype.byteorder == '>');
    GSVD_CHECK(z.chunk_items == 12 && z.chunk_bytes == 24 && z.order == 'C');
    GSVD_CHECK(z.sep == '/' && z.key_c_prefix == 1 && !z.sharded);
    GSVD_CHECK(z.has_fill && z.fill[0] == 0xf9 && z.fill[1] == 0xff); /* -7, native order */
    gsvd_codec_chain_describe(z.codecs, desc, sizeof desc);
    GSVD_CHECK(strcmp(desc, "bytes(big) | zstd(3) | crc32c") == 0 ||
               strncmp(desc, "bytes(big) | zstd", 17) == 0);
    GSVD_CHECK(!gsvd_codec_chain_is_vlen(z.codecs));
    gsvd_zarray_clear(&z);

    /* v2 key encoding, "." by default; transpose reversed = F, permuted = P */
    GSVD_CHECK_RC(
        parse(adoc("[4, 5, 6]", "[2, 5, 3]", "\"uint8\"",
                   "[{\"name\": \"transpose\", \"configuration\": {\"order\": [2, 0, 1]}}, "
                   "{\"name\": \"bytes\"}]",
                   "255", NULL),
              &z),
        GSVD_OK);
    GSVD_CHECK(z.order == 'P' && z.perm[0] == 2 && z.perm[1] == 0 && z.perm[2] == 1);
    GSVD_CHECK(z.dtype.byteorder == '|' && z.fill[0] == 255);
    gsvd_zarray_clear(&z);
    snprintf(doc, sizeof doc,
             "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4, 5], \"data_type\": "
             "\"float64\", \"chunk_grid\": {\"name\": \"regular\", \"configuration\": "
             "{\"chunk_shape\": [2, 5]}}, \"chunk_key_encoding\": {\"name\": \"v2\"}, "
             "\"codecs\": [{\"name\": \"transpose\", \"configuration\": {\"order\": [1, 0]}}, " LE
             "], \"fill_value\": \"NaN\", \"dimension_names\": [\"x\", null], "
             "\"attributes\": {\"a\": 1}, \"storage_transformers\": []}");
    GSVD_CHECK_RC(parse(doc, &z), GSVD_OK);
    GSVD_CHECK(z.order == 'F' && z.sep == '.' && !z.key_c_prefix);
    if (z.fill) {
        double d;
        memcpy(&d, z.fill, 8);
        GSVD_CHECK(isnan(d));
    }
    gsvd_zarray_clear(&z);
}

static void test_types_and_fills(void)
{
    static const struct {
        const char *dt, *fill;
        char kind;
        size_t size;
        uint64_t bits; /* expected fill bytes, little-endian */
    } cases[] = {
        {"\"bool\"", "true", 'b', 1, 1},
        {"\"int8\"", "-128", 'i', 1, 0x80},
        {"\"uint16\"", "65535", 'u', 2, 0xffff},
        {"\"int64\"", "-9223372036854775808", 'i', 8, 0x8000000000000000ull},
        {"\"uint64\"", "18446744073709551615", 'u', 8, 0xffffffffffffffffull},
        {"\"float16\"", "\"0x3c00\"", 'f', 2, 0x3c00}, /* 1.0 */
        {"\"float16\"", "-2.0", 'f', 2, 0xc000},
        {"\"float32\"", "\"0x7fc00001\"", 'f', 4, 0x7fc00001}, /* a NaN payload */
        {"\"float32\"", "\"Infinity\"", 'f', 4, 0x7f800000},
        {"\"float32\"", "\"-Infinity\"", 'f', 4, 0xff800000},
        {"\"float64\"", "\"0xC00C000000000000\"", 'f', 8, 0xc00c000000000000ull}, /* -3.5 */
        {"\"float64\"", "1.5", 'f', 8, 0x3ff8000000000000ull},
    };
    for (size_t i = 0; i < GSVD_ARRAY_LEN(cases); i++) {
        struct gsvd_zarray z;
        uint64_t got = 0;
        int rc = parse(adoc("[3]", "[2]", cases[i].dt, "[" LE "]", cases[i].fill, NULL), &z);
        GSVD_CHECK_RC(rc, GSVD_OK);
        if (rc == GSVD_OK) {
            memcpy(&got, z.fill, z.dtype.size);
            GSVD_CHECK(z.dtype.kind == cases[i].kind && z.dtype.size == cases[i].size);
            if (got != cases[i].bits)
                fprintf(stderr, "case %zu: fill %llx\n", i, (unsigned long long)got);
            GSVD_CHECK(got == cases[i].bits);
        }
        gsvd_zarray_clear(&z);
    }
    /* strings: vlen-utf8 with a fill string; fixed-size text and bytes */
    struct gsvd_zarray z;
    GSVD_CHECK_RC(parse(adoc("[3]", "[2]", "\"string\"",
                             "[{\"name\": \"vlen-utf8\"}, {\"name\": \"gzip\", "
                             "\"configuration\": {\"level\": 1}}]",
                             "\"none\"", NULL),
                        &z),
                  GSVD_OK);
    GSVD_CHECK(z.dtype.kind == 'O' && gsvd_codec_chain_is_vlen(z.codecs) && z.fill_str &&
               strcmp(z.fill_str, "none") == 0);
    gsvd_zarray_clear(&z);
    GSVD_CHECK_RC(parse(adoc("[3]", "[2]",
                             "{\"name\": \"fixed_length_utf32\", \"configuration\": "
                             "{\"length_bytes\": 12}}",
                             "[" LE "]", "\"ab\"", NULL),
                        &z),
                  GSVD_OK);
    GSVD_CHECK(z.dtype.kind == 'U' && z.dtype.size == 12 && z.fill && z.fill[0] == 'a');
    gsvd_zarray_clear(&z);
    GSVD_CHECK_RC(parse(adoc("[3]", "[2]",
                             "{\"name\": \"null_terminated_bytes\", \"configuration\": "
                             "{\"length_bytes\": 3}}",
                             "[{\"name\": \"bytes\"}]", "\"YWI=\"", NULL),
                        &z),
                  GSVD_OK);
    GSVD_CHECK(z.dtype.kind == 'S' && z.dtype.size == 3 && z.fill && z.fill[1] == 'b');
    gsvd_zarray_clear(&z);
}

static void test_sharding(void)
{
    struct gsvd_zarray z;
    char desc[256];

    GSVD_CHECK_RC(
        parse(adoc("[10, 7]", "[8, 6]", "\"int32\"",
                   "[{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [4, 3], "
                   "\"codecs\": [" LE ", {\"name\": \"blosc\", \"configuration\": {\"cname\": "
                   "\"zstd\", \"clevel\": 5, \"shuffle\": \"bitshuffle\", \"typesize\": 4, "
                   "\"blocksize\": 0}}], \"index_codecs\": [" BE ", {\"name\": \"crc32c\"}], "
                   "\"index_location\": \"start\"}}]",
                   "0", NULL),
              &z),
        GSVD_OK);
    GSVD_CHECK(z.sharded && z.shard[0] == 8 && z.shard[1] == 6 && z.chunks[0] == 4 &&
               z.chunks[1] == 3);
    GSVD_CHECK(z.per_shard[0] == 2 && z.per_shard[1] == 2 && z.n_inner == 4);
    GSVD_CHECK(z.shard_grid[0] == 2 && z.shard_grid[1] == 2 && z.grid[0] == 3 && z.grid[1] == 3);
    GSVD_CHECK(z.index_at_start && z.index_crc && z.index_big_endian);
    GSVD_CHECK(z.chunk_bytes == 48);
    gsvd_codec_chain_describe(z.codecs, desc, sizeof desc);
    GSVD_CHECK(strstr(desc, "shards 8x6") && strstr(desc, "blosc(zstd:5, bitshuffle)"));
    gsvd_zarray_clear(&z);
}

static void test_errors(void)
{
    const char *le = "[" LE "]";
    EXPECT("{\"zarr_format\": 3, \"node_type\": ", GSVD_EFORMAT);
    EXPECT("[1]", GSVD_EFORMAT);
    EXPECT("{\"zarr_format\": 2, \"node_type\": \"array\"}", GSVD_EUNSUPPORTED);
    EXPECT("{\"zarr_format\": 3, \"node_type\": \"group\"}", GSVD_EFORMAT);
    EXPECT(adoc("[3]", "[2]", "\"int32\"", le, "0", ", \"foo\": {}"), GSVD_EUNSUPPORTED);
    EXPECT(adoc("[3]", "[2]", "\"int32\"", le, "0", ", \"foo\": {\"must_understand\": false}"),
           GSVD_OK);
    EXPECT(adoc("[3]", "[2]", "\"complex64\"", le, "0", NULL), GSVD_EUNSUPPORTED);
    EXPECT(adoc("[3]", "[2]", "{\"name\": \"r16\"}", le, "0", NULL), GSVD_EUNSUPPORTED);
    EXPECT(adoc("[3]", "[2]", "7", le, "0", NULL), GSVD_EFORMAT);
    EXPECT(adoc("[3]", "[2, 1]", "\"int32\"", le, "0", NULL), GSVD_EFORMAT);
    EXPECT(adoc("[3]", "[0]", "\"int32\"", le, "0", NULL), GSVD_EFORMAT);
    EXPECT(adoc("[-3]", "[2]", "\"int32\"", le, "0", NULL), GSVD_EFORMAT);
    EXPECT(adoc("[3]", "[2]", "\"int32\"", "[{\"name\": \"bytes\"}]", "0", NULL), GSVD_EFORMAT);
    EXPECT(adoc("[3]", "[2]", "\"int32\"", "[]", "0", NULL), GSVD_EFORMAT);
    EXPECT(adoc("[3]", "[2]", "\"int32\"", "[{\"name\": \"zstd\"}]", "0", NULL), GSVD_EUNSUPPORTED);
    EXPECT(adoc("[3]", "[2]", "\"int32\"", "[" LE ", {\"name\": \"lzma\"}]", "0", NULL),
           GSVD_EUNSUPPORTED);
    EXPECT(adoc("[3]", "[2]", "\"int32\"",
                "[" LE ", {\"name\": \"lzma\", \"must_understand\": false}]", "0", NULL),
           GSVD_OK);
    EXPECT(adoc("[3]", "[2]", "\"int32\"", "[" LE ", 5]", "0", NULL), GSVD_EFORMAT);
    EXPECT(adoc("[3]", "[2]", "\"int32\"",
                "[" LE ", {\"name\": \"blosc\", \"configuration\": {\"shuffle\": \"x\"}}]", "0",
                NULL),
           GSVD_EFORMAT);
    EXPECT(adoc("[3]", "[2]", "\"int32\"", "[" LE ", {\"name\": \"zstd\", \"configuration\": 3}]",
                "0", NULL),
           GSVD_EFORMAT);
    EXPECT(adoc("[3]", "[2]", "\"string\"", le, "\"\"", NULL), GSVD_EUNSUPPORTED);
    EXPECT(adoc("[3]", "[2]", "\"int32\"", "[{\"name\": \"vlen-utf8\"}]", "0", NULL),
           GSVD_EUNSUPPORTED);
    EXPECT(adoc("[3]", "[2]", "\"int32\"", le, "\"abc\"", NULL), GSVD_EFORMAT);
    EXPECT(adoc("[3]", "[2]", "\"uint8\"", le, "256", NULL), GSVD_EFORMAT);
    EXPECT(adoc("[3]", "[2]", "\"float32\"", le, "\"0x7fc0\"", NULL), GSVD_EFORMAT);
    EXPECT(adoc("[3]", "[2]", "\"float32\"", le, "\"0x7fc0000g\"", NULL), GSVD_EFORMAT);
    EXPECT(adoc("[3, 2]", "[2, 2]", "\"int32\"",
                "[{\"name\": \"transpose\", \"configuration\": {\"order\": [0, 0]}}, " LE "]", "0",
                NULL),
           GSVD_EFORMAT);
    EXPECT(adoc("[3]", "[2]", "\"int32\"", "[" LE "]", "0", ", \"storage_transformers\": [{}]"),
           GSVD_EUNSUPPORTED);
    adoc("[3]", "[2]", "\"int32\"", le, "0", NULL);
    memcpy(strstr(doc, "regular"), "regulax", 7);
    EXPECT(doc, GSVD_EUNSUPPORTED);
    adoc("[3]", "[2]", "\"int32\"", le, "0", NULL);
    memcpy(strstr(doc, "\"fill_value\""), "\"fill_valux\"", 12);
    EXPECT(doc, GSVD_EUNSUPPORTED); /* fill_valux is unknown; checked before the missing fill */
    /* sharding: not a multiple, nested, codecs after it, index codecs */
#define SH                                                                                         \
    "[{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [%s], \"codecs\": "    \
    "%s, "                                                                                         \
    "\"index_codecs\": %s%s}}%s]"
    char codecs[1024];
    snprintf(codecs, sizeof codecs, SH, "3", le, le, "", "");
    EXPECT(adoc("[16]", "[8]", "\"int32\"", codecs, "0", NULL), GSVD_EFORMAT);
    snprintf(codecs, sizeof codecs, SH, "4", le, le, "", ", {\"name\": \"crc32c\"}");
    EXPECT(adoc("[16]", "[8]", "\"int32\"", codecs, "0", NULL), GSVD_EUNSUPPORTED);
    snprintf(codecs, sizeof codecs, SH, "4", le, "[{\"name\": \"zstd\"}]", "", "");
    EXPECT(adoc("[16]", "[8]", "\"int32\"", codecs, "0", NULL), GSVD_EUNSUPPORTED);
    snprintf(codecs, sizeof codecs, SH, "4", le, le, ", \"index_location\": \"middle\"", "");
    EXPECT(adoc("[16]", "[8]", "\"int32\"", codecs, "0", NULL), GSVD_EFORMAT);
    snprintf(codecs, sizeof codecs, SH, "4",
             "[{\"name\": \"sharding_indexed\", \"configuration\": {}}]", le, "", "");
    EXPECT(adoc("[16]", "[8]", "\"int32\"", codecs, "0", NULL), GSVD_EUNSUPPORTED);
    snprintf(codecs, sizeof codecs, SH, "1", le, le, "", "");
    EXPECT(adoc("[1000000000]", "[1000000000]", "\"int8\"", codecs, "0", NULL), GSVD_EFORMAT);
    snprintf(codecs, sizeof codecs, SH, "1, 1", le, le, "", "");
    EXPECT(adoc("[4503599627370496, 4503599627370496]", "[1, 1]", "\"int8\"", codecs, "0", NULL),
           GSVD_EFORMAT); /* 2^104 shards */
}

static void test_nodes_and_attrs(void)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    const char *g = "{\"zarr_format\": 3, \"node_type\": \"group\", \"attributes\": "
                    "{\"vcf_zarr_version\": \"0.4\", \"x\": NaN}}";
    char *s = NULL;

    GSVD_CHECK_RC(gsvd_v3_node_type(g, strlen(g), WHERE), 1);
    const char *a = adoc("[3]", "[2]", "\"int8\"", "[" LE "]", "0", NULL);
    GSVD_CHECK_RC(gsvd_v3_node_type(a, strlen(a), WHERE), 2); /* (strlen after adoc fills doc) */
    GSVD_CHECK_RC(gsvd_v3_node_type("{\"zarr_format\": 3}", 18, WHERE), GSVD_EFORMAT);
    GSVD_CHECK_RC(gsvd_v3_attrs(g, strlen(g), WHERE, &b), GSVD_OK);
    GSVD_CHECK_RC(gsvd_meta_get_string(b.data, b.len, "vcf_zarr_version", WHERE, &s), GSVD_OK);
    GSVD_CHECK(s && strcmp(s, "0.4") == 0);
    gsvd_free(s);
    adoc("[3, 2]", "[2, 2]", "\"int8\"", "[" LE "]", "0", ", \"dimension_names\": [\"v\", \"s\"]");
    GSVD_CHECK_RC(gsvd_v3_attrs(doc, strlen(doc), WHERE, &b), GSVD_OK);
    GSVD_CHECK(b.len > 0 && strstr(b.data, "\"_ARRAY_DIMENSIONS\":[\"v\",\"s\"]"));
    adoc("[3, 2]", "[2, 2]", "\"int8\"", "[" LE "]", "0", ", \"dimension_names\": [\"v\", null]");
    GSVD_CHECK_RC(gsvd_v3_attrs(doc, strlen(doc), WHERE, &b), GSVD_OK);
    GSVD_CHECK(b.len == 0); /* no attributes, dimension names incomplete: nothing */
    adoc("[3]", "[2]", "\"int8\"", "[" LE "]", "0", ", \"attributes\": [1]");
    GSVD_CHECK_RC(gsvd_v3_attrs(doc, strlen(doc), WHERE, &b), GSVD_EFORMAT);
    gsvd_buf_free(&b);
}

static const char *cons =
    "{\"zarr_format\": 3, \"node_type\": \"group\", \"consolidated_metadata\": "
    "{\"kind\": \"inline\", \"must_understand\": false, \"metadata\": {"
    "\"sub\": {\"zarr_format\": 3, \"node_type\": \"group\"}, "
    "\"sub/x\": {\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": "
    "[3], \"data_type\": \"uint64\", \"chunk_grid\": {\"name\": \"regular\", "
    "\"configuration\": {\"chunk_shape\": [2]}}, \"chunk_key_encoding\": "
    "{\"name\": \"default\"}, \"codecs\": [" LE "], "
    "\"fill_value\": 18446744073709551615}}}}";

static void test_consolidated(void)
{
    struct gsvd_strlist keys = GSVD_STRLIST_INIT, docs = GSVD_STRLIST_INIT;
    struct gsvd_zarray z;
    const char *g = "{\"zarr_format\": 3, \"node_type\": \"group\"}";

    GSVD_CHECK_RC(gsvd_v3_consolidated_parse(g, strlen(g), WHERE, &keys, &docs), GSVD_ENOTFOUND);
    GSVD_CHECK(keys.n == 0 && docs.n == 0);
    GSVD_CHECK_RC(gsvd_v3_consolidated_parse(cons, strlen(cons), WHERE, &keys, &docs), GSVD_OK);
    GSVD_CHECK(keys.n == 3 && docs.n == 3);
    if (keys.n == 3) {
        GSVD_CHECK(strcmp(keys.items[0], "zarr.json") == 0 &&
                   strcmp(keys.items[1], "sub/zarr.json") == 0 &&
                   strcmp(keys.items[2], "sub/x/zarr.json") == 0);
        GSVD_CHECK_RC(gsvd_zarray_parse_v3(docs.items[2], strlen(docs.items[2]), WHERE, &z),
                      GSVD_OK);
        GSVD_CHECK(z.fill && memcmp(z.fill, "\xff\xff\xff\xff\xff\xff\xff\xff", 8) == 0);
        gsvd_zarray_clear(&z);
    }
    gsvd_strlist_free(&keys);
    gsvd_strlist_free(&docs);
    const char *bad[] = {
        "{\"zarr_format\": 3, \"node_type\": \"group\", \"consolidated_metadata\": {\"kind\": "
        "\"file\", \"metadata\": {}}}",
        "{\"zarr_format\": 3, \"node_type\": \"group\", \"consolidated_metadata\": {\"kind\": "
        "\"inline\", \"metadata\": {\"../x\": {}}}}",
        "{\"zarr_format\": 3, \"node_type\": \"group\", \"consolidated_metadata\": {\"kind\": "
        "\"inline\", \"metadata\": {\"x\": 1}}}",
        "{\"zarr_format\": 3, \"node_type\": \"group\", \"consolidated_metadata\": 1}",
    };
    for (size_t i = 0; i < GSVD_ARRAY_LEN(bad); i++) {
        GSVD_CHECK_RC(gsvd_v3_consolidated_parse(bad[i], strlen(bad[i]), WHERE, &keys, &docs),
                      GSVD_EFORMAT);
        GSVD_CHECK(keys.n == 0 && docs.n == 0);
    }
    gsvd_strlist_free(&keys); /* the caller owns the lists, even after a failure */
    gsvd_strlist_free(&docs);
}

/* Published check value of CRC-32C, and a v3 chain decoding through crc32c and zstd. */
static void test_chain(void)
{
    gsvd_codec_chain *c = NULL;
    gsvd_codec_ws *ws = NULL;
    struct gsvd_dtype dt = {'i', '<', 4};
    unsigned char chunk[12] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}, framed[16], out[12];
    uint32_t crc;
    struct gsvd_buf enc = GSVD_BUF_INIT;

    GSVD_CHECK(gsvd_crc32c("123456789", 9) == 0xE3069283u);
    GSVD_CHECK(gsvd_crc32c("", 0) == 0);
    GSVD_CHECK_RC(
        gsvd_codec_chain_parse_v3("[{\"name\": \"crc32c\"}]", 0, "bytes(little)", &dt, WHERE, &c),
        GSVD_OK);
    GSVD_CHECK_RC(gsvd_codec_ws_new(&ws), GSVD_OK);
    crc = gsvd_crc32c(chunk, 12);
    memcpy(framed, chunk, 12);
    for (int i = 0; i < 4; i++)
        framed[12 + i] = (unsigned char)(crc >> (8 * i));
    if (c && ws) {
        GSVD_CHECK_RC(gsvd_codec_chain_decode(c, ws, framed, 16, out, 12, "k"), GSVD_OK);
        GSVD_CHECK(memcmp(out, chunk, 12) == 0);
        framed[3] ^= 1;
        GSVD_CHECK_RC(gsvd_codec_chain_decode(c, ws, framed, 16, out, 12, "k"), GSVD_ECODEC);
        GSVD_CHECK_RC(gsvd_codec_chain_decode(c, ws, framed, 3, out, 12, "k"), GSVD_ECODEC);
        framed[3] ^= 1;
        /* v3 chains encode too (the writer's --zarr-format 3): the same frame */
        GSVD_CHECK_RC(gsvd_codec_chain_encode(c, ws, chunk, 12, &enc), GSVD_OK);
        GSVD_CHECK(enc.len == 16 && memcmp(enc.data, framed, 16) == 0);
    }
    gsvd_codec_chain_free(c);
    c = NULL;
    GSVD_CHECK_RC(gsvd_codec_chain_parse_v3("[{\"name\": \"x\"}]", 0, NULL, &dt, WHERE, &c),
                  GSVD_EUNSUPPORTED);
    GSVD_CHECK(c == NULL);
    GSVD_CHECK_RC(gsvd_codec_chain_parse_v3("{}", 0, NULL, &dt, WHERE, &c), GSVD_EFORMAT);
    gsvd_codec_chain_free(c);
    gsvd_codec_ws_free(ws);
    gsvd_buf_free(&enc);
}

/* gsvd_store_get_range on the mem store: ranges, suffixes, short reads, the total size. */
static void test_get_range(void)
{
    gsvd_store *st = NULL;
    struct gsvd_buf b = GSVD_BUF_INIT;
    uint64_t size = 0;

    GSVD_CHECK_RC(gsvd_store_open("mem:t", GSVD_STORE_WRITE, &st), GSVD_OK);
    if (!st)
        return;
    GSVD_CHECK_RC(gsvd_store_put(st, "k", "0123456789", 10), GSVD_OK);
    GSVD_CHECK_RC(gsvd_store_get_range(st, "k", 2, 3, 0, &b, &size), GSVD_OK);
    GSVD_CHECK(b.len == 3 && memcmp(b.data, "234", 3) == 0 && size == 10);
    GSVD_CHECK_RC(gsvd_store_get_range(st, "k", 0, 4, 1, &b, NULL), GSVD_OK);
    GSVD_CHECK(b.len == 4 && memcmp(b.data, "6789", 4) == 0);
    GSVD_CHECK_RC(gsvd_store_get_range(st, "k", 8, 5, 0, &b, &size), GSVD_OK);
    GSVD_CHECK(b.len == 2 && memcmp(b.data, "89", 2) == 0); /* cut at the end */
    GSVD_CHECK_RC(gsvd_store_get_range(st, "k", 0, 50, 1, &b, &size), GSVD_OK);
    GSVD_CHECK(b.len == 10);
    GSVD_CHECK_RC(gsvd_store_get_range(st, "k", 12, 5, 0, &b, &size), GSVD_OK);
    GSVD_CHECK(b.len == 0);
    GSVD_CHECK_RC(gsvd_store_get_range(st, "nope", 0, 5, 0, &b, &size), GSVD_ENOTFOUND);
    GSVD_CHECK_RC(gsvd_store_get_range(st, "../k", 0, 5, 0, &b, &size), GSVD_EFORMAT);
    GSVD_CHECK_RC(gsvd_store_get_range(st, "k", 0, UINT64_MAX, 0, &b, &size), GSVD_EINVAL);
    gsvd_buf_free(&b);
    gsvd_store_close(st);
}

/* For the allocation sweep: parses that allocate at every step. */
static int one_parse(void)
{
    struct gsvd_zarray z;
    struct gsvd_strlist keys = GSVD_STRLIST_INIT, docs = GSVD_STRLIST_INIT;
    struct gsvd_buf b = GSVD_BUF_INIT;
    int rc = parse(
        adoc("[10, 7]", "[8, 6]", "\"int32\"",
             "[{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [4, 3], "
             "\"codecs\": [{\"name\": \"transpose\", \"configuration\": {\"order\": [1, 0]}}, " LE
             ", {\"name\": \"zstd\", \"configuration\": {\"level\": 1}}, {\"name\": \"crc32c\"}], "
             "\"index_codecs\": [" LE ", {\"name\": \"crc32c\"}]}}]",
             "0", ", \"dimension_names\": [\"a\", \"b\"], \"attributes\": {\"x\": 1}"),
        &z);

    gsvd_zarray_clear(&z);
    if (rc == GSVD_OK)
        rc = gsvd_v3_attrs(doc, strlen(doc), WHERE, &b);
    if (rc == GSVD_OK)
        rc = gsvd_v3_consolidated_parse(cons, strlen(cons), WHERE, &keys, &docs);
    if (rc == GSVD_OK && docs.n == 3)
        rc = gsvd_zarray_parse_v3(docs.items[2], strlen(docs.items[2]), WHERE, &z);
    gsvd_zarray_clear(&z);
    gsvd_strlist_free(&keys);
    gsvd_strlist_free(&docs);
    gsvd_buf_free(&b);
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
        fprintf(stderr, "usage: test_meta_v3 [-v | --one-parse]\n");
        return 2;
    }
    /* error paths log by design; -v shows them */
    gsvd_log_set_level(argc > 1 ? GSVD_LOG_DEBUG : GSVD_LOG_OFF);
    test_plain();
    test_types_and_fills();
    test_sharding();
    test_errors();
    test_nodes_and_attrs();
    test_consolidated();
    test_chain();
    test_get_range();
    return gsvd_test_report("test_meta_v3");
}
