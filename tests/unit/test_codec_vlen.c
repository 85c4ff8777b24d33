/* tests/unit/test_codec_vlen.c - zarr/codec.h's vlen-utf8 chunks against the contract: round
 * trips through every compressor, the byte layout numcodecs writes, hostile layouts and invalid
 * UTF-8, and the size limits. */
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

int main(int argc, char **argv)
{
    gsvd_codec_ws *ws = NULL;

    if (gsvd_test_args(argc, argv, "test_codec_vlen") != 0)
        return 2;
    GSVD_CHECK_RC(gsvd_codec_ws_new(&ws), GSVD_OK);
    if (ws)
        test_vlen(ws);
    gsvd_codec_ws_free(ws);
    return gsvd_test_report("test_codec_vlen");
}
