/* tests/unit/test_codec.c - zarr/dtype.h and zarr/codec.h against their contracts: round trips
 * for every codec and element size, hand-built encodings, and every documented error code.
 * `test_codec --one-roundtrip` runs one parse + encode + decode of each kind and exits 0, or 3
 * when an allocation failed cleanly (GSVD_ENOMEM); ctest drives it with GENSVD_FAIL_ALLOC_AT=N
 * so that each allocation of the codecs fails in turn (under ASan: no crash, no leak). */
#include "gsvd_config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#include <zstd.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "tests/gsvd_test.h"
#include "zarr/codec.h"
#include "zarr/codec_internal.h"
#include "zarr/dtype.h"

#define N_BYTES 4096

static struct gsvd_dtype dtype_of(const char *s)
{
    struct gsvd_dtype dt = {0, 0, 0};
    int rc = gsvd_dtype_parse(s, &dt);

    GSVD_CHECK(rc == GSVD_OK);
    return dt;
}

/* Parse a chain for dtype `ts`; returns the rc, chain in *out (NULL on failure). */
static int chain_of(const char *comp, const char *filters, const char *ts, gsvd_codec_chain **out)
{
    struct gsvd_dtype dt = dtype_of(ts);
    return gsvd_codec_chain_parse_json(comp, filters, &dt, "t/.zarray", out);
}

/* Compressible pseudo-random bytes. */
static void fill(unsigned char *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (unsigned char)((x >> 16) % 7 + (i / 64));
    }
}

/* n bytes of small integral floats of `size` bytes, in the given byte order. */
static void fill_floats(unsigned char *p, size_t n, size_t size, int big)
{
    for (size_t i = 0; i + size <= n; i += size) {
        unsigned char b[8];
        if (size == 4) {
            float f = (float)((i * 7) % 101) - 50.0f;
            memcpy(b, &f, 4);
        } else {
            double d = (double)((i * 7) % 101) - 50.0;
            memcpy(b, &d, 8);
        }
        for (size_t k = 0; k < size; k++)
            p[i + k] = b[big ? size - 1 - k : k];
    }
}

/* Encode src[n] with the chain and decode it back; 1 when the bytes agree. */
static int roundtrip(const gsvd_codec_chain *c, gsvd_codec_ws *ws, const void *src, size_t n)
{
    struct gsvd_buf enc = GSVD_BUF_INIT;
    unsigned char *dec = gsvd_malloc(n ? n : 1);
    int ok = dec && gsvd_codec_chain_encode(c, ws, src, n, &enc) == GSVD_OK &&
             gsvd_codec_chain_decode(c, ws, enc.data, enc.len, dec, n, "t/0") == GSVD_OK &&
             (n == 0 || memcmp(dec, src, n) == 0);

    gsvd_free(dec);
    gsvd_buf_free(&enc);
    return ok;
}

static int encode_with(const char *comp, const char *filters, const char *ts, const void *src,
                       size_t n, gsvd_codec_ws *ws, struct gsvd_buf *out)
{
    gsvd_codec_chain *c = NULL;
    int rc = chain_of(comp, filters, ts, &c);

    if (rc == GSVD_OK)
        rc = gsvd_codec_chain_encode(c, ws, src, n, out);
    gsvd_codec_chain_free(c);
    return rc;
}

static int decode_with(const char *comp, const char *filters, const char *ts, const void *src,
                       size_t n, void *dst, size_t cap, gsvd_codec_ws *ws)
{
    gsvd_codec_chain *c = NULL;
    int rc = chain_of(comp, filters, ts, &c);

    if (rc == GSVD_OK)
        rc = gsvd_codec_chain_decode(c, ws, src, n, dst, cap, "t/0");
    gsvd_codec_chain_free(c);
    return rc;
}

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

/* ---- round trips ------------------------------------------------------------------------ */

static void test_roundtrips(gsvd_codec_ws *ws)
{
    static const char *const comps[] = {
        NULL,
        "null",
        "{\"id\":\"blosc\",\"cname\":\"lz4\",\"clevel\":5,\"shuffle\":1,\"blocksize\":0}",
        "{\"id\":\"blosc\",\"cname\":\"zstd\",\"clevel\":7,\"shuffle\":2,\"blocksize\":0}",
        "{\"id\":\"blosc\",\"cname\":\"zlib\",\"clevel\":1,\"shuffle\":0,\"blocksize\":0}",
        "{\"id\":\"blosc\",\"cname\":\"blosclz\",\"clevel\":9,\"shuffle\":-1,\"blocksize\":0}",
        "{\"id\":\"blosc\",\"cname\":\"lz4hc\",\"clevel\":3,\"shuffle\":-1,\"blocksize\":256}",
        "{\"id\":\"blosc\",\"cname\":\"lz4\",\"clevel\":0,\"shuffle\":1,\"blocksize\":0}",
        "{\"id\":\"blosc\"}",
        "{\"id\":\"zstd\",\"level\":1}",
        "{\"id\":\"zstd\",\"level\":-5,\"checksum\":true}",
        "{\"id\":\"zstd\",\"level\":0,\"checksum\":false}",
        "{\"id\":\"zstd\",\"level\":22}",
        "{\"id\":\"zlib\",\"level\":1}",
        "{\"id\":\"zlib\",\"level\":-1}",
        "{\"id\":\"zlib\",\"level\":0}",
        "{\"id\":\"gzip\",\"level\":9}",
        "{\"id\":\"gzip\",\"level\":0}",
        "{\"acceleration\":1,\"id\":\"lz4\"}",
        "{\"acceleration\":20,\"id\":\"lz4\"}",
    };
    static const char *const dtypes[] = {"|b1", "|i1", "|u1", "<i2", ">u2", "<i4", ">i4",
                                         "<f4", "<u8", ">f8", "<f2", "|S3", "<U2", "|S300"};
    static const size_t sizes[] = {0, 1, 7, 300, N_BYTES};
    unsigned char data[N_BYTES + 64];

    for (size_t ci = 0; ci < GSVD_ARRAY_LEN(comps); ci++) {
        for (size_t di = 0; di < GSVD_ARRAY_LEN(dtypes); di++) {
            gsvd_codec_chain *c = NULL;
            struct gsvd_dtype dt = dtype_of(dtypes[di]);

            GSVD_CHECK_RC(chain_of(comps[ci], NULL, dtypes[di], &c), GSVD_OK);
            if (!c)
                continue;
            for (size_t si = 0; si < GSVD_ARRAY_LEN(sizes); si++) {
                size_t n = sizes[si] / dt.size * dt.size;
                fill(data, n, (uint32_t)(ci * 100 + di));
                if (!roundtrip(c, ws, data, n))
                    fprintf(stderr, "round trip failed: %s %s %zu\n",
                            comps[ci] ? comps[ci] : "NULL", dtypes[di], n);
                GSVD_CHECK(roundtrip(c, ws, data, n));
            }
            gsvd_codec_chain_free(c);
        }
    }
}

