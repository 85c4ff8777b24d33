/* tests/fuzz/fuzz_differential.c - differential libFuzzer target: gensvd's decoders against the
 * libraries' own one-shot decoders on the same bytes.
 * Input: byte 0 picks the mode (data[0] % 6), the rest is the payload.
 *   0 blosc frame:  our blosc decode (header checks, the bit-unshuffle fast path for one-byte
 *                   zstd/lz4 frames, else blosc_decompress_ctx) into the size the header
 *                   states (at most 64 KiB); when we accept it, c-blosc's decoder must return
 *                   the same bytes.
 *   1 blosc encode: the payload compressed by c-blosc (typesize 1, bit-shuffle, zstd or lz4 by
 *                   bit 3 of byte 0, block size from bits 4..7) must decode through our chain
 *                   to the payload; and gsvd_blosc_bitunshuffle1 at levels 0, 1 and 2 must
 *                   equal a bit-by-bit reference (bit b of byte 8k + t is bit t of byte
 *                   b S + k) on the payload cut to a multiple of 8.
 *   2 zstd:         our zstd decode into the frame's stated content size (at most 64 KiB);
 *                   when we accept, ZSTD_decompress must return the same bytes.
 *   3 zlib, 4 gzip: our decode into 256 bytes; when we accept, zlib's inflate (windowBits 15,
 *                   or 31 for gzip) must end the stream with the same 256 bytes.
 *   5 lz4:          numcodecs framing (4-byte little-endian size, then one LZ4 block); our
 *                   decode into the stated size (at most 64 KiB); when we accept,
 *                   LZ4_decompress_safe must return the same bytes.
 * Built with standalone.c when libFuzzer is not available. */
#include "gsvd_config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <blosc.h>
#include <lz4.h>
#include <zlib.h>
#include <zstd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/codec.h"
#include "zarr/codec_internal.h" /* gsvd_blosc_bitunshuffle1 */
#include "zarr/dtype.h"
#include "zarr/meta.h"

#define MAX_OUT (1u << 16)
#define ZLIB_CAP 256

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gsvd_meta_global_init();
    gsvd_log_set_level(GSVD_LOG_OFF); /* every rejected input would log */
    blosc_init();
    return 0;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Decode src[n] with compressor `comp` (JSON) into exactly cap bytes at dst; GSVD_OK or not. */
static int ours(const char *comp, const uint8_t *src, size_t n, uint8_t *dst, size_t cap)
{
    struct gsvd_dtype dt;
    gsvd_codec_chain *c = NULL;
    gsvd_codec_ws *ws = NULL;
    int rc;

    if (gsvd_dtype_parse("|u1", &dt) != GSVD_OK ||
        gsvd_codec_chain_parse_json(comp, "null", &dt, "fuzz", &c) != GSVD_OK ||
        gsvd_codec_ws_new(&ws) != GSVD_OK)
        __builtin_trap(); /* fixed, valid chains */
    rc = gsvd_codec_chain_decode(c, ws, src, n, dst, cap, "fuzz/0");
    gsvd_codec_ws_free(ws);
    gsvd_codec_chain_free(c);
    return rc;
}

static void same(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (n && memcmp(a, b, n) != 0)
        __builtin_trap();
}

static void blosc_frame(const uint8_t *src, size_t n, uint8_t *dst, uint8_t *ref)
{
    static const char comp[] = "{\"blocksize\":0,\"clevel\":5,\"cname\":\"zstd\",\"id\":\"blosc\","
                               "\"shuffle\":2}";
    uint32_t cap;

    if (n < 16 || (cap = le32(src + 4)) == 0 || cap > MAX_OUT)
        return;
    if (ours(comp, src, n, dst, cap) != GSVD_OK)
        return;
    /* our header check guarantees cbytes <= n, which c-blosc 1.x would otherwise trust */
    if (blosc_decompress_ctx(src, ref, cap, 1) != (int)cap)
        __builtin_trap(); /* we decoded a frame c-blosc refuses */
    same(dst, ref, cap);
}

/* Reference bit-unshuffle of n bytes (n a multiple of 8). */
static void unshuffle_ref(const uint8_t *in, uint8_t *out, size_t n)
{
    size_t S = n / 8;
    memset(out, 0, n);
    for (size_t k = 0; k < S; k++)
        for (size_t t = 0; t < 8; t++)
            for (size_t b = 0; b < 8; b++)
                out[8 * k + t] |= (uint8_t)(((in[b * S + k] >> t) & 1u) << b);
}

