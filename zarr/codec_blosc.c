/* zarr/codec_blosc.c - numcodecs "blosc" through c-blosc 1.x, context API only (the plain API
 * holds a process-wide lock and reads environment variables).
 * c-blosc 1.x trusts the cbytes field of the 16-byte header, so decode checks the header against
 * the real chunk length before handing it over: that is blosc_cbuffer_validate's check, relaxed
 * to cbytes <= n because some writers pad chunks (z5py added 16 zero bytes). */
#include "gsvd_config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <blosc.h>
#include <lz4.h>
#include <zstd.h>
#include <cjson/cJSON.h>

#include "common/alloc.h"
#include "common/cpu.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/codec_internal.h"

/* Decoders log only when given a key; key == NULL is codec_chain.c's quiet size probe. */
#define LOG_KEY(key, ...)                                                                          \
    do {                                                                                           \
        if (key)                                                                                   \
            gsvd_log_error(__VA_ARGS__);                                                           \
    } while (0)

#define BLOSC_HEADER 16
#define BLOSC_FLAG_RESERVED 0x08 /* c-blosc 1.x: "compressor flags from the future" */

struct blosc_cfg {
    char cname[8];   /* blosclz, lz4, lz4hc, snappy, zlib, zstd */
    int clevel;      /* 0..9 */
    int shuffle;     /* -1 auto, 0 none, 1 byte, 2 bit: as written in JSON */
    int blocksize;   /* bytes; 0 = automatic */
    size_t typesize; /* numpy itemsize of the encoded buffer; 1 when over 255 */
};

static uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int cname_ok(const char *cname, const char *where)
{
    static const char *const names[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};

    for (size_t i = 0; i < GSVD_ARRAY_LEN(names); i++)
        if (strcmp(cname, names[i]) == 0)
            return GSVD_OK;
    if (strcmp(cname, "snappy") == 0) {
        if (blosc_get_complib_info("snappy", NULL, NULL) >= 0)
            return GSVD_OK;
        gsvd_log_error("%s: blosc cname 'snappy' not supported: this c-blosc lacks snappy", where);
        return GSVD_EUNSUPPORTED;
    }
    gsvd_log_error("%s: blosc cname '%s' is none of blosclz, lz4, lz4hc, snappy, zlib, zstd", where,
                   cname);
    return GSVD_EFORMAT;
}

/* Keys absent from the config take numcodecs' defaults (lz4, 5, byte shuffle, automatic). */
static int blosc_parse(const cJSON *config, const struct gsvd_dtype *dt, const char *where,
                       void **cfg_out)
{
    int rc = GSVD_OK;
    const cJSON *cname = cJSON_GetObjectItemCaseSensitive(config, "cname");
    struct blosc_cfg *cfg = NULL;
    long long clevel, shuffle, blocksize;

    *cfg_out = NULL;
    if (cname && (!cJSON_IsString(cname) || strlen(cname->valuestring) >= sizeof cfg->cname)) {
        gsvd_log_error("%s: blosc \"cname\" is not a compressor name", where);
        return GSVD_EFORMAT;
    }
    GSVD_TRY(cname_ok(cname ? cname->valuestring : "lz4", where));
    GSVD_TRY(gsvd_codec_json_int(config, "clevel", 0, 9, 0, 5, where, &clevel));
    GSVD_TRY(gsvd_codec_json_int(config, "shuffle", -1, 2, 0, 1, where, &shuffle));
    GSVD_TRY(gsvd_codec_json_int(config, "blocksize", 0, INT_MAX, 0, 0, where, &blocksize));
    cfg = gsvd_calloc(1, sizeof *cfg);
    if (!cfg) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    snprintf(cfg->cname, sizeof cfg->cname, "%s", cname ? cname->valuestring : "lz4");
    cfg->clevel = (int)clevel;
    cfg->shuffle = (int)shuffle;
    cfg->blocksize = (int)blocksize;
    /* vlen-utf8 output is a byte buffer; c-blosc 1.x treats typesizes over 255 as 1 */
    cfg->typesize = dt->kind == 'O' || dt->size > BLOSC_MAX_TYPESIZE ? 1 : dt->size;
    *cfg_out = cfg;
out:
    return rc;
}

static void blosc_free_cfg(void *cfg)
{
    gsvd_free(cfg);
}

