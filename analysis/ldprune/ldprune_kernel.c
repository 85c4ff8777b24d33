/* analysis/ldprune/ldprune_kernel.c - the popcount kernels of LD pruning (ldprune_internal.h):
 * with x = a + b,
 *   sum x_i x_j = |a_i a_j| + |a_i b_j| + |b_i a_j| + |b_i b_j| = |a_i a_j| + 3 |b_i b_j| +
 *                 |a_i b_j ^ b_i a_j|   (b implies a),
 *   over the samples called in both: n = |m_i m_j|, sum x_i = |a_i m_j| + |b_i m_j|,
 *   sum x_i^2 = |a_i m_j| + 3 |b_i m_j|,
 * so cov and var are exact integers and the threshold test is plink2's double comparison
 * cov^2 > t var_i var_j; rows without missing calls need only the cross sum.  AVX-512 (VPOPCNTQ, BW
 * compares) where the CPU has it, else AVX2 (popcounts by a nibble table, byte compares), else
 * POPCNT or portable code; each engine's integers are the same, so is every decision. */
#include "gsvd_config.h"
#include "analysis/ldprune/ldprune_internal.h"

#include <stdint.h>
#include <string.h>

#include "common/cpu.h"
#include "common/popcnt_avx2.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define LD_X86 1
#endif

/* Planes of one row of dosages: 64 samples per word; pads stay 0. */
static void planes_generic(const int8_t *d, size_t N, uint64_t *a, uint64_t *b, uint64_t *m)
{
    for (size_t w = 0; w * 64 < N; w++) {
        uint64_t am = 0, bm = 0, mm = 0;
        size_t n = N - w * 64 < 64 ? N - w * 64 : 64;
        for (size_t k = 0; k < n; k++) {
            int x = d[w * 64 + k];
            mm |= (uint64_t)(x >= 0) << k;
            am |= (uint64_t)(x >= 1) << k;
            bm |= (uint64_t)(x >= 2) << k;
        }
        a[w] = am;
        b[w] = bm;
        m[w] = mm;
    }
}

#ifdef LD_X86
__attribute__((target("avx512f,avx512bw"))) static void
planes_avx512(const int8_t *d, size_t N, uint64_t *a, uint64_t *b, uint64_t *m)
{
    const __m512i zero = _mm512_set1_epi8(-1), one = _mm512_set1_epi8(0), two = _mm512_set1_epi8(1);
    for (size_t w = 0; w * 64 < N; w++) {
        size_t n = N - w * 64 < 64 ? N - w * 64 : 64;
        __mmask64 k = n == 64 ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);
        __m512i x = _mm512_maskz_loadu_epi8(k, d + w * 64);
        m[w] = _mm512_mask_cmpgt_epi8_mask(k, x, zero); /* x >= 0 */
        a[w] = _mm512_mask_cmpgt_epi8_mask(k, x, one);  /* x >= 1 */
        b[w] = _mm512_mask_cmpgt_epi8_mask(k, x, two);  /* x >= 2 */
    }
}

/* The same with AVX2: 32 byte compares into a mask at a time; a short last word through a
 * copy padded with missing calls. */
__attribute__((target("avx2"))) static void planes_avx2(const int8_t *d, size_t N, uint64_t *a,
                                                        uint64_t *b, uint64_t *m)
{
    const __m256i zero = _mm256_set1_epi8(-1), one = _mm256_set1_epi8(0), two = _mm256_set1_epi8(1);
    int8_t pad[64];
    for (size_t w = 0; w * 64 < N; w++) {
        const int8_t *g = d + w * 64;
        if (N - w * 64 < 64) {
            memset(pad, -1, sizeof pad);
            memcpy(pad, g, N - w * 64);
            g = pad;
        }
        uint64_t mm = 0, am = 0, bm = 0;
        for (int h = 0; h < 2; h++) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(g + 32 * h));
            mm |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(x, zero)) << (32 * h);
            am |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(x, one)) << (32 * h);
            bm |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(x, two)) << (32 * h);
        }
        m[w] = mm;
        a[w] = am;
        b[w] = bm;
    }
}
#endif

/* Whether AVX-512 F and `feature` run here and the cap allows them. */
static int have_avx512(const char *feature)
{
#ifdef LD_X86
    __builtin_cpu_init();
    return gsvd_cpu_allows(GSVD_CPU_AVX512) && __builtin_cpu_supports("avx512f") &&
           (strcmp(feature, "avx512bw") == 0 ? __builtin_cpu_supports("avx512bw")
                                             : __builtin_cpu_supports("avx512vpopcntdq"));
#else
    (void)feature;
    return 0;
#endif
}

