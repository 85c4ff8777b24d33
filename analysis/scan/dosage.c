/* analysis/scan/dosage.c - diploid calls to dosages (contract in analysis/scan/dosage.h).  The
 * portable loops are compiled for several x86-64 levels (GSVD_CLONES); the AVX-512BW path handles
 * 32 calls per step: byte compares into 64-bit masks, the pair rule on the masks, the two alleles
 * of a call summed into a 16-bit lane and narrowed to the dosage byte (a step with no negative
 * allele byte skips the rule: min(a, 1) + min(b, 1)); the row's sums come
 * from the same registers (sum of squares = sum + 2 x #dosage 2).  The AVX2 path (CPUs without
 * AVX-512BW, or capped by GENSVD_CPU_LEVEL) does the same on ymm: the pair rule on byte compares
 * in 16-bit lanes, 32 calls packed per step, the sums from the dosage bytes' compare masks. */
#include "gsvd_config.h"
#include "analysis/scan/dosage.h"

#include <pthread.h>
#include <string.h>

#include "common/cpu.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DOS_X86 1
#else
#define DOS_X86 0
#endif

static inline int8_t call_dosage(int a, int b)
{
    int miss = (a < 0 && a != -2) | (b < 0 && b != -2) | (a == -2 && b == -2);
    return (int8_t)(miss ? -1 : (a > 0) + (b > 0));
}

GSVD_CLONES static void diploid_portable(const int8_t *row, size_t n, int8_t *d)
{
    for (size_t i = 0; i < n; i++)
        d[i] = call_dosage(row[2 * i], row[2 * i + 1]);
}

/* clang 14 gives an external target_clones function a resolver its callers in other files do not
 * find at link time; the clones stay file-local and the public name is a plain call */
GSVD_CLONES static void dosage_sums(const int8_t *row, size_t n, int64_t out[3])
{
    int64_t ni = 0, si = 0, s2 = 0;
    /* branch-free so it vectorises; dosages are -1 (missing) or 0..ploidy */
    for (size_t i = 0; i < n; i++) {
        int v = row[i];
        int ok = v >= 0;
        ni += ok;
        si += ok * v;
        s2 += ok * v * v;
    }
    out[0] = ni;
    out[1] = si;
    out[2] = s2;
}

#if DOS_X86
/* avx512vl: GCC 12 vectorises these functions' scalar tails with 256-bit vectors and writes
 * their loads and stores as vmovdqu8, an EVEX encoding that needs AVX512VL, once AVX512BW is
 * on (VL or not); have_avx512bw asks for it with the rest. */
__attribute__((target("avx512f,avx512bw,avx512vl,bmi2,popcnt"))) static void
diploid_avx512(const int8_t *row, size_t n, int8_t *d, int64_t out[3])
{
    const __m512i zero = _mm512_setzero_si512(), fill = _mm512_set1_epi8(-2);
    const __m512i one8 = _mm512_set1_epi8(1), one16 = _mm512_set1_epi16(1);
    const __m512i minus1 = _mm512_set1_epi16(-1), two16 = _mm512_set1_epi16(2);
    __m512i acc = _mm512_setzero_si512(); /* 32-bit lanes: sum of dosages */
    uint64_t ni = 0, twos = 0;
    size_t i = 0;

    for (; i + 32 <= n; i += 32) {
        __m512i x = _mm512_loadu_si512((const void *)(row + 2 * i)), s16;
        uint64_t neg = _mm512_movepi8_mask(x);
        uint32_t ok = ~0u;
        if (!neg) { /* no missing call, no fill: min(a, 1) + min(b, 1) */
            s16 = _mm512_maddubs_epi16(_mm512_min_epu8(x, one8), one8);
        } else {
            uint64_t pos = _mm512_cmpgt_epi8_mask(x, zero);
            uint64_t isfill = _mm512_cmpeq_epi8_mask(x, fill);
            uint64_t bad = neg & ~isfill;
            /* pair k: bits 2k (allele a) and 2k + 1 (allele b); the rule lands on bit 2k */
            uint64_t pm = bad | (bad >> 1) | (isfill & (isfill >> 1));
            uint32_t miss = (uint32_t)_pext_u64(pm, 0x5555555555555555ull);
            s16 = _mm512_maddubs_epi16(_mm512_maskz_mov_epi8(pos, one8), one8);
            ok = ~miss;
            s16 = _mm512_mask_mov_epi16(s16, miss, minus1);
        }
        _mm256_storeu_si256((__m256i *)(void *)(d + i), _mm512_cvtepi16_epi8(s16));
        ni += (uint64_t)__builtin_popcount(ok);
        twos += (uint64_t)__builtin_popcount(_mm512_mask_cmpeq_epi16_mask(ok, s16, two16));
        acc = _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_maskz_mov_epi16(ok, s16), one16));
    }
    int64_t si = _mm512_reduce_add_epi32(acc);
    for (; i < n; i++) {
        int8_t v = call_dosage(row[2 * i], row[2 * i + 1]);
        d[i] = v;
        if (v >= 0) {
            ni++;
            si += v;
            twos += v == 2;
        }
    }
    out[0] = (int64_t)ni;
    out[1] = si;
    out[2] = si + 2 * (int64_t)twos; /* d^2 = d + 2 [d == 2] for d in {0, 1, 2} */
}