static int blosc_to_json(const void *cfgp, cJSON **out)
{
    const struct blosc_cfg *cfg = cfgp;
    cJSON *o = cJSON_CreateObject();

    *out = NULL;
    if (!o || !cJSON_AddNumberToObject(o, "blocksize", cfg->blocksize) ||
        !cJSON_AddNumberToObject(o, "clevel", cfg->clevel) ||
        !cJSON_AddStringToObject(o, "cname", cfg->cname) ||
        !cJSON_AddStringToObject(o, "id", "blosc") ||
        !cJSON_AddNumberToObject(o, "shuffle", cfg->shuffle)) {
        cJSON_Delete(o);
        gsvd_log_error("out of memory building blosc JSON");
        return GSVD_ENOMEM;
    }
    *out = o;
    return GSVD_OK;
}

/* The header fields c-blosc 1.21 refuses before it decodes a block
 * (blosc_run_decompression_with_context): a format version other than BLOSC_VERSION_FORMAT
 * (older ones too), the reserved flag 0x08, a block size of 0 or over BLOSC_MAX_BLOCKSIZE.
 * Checked here so that the fast path never decodes a frame c-blosc refuses (fuzz_differential
 * found versions 0 and 1 and the flag 0x08 decoded) and the message says what is wrong. */
static int check_header_fields(const unsigned char *p, const char *key)
{
    uint32_t blocksize = load_le32(p + 8);

    if (p[0] != BLOSC_VERSION_FORMAT) {
        LOG_KEY(key, "%s: blosc frame format version %u is not the one c-blosc 1.x reads (%d)", key,
                (unsigned)p[0], BLOSC_VERSION_FORMAT);
        return GSVD_ECODEC;
    }
    if (p[2] & BLOSC_FLAG_RESERVED) {
        LOG_KEY(key, "%s: blosc frame sets the reserved flag 0x08 (flags 0x%02x)", key,
                (unsigned)p[2]);
        return GSVD_ECODEC;
    }
    if (blocksize == 0 || blocksize > BLOSC_MAX_BLOCKSIZE) {
        LOG_KEY(key, "%s: blosc block size %lu is outside 1 to %lu", key, (unsigned long)blocksize,
                (unsigned long)BLOSC_MAX_BLOCKSIZE);
        return GSVD_ECODEC;
    }
    return GSVD_OK;
}

/* Check the header against the chunk: 16 <= cbytes <= n, nbytes within the output, and (for a
 * frame that is not empty) the fields c-blosc checks. */
static int check_header(const unsigned char *p, size_t n, size_t cap, const char *key,
                        uint32_t *nbytes)
{
    uint32_t cbytes;

    if (n < BLOSC_HEADER) {
        LOG_KEY(key, "%s: blosc header truncated (%zu of 16 bytes)", key, n);
        return GSVD_ECODEC;
    }
    *nbytes = load_le32(p + 4);
    cbytes = load_le32(p + 12);
    if (cbytes < BLOSC_HEADER || cbytes > n) {
        LOG_KEY(key, "%s: blosc header claims %lu compressed bytes, chunk has %zu", key,
                (unsigned long)cbytes, n);
        return GSVD_ECODEC;
    }
    if (*nbytes > BLOSC_MAX_BUFFERSIZE ||
        ((p[2] & BLOSC_MEMCPYED) && cbytes - BLOSC_HEADER < *nbytes)) {
        LOG_KEY(key, "%s: blosc header is inconsistent (nbytes %lu, cbytes %lu)", key,
                (unsigned long)*nbytes, (unsigned long)cbytes);
        return GSVD_ECODEC;
    }
    if (*nbytes > cap) {
        LOG_KEY(key, "%s: blosc frame holds %lu bytes, more than the %zu expected", key,
                (unsigned long)*nbytes, cap);
        return GSVD_ECODEC;
    }
    /* c-blosc returns an empty frame before it looks at these */
    return *nbytes ? check_header_fields(p, key) : GSVD_OK;
}

/* ---- a fast path for bit-shuffled one-byte data --------------------------------------------
 * VCF-Zarr genotypes are int8 with Blosc bit-shuffle, and Debian's c-blosc 1.21 undoes the
 * bit-shuffle of one-byte elements with a scalar loop that costs as much as zstd itself.  For
 * exactly that case (typesize 1, bit-shuffle, zstd or lz4 blocks) we walk the frame ourselves:
 * 16-byte header, nblocks 32-bit block offsets, each block one stream [32-bit size][data]
 * (stored raw when the size equals the block's), then un-bit-shuffle with a transpose the
 * compiler vectorises.  Anything else, or anything unexpected, goes to blosc_decompress_ctx,
 * which also stays the judge of corrupt frames (the fast path only reports "not mine").
 *
 * Bit-shuffle of n bytes (n a multiple of 8, S = n / 8): bit b of byte 8k + t is stored as bit
 * t of byte b S + k.  A block whose byte count is not a multiple of 8 is stored unshuffled. */

