/* tests/unit/test_codec_config.c - zarr/dtype.h, and zarr/codec.h's chain configuration against
 * the contract: dtype strings and numeric elements, codec JSON accepted and refused with each
 * documented error code, JSON written back, descriptions and the default chain. */
#include "gsvd_config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "tests/gsvd_test.h"
#include "tests/unit/codec_util.h"
#include "zarr/codec.h"
#include "zarr/dtype.h"

/* ---- dtype ---------------------------------------------------------------------------- */

static void test_dtype(void)
{
    static const struct {
        const char *s;
        char kind, order;
        size_t size;
        const char *back;
    } ok[] = {
        {"|b1", 'b', '|', 1, "|b1"},
        {"|i1", 'i', '|', 1, "|i1"},
        {"<i1", 'i', '|', 1, "|i1"},
        {"|u1", 'u', '|', 1, "|u1"},
        {"<i2", 'i', '<', 2, "<i2"},
        {">i4", 'i', '>', 4, ">i4"},
        {"<i8", 'i', '<', 8, "<i8"},
        {"<u2", 'u', '<', 2, "<u2"},
        {">u4", 'u', '>', 4, ">u4"},
        {"<u8", 'u', '<', 8, "<u8"},
        {"<f2", 'f', '<', 2, "<f2"},
        {"<f4", 'f', '<', 4, "<f4"},
        {">f8", 'f', '>', 8, ">f8"},
        {"|S1", 'S', '|', 1, "|S1"},
        {"|S4", 'S', '|', 4, "|S4"},
        {"<U5", 'U', '<', 20, "<U5"},
        {">U1", 'U', '>', 4, ">U1"},
        {"|O", 'O', '|', sizeof(char *), "|O"},
        {"|O8", 'O', '|', sizeof(char *), "|O"},
        {"|S1048576", 'S', '|', 1048576, "|S1048576"},
        {"<U262144", 'U', '<', 1048576, "<U262144"},
    };
    static const char *const unsupported[] = {
        "<c8", "<c16", "<M8[ns]", "<m8[D]", "<M8", "|V8", "[[\"x\",\"<f4\"]]", "<f16", ">c32"};
    static const char *const garbage[] = {
        "",     "i4",        "<i3",      "<i16",          "|i4",  "<f1",   "<b2", "<i04", "<i",
        "<i4x", "=i4",       "<x4",      "|S0",           "|S",   "|S-1",  "<U0", "|U4",  "<O",
        "|O2",  "|S1048577", "<U262145", "<i99999999999", "<M8[", "<M8[]", "<cX", "|V",
    };
    struct gsvd_dtype dt;
    char buf[24];

    for (size_t i = 0; i < GSVD_ARRAY_LEN(ok); i++) {
        GSVD_CHECK_RC(gsvd_dtype_parse(ok[i].s, &dt), GSVD_OK);
        GSVD_CHECK(dt.kind == ok[i].kind && dt.byteorder == ok[i].order && dt.size == ok[i].size);
        gsvd_dtype_format(&dt, buf, sizeof buf);
        GSVD_CHECK(strcmp(buf, ok[i].back) == 0);
    }
    for (size_t i = 0; i < GSVD_ARRAY_LEN(unsupported); i++)
        GSVD_CHECK_RC(gsvd_dtype_parse(unsupported[i], &dt), GSVD_EUNSUPPORTED);
    for (size_t i = 0; i < GSVD_ARRAY_LEN(garbage); i++) {
        int rc = gsvd_dtype_parse(garbage[i], &dt);
        if (rc != GSVD_EFORMAT)
            fprintf(stderr, "dtype '%s' gave %d\n", garbage[i], rc);
        GSVD_CHECK(rc == GSVD_EFORMAT);
    }
    GSVD_CHECK_RC(gsvd_dtype_parse(NULL, &dt), GSVD_EFORMAT);

    dt = dtype_of(">i4");
    GSVD_CHECK(gsvd_dtype_needs_swap(&dt) == 1);
    dt = dtype_of("<i4");
    GSVD_CHECK(gsvd_dtype_needs_swap(&dt) == 0);
    dt = dtype_of("|u1");
    GSVD_CHECK(gsvd_dtype_needs_swap(&dt) == 0);
    dt = dtype_of("|S8");
    GSVD_CHECK(gsvd_dtype_needs_swap(&dt) == 0);
    dt = dtype_of(">U2");
    GSVD_CHECK(gsvd_dtype_needs_swap(&dt) == 1);
    GSVD_CHECK(strstr(gsvd_dtype_supported(), "f8") != NULL);
}