static int have_avx512bw(void)
{
    __builtin_cpu_init();
    return gsvd_cpu_allows(GSVD_CPU_AVX512) && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
}
#endif

#if DOS_X86
/* The row's sums from what the vector loop counted over [0, i): the values [i, n) added, the
 * three totals written to out. */
static void sums_tail(const int8_t *row, size_t i, size_t n, int64_t ni, int64_t si, int64_t sq,
                      int64_t out[3])
{
    for (; i < n; i++) {
        int v = row[i];
        if (v >= 0) {
            ni++;
            si += v;
            sq += v * v;
        }
    }
    out[0] = ni;
    out[1] = si;
    out[2] = sq;
}

#define DOS_AVX2 __attribute__((target("avx2,popcnt")))

/* The four 64-bit lanes' total. */
DOS_AVX2 static inline uint64_t lanes_sum4(__m256i v)
{
    __m128i a = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return (uint64_t)_mm_cvtsi128_si64(a) + (uint64_t)_mm_extract_epi64(a, 1);
}

/* 16 calls (32 allele bytes, a call per 16-bit lane) to their dosages in 16-bit lanes, -1 for a
 * missing call: the rule of call_dosage on byte compares. */
DOS_AVX2 static inline __m256i calls16_avx2(__m256i x)
{
    const __m256i zero = _mm256_setzero_si256(), one8 = _mm256_set1_epi8(1);
    const __m256i ones = _mm256_set1_epi8(-1);
    __m256i pos = _mm256_cmpgt_epi8(x, zero), neg = _mm256_cmpgt_epi8(zero, x);
    __m256i fill = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(-2));
    __m256i bad = _mm256_andnot_si256(fill, neg);
    __m256i sum = _mm256_maddubs_epi16(_mm256_and_si256(pos, one8), one8); /* (a > 0) + (b > 0) */
    __m256i miss =
        _mm256_or_si256(_mm256_xor_si256(_mm256_cmpeq_epi16(bad, zero), ones),
                        _mm256_cmpeq_epi16(fill, ones)); /* an allele bad, or both fill */
    return _mm256_or_si256(_mm256_andnot_si256(miss, sum), miss);
}

/* gsvd_diploid_dosages with AVX2, 32 calls a step: two vectors of calls to 16-bit dosages,
 * packed to bytes.  A step whose 64 allele bytes are all >= 0 (most of them: no missing call,
 * no fill) needs no pair rule: its dosages are min(a, 1) + min(b, 1).  The sums come from the
 * dosage bytes' compares counted in byte lanes (sum = #1 + 2 #2, squares #1 + 4 #2), added up
 * by vpsadbw every 255 steps at most. */