/* Transpose the 8 x 8 bit matrix held in x (byte = row) by three delta swaps. */
static uint64_t transpose_bits(uint64_t x)
{
    uint64_t t;
    t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
    x = x ^ t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
    x = x ^ t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
    return x ^ t ^ (t << 28);
}

/* Scalar columns [k0, k1) of the unshuffle: word k gathers byte k of each of the 8 bit planes,
 * its bit transpose is the 8 output bytes. */
static void unshuffle_cols(const uint8_t *in, uint8_t *out, size_t S, size_t k0, size_t k1)
{
    for (size_t k = k0; k < k1; k++) {
        uint64_t x = 0;
        for (size_t b = 0; b < 8; b++)
            x |= (uint64_t)in[b * S + k] << (8 * b);
        x = transpose_bits(x);
        for (size_t t = 0; t < 8; t++)
            out[8 * k + t] = (uint8_t)(x >> (8 * t));
    }
}

#if defined(__SSE2__)
#include <emmintrin.h>

static __m128i transpose_bits2(__m128i x)
{
    __m128i t;
    t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64(x, 7)),
                      _mm_set1_epi64x(0x00AA00AA00AA00AAll));
    x = _mm_xor_si128(_mm_xor_si128(x, t), _mm_slli_epi64(t, 7));
    t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64(x, 14)),
                      _mm_set1_epi64x(0x0000CCCC0000CCCCll));
    x = _mm_xor_si128(_mm_xor_si128(x, t), _mm_slli_epi64(t, 14));
    t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64(x, 28)),
                      _mm_set1_epi64x(0x00000000F0F0F0F0ll));
    return _mm_xor_si128(_mm_xor_si128(x, t), _mm_slli_epi64(t, 28));
}

/* Eight columns at a time: an 8 x 8 byte transpose by unpacking, then the bit transposes.
 * Returns the first column not done. */