/* delta filter: values, wrap-around, byte order, with and without a compressor. */
static void test_delta(gsvd_codec_ws *ws)
{
    static const char *const dtypes[] = {"|i1", "|u1", "<i2", ">i2", "<i4", ">i4",
                                         "<u4", "<i8", ">u8", "<f4", ">f8"};
    static const char *const comps[] = {
        NULL, "{\"id\":\"blosc\",\"cname\":\"zstd\",\"clevel\":7,\"shuffle\":1,\"blocksize\":0}",
        "{\"id\":\"zstd\",\"level\":3}"};
    unsigned char data[N_BYTES];
    struct gsvd_buf enc = GSVD_BUF_INIT;
    char filt[128];

    for (size_t di = 0; di < GSVD_ARRAY_LEN(dtypes); di++) {
        for (size_t ci = 0; ci < GSVD_ARRAY_LEN(comps); ci++) {
            gsvd_codec_chain *c = NULL;

            snprintf(filt, sizeof filt, "[{\"astype\":\"%s\",\"dtype\":\"%s\",\"id\":\"delta\"}]",
                     dtypes[di], dtypes[di]);
            GSVD_CHECK_RC(chain_of(comps[ci], filt, dtypes[di], &c), GSVD_OK);
            if (!c)
                continue;
            fill(data, 1024, (uint32_t)di);
            if (dtypes[di][1] == 'f') /* finite floats: small integers sum exactly */
                fill_floats(data, 1024, dtypes[di][2] == '8' ? 8 : 4, dtypes[di][0] == '>');
            GSVD_CHECK(roundtrip(c, ws, data, 1024));
            gsvd_codec_chain_free(c);
        }
    }

    /* known values: <i4 [10, 13, 13, 20] is stored as [10, 3, 0, 7] */
    {
        const int32_t vals[4] = {10, 13, 13, 20};
        int32_t got[4];
        const char *f = "[{\"astype\":\"<i4\",\"dtype\":\"<i4\",\"id\":\"delta\"}]";

        GSVD_CHECK_RC(encode_with(NULL, f, "<i4", vals, sizeof vals, ws, &enc), GSVD_OK);
        memcpy(got, enc.data, sizeof got);
        GSVD_CHECK(enc.len == 16 && got[0] == 10 && got[1] == 3 && got[2] == 0 && got[3] == 7);
        GSVD_CHECK_RC(decode_with(NULL, f, "<i4", enc.data, enc.len, got, sizeof got, ws), GSVD_OK);
        GSVD_CHECK(memcmp(got, vals, sizeof vals) == 0);
    }
    /* astype narrower than dtype (numcodecs: the first value and the differences are cast to
     * astype; decoding sums them, sign-extended, in dtype): <i4 [1000, 1003, 990, 1000] is
     * stored as <i2 [1000, 3, -13, 10] */
    {
        const int32_t vals[4] = {1000, 1003, 990, 1000};
        int32_t got[4];
        int16_t stored[4];
        const char *f = "[{\"astype\":\"<i2\",\"dtype\":\"<i4\",\"id\":\"delta\"}]";

        GSVD_CHECK_RC(encode_with(NULL, f, "<i4", vals, sizeof vals, ws, &enc), GSVD_OK);
        GSVD_CHECK(enc.len == 8);
        memcpy(stored, enc.data, sizeof stored);
        GSVD_CHECK(stored[0] == 1000 && stored[1] == 3 && stored[2] == -13 && stored[3] == 10);
        GSVD_CHECK_RC(decode_with(NULL, f, "<i4", enc.data, enc.len, got, sizeof got, ws), GSVD_OK);
        GSVD_CHECK(memcmp(got, vals, sizeof vals) == 0);
        /* a stored size that is not a whole number of astype elements */
        GSVD_CHECK_RC(decode_with(NULL, f, "<i4", enc.data, 7, got, sizeof got, ws), GSVD_ECODEC);
    }
    /* wrap-around: |i1 [127, -128] differs by -255, stored as 1 */
    {
        const signed char vals[2] = {127, -128};
        signed char got[2];
        const char *f = "[{\"dtype\":\"|i1\",\"id\":\"delta\"}]";

        GSVD_CHECK_RC(encode_with(NULL, f, "|i1", vals, 2, ws, &enc), GSVD_OK);
        GSVD_CHECK(enc.len == 2 && enc.data[0] == 127 && enc.data[1] == 1);
        GSVD_CHECK_RC(decode_with(NULL, f, "|i1", enc.data, 2, got, 2, ws), GSVD_OK);
        GSVD_CHECK(got[0] == 127 && got[1] == -128);
    }
    /* float32 sums stay float32 and overflow to infinity */
    {
        const float enc4[2] = {3e38f, 3e38f};
        float got[2];
        const char *f = "[{\"dtype\":\"<f4\",\"id\":\"delta\"}]";

        GSVD_CHECK_RC(decode_with(NULL, f, "<f4", enc4, sizeof enc4, got, sizeof got, ws), GSVD_OK);
        GSVD_CHECK(got[0] == 3e38f && isinf(got[1]));
    }
    /* big-endian: >i2 [0x0102, 0x0105] is stored as 01 02 00 03 */
    {
        const unsigned char vals[4] = {1, 2, 1, 5};
        const char *f = "[{\"astype\":\">i2\",\"dtype\":\">i2\",\"id\":\"delta\"}]";

        GSVD_CHECK_RC(encode_with(NULL, f, ">i2", vals, 4, ws, &enc), GSVD_OK);
        GSVD_CHECK(enc.len == 4 && memcmp(enc.data, "\x01\x02\x00\x03", 4) == 0);
    }
    gsvd_buf_free(&enc);
}

