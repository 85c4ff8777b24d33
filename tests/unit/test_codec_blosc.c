/* tests/unit/test_codec_blosc.c - the blosc codec (zarr/codec_blosc.c) against c-blosc itself:
 * the bit-shuffled one-byte fast path on frames c-blosc wrote, every level of the bit-unshuffle
 * against its definition, and hostile headers: every value of each header byte, where gensvd
 * must accept exactly the frames blosc_decompress_ctx accepts and decode them to the same bytes
 * (the class fuzz_differential found: format versions 0 and 1, the reserved flag 0x08). */
#include "gsvd_config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <blosc.h>

#include "common/err.h"
#include "common/log.h"
#include "tests/gsvd_test.h"
#include "zarr/codec.h"
#include "zarr/codec_internal.h"
#include "zarr/dtype.h"

static int decode_with(const char *comp, const void *src, size_t n, void *dst, size_t cap,
                       gsvd_codec_ws *ws)
{
    struct gsvd_dtype dt = {0, 0, 0};
    gsvd_codec_chain *c = NULL;
    int rc = gsvd_dtype_parse("|i1", &dt);

    if (rc == GSVD_OK)
        rc = gsvd_codec_chain_parse_json(comp, NULL, &dt, "t/.zarray", &c);
    if (rc == GSVD_OK)
        rc = gsvd_codec_chain_decode(c, ws, src, n, dst, cap, "t/0");
    gsvd_codec_chain_free(c);
    return rc;
}

/* The bit-shuffled one-byte fast path must decode exactly what c-blosc itself decodes: frames
 * made by c-blosc (zstd and lz4, several block sizes, sizes with leftover blocks and with byte
 * counts that are not multiples of 8), checked against blosc_decompress_ctx. */
static void test_blosc_fast_path(gsvd_codec_ws *ws)
{
    static const size_t sizes[] = {1, 7, 8, 9, 64, 1000, 4096, 65536, 100003, 262144, 700001};
    static const int blocks[] = {0, 256, 4096, 65536};
    static const char *const cnames[] = {"zstd", "lz4", "blosclz"};
    uint64_t state = 88172645463325252ull;

    for (size_t si = 0; si < GSVD_ARRAY_LEN(sizes); si++) {
        size_t n = sizes[si];
        unsigned char *src = malloc(n), *frame = malloc(n + BLOSC_MAX_OVERHEAD);
        unsigned char *ref = malloc(n), *got = malloc(n);
        if (!src || !frame || !ref || !got) {
            GSVD_CHECK(0);
            free(src), free(frame), free(ref), free(got);
            return;
        }
        for (size_t i = 0; i < n; i++) { /* genotype-like: mostly 0/1, some -1 */
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            src[i] = (unsigned char)((state % 16) == 0 ? 0xff : (state >> 8) % 2);
        }
        for (size_t ci = 0; ci < GSVD_ARRAY_LEN(cnames); ci++) {
            for (size_t bi = 0; bi < GSVD_ARRAY_LEN(blocks); bi++) {
                char comp[160];
                int csize =
                    blosc_compress_ctx(5, BLOSC_BITSHUFFLE, 1, n, src, frame,
                                       n + BLOSC_MAX_OVERHEAD, cnames[ci], (size_t)blocks[bi], 1);
                GSVD_CHECK(csize > 0);
                if (csize <= 0)
                    continue;
                GSVD_CHECK(blosc_decompress_ctx(frame, ref, n, 1) == (int)n);
                GSVD_CHECK(memcmp(ref, src, n) == 0);
                snprintf(comp, sizeof comp,
                         "{\"id\":\"blosc\",\"cname\":\"%s\",\"clevel\":5,\"shuffle\":2,"
                         "\"blocksize\":%d}",
                         cnames[ci], blocks[bi]);
                memset(got, 0x5a, n);
                GSVD_CHECK_RC(decode_with(comp, frame, (size_t)csize, got, n, ws), GSVD_OK);
                GSVD_CHECK(memcmp(got, src, n) == 0);
            }
        }
        free(src), free(frame), free(ref), free(got);
    }
}

/* Every level of the bit-unshuffle (portable, SSE2, AVX2 or AVX-512 + GFNI) against the
 * definition, bit by bit, on uniformly random bytes (all 8 bit positions in use) and sizes around
 * the vector widths (64, 256 and 512 bytes: 8, 32 and 64 columns). */
static void test_bitunshuffle_levels(void)
{
    static const size_t sizes[] = {8,   56,  64,  72,   248,  256,       264,   504,
                                   512, 520, 776, 1024, 4096, 65536 + 8, 262144};
    uint64_t state = 0x9E3779B97F4A7C15ull;

    for (size_t si = 0; si < GSVD_ARRAY_LEN(sizes); si++) {
        size_t n = sizes[si], S = n / 8, bad[3] = {0, 0, 0};
        unsigned char *in = malloc(n), *want = calloc(n, 1), *got = malloc(n + 1);
        if (!in || !want || !got) {
            GSVD_CHECK(0);
            free(in), free(want), free(got);
            return;
        }
        for (size_t i = 0; i < n; i++) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            in[i] = (unsigned char)(state >> 24);
        }
        for (size_t k = 0; k < S; k++)
            for (size_t t = 0; t < 8; t++)
                for (size_t b = 0; b < 8; b++)
                    want[8 * k + t] |= (unsigned char)(((in[b * S + k] >> t) & 1) << b);
        for (int level = 0; level < 3; level++) {
            memset(got, 0x5a, n + 1);
            gsvd_blosc_bitunshuffle1(in, got, n, level);
            bad[level] = memcmp(got, want, n) != 0 || got[n] != 0x5a;
        }
        GSVD_CHECK(bad[0] == 0);
        GSVD_CHECK(bad[1] == 0);
        GSVD_CHECK(bad[2] == 0);
        free(in), free(want), free(got);
    }
}