static size_t unshuffle_sse2(const uint8_t *in, uint8_t *out, size_t S, size_t k)
{
    for (; k + 8 <= S; k += 8) {
        __m128i r[8];
        for (size_t b = 0; b < 8; b++)
            r[b] = _mm_loadl_epi64((const __m128i *)(const void *)(in + b * S + k));
        __m128i a0 = _mm_unpacklo_epi8(r[0], r[1]), a1 = _mm_unpacklo_epi8(r[2], r[3]);
        __m128i a2 = _mm_unpacklo_epi8(r[4], r[5]), a3 = _mm_unpacklo_epi8(r[6], r[7]);
        __m128i b0 = _mm_unpacklo_epi16(a0, a1), b1 = _mm_unpackhi_epi16(a0, a1);
        __m128i b2 = _mm_unpacklo_epi16(a2, a3), b3 = _mm_unpackhi_epi16(a2, a3);
        __m128i *o = (__m128i *)(void *)(out + 8 * k);
        _mm_storeu_si128(o, transpose_bits2(_mm_unpacklo_epi32(b0, b2)));
        _mm_storeu_si128(o + 1, transpose_bits2(_mm_unpackhi_epi32(b0, b2)));
        _mm_storeu_si128(o + 2, transpose_bits2(_mm_unpacklo_epi32(b1, b3)));
        _mm_storeu_si128(o + 3, transpose_bits2(_mm_unpackhi_epi32(b1, b3)));
    }
    return k;
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define BLOSC_AVX512 __attribute__((target("avx512f,avx512bw,gfni")))

/* 4 x 4 transpose of the 128-bit lanes of v[0..3]. */
BLOSC_AVX512 static inline void lanes4x4(__m512i v[4])
{
    __m512i t0 = _mm512_shuffle_i64x2(v[0], v[1], 0x44),
            t1 = _mm512_shuffle_i64x2(v[0], v[1], 0xEE);
    __m512i t2 = _mm512_shuffle_i64x2(v[2], v[3], 0x44),
            t3 = _mm512_shuffle_i64x2(v[2], v[3], 0xEE);
    v[0] = _mm512_shuffle_i64x2(t0, t2, 0x88);
    v[1] = _mm512_shuffle_i64x2(t0, t2, 0xDD);
    v[2] = _mm512_shuffle_i64x2(t1, t3, 0x88);
    v[3] = _mm512_shuffle_i64x2(t1, t3, 0xDD);
}

/* 64 columns at a time: the same byte transpose within each 128-bit lane (planes in reverse,
 * so that GF2P8AFFINEQB, which reads matrix row 7 - i for result bit i, transposes each
 * column's 8 x 8 bit matrix in one instruction), lanes regrouped so each store is 8
 * consecutive columns' output.  Returns the first column not done. */
BLOSC_AVX512 static size_t unshuffle_avx512(const uint8_t *in, uint8_t *out, size_t S, size_t k)
{
    const __m512i unit = _mm512_set1_epi64(0x8040201008040201ll); /* byte j = 1 << j */
    for (; k + 64 <= S; k += 64) {
        __m512i r[8], a[8], b[8], c[2][4];
        for (size_t p = 0; p < 8; p++) /* r[p] = plane 7 - p */
            r[p] = _mm512_loadu_si512((const void *)(in + (7 - p) * S + k));
        for (size_t q = 0; q < 4; q++) {
            a[q] = _mm512_unpacklo_epi8(r[2 * q], r[2 * q + 1]);
            a[4 + q] = _mm512_unpackhi_epi8(r[2 * q], r[2 * q + 1]);
        }
        for (size_t h = 0; h < 2; h++) { /* h = 0: lane bytes 0..7, 1: bytes 8..15 */
            const __m512i *x = a + 4 * h;
            b[4 * h] = _mm512_unpacklo_epi16(x[0], x[1]);
            b[4 * h + 1] = _mm512_unpackhi_epi16(x[0], x[1]);
            b[4 * h + 2] = _mm512_unpacklo_epi16(x[2], x[3]);
            b[4 * h + 3] = _mm512_unpackhi_epi16(x[2], x[3]);
            /* per lane: columns 8h + 0,1 | 2,3 | 4,5 | 6,7 */
            c[h][0] = _mm512_unpacklo_epi32(b[4 * h], b[4 * h + 2]);
            c[h][1] = _mm512_unpackhi_epi32(b[4 * h], b[4 * h + 2]);
            c[h][2] = _mm512_unpacklo_epi32(b[4 * h + 1], b[4 * h + 3]);
            c[h][3] = _mm512_unpackhi_epi32(b[4 * h + 1], b[4 * h + 3]);
            for (size_t q = 0; q < 4; q++)
                c[h][q] = _mm512_gf2p8affine_epi64_epi8(unit, c[h][q], 0);
            lanes4x4(c[h]); /* c[h][l]: lane l's columns 16 l + 8 h .. + 7 */
        }
        for (size_t l = 0; l < 4; l++)
            for (size_t h = 0; h < 2; h++)
                _mm512_storeu_si512((void *)(out + 8 * (k + 16 * l + 8 * h)), c[h][l]);
    }
    return k;
}

#define BLOSC_AVX2 __attribute__((target("avx2")))

/* transpose_bits2 on each 64-bit lane of a ymm. */
BLOSC_AVX2 static inline __m256i transpose_bits4(__m256i x)
{
    __m256i t;
    t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64(x, 7)),
                         _mm256_set1_epi64x(0x00AA00AA00AA00AAll));
    x = _mm256_xor_si256(_mm256_xor_si256(x, t), _mm256_slli_epi64(t, 7));
    t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64(x, 14)),
                         _mm256_set1_epi64x(0x0000CCCC0000CCCCll));
    x = _mm256_xor_si256(_mm256_xor_si256(x, t), _mm256_slli_epi64(t, 14));
    t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64(x, 28)),
                         _mm256_set1_epi64x(0x00000000F0F0F0F0ll));
    return _mm256_xor_si256(_mm256_xor_si256(x, t), _mm256_slli_epi64(t, 28));
}

/* 32 columns at a time, unshuffle_sse2's transpose on both 128-bit lanes at once: lane 0 holds
 * columns k..k+15 of each plane, lane 1 columns k+16..k+31, so every result's lanes are two
 * columns 16 apart, stored apart.  Returns the first column not done. */