/* gsvd_dtype_elem_i64 / _f64 on the extremes of each numeric kind and size; the expected values
 * are written out (two's complement; IEEE 754 half 0x3C00 = 1, 0xC000 = -2; a uint64 above
 * INT64_MAX wraps as int64 and rounds to 2^64 as double). */
static void test_dtype_elem(void)
{
    static const struct {
        const char *dtype;
        union gsvd_dtype_elem v;
        int integral; /* check want_i too */
        int64_t want_i;
        double want_f;
    } cases[] = {
        {"|i1", {.i1 = -1}, 1, -1, -1.0},
        {"<i2", {.i2 = INT16_MIN}, 1, -32768, -32768.0},
        {"<i4", {.i4 = INT32_MAX}, 1, 2147483647, 2147483647.0},
        {"<i8", {.i8 = INT64_MIN}, 1, INT64_MIN, -9223372036854775808.0},
        {"|u1", {.u1 = 255}, 1, 255, 255.0},
        {"<u2", {.u2 = 32768}, 1, 32768, 32768.0},
        {"<u4", {.u4 = 2147483648u}, 1, 2147483648, 2147483648.0},
        {"<u8", {.u8 = UINT64_MAX}, 1, -1, 18446744073709551616.0},
        {"|b1", {.u1 = 2}, 0, 0, 1.0},
        {"<f2", {.u2 = 0x3C00}, 0, 0, 1.0},
        {"<f2", {.u2 = 0xC000}, 0, 0, -2.0},
        {"<f4", {.f4 = 1.5f}, 0, 0, 1.5},
        {"<f8", {.f8 = -0.25}, 0, 0, -0.25},
    };

    for (size_t i = 0; i < GSVD_ARRAY_LEN(cases); i++) {
        struct gsvd_dtype dt = dtype_of(cases[i].dtype);
        GSVD_CHECK(gsvd_dtype_elem_f64(&dt, &cases[i].v) == cases[i].want_f);
        if (cases[i].integral)
            GSVD_CHECK(gsvd_dtype_elem_i64(&dt, &cases[i].v) == cases[i].want_i);
    }
}

/* ---- configuration ------------------------------------------------------------------------ */