static void blosc_encode(uint8_t sel, const uint8_t *src, size_t n, uint8_t *dst, uint8_t *ref)
{
    static const char comp_zstd[] = "{\"blocksize\":0,\"clevel\":1,\"cname\":\"zstd\",\"id\":"
                                    "\"blosc\",\"shuffle\":2}";
    static const char comp_lz4[] = "{\"blocksize\":0,\"clevel\":1,\"cname\":\"lz4\",\"id\":"
                                   "\"blosc\",\"shuffle\":2}";
    size_t blocksize = (size_t)(sel >> 4) * 64, m = n & ~(size_t)7, cap = n + BLOSC_MAX_OVERHEAD;
    uint8_t *frame = gsvd_malloc(cap);
    int got;

    if (!frame || n == 0 || n > MAX_OUT)
        goto out;
    got = blosc_compress_ctx(1, BLOSC_BITSHUFFLE, 1, n, src, frame, cap, sel & 8 ? "lz4" : "zstd",
                             blocksize, 1);
    if (got <= 0)
        goto out;
    if (ours(sel & 8 ? comp_lz4 : comp_zstd, frame, (size_t)got, dst, n) != GSVD_OK)
        __builtin_trap(); /* we refuse a frame c-blosc wrote */
    same(dst, src, n);
    unshuffle_ref(src, ref, m);
    for (int level = 0; level <= 2; level++) {
        memset(dst, 0xA5, m);
        gsvd_blosc_bitunshuffle1(src, dst, m, level);
        same(dst, ref, m);
    }
out:
    gsvd_free(frame);
}

static void zstd_frame(const uint8_t *src, size_t n, uint8_t *dst, uint8_t *ref)
{
    unsigned long long cap = ZSTD_getFrameContentSize(src, n);

    if (cap == ZSTD_CONTENTSIZE_UNKNOWN || cap == ZSTD_CONTENTSIZE_ERROR || cap == 0 ||
        cap > MAX_OUT)
        return;
    if (ours("{\"id\":\"zstd\",\"level\":1}", src, n, dst, (size_t)cap) != GSVD_OK)
        return;
    if (ZSTD_decompress(ref, (size_t)cap, src, n) != cap)
        __builtin_trap();
    same(dst, ref, (size_t)cap);
}

static void zlib_stream(int gzip, const uint8_t *src, size_t n, uint8_t *dst, uint8_t *ref)
{
    z_stream zs;
    int zrc;

    if (ours(gzip ? "{\"id\":\"gzip\",\"level\":1}" : "{\"id\":\"zlib\",\"level\":1}", src, n, dst,
             ZLIB_CAP) != GSVD_OK)
        return;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, gzip ? 31 : 15) != Z_OK)
        return;
    zs.next_in = (Bytef *)(uintptr_t)src;
    zs.avail_in = (uInt)n;
    zs.next_out = ref;
    zs.avail_out = ZLIB_CAP;
    zrc = inflate(&zs, Z_FINISH);
    inflateEnd(&zs);
    if (zrc != Z_STREAM_END || zs.total_out != ZLIB_CAP)
        __builtin_trap();
    same(dst, ref, ZLIB_CAP);
}

static void lz4_frame(const uint8_t *src, size_t n, uint8_t *dst, uint8_t *ref)
{
    uint32_t cap;

    if (n < 4 || (cap = le32(src)) == 0 || cap > MAX_OUT || n - 4 > INT32_MAX)
        return;
    if (ours("{\"acceleration\":1,\"id\":\"lz4\"}", src, n, dst, cap) != GSVD_OK)
        return;
    if (LZ4_decompress_safe((const char *)src + 4, (char *)ref, (int)(n - 4), (int)cap) != (int)cap)
        __builtin_trap();
    same(dst, ref, cap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *dst = NULL, *ref = NULL, *src = NULL;
    size_t n;

    if (size < 1)
        return 0;
    n = size - 1;
    dst = gsvd_malloc(MAX_OUT);
    ref = gsvd_malloc(MAX_OUT);
    src = gsvd_malloc(n ? n : 1); /* exact size: reads past the payload are caught */
    if (!dst || !ref || !src)
        goto out;
    if (n)
        memcpy(src, data + 1, n);
    switch (data[0] % 6) {
    case 0:
        blosc_frame(src, n, dst, ref);
        break;
    case 1:
        blosc_encode(data[0], src, n, dst, ref);
        break;
    case 2:
        zstd_frame(src, n, dst, ref);
        break;
    case 3:
    case 4:
        zlib_stream(data[0] % 6 == 4, src, n, dst, ref);
        break;
    default:
        lz4_frame(src, n, dst, ref);
        break;
    }
out:
    gsvd_free(dst);
    gsvd_free(ref);
    gsvd_free(src);
    return 0;
}