BLOSC_AVX2 static size_t unshuffle_avx2(const uint8_t *in, uint8_t *out, size_t S, size_t k)
{
    for (; k + 32 <= S; k += 32) {
        __m256i r[8], a[8], b[8];
        for (size_t p = 0; p < 8; p++)
            r[p] = _mm256_loadu_si256((const __m256i *)(const void *)(in + p * S + k));
        for (size_t q = 0; q < 4; q++) { /* a[q]: columns 0..7 of each lane, a[4 + q]: 8..15 */
            a[q] = _mm256_unpacklo_epi8(r[2 * q], r[2 * q + 1]);
            a[4 + q] = _mm256_unpackhi_epi8(r[2 * q], r[2 * q + 1]);
        }
        for (size_t h = 0; h < 2; h++) {
            const __m256i *x = a + 4 * h;
            b[4 * h] = _mm256_unpacklo_epi16(x[0], x[1]);
            b[4 * h + 1] = _mm256_unpackhi_epi16(x[0], x[1]);
            b[4 * h + 2] = _mm256_unpacklo_epi16(x[2], x[3]);
            b[4 * h + 3] = _mm256_unpackhi_epi16(x[2], x[3]);
            __m256i c[4] = {_mm256_unpacklo_epi32(b[4 * h], b[4 * h + 2]),
                            _mm256_unpackhi_epi32(b[4 * h], b[4 * h + 2]),
                            _mm256_unpacklo_epi32(b[4 * h + 1], b[4 * h + 3]),
                            _mm256_unpackhi_epi32(b[4 * h + 1], b[4 * h + 3])};
            for (size_t q = 0; q < 4; q++) { /* columns 8 h + 2 q, + 1 of each lane */
                __m256i v = transpose_bits4(c[q]);
                size_t col = k + 8 * h + 2 * q;
                _mm_storeu_si128((__m128i *)(void *)(out + 8 * col), _mm256_castsi256_si128(v));
                _mm_storeu_si128((__m128i *)(void *)(out + 8 * (col + 16)),
                                 _mm256_extracti128_si256(v, 1));
            }
        }
    }
    return k;
}

static int have_avx2(void)
{
    return gsvd_cpu_avx2(NULL, 0);
}

static int have_avx512_gfni(void)
{
    __builtin_cpu_init();
    return gsvd_cpu_allows(GSVD_CPU_AVX512) && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("gfni");
}
#endif

void gsvd_blosc_bitunshuffle1(const uint8_t *in, uint8_t *out, size_t n, int level)
{
    size_t S = n / 8, k = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (level >= 2 && have_avx512_gfni())
        k = unshuffle_avx512(in, out, S, k);
    if (level >= 2 && have_avx2())
        k = unshuffle_avx2(in, out, S, k);
#endif
#if defined(__SSE2__)
    if (level >= 1)
        k = unshuffle_sse2(in, out, S, k);
#endif
    (void)level;
    unshuffle_cols(in, out, S, k, S);
}

static int fast_decode(gsvd_codec_ws *ws, const unsigned char *src, size_t cbytes, uint8_t *dst,
                       size_t nbytes)
{
    unsigned flags = src[2], codec = flags >> 5;
    size_t blocksize = load_le32(src + 8), nblocks, hdr;
    struct gsvd_buf *tmp = &ws->tmp[1]; /* the compressor is the first stage: tmp[1] is free */
    int rc;

    /* c-blosc also checks the codec's format version (src[1]); what it refuses is not ours */
    if (src[3] != 1 || !(flags & BLOSC_DOBITSHUFFLE) || (flags & (BLOSC_MEMCPYED | 0x1)) ||
        (codec != 1 && codec != 4) || blocksize == 0 || blocksize > nbytes ||
        src[1] != (codec == 4 ? BLOSC_ZSTD_VERSION_FORMAT : BLOSC_LZ4_VERSION_FORMAT))
        return GSVD_ENOTFOUND;
    nblocks = nbytes / blocksize + (nbytes % blocksize != 0);
    hdr = BLOSC_HEADER + 4 * nblocks;
    if (hdr > cbytes)
        return GSVD_ENOTFOUND;
    if (codec == 4 && !ws->zstd_dctx && !(ws->zstd_dctx = ZSTD_createDCtx()))
        return GSVD_ENOMEM;
    gsvd_buf_clear(tmp);
    if ((rc = gsvd_buf_reserve(tmp, blocksize)) < 0)
        return rc;
    for (size_t j = 0; j < nblocks; j++) {
        size_t bsize = j + 1 < nblocks || nbytes % blocksize == 0 ? blocksize : nbytes % blocksize;
        size_t off = load_le32(src + BLOSC_HEADER + 4 * j), csize;
        uint8_t *out = dst + j * blocksize, *raw = bsize % 8 ? out : (uint8_t *)tmp->data;
        if (off < hdr || off > cbytes - 4)
            return GSVD_ENOTFOUND;
        csize = load_le32(src + off);
        if (csize > cbytes - off - 4)
            return GSVD_ENOTFOUND;
        if (csize == bsize) {
            memcpy(raw, src + off + 4, bsize);
        } else if (codec == 4) {
            size_t got = ZSTD_decompressDCtx(ws->zstd_dctx, raw, bsize, src + off + 4, csize);
            if (ZSTD_isError(got) || got != bsize)
                return GSVD_ENOTFOUND;
        } else {
            if (csize > INT32_MAX || LZ4_decompress_safe((const char *)src + off + 4, (char *)raw,
                                                         (int)csize, (int)bsize) != (int)bsize)
                return GSVD_ENOTFOUND;
        }
        if (bsize % 8 == 0)
            gsvd_blosc_bitunshuffle1(raw, out, bsize, 2);
    }
    return GSVD_OK;
}