static void test_config(void)
{
    static const struct {
        const char *comp, *filters, *dtype;
        int rc;
    } cases[] = {
        {"{\"id\":\"bz2\",\"level\":1}", NULL, "<i4", GSVD_EUNSUPPORTED},
        {"{\"id\":\"lzma\"}", "null", "<i4", GSVD_EUNSUPPORTED},
        {"null", "[{\"id\":\"fixedscaleoffset\"}]", "<f8", GSVD_EUNSUPPORTED},
        {"{\"id\":\"delta\",\"dtype\":\"<i4\"}", NULL, "<i4", GSVD_EUNSUPPORTED},
        {NULL, "[{\"id\":\"zlib\"}]", "<i4", GSVD_EUNSUPPORTED},
        {"{\"id\":\"blosc\",\"clevel\":12}", NULL, "<i4", GSVD_EFORMAT},
        {"{\"id\":\"blosc\",\"clevel\":-1}", NULL, "<i4", GSVD_EFORMAT},
        {"{\"id\":\"blosc\",\"clevel\":5.5}", NULL, "<i4", GSVD_EFORMAT},
        {"{\"id\":\"blosc\",\"clevel\":\"5\"}", NULL, "<i4", GSVD_EFORMAT},
        {"{\"id\":\"blosc\",\"shuffle\":7}", NULL, "<i4", GSVD_EFORMAT},
        {"{\"id\":\"blosc\",\"shuffle\":-2}", NULL, "<i4", GSVD_EFORMAT},
        {"{\"id\":\"blosc\",\"blocksize\":-1}", NULL, "<i4", GSVD_EFORMAT},
        {"{\"id\":\"blosc\",\"cname\":\"foo\"}", NULL, "<i4", GSVD_EFORMAT},
        {"{\"id\":\"blosc\",\"cname\":7}", NULL, "<i4", GSVD_EFORMAT},
        {"{\"id\":\"blosc\",\"cname\":\"zstdzstdzstd\"}", NULL, "<i4", GSVD_EFORMAT},
        {"{\"cname\":\"lz4\"}", NULL, "<i4", GSVD_EFORMAT},
        {"{\"id\":5}", NULL, "<i4", GSVD_EFORMAT},
        {"{\"id\":null}", NULL, "<i4", GSVD_EFORMAT},
        {"\"blosc\"", NULL, "<i4", GSVD_EFORMAT},
        {"5", NULL, "<i4", GSVD_EFORMAT},
        {"[]", NULL, "<i4", GSVD_EFORMAT},
        {"{\"id\":\"blosc\"", NULL, "<i4", GSVD_EFORMAT},
        {"", NULL, "<i4", GSVD_EFORMAT},
        {NULL, "{\"id\":\"delta\"}", "<i4", GSVD_EFORMAT},
        {NULL, "\"delta\"", "<i4", GSVD_EFORMAT},
        {NULL, "[5]", "<i4", GSVD_EFORMAT},
        {NULL, "[{}]", "<i4", GSVD_EFORMAT},
        {NULL, "[{\"id\":true}]", "<i4", GSVD_EFORMAT},
        {NULL, "[", "<i4", GSVD_EFORMAT},
        {"{\"id\":\"zstd\",\"level\":1.5}", NULL, "<i4", GSVD_EFORMAT},
        {"{\"id\":\"zstd\",\"level\":1e300}", NULL, "<i4", GSVD_EFORMAT},
        {"{\"id\":\"zstd\",\"checksum\":\"yes\"}", NULL, "<i4", GSVD_EFORMAT},
        {"{\"id\":\"zlib\",\"level\":10}", NULL, "<i4", GSVD_EFORMAT},
        {"{\"id\":\"gzip\",\"level\":-1}", NULL, "<i4", GSVD_EFORMAT},
        {"{\"id\":\"lz4\",\"acceleration\":\"fast\"}", NULL, "<i4", GSVD_EFORMAT},
        /* accepted */
        {"{\"id\":\"zstd\",\"level\":-7}", "[]", "<i4", GSVD_OK},
        {"{\"id\":\"zlib\",\"level\":-1}", NULL, "<i4", GSVD_OK},
        {"{\"id\":\"blosc\",\"extra\":[1,2]}", NULL, "<i4", GSVD_OK},
        {"null", "null", "<i4", GSVD_OK},
        /* vlen-utf8 and |O */
        {NULL, "[{\"id\":\"vlen-utf8\"}]", "<i4", GSVD_EUNSUPPORTED},
        {NULL, "[{\"id\":\"vlen-utf8\"}]", "|S4", GSVD_EUNSUPPORTED},
        {NULL, NULL, "|O", GSVD_EUNSUPPORTED},
        {"{\"id\":\"zstd\"}", "[]", "|O", GSVD_EUNSUPPORTED},
        {NULL, "[{\"id\":\"vlen-bytes\"}]", "|O", GSVD_EUNSUPPORTED},
        {NULL, "[{\"id\":\"vlen-utf8\"},{\"id\":\"vlen-utf8\"}]", "|O", GSVD_EUNSUPPORTED},
        {NULL, "[{\"id\":\"vlen-utf8\"},{\"id\":\"delta\",\"dtype\":\"|O\"}]", "|O",
         GSVD_EUNSUPPORTED},
        {NULL, "[{\"dtype\":\"<i4\",\"id\":\"delta\"},{\"id\":\"vlen-utf8\"}]", "<i4",
         GSVD_EUNSUPPORTED},
        {NULL, "[{\"id\":\"vlen-utf8\"}]", "|O", GSVD_OK},
        /* delta */
        {NULL, "[{\"id\":\"delta\"}]", "<i4", GSVD_EFORMAT},
        {NULL, "[{\"id\":\"delta\",\"dtype\":4}]", "<i4", GSVD_EFORMAT},
        {NULL, "[{\"id\":\"delta\",\"dtype\":\"<q4\"}]", "<i4", GSVD_EFORMAT},
        {NULL, "[{\"id\":\"delta\",\"dtype\":\"<i4\",\"astype\":\"<i2\"}]", "<i4", GSVD_OK},
        {NULL, "[{\"id\":\"delta\",\"dtype\":\"<i4\",\"astype\":\"<f4\"}]", "<i4",
         GSVD_EUNSUPPORTED},
        {NULL, "[{\"id\":\"delta\",\"dtype\":\"<i8\"}]", "<i4", GSVD_EUNSUPPORTED},
        {NULL, "[{\"id\":\"delta\",\"dtype\":\"<f2\"}]", "<f2", GSVD_EUNSUPPORTED},
        {NULL, "[{\"id\":\"delta\",\"dtype\":\"|b1\"}]", "|b1", GSVD_EUNSUPPORTED},
        {NULL, "[{\"id\":\"delta\",\"dtype\":\"<c8\"}]", "<i4", GSVD_EUNSUPPORTED},
        {NULL, "[{\"id\":\"delta\",\"dtype\":\"<i4\"},{\"id\":\"delta\",\"dtype\":\"<i4\"}]", "<i4",
         GSVD_OK},
    };

    for (size_t i = 0; i < GSVD_ARRAY_LEN(cases); i++) {
        gsvd_codec_chain *c = (gsvd_codec_chain *)&c; /* must come back NULL on failure */
        int rc = chain_of(cases[i].comp, cases[i].filters, cases[i].dtype, &c);
        if (rc != cases[i].rc)
            fprintf(stderr, "case %zu: %s / %s / %s gave %d, want %d\n", i,
                    cases[i].comp ? cases[i].comp : "NULL",
                    cases[i].filters ? cases[i].filters : "NULL", cases[i].dtype, rc, cases[i].rc);
        GSVD_CHECK(rc == cases[i].rc);
        GSVD_CHECK(rc == GSVD_OK ? c != NULL : c == NULL);
        gsvd_codec_chain_free(c);
    }
    /* snappy depends on how c-blosc was built */
    {
        gsvd_codec_chain *c = NULL;
        int rc = chain_of("{\"id\":\"blosc\",\"cname\":\"snappy\"}", NULL, "<i4", &c);
        GSVD_CHECK(rc == GSVD_OK || rc == GSVD_EUNSUPPORTED);
        gsvd_codec_chain_free(c);
    }
    {
        const char *ids = gsvd_codec_supported();
        static const char *const want[] = {"blosc", "zstd",  "zlib",     "gzip",
                                           "lz4",   "delta", "vlen-utf8"};
        for (size_t i = 0; i < GSVD_ARRAY_LEN(want); i++)
            GSVD_CHECK(strstr(ids, want[i]) != NULL);
    }
}

