/* analysis/cpu/cpu_rows.c - see cpu_rows.h: compact genotype rows (2-bit codes, int8 dosages,
 * float64) to standardised float32, with AVX-512 or AVX2 table lookups where the CPU has them
 * (and common/cpu.h's cap allows them). */
#include "gsvd_config.h"
#include "analysis/cpu/cpu_rows.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "analysis/scan/gblock_std.h"
#include "common/cpu.h"

/* ---- row expansion: compact codes to standardised float32 --------------------------------
 * The values are exactly gsvd_std_p2 / gsvd_std_i8 of analysis/scan/gblock_std.h: a four- or
 * 32-entry table of those values is indexed by the code, so the vector paths give the same
 * bits as the scalar ones (test_kernel_body compares them with the kernels' definitions). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang_analyzer__)
#include <immintrin.h>
#define CPU_X86 1
#else
#define CPU_X86 0
#endif

static pthread_once_t simd_once = PTHREAD_ONCE_INIT;
static int simd; /* simd_level's answer */

static void simd_probe(void)
{
#if CPU_X86
    if (gsvd_cpu_allows(GSVD_CPU_AVX512) && __builtin_cpu_supports("avx512f"))
        simd = 2;
    else if (gsvd_cpu_avx2(NULL, 0))
        simd = 1;
#endif
}

/* The widest table lookup this CPU runs: 2 AVX-512F, 1 AVX2, 0 none.  Probed once (the
 * worker threads expanding rows all ask; a plain cached int would be a data race). */
static int simd_level(void)
{
    pthread_once(&simd_once, simd_probe);
    return simd;
}

#if CPU_X86
/* 16 codes per step: broadcast 4 bytes, shift each lane to its code, look the value up. */
__attribute__((target("avx512f"))) static size_t expand_p2_avx512(const uint8_t *row, size_t n,
                                                                  const float lut[4], float *z)
{
    const __m512i shifts =
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i three = _mm512_set1_epi32(3);
    const __m512 table =
        _mm512_setr_ps(lut[0], lut[1], lut[2], lut[3], 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        uint32_t w;
        memcpy(&w, row + i / 4, 4);
        __m512i idx = _mm512_and_si512(_mm512_srlv_epi32(_mm512_set1_epi32((int)w), shifts), three);
        _mm512_storeu_ps(z + i, _mm512_permutexvar_ps(idx, table));
    }
    return i;
}

/* 16 dosages per step through a 32-entry table (index 31 = missing); stops early, for the
 * scalar loop to finish, at the first value above 30. */
__attribute__((target("avx512f"))) static size_t expand_i8_avx512(const int8_t *row, size_t n,
                                                                  const float lut32[32], float *z)
{
    const __m512 lo = _mm512_loadu_ps(lut32), hi = _mm512_loadu_ps(lut32 + 16);
    const __m512i cap = _mm512_set1_epi32(31), big = _mm512_set1_epi32(30);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i v = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(row + i)));
        if (_mm512_cmpgt_epi32_mask(v, big))
            break;
        __m512i idx = _mm512_min_epu32(v, cap); /* negative (missing) -> 31 */
        _mm512_storeu_ps(z + i, _mm512_permutex2var_ps(lo, idx, hi));
    }
    return i;
}

/* The same with AVX2: 8 codes per step (two bytes broadcast, a lane's code shifted down, the
 * value picked by vpermps from the four in each half). */
__attribute__((target("avx2"))) static size_t expand_p2_avx2(const uint8_t *row, size_t n,
                                                             const float lut[4], float *z)
{
    const __m256i shifts = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    const __m256i three = _mm256_set1_epi32(3);
    const __m256 table =
        _mm256_setr_ps(lut[0], lut[1], lut[2], lut[3], lut[0], lut[1], lut[2], lut[3]);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint16_t w;
        memcpy(&w, row + i / 4, 2);
        __m256i idx = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(w), shifts), three);
        _mm256_storeu_ps(z + i, _mm256_permutevar8x32_ps(table, idx));
    }
    return i;
}