static int blosc_decode(const void *cfg, gsvd_codec_ws *ws, const void *src, size_t n, void *dst,
                        size_t cap, size_t *out_len, const char *key)
{
    int rc;
    uint32_t nbytes = 0;
    int got;

    (void)cfg;
    *out_len = 0;
    rc = check_header(src, n, cap, key, &nbytes);
    if (rc < 0)
        return rc;
    if (nbytes == 0)
        return GSVD_OK;
    rc = fast_decode(ws, src, load_le32((const unsigned char *)src + 12), dst, nbytes);
    if (rc == GSVD_OK) {
        *out_len = nbytes;
        return GSVD_OK;
    }
    if (rc != GSVD_ENOTFOUND)
        return rc;
    got = blosc_decompress_ctx(src, dst, cap, 1);
    if (got <= 0 || (uint32_t)got != nbytes) {
        LOG_KEY(key, "%s: blosc decompression failed (%d)", key, got);
        return GSVD_ECODEC;
    }
    *out_len = (size_t)got;
    return GSVD_OK;
}

static int blosc_decoded_size(const void *cfg, const void *src, size_t n, size_t *size)
{
    uint32_t nbytes = 0;
    int rc;

    (void)cfg;
    rc = check_header(src, n, SIZE_MAX, NULL, &nbytes);
    if (rc < 0)
        return rc;
    *size = nbytes;
    return GSVD_OK;
}

static int blosc_encode(const void *cfgp, gsvd_codec_ws *ws, const void *src, size_t n,
                        struct gsvd_buf *dst)
{
    int rc = GSVD_OK;
    const struct blosc_cfg *cfg = cfgp;
    int shuffle = cfg->shuffle;
    int got;

    (void)ws;
    if (n > BLOSC_MAX_BUFFERSIZE) {
        gsvd_log_error("chunk of %zu bytes exceeds blosc's limit of %d bytes", n,
                       BLOSC_MAX_BUFFERSIZE);
        return GSVD_EINVAL;
    }
    if (shuffle == -1) /* numcodecs AUTOSHUFFLE */
        shuffle = cfg->typesize == 1 ? BLOSC_BITSHUFFLE : BLOSC_SHUFFLE;
    gsvd_buf_clear(dst);
    GSVD_TRY(gsvd_buf_reserve(dst, n + BLOSC_MAX_OVERHEAD));
    got = blosc_compress_ctx(cfg->clevel, shuffle, cfg->typesize, n, src, dst->data,
                             n + BLOSC_MAX_OVERHEAD, cfg->cname, (size_t)cfg->blocksize, 1);
    if (got <= 0) {
        gsvd_log_error("blosc compression failed (%d)", got);
        rc = GSVD_ECODEC;
        goto out;
    }
    dst->len = (size_t)got;
out:
    return rc;
}

static void blosc_describe(const void *cfgp, char *buf, size_t len)
{
    static const char *const shuffles[] = {"autoshuffle", "noshuffle", "shuffle", "bitshuffle"};
    const struct blosc_cfg *cfg = cfgp;

    snprintf(buf, len, "blosc(%s:%d, %s)", cfg->cname, cfg->clevel, shuffles[cfg->shuffle + 1]);
}

const struct gsvd_codec_ops gsvd_codec_blosc_ops = {
    .id = "blosc",
    .role = GSVD_CODEC_COMPRESSOR,
    .parse = blosc_parse,
    .free_cfg = blosc_free_cfg,
    .to_json = blosc_to_json,
    .decode = blosc_decode,
    .decoded_size = blosc_decoded_size,
    .encode = blosc_encode,
    .describe = blosc_describe,
};