/* to_json, describe and the default chain. */
static void test_json(void)
{
    struct gsvd_buf comp = GSVD_BUF_INIT, filt = GSVD_BUF_INIT;
    struct gsvd_buf comp2 = GSVD_BUF_INIT, filt2 = GSVD_BUF_INIT;
    gsvd_codec_chain *c = NULL;
    struct gsvd_dtype dt;
    char desc[128];

    dt = dtype_of("<i4");
    GSVD_CHECK_RC(gsvd_codec_chain_default(&dt, &c), GSVD_OK);
    GSVD_CHECK_RC(gsvd_codec_chain_to_json(c, &comp, &filt), GSVD_OK);
    GSVD_CHECK(comp.data && strcmp(comp.data, "{\"blocksize\":0,\"clevel\":5,\"cname\":\"zstd\","
                                              "\"id\":\"blosc\",\"shuffle\":1}") == 0);
    GSVD_CHECK(filt.data && strcmp(filt.data, "null") == 0);
    gsvd_codec_chain_describe(c, desc, sizeof desc);
    GSVD_CHECK(strcmp(desc, "blosc(zstd:5, shuffle)") == 0);
    gsvd_codec_chain_free(c);
    c = NULL;
    gsvd_buf_free(&comp);
    gsvd_buf_free(&filt);

    dt = dtype_of("|i1");
    GSVD_CHECK_RC(gsvd_codec_chain_default(&dt, &c), GSVD_OK);
    GSVD_CHECK_RC(gsvd_codec_chain_to_json(c, &comp, &filt), GSVD_OK);
    GSVD_CHECK(comp.data && strstr(comp.data, "\"shuffle\":2") != NULL);
    gsvd_codec_chain_free(c);
    c = NULL;
    gsvd_buf_free(&comp);
    gsvd_buf_free(&filt);

    dt = dtype_of("|O");
    GSVD_CHECK_RC(gsvd_codec_chain_default(&dt, &c), GSVD_OK);
    GSVD_CHECK(c && gsvd_codec_chain_is_vlen(c));
    GSVD_CHECK_RC(gsvd_codec_chain_to_json(c, &comp, &filt), GSVD_OK);
    GSVD_CHECK(filt.data && strcmp(filt.data, "[{\"id\":\"vlen-utf8\"}]") == 0);
    gsvd_codec_chain_describe(c, desc, sizeof desc);
    GSVD_CHECK(strcmp(desc, "vlen-utf8 | blosc(zstd:5, shuffle)") == 0);
    gsvd_codec_chain_free(c);
    c = NULL;
    gsvd_buf_free(&comp);
    gsvd_buf_free(&filt);

    /* as bio2zarr writes variant_position; to_json output parses back to itself */
    GSVD_CHECK_RC(chain_of("{\"blocksize\":0,\"clevel\":7,\"cname\":\"zstd\",\"id\":\"blosc\","
                           "\"shuffle\":2}",
                           "[{\"astype\":\"<i4\",\"dtype\":\"<i4\",\"id\":\"delta\"}]", "<i4", &c),
                  GSVD_OK);
    if (c) {
        gsvd_codec_chain *c2 = NULL;

        gsvd_codec_chain_describe(c, desc, sizeof desc);
        GSVD_CHECK(strcmp(desc, "delta(<i4) | blosc(zstd:7, bitshuffle)") == 0);
        gsvd_codec_chain_describe(c, desc, 8);
        GSVD_CHECK(strcmp(desc, "delta(<") == 0);
        GSVD_CHECK_RC(gsvd_codec_chain_to_json(c, &comp, &filt), GSVD_OK);
        GSVD_CHECK(strcmp(filt.data, "[{\"astype\":\"<i4\",\"dtype\":\"<i4\",\"id\":\"delta\"}]") ==
                   0);
        GSVD_CHECK_RC(chain_of(comp.data, filt.data, "<i4", &c2), GSVD_OK);
        if (c2) {
            GSVD_CHECK_RC(gsvd_codec_chain_to_json(c2, &comp2, &filt2), GSVD_OK);
            GSVD_CHECK(strcmp(comp.data, comp2.data) == 0 && strcmp(filt.data, filt2.data) == 0);
        }
        gsvd_codec_chain_free(c2);
    }
    gsvd_codec_chain_free(c);
    c = NULL;
    gsvd_buf_free(&comp);
    gsvd_buf_free(&filt);
    gsvd_buf_free(&comp2);
    gsvd_buf_free(&filt2);

    /* each codec's JSON as numcodecs writes it */
    {
        static const struct {
            const char *in, *out, *desc;
        } j[] = {
            {"{\"id\":\"zstd\",\"level\":1}", "{\"id\":\"zstd\",\"level\":1}", "zstd(1)"},
            {"{\"checksum\":true,\"id\":\"zstd\",\"level\":-3}",
             "{\"checksum\":true,\"id\":\"zstd\",\"level\":-3}", "zstd(-3, checksum)"},
            {"{\"id\":\"zlib\",\"level\":9}", "{\"id\":\"zlib\",\"level\":9}", "zlib(9)"},
            {"{\"id\":\"gzip\",\"level\":1}", "{\"id\":\"gzip\",\"level\":1}", "gzip(1)"},
            {"{\"id\":\"lz4\"}", "{\"acceleration\":1,\"id\":\"lz4\"}", "lz4(acceleration 1)"},
            {"{\"id\":\"blosc\"}",
             "{\"blocksize\":0,\"clevel\":5,\"cname\":\"lz4\",\"id\":\"blosc\",\"shuffle\":1}",
             "blosc(lz4:5, shuffle)"},
            {"{\"id\":\"blosc\",\"shuffle\":-1,\"cname\":\"lz4hc\",\"clevel\":0}",
             "{\"blocksize\":0,\"clevel\":0,\"cname\":\"lz4hc\",\"id\":\"blosc\",\"shuffle\":-1}",
             "blosc(lz4hc:0, autoshuffle)"},
            {"null", "null", "none"},
        };
        for (size_t i = 0; i < GSVD_ARRAY_LEN(j); i++) {
            GSVD_CHECK_RC(chain_of(j[i].in, NULL, "<f8", &c), GSVD_OK);
            if (!c)
                continue;
            GSVD_CHECK_RC(gsvd_codec_chain_to_json(c, &comp, &filt), GSVD_OK);
            GSVD_CHECK(comp.data && strcmp(comp.data, j[i].out) == 0);
            gsvd_codec_chain_describe(c, desc, sizeof desc);
            GSVD_CHECK(strcmp(desc, j[i].desc) == 0);
            gsvd_codec_chain_free(c);
            c = NULL;
            gsvd_buf_free(&comp);
            gsvd_buf_free(&filt);
        }
    }
}

int main(int argc, char **argv)
{
    if (gsvd_test_args(argc, argv, "test_codec_config") != 0)
        return 2;
    test_dtype();
    test_dtype_elem();
    test_config();
    test_json();
    return gsvd_test_report("test_codec_config");
}