DOS_AVX2 static void diploid_avx2(const int8_t *row, size_t n, int8_t *d, int64_t out[3])
{
    const __m256i zero = _mm256_setzero_si256(), one8 = _mm256_set1_epi8(1);
    const __m256i two8 = _mm256_set1_epi8(2);
    __m256i tm = zero, t1 = zero, t2 = zero; /* 64-bit lanes: missing, ones, twos */
    size_t i = 0;

    while (i + 32 <= n) {
        __m256i cm = zero, c1 = zero, c2 = zero; /* byte lanes, <= 255 steps */
        for (size_t steps = 0; steps < 255 && i + 32 <= n; steps++, i += 32) {
            __m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)(row + 2 * i));
            __m256i x1 = _mm256_loadu_si256((const __m256i *)(const void *)(row + 2 * i + 32));
            __m256i s0, s1;
            if (!_mm256_movemask_epi8(_mm256_or_si256(x0, x1))) {
                s0 = _mm256_maddubs_epi16(_mm256_min_epu8(x0, one8), one8);
                s1 = _mm256_maddubs_epi16(_mm256_min_epu8(x1, one8), one8);
            } else {
                s0 = calls16_avx2(x0);
                s1 = calls16_avx2(x1);
            }
            __m256i v = _mm256_permute4x64_epi64(_mm256_packs_epi16(s0, s1), 0xd8);
            _mm256_storeu_si256((__m256i *)(void *)(d + i), v);
            cm = _mm256_sub_epi8(cm, _mm256_cmpgt_epi8(zero, v));
            c1 = _mm256_sub_epi8(c1, _mm256_cmpeq_epi8(v, one8));
            c2 = _mm256_sub_epi8(c2, _mm256_cmpeq_epi8(v, two8));
        }
        tm = _mm256_add_epi64(tm, _mm256_sad_epu8(cm, zero));
        t1 = _mm256_add_epi64(t1, _mm256_sad_epu8(c1, zero));
        t2 = _mm256_add_epi64(t2, _mm256_sad_epu8(c2, zero));
    }
    for (size_t j = i; j < n; j++)
        d[j] = call_dosage(row[2 * j], row[2 * j + 1]);
    uint64_t miss = lanes_sum4(tm), n1 = lanes_sum4(t1), n2 = lanes_sum4(t2);
    sums_tail(d, i, n, (int64_t)(i - miss), (int64_t)(n1 + 2 * n2), (int64_t)(n1 + 4 * n2), out);
}

/* gsvd_dosage_sums with AVX2, 32 a step (sums_avx512's method on ymm): the called mask, the sum
 * by byte SAD, the squares by maddubs then madd into 32-bit lanes flushed every 2^14 steps. */
DOS_AVX2 static void sums_avx2(const int8_t *row, size_t n, int64_t out[3])
{
    const __m256i zero = _mm256_setzero_si256(), one16 = _mm256_set1_epi16(1);
    const __m256i minus1 = _mm256_set1_epi8(-1);
    __m256i s1 = zero, s2 = zero;
    uint64_t ni = 0;
    size_t i = 0;

    while (i + 32 <= n) {
        __m256i q = zero; /* 32-bit lanes */
        for (size_t steps = 0; steps < ((size_t)1 << 14) && i + 32 <= n; steps++, i += 32) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(row + i));
            __m256i ok = _mm256_cmpgt_epi8(v, minus1);
            __m256i z = _mm256_and_si256(v, ok);
            ni += (uint64_t)__builtin_popcount((uint32_t)_mm256_movemask_epi8(ok));
            s1 = _mm256_add_epi64(s1, _mm256_sad_epu8(z, zero));
            q = _mm256_add_epi32(q, _mm256_madd_epi16(_mm256_maddubs_epi16(z, z), one16));
        }
        s2 = _mm256_add_epi64(s2, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(q)));
        s2 = _mm256_add_epi64(s2, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(q, 1)));
    }
    sums_tail(row, i, n, (int64_t)ni, (int64_t)lanes_sum4(s1), (int64_t)lanes_sum4(s2), out);
}