gsvd_ld_planes_fn gsvd_ldprune_pick_planes(void)
{
#ifdef LD_X86
    if (have_avx512("avx512bw"))
        return planes_avx512;
    if (gsvd_cpu_avx2(NULL, 0))
        return planes_avx2;
#endif
    return planes_generic;
}

/* The popcount kernel, compiled twice: with the POPCNT instruction and without. */
#define LD_KERNEL(name, attr)                                                                      \
    attr static int name(const uint64_t *pi, const uint64_t *pj, size_t W,                         \
                         const struct ld_var *vi, const struct ld_var *vj, double t)               \
    {                                                                                              \
        const uint64_t *ai = pi, *bi = pi + W, *mi = pi + 2 * W;                                   \
        const uint64_t *aj = pj, *bj = pj + W, *mj = pj + 2 * W;                                   \
        int64_t sxy = 0, n, sx, sy, sxx, syy;                                                      \
        for (size_t w = 0; w < W; w++)                                                             \
            sxy += __builtin_popcountll(ai[w] & aj[w]) + __builtin_popcountll(ai[w] & bj[w]) +     \
                   __builtin_popcountll(bi[w] & aj[w]) + __builtin_popcountll(bi[w] & bj[w]);      \
        if (!vi->has_missing && !vj->has_missing) {                                                \
            n = vi->n;                                                                             \
            sx = vi->s;                                                                            \
            sxx = vi->ss;                                                                          \
            sy = vj->s;                                                                            \
            syy = vj->ss;                                                                          \
        } else {                                                                                   \
            int64_t am = 0, bm = 0, ma = 0, mb = 0, mm = 0;                                        \
            for (size_t w = 0; w < W; w++) {                                                       \
                am += __builtin_popcountll(ai[w] & mj[w]);                                         \
                bm += __builtin_popcountll(bi[w] & mj[w]);                                         \
                ma += __builtin_popcountll(mi[w] & aj[w]);                                         \
                mb += __builtin_popcountll(mi[w] & bj[w]);                                         \
                mm += __builtin_popcountll(mi[w] & mj[w]);                                         \
            }                                                                                      \
            n = mm;                                                                                \
            sx = am + bm;                                                                          \
            sxx = am + 3 * bm;                                                                     \
            sy = ma + mb;                                                                          \
            syy = ma + 3 * mb;                                                                     \
        }                                                                                          \
        return above_from(n, sxy, sx, sy, sxx, syy, t);                                            \
    }

/* The pair's decision from its sums (shared by the kernels): plink2's comparison, operand for
 * operand (cov^2 > t var_i var_j; a constant row has var 0, so cov 0 and never above). */
static int above_from(int64_t n, int64_t sxy, int64_t sx, int64_t sy, int64_t sxx, int64_t syy,
                      double t)
{
    double num = (double)(n * sxy - sx * sy), dx = (double)(n * sxx - sx * sx),
           dy = (double)(n * syy - sy * sy);
    return num * num > t * dx * dy;
}

#ifdef LD_X86
LD_KERNEL(r2_popcnt, __attribute__((target("popcnt"))))
#define LD_HAVE_POPCNT_KERNEL 1

