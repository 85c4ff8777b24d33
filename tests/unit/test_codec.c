/* tests/unit/test_codec.c - zarr/codec.h's fixed-size chunks against the contract: round trips
 * for every codec and element size, hand-built encodings, corrupt chunks and their error codes
 * (vlen-utf8: test_codec_vlen; dtypes and chain configuration: test_codec_config).
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
#include "tests/unit/codec_util.h"
#include "zarr/codec.h"
#include "zarr/dtype.h"

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
    GSVD_CHECK_RC(gsvd_codec_ws_new(&ws), GSVD_OK);
    if (ws) {
        test_roundtrips(ws);
        test_delta(ws);
        test_known(ws);
        test_corrupt(ws);
    }
    gsvd_codec_ws_free(ws);
    return gsvd_test_report("test_codec");
}