/* 8 dosages per step through an 8-entry table (0..6, and index 7 = missing); stops early, for
 * the scalar loop to finish, at the first value above 6. */
__attribute__((target("avx2"))) static size_t expand_i8_avx2(const int8_t *row, size_t n,
                                                             const float lut8[8], float *z)
{
    const __m256 table = _mm256_loadu_ps(lut8);
    const __m256i cap = _mm256_set1_epi32(7), big = _mm256_set1_epi32(6);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        int64_t w;
        memcpy(&w, row + i, 8);
        __m256i v = _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(w));
        if (!_mm256_testz_si256(_mm256_cmpgt_epi32(v, big), _mm256_cmpgt_epi32(v, big)))
            break;
        __m256i idx = _mm256_min_epu32(v, cap); /* negative (missing) -> 7 */
        _mm256_storeu_ps(z + i, _mm256_permutevar8x32_ps(table, idx));
    }
    return i;
}
#endif

/* z[i] = standardised value of 2-bit code i of row, i < n. */
static void expand_p2(const uint8_t *row, size_t n, float c0, float s0, float m0, float *z)
{
    float lut[4];
    size_t i = 0;
    for (unsigned c = 0; c < 4; c++)
        lut[c] = gsvd_std_p2(c, c0, s0, m0);
#if CPU_X86
    if (simd_level() == 2)
        i = expand_p2_avx512(row, n, lut, z);
    else if (simd_level() == 1)
        i = expand_p2_avx2(row, n, lut, z);
#endif
    for (; i < n; i++)
        z[i] = lut[gsvd_std_p2_code(row, i)];
}

/* z[i] = standardised value of dosage row[i] (negative = missing), i < n. */
static void expand_i8(const int8_t *row, size_t n, float c0, float s0, float m0, float *z)
{
    size_t i = 0;
#if CPU_X86
    if (simd_level() == 2) {
        float lut32[32];
        for (unsigned b = 0; b < 31; b++)
            lut32[b] = gsvd_std_i8((int8_t)b, c0, s0, m0);
        lut32[31] = gsvd_std_i8(-1, c0, s0, m0);
        i = expand_i8_avx512(row, n, lut32, z);
    } else if (simd_level() == 1) {
        float lut8[8];
        for (unsigned b = 0; b < 7; b++)
            lut8[b] = gsvd_std_i8((int8_t)b, c0, s0, m0);
        lut8[7] = gsvd_std_i8(-1, c0, s0, m0);
        i = expand_i8_avx2(row, n, lut8, z);
    }
#endif
    for (; i < n; i++)
        z[i] = gsvd_std_i8(row[i], c0, s0, m0);
}

/* Counts of the codes 0..3 of a packed 2-bit row of n calls, 32 calls per 64-bit word
 * (padding codes of the last byte are 0 and only lower cnt[0], which is n less the others). */
GSVD_CLONES static void count_p2(const uint8_t *row, size_t n, uint32_t cnt[4])
{
    const uint64_t m = 0x5555555555555555ull;
    size_t bytes = gsvd_std_p2_row_bytes(n), q = 0;
    uint64_t c1 = 0, c2 = 0, c3 = 0;
    for (; q + 8 <= bytes; q += 8) {
        uint64_t w, lo, hi;
        memcpy(&w, row + q, 8);
        lo = w & m;
        hi = (w >> 1) & m;
        c1 += (uint64_t)__builtin_popcountll(lo & ~hi);
        c2 += (uint64_t)__builtin_popcountll(hi & ~lo);
        c3 += (uint64_t)__builtin_popcountll(lo & hi);
    }
    for (; q < bytes; q++)
        for (unsigned s = 0; s < 8; s += 2) {
            unsigned c = (row[q] >> s) & 3u;
            c1 += c == 1;
            c2 += c == 2;
            c3 += c == 3;
        }
    cnt[1] = (uint32_t)c1;
    cnt[2] = (uint32_t)c2;
    cnt[3] = (uint32_t)c3;
    cnt[0] = (uint32_t)(n - c1 - c2 - c3);
}