/* Eight words at a time with VPOPCNTQ; the tail through a load mask. */
__attribute__((target("avx512f,avx512vpopcntdq"))) static int
r2_avx512(const uint64_t *pi, const uint64_t *pj, size_t W, const struct ld_var *vi,
          const struct ld_var *vj, double t)
{
    const uint64_t *ai = pi, *bi = pi + W, *mi = pi + 2 * W;
    const uint64_t *aj = pj, *bj = pj + W, *mj = pj + 2 * W;
    __m512i sxy = _mm512_setzero_si512(), am = sxy, bm = sxy, ma = sxy, mb = sxy, mm = sxy;
    int miss = vi->has_missing || vj->has_missing;
    for (size_t w = 0; w < W; w += 8) {
        __mmask8 k = W - w >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (W - w)) - 1);
        __m512i a1 = _mm512_maskz_loadu_epi64(k, ai + w), b1 = _mm512_maskz_loadu_epi64(k, bi + w);
        __m512i a2 = _mm512_maskz_loadu_epi64(k, aj + w), b2 = _mm512_maskz_loadu_epi64(k, bj + w);
        /* (a1 + b1)(a2 + b2) = |a1 a2| + |a1 b2| + |b1 a2| + |b1 b2|, and as b implies a,
         * |a1 b2| + |b1 a2| = |a1 b2 ^ b1 a2| + 2 |b1 b2|: three popcounts */
        __m512i bb = _mm512_popcnt_epi64(_mm512_and_si512(b1, b2));
        sxy = _mm512_add_epi64(sxy, _mm512_popcnt_epi64(_mm512_and_si512(a1, a2)));
        sxy = _mm512_add_epi64(sxy, _mm512_add_epi64(bb, _mm512_add_epi64(bb, bb)));
        sxy = _mm512_add_epi64(sxy, _mm512_popcnt_epi64(_mm512_xor_si512(
                                        _mm512_and_si512(a1, b2), _mm512_and_si512(b1, a2))));
        if (miss) {
            __m512i m1 = _mm512_maskz_loadu_epi64(k, mi + w),
                    m2 = _mm512_maskz_loadu_epi64(k, mj + w);
            am = _mm512_add_epi64(am, _mm512_popcnt_epi64(_mm512_and_si512(a1, m2)));
            bm = _mm512_add_epi64(bm, _mm512_popcnt_epi64(_mm512_and_si512(b1, m2)));
            ma = _mm512_add_epi64(ma, _mm512_popcnt_epi64(_mm512_and_si512(m1, a2)));
            mb = _mm512_add_epi64(mb, _mm512_popcnt_epi64(_mm512_and_si512(m1, b2)));
            mm = _mm512_add_epi64(mm, _mm512_popcnt_epi64(_mm512_and_si512(m1, m2)));
        }
    }
    int64_t xy = _mm512_reduce_add_epi64(sxy);
    if (!miss)
        return above_from(vi->n, xy, vi->s, vj->s, vi->ss, vj->ss, t);
    int64_t n = _mm512_reduce_add_epi64(mm),
            sx = _mm512_reduce_add_epi64(am) + _mm512_reduce_add_epi64(bm);
    int64_t sxx = _mm512_reduce_add_epi64(am) + 3 * _mm512_reduce_add_epi64(bm);
    int64_t sy = _mm512_reduce_add_epi64(ma) + _mm512_reduce_add_epi64(mb);
    int64_t syy = _mm512_reduce_add_epi64(ma) + 3 * _mm512_reduce_add_epi64(mb);
    return above_from(n, xy, sx, sy, sxx, syy, t);
}
#define LD_HAVE_AVX512_KERNEL 1

/* Flags of pairs (i, j), i in [i0, j), for a row j without missing calls: the cross sums of
 * rows without missing calls inline (j's planes loaded once per 8 words, no call), rows with
 * missing calls through r2_avx512.  Returns the pairs computed. */
__attribute__((target("avx512f,avx512vpopcntdq"))) static uint64_t
row_avx512(const struct ld_state *st, size_t j, size_t i0, uint8_t *row, double t)
{
    size_t W = st->words;
    const uint64_t *pj = ld_planes_at(st, j);
    const struct ld_var *vj = ld_var_at(st, j);
    double ny = (double)(vj->n * vj->ss - vj->s * vj->s);
    uint64_t pairs = 0;
    for (size_t i = i0; i < j; i++) {
        const struct ld_var *vi = ld_var_at(st, i);
        const uint64_t *pi = ld_planes_at(st, i);
        row[i - i0] = 0;
        if (vi->removed)
            continue;
        pairs++;
        if (vi->has_missing) {
            row[i - i0] = (uint8_t)r2_avx512(pi, pj, W, vi, vj, t);
            continue;
        }
        __m512i acc = _mm512_setzero_si512();
        for (size_t w = 0; w < W; w += 8) {
            __mmask8 k = W - w >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (W - w)) - 1);
            __m512i a1 = _mm512_maskz_loadu_epi64(k, pi + w),
                    b1 = _mm512_maskz_loadu_epi64(k, pi + W + w);
            __m512i a2 = _mm512_maskz_loadu_epi64(k, pj + w),
                    b2 = _mm512_maskz_loadu_epi64(k, pj + W + w);
            __m512i bb = _mm512_popcnt_epi64(_mm512_and_si512(b1, b2));
            acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(_mm512_and_si512(a1, a2)));
            acc = _mm512_add_epi64(acc, _mm512_add_epi64(bb, _mm512_add_epi64(bb, bb)));
            acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(_mm512_xor_si512(
                                            _mm512_and_si512(a1, b2), _mm512_and_si512(b1, a2))));
        }
        int64_t n = vi->n, xy = _mm512_reduce_add_epi64(acc);
        double num = (double)(n * xy - vi->s * vj->s), nx = (double)(n * vi->ss - vi->s * vi->s);
        /* the same decision as above_from */
        row[i - i0] = num * num > t * nx * ny;
    }
    return pairs;
}