static int have_avx2(void)
{
    return gsvd_cpu_avx2(NULL, 0);
}

/* The sums of a row of dosages, 64 per step: the called mask, the sum by byte SAD into 64-bit
 * lanes, the squares by maddubs (pairs of squares <= 2 x 127^2 fit 16 bits) then madd into
 * 32-bit lanes, flushed to 64 bits every 2^14 steps (each lane gains at most 4 x 127^2 per
 * step). */
__attribute__((target("avx512f,avx512bw,avx512vl,popcnt"))) static void
sums_avx512(const int8_t *row, size_t n, int64_t out[3])
{
    const __m512i zero = _mm512_setzero_si512(), one16 = _mm512_set1_epi16(1);
    __m512i s1 = zero, s2 = zero;
    uint64_t ni = 0;
    size_t i = 0;

    while (i + 64 <= n) {
        __m512i q = zero; /* 32-bit lanes */
        for (size_t steps = 0; steps < ((size_t)1 << 14) && i + 64 <= n; steps++, i += 64) {
            __m512i v = _mm512_loadu_si512((const void *)(row + i));
            __mmask64 ok = _mm512_cmpge_epi8_mask(v, zero);
            __m512i z = _mm512_maskz_mov_epi8(ok, v);
            ni += (uint64_t)__builtin_popcountll(ok);
            s1 = _mm512_add_epi64(s1, _mm512_sad_epu8(z, zero));
            q = _mm512_add_epi32(q, _mm512_madd_epi16(_mm512_maddubs_epi16(z, z), one16));
        }
        s2 = _mm512_add_epi64(s2, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(q)));
        s2 = _mm512_add_epi64(s2, _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(q, 1)));
    }
    sums_tail(row, i, n, (int64_t)ni, _mm512_reduce_add_epi64(s1), _mm512_reduce_add_epi64(s2),
              out);
}
#endif

void gsvd_dosage_sums(const int8_t *row, size_t n, int64_t out[3])
{
#if DOS_X86
    if (have_avx512bw()) {
        sums_avx512(row, n, out);
        return;
    }
    if (have_avx2()) {
        sums_avx2(row, n, out);
        return;
    }
#endif
    dosage_sums(row, n, out);
}

void gsvd_diploid_dosages(const int8_t *row, size_t n, int8_t *d, int64_t sums[3], int simd)
{
#if DOS_X86
    if (simd && have_avx512bw()) {
        diploid_avx512(row, n, d, sums);
        return;
    }
    if (simd && have_avx2()) {
        diploid_avx2(row, n, d, sums);
        return;
    }
#else
    (void)simd;
#endif
    diploid_portable(row, n, d);
    dosage_sums(d, n, sums);
}

/* Four dosages at a time as one word (the compiler vectorises the loop). */
GSVD_CLONES static void pack4(const int8_t *d, size_t full, uint8_t *o)
{
    for (size_t q = 0; q < full; q++) {
        uint32_t w, neg, x;
        memcpy(&w, d + 4 * q, 4);
        neg = (w >> 7) & 0x01010101u; /* 1 in each byte that is negative */
        x = (w & 0x03030303u) | neg * 3u;
        o[q] = (uint8_t)(x | x >> 6 | x >> 12 | x >> 18);
    }
}

void gsvd_dosage_pack_p2(const int8_t *d, size_t n, uint8_t *o)
{
    size_t full = n / 4;
    pack4(d, full, o);
    if (4 * full < n) {
        unsigned byte = 0;
        for (size_t i = 4 * full; i < n; i++)
            byte |= (d[i] < 0 ? 3u : (unsigned)d[i]) << (2 * (i % 4));
        o[full] = (uint8_t)byte;
    }
}

/* ---- a subset's samples out of a whole row ------------------------------------------------ */

/* The 64 bits of the bitmap from bit b on. */
static inline uint64_t bits64(const uint64_t *bits, uint64_t b)
{
    uint64_t w = b >> 6;
    unsigned sh = (unsigned)(b & 63);
    return sh ? bits[w] >> sh | bits[w + 1] << (64 - sh) : bits[w];
}