enum { HOSTILE_N = 256 };

/* Bases for the header sweep: c-blosc's own zstd and lz4 frames of bit-shuffled one-byte
 * data (two blocks), and a hand-built lz4 frame whose one block is stored raw. */
static size_t hostile_bases(unsigned char frames[3][HOSTILE_N + BLOSC_MAX_OVERHEAD], size_t len[3],
                            unsigned char *src)
{
    static const char *const cnames[] = {"zstd", "lz4"};

    for (size_t i = 0; i < HOSTILE_N; i++)
        src[i] = (unsigned char)(i % 3 == 0 ? 1 : i % 11 == 0 ? 0xff : 0);
    for (size_t c = 0; c < 2; c++) {
        int got = blosc_compress_ctx(5, BLOSC_BITSHUFFLE, 1, HOSTILE_N, src, frames[c],
                                     HOSTILE_N + BLOSC_MAX_OVERHEAD, cnames[c], 128, 1);
        GSVD_CHECK(got > 16 && !(frames[c][2] & BLOSC_MEMCPYED));
        len[c] = got > 0 ? (size_t)got : 0;
    }
    /* version 2, lz4 format 1, bit-shuffle + lz4 (1 << 5), typesize 1; nbytes = blocksize =
     * 64, cbytes 16 + 4 + 4 + 64; block 0 at offset 20: size 64 = stored raw */
    static const unsigned char hdr[24] = {2,  1, 0x24, 1, 64, 0, 0, 0, 64, 0, 0, 0,
                                          88, 0, 0,    0, 20, 0, 0, 0, 64, 0, 0, 0};
    memcpy(frames[2], hdr, sizeof hdr);
    memcpy(frames[2] + sizeof hdr, src, 64);
    len[2] = sizeof hdr + 64;
    return 3;
}

/* One frame through both decoders: 1 when they agree (both refuse, or both return the same
 * bytes); *ours_ok tells whether gensvd accepted it. */
static int agree(const unsigned char *frame, size_t len, size_t cap, gsvd_codec_ws *ws,
                 int *ours_ok)
{
    static const char comp[] = "{\"id\":\"blosc\",\"cname\":\"zstd\",\"clevel\":5,\"shuffle\":2}";
    unsigned char got[HOSTILE_N], ref[HOSTILE_N];
    int ref_n = blosc_decompress_ctx(frame, ref, cap, 1);

    *ours_ok = decode_with(comp, frame, len, got, cap, ws) == GSVD_OK;
    if (!*ours_ok)
        return ref_n != (int)cap;
    return ref_n == (int)cap && memcmp(got, ref, cap) == 0;
}

/* Every value of header bytes 0 (format version), 1 (codec version), 2 (flags) and 3
 * (typesize), one at a time, on each base frame: gensvd accepts exactly what c-blosc accepts.
 * Then the crafted frames of the finding by name, and an empty frame of version 1 (c-blosc
 * returns 0 bytes without looking at the version; so do we). */
static void test_blosc_hostile_headers(gsvd_codec_ws *ws)
{
    unsigned char frames[3][HOSTILE_N + BLOSC_MAX_OVERHEAD], src[HOSTILE_N], f[512];
    size_t len[3], n_base = hostile_bases(frames, len, src), disagree = 0, accepted = 0;
    int ok;

    for (size_t b = 0; b < n_base; b++) {
        size_t cap = b == 2 ? 64 : HOSTILE_N;
        GSVD_CHECK(agree(frames[b], len[b], cap, ws, &ok) && ok);
        for (size_t at = 0; at < 4; at++) {
            for (unsigned v = 0; v < 256; v++) {
                memcpy(f, frames[b], len[b]);
                f[at] = (unsigned char)v;
                disagree += !agree(f, len[b], cap, ws, &ok);
                accepted += (size_t)ok;
                if (b == 2 && at == 0) /* only version 2 decodes */
                    GSVD_CHECK(ok == (v == BLOSC_VERSION_FORMAT));
                if (b == 2 && at == 2 && (v & 0x08)) /* the reserved flag never does */
                    GSVD_CHECK(!ok);
            }
        }
    }
    GSVD_CHECK(disagree == 0);
    GSVD_CHECK(accepted > 12); /* each base at least with its own bytes */
    if (disagree)
        fprintf(stderr, "blosc header sweep: %zu frames decoded differently\n", disagree);

    memcpy(f, frames[2], len[2]);
    f[4] = f[5] = f[6] = f[7] = 0; /* nbytes 0 */
    f[0] = 1;
    GSVD_CHECK(blosc_decompress_ctx(f, src, sizeof src, 1) == 0);
    GSVD_CHECK_RC(decode_with("{\"id\":\"blosc\"}", f, len[2], src, 0, ws), GSVD_OK);
}

int main(int argc, char **argv)
{
    gsvd_codec_ws *ws = NULL;

    /* -v: show the refusals */
    gsvd_log_set_level(argc > 1 && strcmp(argv[1], "-v") == 0 ? GSVD_LOG_DEBUG : GSVD_LOG_OFF);
    blosc_init();
    GSVD_CHECK_RC(gsvd_codec_ws_new(&ws), GSVD_OK);
    if (ws) {
        test_blosc_fast_path(ws);
        test_blosc_hostile_headers(ws);
    }
    test_bitunshuffle_levels();
    gsvd_codec_ws_free(ws);
    blosc_destroy();
    return gsvd_test_report("test_codec_blosc");
}