/* AVX2: each byte's popcount from a nibble table (vpshufb), added into byte accumulators that
 * vpsadbw folds into 64-bit lanes every 15 steps (a byte gains at most 16 a step); words past
 * the last whole group of four with POPCNT. */
#define LD_AVX2 __attribute__((target("avx2,popcnt")))
enum { LD_STEPS = 15 };

LD_AVX2 static inline __m256i ld4(const uint64_t *p)
{
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

/* The cross sum |a1 a2| + 3 |b1 b2| + |a1 b2 ^ b1 a2| of words [0, W) (r2_avx512's three
 * popcounts). */
LD_AVX2 static int64_t cross_avx2(const uint64_t *ai, const uint64_t *bi, const uint64_t *aj,
                                  const uint64_t *bj, size_t W)
{
    __m256i sab = _mm256_setzero_si256(), sbb = sab;
    size_t w = 0, w4 = W / 4 * 4;
    int64_t tail = 0;
    while (w < w4) {
        size_t end = w4 - w < 4 * LD_STEPS ? w4 : w + 4 * LD_STEPS;
        __m256i cab = _mm256_setzero_si256(), cbb = cab;
        for (; w < end; w += 4) {
            __m256i a1 = ld4(ai + w), b1 = ld4(bi + w), a2 = ld4(aj + w), b2 = ld4(bj + w);
            cab = _mm256_add_epi8(cab, gsvd_popcnt8_avx2(_mm256_and_si256(a1, a2)));
            cab = _mm256_add_epi8(cab, gsvd_popcnt8_avx2(_mm256_xor_si256(
                                           _mm256_and_si256(a1, b2), _mm256_and_si256(b1, a2))));
            cbb = _mm256_add_epi8(cbb, gsvd_popcnt8_avx2(_mm256_and_si256(b1, b2)));
        }
        sab = _mm256_add_epi64(sab, _mm256_sad_epu8(cab, _mm256_setzero_si256()));
        sbb = _mm256_add_epi64(sbb, _mm256_sad_epu8(cbb, _mm256_setzero_si256()));
    }
    for (; w < W; w++)
        tail += __builtin_popcountll(ai[w] & aj[w]) + 3 * __builtin_popcountll(bi[w] & bj[w]) +
                __builtin_popcountll((ai[w] & bj[w]) ^ (bi[w] & aj[w]));
    return (int64_t)(gsvd_sum4_epi64_avx2(sab) + 3 * gsvd_sum4_epi64_avx2(sbb)) + tail;
}

LD_AVX2 static int r2_avx2(const uint64_t *pi, const uint64_t *pj, size_t W,
                           const struct ld_var *vi, const struct ld_var *vj, double t)
{
    const uint64_t *ai = pi, *bi = pi + W, *mi = pi + 2 * W;
    const uint64_t *aj = pj, *bj = pj + W, *mj = pj + 2 * W;
    int64_t xy = cross_avx2(ai, bi, aj, bj, W);
    if (!vi->has_missing && !vj->has_missing)
        return above_from(vi->n, xy, vi->s, vj->s, vi->ss, vj->ss, t);
    /* |a_i m_j|, |b_i m_j|, |m_i a_j|, |m_i b_j|, |m_i m_j| */
    __m256i s[5];
    int64_t c[5] = {0};
    size_t w = 0, w4 = W / 4 * 4;
    for (int q = 0; q < 5; q++)
        s[q] = _mm256_setzero_si256();
    while (w < w4) {
        size_t end = w4 - w < 4 * LD_STEPS ? w4 : w + 4 * LD_STEPS;
        __m256i b[5];
        for (int q = 0; q < 5; q++)
            b[q] = _mm256_setzero_si256();
        for (; w < end; w += 4) {
            __m256i m1 = ld4(mi + w), m2 = ld4(mj + w);
            b[0] = _mm256_add_epi8(b[0], gsvd_popcnt8_avx2(_mm256_and_si256(ld4(ai + w), m2)));
            b[1] = _mm256_add_epi8(b[1], gsvd_popcnt8_avx2(_mm256_and_si256(ld4(bi + w), m2)));
            b[2] = _mm256_add_epi8(b[2], gsvd_popcnt8_avx2(_mm256_and_si256(m1, ld4(aj + w))));
            b[3] = _mm256_add_epi8(b[3], gsvd_popcnt8_avx2(_mm256_and_si256(m1, ld4(bj + w))));
            b[4] = _mm256_add_epi8(b[4], gsvd_popcnt8_avx2(_mm256_and_si256(m1, m2)));
        }
        for (int q = 0; q < 5; q++)
            s[q] = _mm256_add_epi64(s[q], _mm256_sad_epu8(b[q], _mm256_setzero_si256()));
    }
    for (int q = 0; q < 5; q++)
        c[q] = (int64_t)gsvd_sum4_epi64_avx2(s[q]);
    for (; w < W; w++) {
        c[0] += __builtin_popcountll(ai[w] & mj[w]);
        c[1] += __builtin_popcountll(bi[w] & mj[w]);
        c[2] += __builtin_popcountll(mi[w] & aj[w]);
        c[3] += __builtin_popcountll(mi[w] & bj[w]);
        c[4] += __builtin_popcountll(mi[w] & mj[w]);
    }
    return above_from(c[4], xy, c[0] + c[1], c[2] + c[3], c[0] + 3 * c[1], c[2] + 3 * c[3], t);
}

/* row_avx512's flags with the AVX2 counts: rows without missing calls by their cross sum and
 * row j's terms once, rows with missing calls through r2_avx2. */
LD_AVX2 static uint64_t row_avx2(const struct ld_state *st, size_t j, size_t i0, uint8_t *row,
                                 double t)
{
    size_t W = st->words;
    const uint64_t *pj = ld_planes_at(st, j);
    const struct ld_var *vj = ld_var_at(st, j);
    double ny = (double)(vj->n * vj->ss - vj->s * vj->s);
    uint64_t pairs = 0;
    for (size_t i = i0; i < j; i++) {
        const struct ld_var *vi = ld_var_at(st, i);
        const uint64_t *pi = ld_planes_at(st, i);
        row[i - i0] = 0;
        if (vi->removed)
            continue;
        pairs++;
        if (vi->has_missing) {
            row[i - i0] = (uint8_t)r2_avx2(pi, pj, W, vi, vj, t);
            continue;
        }
        int64_t n = vi->n, xy = cross_avx2(pi, pi + W, pj, pj + W, W);
        double num = (double)(n * xy - vi->s * vj->s), nx = (double)(n * vi->ss - vi->s * vi->s);
        /* the same decision as above_from */
        row[i - i0] = num * num > t * nx * ny;
    }
    return pairs;
}
#endif
LD_KERNEL(r2_generic, )

gsvd_ld_r2_fn gsvd_ldprune_pick_r2(void)
{
#ifdef LD_HAVE_AVX512_KERNEL
    if (have_avx512("avx512vpopcntdq"))
        return r2_avx512;
    if (gsvd_cpu_avx2(NULL, 0))
        return r2_avx2;
#endif
#ifdef LD_HAVE_POPCNT_KERNEL
    if (gsvd_cpu_popcnt()) /* the CPU has it and GENSVD_CPU_LEVEL is above base */
        return r2_popcnt;
#endif
    return r2_generic;
}

gsvd_ld_row_fn gsvd_ldprune_pick_row(void)
{
#ifdef LD_HAVE_AVX512_KERNEL
    gsvd_ld_r2_fn r2 = gsvd_ldprune_pick_r2();
    if (r2 == r2_avx512)
        return row_avx512;
    if (r2 == r2_avx2)
        return row_avx2;
#endif
    return NULL;
}

const char *gsvd_ldprune_popcount_engine(void)
{
#ifdef LD_HAVE_AVX512_KERNEL
    gsvd_ld_r2_fn r2 = gsvd_ldprune_pick_r2();
    if (r2 == r2_avx512)
        return "AVX-512 VPOPCNTDQ";
    if (r2 == r2_avx2)
        return "AVX2";
#endif
#ifdef LD_HAVE_POPCNT_KERNEL
    if (gsvd_ldprune_pick_r2() == r2_popcnt)
        return "POPCNT";
#endif
    return "portable code";
}