/* hist[(uint8_t)v] += 1 for every value v of an int8 row: the codes -1..2 (diploid calls and
 * missing) counted by compares the compiler vectorises, the general histogram only for a row
 * that holds anything else. */
GSVD_CLONES static void hist_i8(const int8_t *row, size_t n, uint32_t hist[GSVD_STD_BINS])
{
    uint32_t cm = 0, c0 = 0, c1 = 0, c2 = 0;
    for (size_t i = 0; i < n; i++) {
        int8_t v = row[i];
        cm += v == -1;
        c0 += v == 0;
        c1 += v == 1;
        c2 += v == 2;
    }
    if ((size_t)cm + c0 + c1 + c2 == n) {
        hist[(uint8_t)-1] += cm;
        hist[0] += c0;
        hist[1] += c1;
        hist[2] += c2;
        return;
    }
    for (size_t i = 0; i < n; i++)
        hist[(uint8_t)row[i]]++;
}

/* Sum of squares of row r of an int8 or 2-bit block (histogram rule of gblock_std.h). */
double gsvd_cpu_row_sumsq(const struct gsvd_gblock *g, size_t r)
{
    size_t n = g->n_cols;
    uint32_t hist[GSVD_STD_BINS] = {0};
    float c0 = g->center[r], s0 = g->scale[r], m0 = g->missing ? g->missing[r] : 0.0f;
    if (g->i8) {
        hist_i8(g->i8 + r * n, n, hist);
    } else {
        uint32_t cnt[4];
        count_p2(g->p2 + r * gsvd_std_p2_row_bytes(n), n, cnt);
        for (unsigned c = 0; c < 4; c++)
            hist[gsvd_std_p2_bin(c)] = cnt[c];
    }
    return gsvd_std_sumsq_hist(hist, c0, s0, m0);
}

/* int8 values as codes: 0..2 kept, anything else (negative: missing) 3. */
GSVD_CLONES static void codes_i8(const int8_t *row, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t v = (uint8_t)row[i];
        out[i] = v < 3 ? v : 3;
    }
}

/* 2-bit codes unpacked, four per byte. */
static void codes_p2(const uint8_t *row, size_t n, uint8_t *out)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        unsigned b = row[i >> 2];
        out[i] = (uint8_t)(b & 3u);
        out[i + 1] = (uint8_t)((b >> 2) & 3u);
        out[i + 2] = (uint8_t)((b >> 4) & 3u);
        out[i + 3] = (uint8_t)(b >> 6);
    }
    for (; i < n; i++)
        out[i] = (uint8_t)gsvd_std_p2_code(row, i);
}

void gsvd_cpu_row_codes(const struct gsvd_gblock *g, size_t r, uint8_t *codes, double *rs)
{
    size_t n = g->n_cols;
    if (g->i8)
        codes_i8(g->i8 + r * n, n, codes);
    else
        codes_p2(g->p2 + r * gsvd_std_p2_row_bytes(n), n, codes);
    if (rs)
        *rs = gsvd_cpu_row_sumsq(g, r);
}

/* Row r of g standardised into z; *rs = its sum of squares when rs is not NULL. */
void gsvd_cpu_expand_row(const struct gsvd_gblock *g, size_t r, float *z, double *rs)
{
    size_t n = g->n_cols;
    float c0 = g->center[r], s0 = g->scale[r], m0 = g->missing ? g->missing[r] : 0.0f;
    if (g->p2)
        expand_p2(g->p2 + r * gsvd_std_p2_row_bytes(n), n, c0, s0, m0, z);
    else if (g->i8)
        expand_i8(g->i8 + r * n, n, c0, s0, m0, z);
    else
        for (size_t i = 0; i < n; i++)
            z[i] = gsvd_std_f64(g->f64[r * n + i], c0, s0, m0);
    if (rs)
        *rs = g->f64 ? gsvd_std_sumsq_f32(z, n) : gsvd_cpu_row_sumsq(g, r);
}