/* ---- known encodings --------------------------------------------------------------------- */

static void test_known(gsvd_codec_ws *ws)
{
    unsigned char out[64];
    struct gsvd_strlist sl = GSVD_STRLIST_INIT;
    gsvd_codec_chain *c = NULL;

    /* lz4: size prefix 8, then one all-literal block (token 0x80) */
    {
        static const unsigned char lz4[] = {8,   0,   0,   0,   0x80, 'A', 'B',
                                            'C', 'D', 'E', 'F', 'G',  'H'};
        GSVD_CHECK_RC(decode_with("{\"id\":\"lz4\",\"acceleration\":1}", NULL, "|u1", lz4,
                                  sizeof lz4, out, 8, ws),
                      GSVD_OK);
        GSVD_CHECK(memcmp(out, "ABCDEFGH", 8) == 0);
    }

    /* vlen-utf8 by hand, no compressor: ["abc", "é", ""] */
    {
        static const unsigned char v[] = {3, 0, 0, 0, 3,    0,    0, 0, 'a', 'b', 'c',
                                          2, 0, 0, 0, 0xC3, 0xA9, 0, 0, 0,   0};
        GSVD_CHECK_RC(chain_of("null", "[{\"id\":\"vlen-utf8\"}]", "|O", &c), GSVD_OK);
        if (c) {
            GSVD_CHECK(gsvd_codec_chain_is_vlen(c));
            GSVD_CHECK_RC(gsvd_codec_chain_decode_vlen(c, ws, v, sizeof v, 3, 1 << 20, "s/0", &sl),
                          GSVD_OK);
            GSVD_CHECK(sl.n == 3 && strcmp(sl.items[0], "abc") == 0 &&
                       strcmp(sl.items[1], "\xC3\xA9") == 0 && strcmp(sl.items[2], "") == 0);
            GSVD_CHECK_RC(gsvd_codec_chain_decode(c, ws, v, sizeof v, out, sizeof out, "s/0"),
                          GSVD_EINVAL);
        }
        gsvd_codec_chain_free(c);
        c = NULL;
        gsvd_strlist_free(&sl);
    }

    /* gzip stream made by zlib itself, through the gzip and the zlib codecs */
    {
        const char *text = "gensvd gzip test gensvd gzip test gensvd gzip test";
        size_t len = strlen(text);
        unsigned char gz[256];
        z_stream zs = {0};
        size_t gz_len;

        GSVD_CHECK(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
        zs.next_in = (Bytef *)(uintptr_t)text;
        zs.avail_in = (uInt)len;
        zs.next_out = gz;
        zs.avail_out = sizeof gz;
        GSVD_CHECK(deflate(&zs, Z_FINISH) == Z_STREAM_END);
        gz_len = zs.total_out;
        deflateEnd(&zs);
        GSVD_CHECK(gz[0] == 0x1f && gz[1] == 0x8b);
        memset(out, 0, sizeof out);
        GSVD_CHECK_RC(
            decode_with("{\"id\":\"gzip\",\"level\":1}", NULL, "|u1", gz, gz_len, out, len, ws),
            GSVD_OK);
        GSVD_CHECK(memcmp(out, text, len) == 0);
        GSVD_CHECK_RC(
            decode_with("{\"id\":\"zlib\",\"level\":1}", NULL, "|u1", gz, gz_len, out, len, ws),
            GSVD_ECODEC);
        /* two gzip members decode as one (Python's gzip module does so too) */
        {
            unsigned char two[512];
            unsigned char dec[128];
            memcpy(two, gz, gz_len);
            memcpy(two + gz_len, gz, gz_len);
            GSVD_CHECK_RC(
                decode_with("{\"id\":\"gzip\"}", NULL, "|u1", two, 2 * gz_len, dec, 2 * len, ws),
                GSVD_OK);
            GSVD_CHECK(memcmp(dec, text, len) == 0 && memcmp(dec + len, text, len) == 0);
        }
    }

    /* zlib's compress2 output through the zlib codec */
    {
        const char *text = "zlib zlib zlib zlib zlib zlib";
        unsigned char z[128];
        uLongf z_len = sizeof z;

        GSVD_CHECK(compress2(z, &z_len, (const Bytef *)text, (uLong)strlen(text), 9) == Z_OK);
        GSVD_CHECK_RC(decode_with("{\"id\":\"zlib\",\"level\":9}", NULL, "|S1", z, z_len, out,
                                  strlen(text), ws),
                      GSVD_OK);
        GSVD_CHECK(memcmp(out, text, strlen(text)) == 0);
    }

    /* zstd: a streamed frame without content size, and two concatenated frames */
    {
        const char *text = "zstd without a content size, zstd without a content size";
        size_t len = strlen(text);
        unsigned char fr[256];
        unsigned char two[512];
        unsigned char dec[256];
        ZSTD_CCtx *cc = ZSTD_createCCtx();
        ZSTD_inBuffer in = {text, len, 0};
        ZSTD_outBuffer ob = {fr, sizeof fr, 0};
        size_t r, f2;

        GSVD_CHECK(cc != NULL);
        r = ZSTD_compressStream2(cc, &ob, &in, ZSTD_e_continue);
        GSVD_CHECK(!ZSTD_isError(r));
        r = ZSTD_compressStream2(cc, &ob, &in, ZSTD_e_end);
        GSVD_CHECK(r == 0);
        GSVD_CHECK(ZSTD_getFrameContentSize(fr, ob.pos) == ZSTD_CONTENTSIZE_UNKNOWN);
        GSVD_CHECK_RC(
            decode_with("{\"id\":\"zstd\",\"level\":1}", NULL, "|u1", fr, ob.pos, dec, len, ws),
            GSVD_OK);
        GSVD_CHECK(memcmp(dec, text, len) == 0);
        GSVD_CHECK_RC(
            decode_with("{\"id\":\"zstd\",\"level\":1}", NULL, "|u1", fr, ob.pos, dec, len - 1, ws),
            GSVD_ECODEC);
        GSVD_CHECK_RC(
            decode_with("{\"id\":\"zstd\",\"level\":1}", NULL, "|u1", fr, ob.pos, dec, len + 1, ws),
            GSVD_ECODEC);
        memcpy(two, fr, ob.pos);
        f2 = ZSTD_compress(two + ob.pos, sizeof two - ob.pos, text, len, 3);
        GSVD_CHECK(!ZSTD_isError(f2));
        GSVD_CHECK_RC(
            decode_with("{\"id\":\"zstd\"}", NULL, "|u1", two, ob.pos + f2, dec, 2 * len, ws),
            GSVD_OK);
        GSVD_CHECK(memcmp(dec, text, len) == 0 && memcmp(dec + len, text, len) == 0);
        /* both frames recording their size */
        memcpy(two, two + ob.pos, f2);
        memcpy(two + f2, two, f2);
        GSVD_CHECK_RC(decode_with("{\"id\":\"zstd\"}", NULL, "|u1", two, 2 * f2, dec, 2 * len, ws),
                      GSVD_OK);
        GSVD_CHECK(memcmp(dec, text, len) == 0 && memcmp(dec + len, text, len) == 0);
        ZSTD_freeCCtx(cc);
    }

    /* blosc: 16 trailing bytes after the frame are tolerated */
    {
        unsigned char data[1000];
        unsigned char dec[1000];
        struct gsvd_buf enc = GSVD_BUF_INIT;
        const char *bl = "{\"id\":\"blosc\",\"cname\":\"lz4\",\"clevel\":5,\"shuffle\":1}";

        fill(data, sizeof data, 5);
        GSVD_CHECK_RC(encode_with(bl, NULL, "<i4", data, sizeof data, ws, &enc), GSVD_OK);
        GSVD_CHECK(enc.len >= 16 && enc.data[3] == 4); /* typesize */
        GSVD_CHECK(gsvd_buf_append(&enc, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16) == GSVD_OK);
        GSVD_CHECK_RC(decode_with(bl, NULL, "<i4", enc.data, enc.len, dec, sizeof dec, ws),
                      GSVD_OK);
        GSVD_CHECK(memcmp(dec, data, sizeof data) == 0);
        /* |S300 encodes with typesize 1 (c-blosc's limit is 255), <U2 with 8 */
        GSVD_CHECK_RC(encode_with(bl, NULL, "|S250", data, 1000, ws, &enc), GSVD_OK);
        GSVD_CHECK(enc.len >= 16 && (unsigned char)enc.data[3] == 250);
        GSVD_CHECK_RC(encode_with(bl, NULL, "|S500", data, 1000, ws, &enc), GSVD_OK);
        GSVD_CHECK(enc.len >= 16 && enc.data[3] == 1);
        GSVD_CHECK_RC(
            encode_with("{\"id\":\"blosc\",\"shuffle\":-1}", NULL, "|u1", data, 1000, ws, &enc),
            GSVD_OK);
        GSVD_CHECK(enc.len >= 16 && (enc.data[2] & 0x4)); /* autoshuffle: bit for 1 byte */
        GSVD_CHECK_RC(
            encode_with("{\"id\":\"blosc\",\"shuffle\":-1}", NULL, "<i2", data, 1000, ws, &enc),
            GSVD_OK);
        GSVD_CHECK(enc.len >= 16 && (enc.data[2] & 0x1) && !(enc.data[2] & 0x4));
        gsvd_buf_free(&enc);
    }
}

/* ---- vlen-utf8 ---------------------------------------------------------------------------- */

static void test_vlen(gsvd_codec_ws *ws)
{
    static const char *const comps[] = {
        "null",
        "{\"id\":\"blosc\",\"cname\":\"zstd\",\"clevel\":7,\"shuffle\":1,\"blocksize\":0}",
        "{\"id\":\"zstd\",\"level\":3}",
        "{\"id\":\"zlib\",\"level\":1}",
        "{\"id\":\"gzip\",\"level\":1}",
        "{\"id\":\"lz4\"}",
    };
    const char *items[] = {"HG00096", "", "NA12878", "\xE2\x82\xAC uro", "x"};
    char big[9000];
    const char *many[600];
    struct gsvd_buf enc = GSVD_BUF_INIT;
    struct gsvd_strlist sl = GSVD_STRLIST_INIT;

    memset(big, 'g', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    for (size_t i = 0; i < GSVD_ARRAY_LEN(many); i++)
        many[i] = i % 3 ? "sample" : big;
    for (size_t ci = 0; ci < GSVD_ARRAY_LEN(comps); ci++) {
        gsvd_codec_chain *c = NULL;

        GSVD_CHECK_RC(chain_of(comps[ci], "[{\"id\":\"vlen-utf8\"}]", "|O", &c), GSVD_OK);
        if (!c)
            continue;
        GSVD_CHECK_RC(gsvd_codec_chain_encode_vlen(c, ws, items, 5, &enc), GSVD_OK);
        GSVD_CHECK_RC(
            gsvd_codec_chain_decode_vlen(c, ws, enc.data, enc.len, 5, 1 << 20, "s/0", &sl),
            GSVD_OK);
        GSVD_CHECK(sl.n == 5);
        for (size_t i = 0; i < sl.n && i < 5; i++)
            GSVD_CHECK(strcmp(sl.items[i], items[i]) == 0);
        gsvd_strlist_free(&sl);
        /* large: ~1.8 MB of text, beyond the first guess of the growing decoders */
        GSVD_CHECK_RC(gsvd_codec_chain_encode_vlen(c, ws, many, GSVD_ARRAY_LEN(many), &enc),
                      GSVD_OK);
        GSVD_CHECK_RC(gsvd_codec_chain_decode_vlen(c, ws, enc.data, enc.len, GSVD_ARRAY_LEN(many),
                                                   1 << 22, "s/0", &sl),
                      GSVD_OK);
        GSVD_CHECK(sl.n == GSVD_ARRAY_LEN(many) && strcmp(sl.items[0], big) == 0 &&
                   strcmp(sl.items[1], "sample") == 0);
        gsvd_strlist_free(&sl);
        /* the same chunk over the size limit */
        GSVD_CHECK_RC(gsvd_codec_chain_decode_vlen(c, ws, enc.data, enc.len, GSVD_ARRAY_LEN(many),
                                                   100000, "s/0", &sl),
                      GSVD_ECODEC);
        GSVD_CHECK(sl.n == 0);
        /* wrong item count */
        GSVD_CHECK_RC(gsvd_codec_chain_encode_vlen(c, ws, items, 5, &enc), GSVD_OK);
        GSVD_CHECK_RC(
            gsvd_codec_chain_decode_vlen(c, ws, enc.data, enc.len, 4, 1 << 20, "s/0", &sl),
            GSVD_ECODEC);
        GSVD_CHECK(sl.n == 0);
        /* the fixed-size encoder refuses a vlen chain */
        GSVD_CHECK_RC(gsvd_codec_chain_encode(c, ws, "ab", 2, &enc), GSVD_EINVAL);
        gsvd_codec_chain_free(c);
    }

    /* malformed layouts, no compressor */
    {
        gsvd_codec_chain *c = NULL;
        static const unsigned char count_bad[] = {2, 0, 0, 0, 1, 0, 0, 0, 'a'};
        static const unsigned char past_end[] = {1, 0, 0, 0, 9, 0, 0, 0, 'a', 'b'};
        static const unsigned char len_cut[] = {2, 0, 0, 0, 1, 0, 0, 0, 'a', 1, 0};
        static const unsigned char huge_len[] = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 'a'};
        static const unsigned char overlong[] = {1, 0, 0, 0, 2, 0, 0, 0, 0xC0, 0x80};
        static const unsigned char surrogate[] = {1, 0, 0, 0, 3, 0, 0, 0, 0xED, 0xA0, 0x80};
        static const unsigned char lone[] = {1, 0, 0, 0, 1, 0, 0, 0, 0x80};
        static const unsigned char cut_seq[] = {1, 0, 0, 0, 2, 0, 0, 0, 'a', 0xE2};
        static const unsigned char nul[] = {1, 0, 0, 0, 3, 0, 0, 0, 'a', 0, 'b'};
        static const unsigned char too_big[] = {1, 0, 0, 0, 4, 0, 0, 0, 0xF4, 0x90, 0x80, 0x80};
        static const unsigned char trailing[] = {1, 0, 0, 0, 1, 0, 0, 0, 'a', 'z'};
        static const unsigned char four[] = {1, 0, 0, 0, 4, 0, 0, 0, 0xF0, 0x9F, 0x98, 0x80};
        static const unsigned char good2[] = {2, 0, 0, 0, 1, 0, 0, 0, 'a', 1, 0, 0, 0, 0x80};
        static const struct {
            const unsigned char *p;
            size_t n, items;
            int rc;
        } cases[] = {
            {count_bad, sizeof count_bad, 2, GSVD_ECODEC},
            {count_bad, sizeof count_bad, 1, GSVD_ECODEC},
            {past_end, sizeof past_end, 1, GSVD_ECODEC},
            {len_cut, sizeof len_cut, 2, GSVD_ECODEC},
            {huge_len, sizeof huge_len, 1, GSVD_ECODEC},
            {overlong, sizeof overlong, 1, GSVD_ECODEC},
            {surrogate, sizeof surrogate, 1, GSVD_ECODEC},
            {lone, sizeof lone, 1, GSVD_ECODEC},
            {cut_seq, sizeof cut_seq, 1, GSVD_ECODEC},
            {nul, sizeof nul, 1, GSVD_ECODEC},
            {too_big, sizeof too_big, 1, GSVD_ECODEC},
            {trailing, sizeof trailing, 1, GSVD_ECODEC},
            {four, 3, 1, GSVD_ECODEC},
            {four, sizeof four, 1, GSVD_OK},
            {good2, sizeof good2, 2, GSVD_ECODEC}, /* second item 0x80 */
            {four, 0, 0, GSVD_ECODEC},
        };

        GSVD_CHECK_RC(chain_of(NULL, "[{\"id\":\"vlen-utf8\"}]", "|O", &c), GSVD_OK);
        for (size_t i = 0; c && i < GSVD_ARRAY_LEN(cases); i++) {
            GSVD_CHECK_RC(gsvd_strlist_push(&sl, "keep"), GSVD_OK);
            GSVD_CHECK_RC(gsvd_codec_chain_decode_vlen(c, ws, cases[i].p, cases[i].n,
                                                       cases[i].items, 1 << 20, "s/0", &sl),
                          cases[i].rc);
            /* failures leave the list as it was */
            GSVD_CHECK(cases[i].rc == GSVD_OK || (sl.n == 1 && strcmp(sl.items[0], "keep") == 0));
            gsvd_strlist_free(&sl);
        }
        GSVD_CHECK_RC(
            gsvd_codec_chain_decode_vlen(c, ws, past_end, sizeof past_end, 1, 4, "s/0", &sl),
            GSVD_ECODEC); /* over max_bytes */
        {
            const char *bad[] = {"ok", "\xC0\x80"};
            GSVD_CHECK_RC(gsvd_codec_chain_encode_vlen(c, ws, bad, 2, &enc), GSVD_EINVAL);
        }
        gsvd_codec_chain_free(c);
    }
    /* a fixed-size chain refuses the vlen decoder */
    {
        gsvd_codec_chain *c = NULL;
        GSVD_CHECK_RC(chain_of(NULL, NULL, "|u1", &c), GSVD_OK);
        if (c) {
            GSVD_CHECK(!gsvd_codec_chain_is_vlen(c));
            GSVD_CHECK_RC(gsvd_codec_chain_decode_vlen(c, ws, "\0\0\0\0", 4, 0, 100, "s/0", &sl),
                          GSVD_EINVAL);
            GSVD_CHECK_RC(gsvd_codec_chain_encode_vlen(c, ws, NULL, 0, &enc), GSVD_EINVAL);
        }
        gsvd_codec_chain_free(c);
    }
    gsvd_buf_free(&enc);
}

/* ---- corrupt chunks ----------------------------------------------------------------------- */

static void test_corrupt(gsvd_codec_ws *ws)
{
    unsigned char data[2000];
    unsigned char dec[2100];
    unsigned char bad[4096];
    struct gsvd_buf enc = GSVD_BUF_INIT;
    const char *bl = "{\"id\":\"blosc\",\"cname\":\"zstd\",\"clevel\":5,\"shuffle\":1}";
    const char *zs = "{\"id\":\"zstd\",\"level\":3}";
    const char *zl = "{\"id\":\"zlib\",\"level\":1}";
    const char *gz = "{\"id\":\"gzip\",\"level\":1}";
    const char *l4 = "{\"id\":\"lz4\"}";

    fill(data, sizeof data, 9);

    /* blosc */
    GSVD_CHECK_RC(encode_with(bl, NULL, "<i4", data, sizeof data, ws, &enc), GSVD_OK);
    GSVD_CHECK_RC(decode_with(bl, NULL, "<i4", enc.data, 10, dec, sizeof data, ws), GSVD_ECODEC);
    GSVD_CHECK_RC(decode_with(bl, NULL, "<i4", enc.data, 0, dec, sizeof data, ws), GSVD_ECODEC);
    GSVD_CHECK_RC(decode_with(bl, NULL, "<i4", enc.data, enc.len - 1, dec, sizeof data, ws),
                  GSVD_ECODEC); /* cbytes > n */
    GSVD_CHECK_RC(decode_with(bl, NULL, "<i4", enc.data, enc.len, dec, sizeof data + 4, ws),
                  GSVD_ECODEC); /* nbytes < cap */
    GSVD_CHECK_RC(decode_with(bl, NULL, "<i4", enc.data, enc.len, dec, sizeof data - 4, ws),
                  GSVD_ECODEC); /* nbytes > cap */
    memcpy(bad, enc.data, enc.len);
    bad[12] = 3; /* cbytes < 16 */
    bad[13] = bad[14] = bad[15] = 0;
    GSVD_CHECK_RC(decode_with(bl, NULL, "<i4", bad, enc.len, dec, sizeof data, ws), GSVD_ECODEC);
    memcpy(bad, enc.data, enc.len);
    for (size_t i = 16; i < enc.len; i++)
        bad[i] ^= 0x5a;
    GSVD_CHECK_RC(decode_with(bl, NULL, "<i4", bad, enc.len, dec, sizeof data, ws), GSVD_ECODEC);
    memcpy(bad, enc.data, 16); /* memcpyed flag with too few bytes */
    bad[2] |= 0x2;
    GSVD_CHECK_RC(decode_with(bl, NULL, "<i4", bad, 16, dec, sizeof data, ws), GSVD_ECODEC);

    /* zstd */
    GSVD_CHECK_RC(encode_with(zs, NULL, "<i4", data, sizeof data, ws, &enc), GSVD_OK);
    GSVD_CHECK_RC(decode_with(zs, NULL, "<i4", enc.data, enc.len - 3, dec, sizeof data, ws),
                  GSVD_ECODEC);
    GSVD_CHECK_RC(decode_with(zs, NULL, "<i4", enc.data, enc.len, dec, sizeof data - 4, ws),
                  GSVD_ECODEC);
    GSVD_CHECK_RC(decode_with(zs, NULL, "<i4", enc.data, enc.len, dec, sizeof data + 4, ws),
                  GSVD_ECODEC);
    GSVD_CHECK_RC(decode_with(zs, NULL, "<i4", "garbage!", 8, dec, sizeof data, ws), GSVD_ECODEC);
    GSVD_CHECK_RC(decode_with(zs, NULL, "<i4", "", 0, dec, sizeof data, ws), GSVD_ECODEC);
    memcpy(bad, enc.data, enc.len);
    memcpy(bad + enc.len, "junk", 4);
    GSVD_CHECK_RC(decode_with(zs, NULL, "<i4", bad, enc.len + 4, dec, sizeof data, ws),
                  GSVD_ECODEC);
    memcpy(bad, enc.data, enc.len);
    for (size_t i = 8; i < enc.len; i++)
        bad[i] ^= 0x33;
    GSVD_CHECK_RC(decode_with(zs, NULL, "<i4", bad, enc.len, dec, sizeof data, ws), GSVD_ECODEC);

    /* zlib and gzip */
    GSVD_CHECK_RC(encode_with(zl, NULL, "<i4", data, sizeof data, ws, &enc), GSVD_OK);
    GSVD_CHECK_RC(decode_with(zl, NULL, "<i4", enc.data, enc.len - 5, dec, sizeof data, ws),
                  GSVD_ECODEC); /* truncated */
    GSVD_CHECK_RC(decode_with(zl, NULL, "<i4", enc.data, enc.len, dec, sizeof data - 4, ws),
                  GSVD_ECODEC); /* too much output */
    GSVD_CHECK_RC(decode_with(zl, NULL, "<i4", enc.data, enc.len, dec, sizeof data + 4, ws),
                  GSVD_ECODEC); /* too little */
    GSVD_CHECK_RC(decode_with(zl, NULL, "<i4", "garbage!", 8, dec, sizeof data, ws), GSVD_ECODEC);
    GSVD_CHECK_RC(decode_with(gz, NULL, "<i4", enc.data, enc.len, dec, sizeof data, ws),
                  GSVD_ECODEC); /* zlib container read as gzip */
    memcpy(bad, enc.data, enc.len);
    memcpy(bad + enc.len, "junk", 4);
    GSVD_CHECK_RC(decode_with(zl, NULL, "<i4", bad, enc.len + 4, dec, sizeof data, ws),
                  GSVD_ECODEC); /* trailing bytes */
    memcpy(bad, enc.data, enc.len);
    bad[enc.len - 1] ^= 1; /* adler32 */
    GSVD_CHECK_RC(decode_with(zl, NULL, "<i4", bad, enc.len, dec, sizeof data, ws), GSVD_ECODEC);
    GSVD_CHECK_RC(encode_with(gz, NULL, "<i4", data, sizeof data, ws, &enc), GSVD_OK);
    GSVD_CHECK(enc.len > 2 && (unsigned char)enc.data[0] == 0x1f);
    GSVD_CHECK_RC(decode_with(gz, NULL, "<i4", enc.data, enc.len - 1, dec, sizeof data, ws),
                  GSVD_ECODEC);
    memcpy(bad, enc.data, enc.len);
    memcpy(bad + enc.len, "\0\0\0\0", 4);
    GSVD_CHECK_RC(decode_with(gz, NULL, "<i4", bad, enc.len + 4, dec, sizeof data, ws),
                  GSVD_ECODEC);

    /* lz4 */
    GSVD_CHECK_RC(encode_with(l4, NULL, "<i4", data, sizeof data, ws, &enc), GSVD_OK);
    GSVD_CHECK(enc.len > 4 && memcmp(enc.data, "\xd0\x07\0\0", 4) == 0); /* 2000 */
    GSVD_CHECK_RC(decode_with(l4, NULL, "<i4", enc.data, 3, dec, sizeof data, ws), GSVD_ECODEC);
    GSVD_CHECK_RC(decode_with(l4, NULL, "<i4", enc.data, enc.len - 2, dec, sizeof data, ws),
                  GSVD_ECODEC);
    GSVD_CHECK_RC(decode_with(l4, NULL, "<i4", enc.data, enc.len, dec, sizeof data - 4, ws),
                  GSVD_ECODEC);
    GSVD_CHECK_RC(decode_with(l4, NULL, "<i4", enc.data, enc.len, dec, sizeof data + 4, ws),
                  GSVD_ECODEC);
    memcpy(bad, enc.data, enc.len);
    bad[0] = 0xd4; /* prefix claims 4 more bytes */
    GSVD_CHECK_RC(decode_with(l4, NULL, "<i4", bad, enc.len, dec, sizeof data + 4, ws),
                  GSVD_ECODEC);
    memcpy(bad, "\x08\0\0\0\xff\xff\xff", 7);
    GSVD_CHECK_RC(decode_with(l4, NULL, "<i4", bad, 7, dec, 8, ws), GSVD_ECODEC);

    /* raw bytes: the size must match */
    GSVD_CHECK_RC(decode_with("null", NULL, "<i4", data, 8, dec, 8, ws), GSVD_OK);
    GSVD_CHECK_RC(decode_with("null", NULL, "<i4", data, 8, dec, 12, ws), GSVD_ECODEC);
    /* delta without a compressor: partial element, wrong size */
    GSVD_CHECK_RC(
        decode_with(NULL, "[{\"dtype\":\"<i4\",\"id\":\"delta\"}]", "<i4", data, 6, dec, 8, ws),
        GSVD_ECODEC);
    GSVD_CHECK_RC(
        decode_with(NULL, "[{\"dtype\":\"<i4\",\"id\":\"delta\"}]", "<i4", data, 4, dec, 8, ws),
        GSVD_ECODEC);
    gsvd_buf_free(&enc);
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

/* ---- --one-roundtrip ------------------------------------------------------------------------ */

/* One of each: parse, encode, decode, JSON; GSVD_OK, or the first error (GSVD_ENOMEM when an
 * injected allocation failure hit). */
static int one_roundtrip(void)
{
    int rc = GSVD_OK;
    gsvd_codec_ws *ws = NULL;
    gsvd_codec_chain *c = NULL;
    struct gsvd_buf enc = GSVD_BUF_INIT, comp = GSVD_BUF_INIT, filt = GSVD_BUF_INIT;
    struct gsvd_strlist sl = GSVD_STRLIST_INIT;
    struct gsvd_dtype dt = {'i', '<', 4};
    struct gsvd_dtype dto = {'O', '|', sizeof(char *)};
    static const char *const comps[] = {
        "{\"id\":\"blosc\",\"cname\":\"zstd\",\"clevel\":5,\"shuffle\":1}",
        "{\"id\":\"zstd\",\"level\":1}", "{\"id\":\"zlib\",\"level\":1}",
        "{\"id\":\"gzip\",\"level\":1}", "{\"id\":\"lz4\"}"};
    const char *items[] = {"a", "bc", "\xC3\xA9"};
    unsigned char data[512], dec[512];

    fill(data, sizeof data, 1);
    GSVD_TRY(gsvd_codec_ws_new(&ws));
    for (size_t i = 0; i < GSVD_ARRAY_LEN(comps); i++) {
        GSVD_TRY(gsvd_codec_chain_parse_json(comps[i], "[{\"dtype\":\"<i4\",\"id\":\"delta\"}]",
                                             &dt, "t", &c));
        GSVD_TRY(gsvd_codec_chain_encode(c, ws, data, sizeof data, &enc));
        GSVD_TRY(gsvd_codec_chain_decode(c, ws, enc.data, enc.len, dec, sizeof dec, "t/0"));
        if (memcmp(dec, data, sizeof data) != 0) {
            rc = GSVD_EINTERNAL;
            goto out;
        }
        GSVD_TRY(gsvd_codec_chain_to_json(c, &comp, &filt));
        gsvd_codec_chain_free(c);
        c = NULL;

        GSVD_TRY(gsvd_codec_chain_parse_json(comps[i], "[{\"id\":\"vlen-utf8\"}]", &dto, "s", &c));
        GSVD_TRY(gsvd_codec_chain_encode_vlen(c, ws, items, 3, &enc));
        GSVD_TRY(gsvd_codec_chain_decode_vlen(c, ws, enc.data, enc.len, 3, 1 << 16, "s/0", &sl));
        if (sl.n != 3 || strcmp(sl.items[2], items[2]) != 0) {
            rc = GSVD_EINTERNAL;
            goto out;
        }
        gsvd_strlist_free(&sl);
        gsvd_codec_chain_free(c);
        c = NULL;
    }
    GSVD_TRY(gsvd_codec_chain_default(&dt, &c));
out:
    gsvd_codec_chain_free(c);
    gsvd_codec_ws_free(ws);
    gsvd_buf_free(&enc);
    gsvd_buf_free(&comp);
    gsvd_buf_free(&filt);
    gsvd_strlist_free(&sl);
    return rc;
}

int main(int argc, char **argv)
{
    gsvd_codec_ws *ws = NULL;

    if (argc > 1 && strcmp(argv[1], "--one-roundtrip") == 0) {
        int rc = one_roundtrip();
        return rc == GSVD_OK ? 0 : rc == GSVD_ENOMEM ? 3 : 1;
    }
    if (argc > 1 && strcmp(argv[1], "-v") != 0) {
        fprintf(stderr, "usage: test_codec [-v | --one-roundtrip]\n");
        return 2;
    }
    /* error paths log by design; -v shows them */
    gsvd_log_set_level(argc > 1 ? GSVD_LOG_DEBUG : GSVD_LOG_OFF);
    test_dtype();
    GSVD_CHECK_RC(gsvd_codec_ws_new(&ws), GSVD_OK);
    if (ws) {
        test_roundtrips(ws);
        test_delta(ws);
        test_known(ws);
        test_vlen(ws);
        test_corrupt(ws);
    }
    gsvd_codec_ws_free(ws);
    test_config();
    test_json();
    return gsvd_test_report("test_codec");
}