static size_t compact_portable(int8_t *d, size_t n, const uint64_t *bits, uint64_t bit0)
{
    size_t p = 0;
    for (size_t i = 0; i < n; i += 64) {
        size_t len = n - i < 64 ? n - i : 64;
        uint64_t m = bits64(bits, bit0 + i);
        for (size_t k = 0; k < len; k++) { /* branch-free: every byte written, kept ones kept */
            d[p] = d[i + k];
            p += (m >> k) & 1;
        }
    }
    return p;
}

#if DOS_X86
/* A 64-byte step: the step's bits as a mask, vpcompressb, a masked store of what it kept (in
 * place: the store ends at or before the step's own bytes end). */
__attribute__((target("avx512f,avx512bw,avx512vbmi2,popcnt"))) static size_t
compact_vbmi2(int8_t *d, size_t n, const uint64_t *bits, uint64_t bit0)
{
    size_t p = 0;
    for (size_t i = 0; i < n; i += 64) {
        size_t len = n - i < 64 ? n - i : 64;
        __mmask64 in = len == 64 ? ~(__mmask64)0 : ((__mmask64)1 << len) - 1;
        __mmask64 m = bits64(bits, bit0 + i) & in;
        unsigned k = (unsigned)__builtin_popcountll(m);
        __m512i v = _mm512_maskz_compress_epi8(m, _mm512_maskz_loadu_epi8(in, d + i));
        _mm512_mask_storeu_epi8(d + p, k == 64 ? ~(__mmask64)0 : ((__mmask64)1 << k) - 1, v);
        p += k;
    }
    return p;
}

static int have_vbmi2(void)
{
    return have_avx512bw() && __builtin_cpu_supports("avx512vbmi2");
}

/* For each byte mask, the pshufb control that moves its kept bytes to the front. */
static uint64_t shuffle8[256];
static pthread_once_t shuffle8_once = PTHREAD_ONCE_INIT;

static void shuffle8_make(void)
{
    for (unsigned m = 0; m < 256; m++) {
        uint64_t c = 0;
        unsigned k = 0;
        for (unsigned b = 0; b < 8; b++)
            if (m >> b & 1)
                c |= (uint64_t)b << (8 * k++);
        shuffle8[m] = c;
    }
}

/* 8 bytes a step through the table; each step stores 8 bytes at p <= i, so what it writes past
 * its kept bytes is written over by the next step or lies past the result, inside the row. */
__attribute__((target("avx2,popcnt"))) static size_t
compact_avx2(int8_t *d, size_t n, const uint64_t *bits, uint64_t bit0)
{
    size_t p = 0, i = 0;
    for (; i + 64 <= n; i += 64) {
        uint64_t m = bits64(bits, bit0 + i);
        for (unsigned q = 0; q < 64; q += 8) {
            unsigned b = (unsigned)(m >> q) & 0xff;
            __m128i x = _mm_loadl_epi64((const __m128i *)(const void *)(d + i + q));
            x = _mm_shuffle_epi8(x, _mm_cvtsi64_si128((long long)shuffle8[b]));
            _mm_storel_epi64((__m128i *)(void *)(d + p), x);
            p += (unsigned)__builtin_popcount(b);
        }
    }
    if (i < n) {
        uint64_t m = bits64(bits, bit0 + i);
        for (; i < n; i++, m >>= 1) {
            d[p] = d[i];
            p += m & 1;
        }
    }
    return p;
}
#endif

size_t gsvd_dosage_compact(int8_t *d, size_t n, const uint64_t *bits, uint64_t bit0)
{
#if DOS_X86
    if (have_vbmi2())
        return compact_vbmi2(d, n, bits, bit0);
    if (have_avx2()) {
        pthread_once(&shuffle8_once, shuffle8_make);
        return compact_avx2(d, n, bits, bit0);
    }
#endif
    return compact_portable(d, n, bits, bit0);
}
