/* analysis/pdist/pdist_bitplane_avx2.c - the bit-plane kernel's pair counts with AVX2, for CPUs
 * without AVX-512 VPOPCNTDQ: the same counts as pdist_bitplane.c's scalar and AVX-512 functions
 * (so the same bytes), 256 bits of each plane per step.
 *
 * AVX2 has no vector popcount.  Each count's vector goes through a 16-entry table with vpshufb
 * (the low and the high nibble of every byte: the byte's popcount), added into byte
 * accumulators; every 15 steps (a byte gains at most 16 a step, two popcounts for the L1 and
 * wide counts that add two) vpsadbw adds the bytes into 64-bit lanes.  One pair at a time (the
 * item's planes are reloaded from L1 for each of the four): the counts of one pair, their byte
 * and 64-bit accumulators fill the 16 ymm registers.  A Harley-Seal carry-save tree over four
 * steps per count measured slower for KING (its state does not fit the registers with five
 * counts); two steps through one adder per count do pay (pairk_avx2_body), and the L1 counts
 * take a two-level tree (pair4_l1_avx2_body).  See analysis/pdist/README.md. */
#include "gsvd_config.h"

#include "analysis/pdist/pdist_bitplane_internal.h"
#include "common/popcnt_avx2.h"

#if PD_X86

#define PD_AVX2 __attribute__((target("avx2,popcnt")))

enum { STEPS = 15 }; /* steps between two vpsadbw: 15 x 16 <= 255 */

/* The byte accumulator b added into the 64-bit lanes of s. */
PD_AVX2 static inline __m256i fold(__m256i s, __m256i b)
{
    return _mm256_add_epi64(s, _mm256_sad_epu8(b, _mm256_setzero_si256()));
}

PD_AVX2 static inline __m256i ld(const uint64_t *p)
{
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

/* The narrow counts (pdist_bitplane.c, pair4_fn): n, one, two of x against each y[k]. */
PD_AVX2 static inline __attribute__((always_inline)) void
pair4_avx2_body(const uint64_t *x, const uint64_t *const y[4], size_t W, size_t nw,
                uint64_t out[4][NW], const int l1, const int masked)
{
    for (int k = 0; k < 4; k++) {
        const uint64_t *yk = y[k];
        __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0;
        for (size_t w0 = 0; w0 < nw; w0 += 4 * STEPS) {
            size_t w1 = nw - w0 < 4 * STEPS ? nw : w0 + 4 * STEPS;
            __m256i b0 = _mm256_setzero_si256(), b1 = b0, b2 = b0;
            for (size_t w = w0; w < w1; w += 4) {
                __m256i da = _mm256_xor_si256(ld(x + W + w), ld(yk + W + w));
                __m256i d2 = _mm256_xor_si256(ld(x + 2 * W + w), ld(yk + 2 * W + w));
                if (masked) {
                    __m256i kk = _mm256_and_si256(ld(x + w), ld(yk + w));
                    b0 = _mm256_add_epi8(b0, gsvd_popcnt8_avx2(kk));
                    da = _mm256_and_si256(da, kk);
                    if (l1) {
                        b1 = _mm256_add_epi8(b1, gsvd_popcnt8_avx2(da));
                        b1 = _mm256_add_epi8(b1, gsvd_popcnt8_avx2(_mm256_and_si256(d2, kk)));
                    } else {
                        b1 = _mm256_add_epi8(b1, gsvd_popcnt8_avx2(_mm256_and_si256(d2, kk)));
                        b2 = _mm256_add_epi8(b2, gsvd_popcnt8_avx2(_mm256_andnot_si256(d2, da)));
                    }
                } else if (l1) {
                    b1 = _mm256_add_epi8(b1, gsvd_popcnt8_avx2(da));
                    b1 = _mm256_add_epi8(b1, gsvd_popcnt8_avx2(d2));
                } else {
                    b1 = _mm256_add_epi8(b1, gsvd_popcnt8_avx2(d2));
                    b2 = _mm256_add_epi8(b2, gsvd_popcnt8_avx2(_mm256_andnot_si256(d2, da)));
                }
            }
            s0 = fold(s0, b0);
            s1 = fold(s1, b1);
            s2 = fold(s2, b2);
        }
        out[k][0] = masked ? gsvd_sum4_epi64_avx2(s0) : 0;
        out[k][1] = gsvd_sum4_epi64_avx2(s1);
        out[k][2] = l1 ? 0 : gsvd_sum4_epi64_avx2(s2);
    }
}

#define PD_PAIR4_AVX2(name, l1, masked)                                                            \
    PD_AVX2 void name(const uint64_t *x, const uint64_t *const y[4], size_t W, size_t nw,          \
                      uint64_t out[4][NW])                                                         \
    {                                                                                              \
        pair4_avx2_body(x, y, W, nw, out, l1, masked);                                             \
    }

/* A carry-save adder: h + a + b = 2 carry + h' bit by bit (h' into *h); the carry returned. */
PD_AVX2 static inline __m256i csa(__m256i *h, __m256i a, __m256i b)
{
    __m256i u = _mm256_xor_si256(*h, a);
    __m256i carry = _mm256_or_si256(_mm256_and_si256(*h, a), _mm256_and_si256(u, b));
    *h = _mm256_xor_si256(u, b);
    return carry;
}

/* Step w's two L1 vectors ((A or B planes differing) & both called; unmasked without the &),
 * and the jointly called bits kk (masked only). */
PD_AVX2 static inline __attribute__((always_inline)) void
l1_step(const uint64_t *x, const uint64_t *yk, size_t W, size_t w, const int masked, __m256i *u,
        __m256i *v, __m256i *kk)
{
    *u = _mm256_xor_si256(ld(x + W + w), ld(yk + W + w));
    *v = _mm256_xor_si256(ld(x + 2 * W + w), ld(yk + 2 * W + w));
    if (masked) {
        *kk = _mm256_and_si256(ld(x + w), ld(yk + w));
        *u = _mm256_and_si256(*u, *kk);
        *v = _mm256_and_si256(*v, *kk);
    }
}

/* The L1 counts (pair4_fn with l1: n, one + 2 two, 0) through Harley-Seal trees: two steps'
 * four L1 vectors go through three carry-save adders into running ones and twos, and only the
 * fours are looked up (one table lookup for 4 vectors instead of 4); the two steps' kk through
 * one adder, their twos looked up.  The same counts, a sixth fewer vector operations than
 * pair4_avx2_body's (a tenth less time in the kernel, Zen 4 at AVX2). */
PD_AVX2 static inline __attribute__((always_inline)) void
pair4_l1_avx2_body(const uint64_t *x, const uint64_t *const y[4], size_t W, size_t nw,
                   uint64_t out[4][NW], const int masked)
{
    enum { STEPS2 = 60 }; /* steps between two vpsadbw: b0's and b4's bytes gain 8 in two */
    const __m256i zero = _mm256_setzero_si256();
    for (int k = 0; k < 4; k++) {
        const uint64_t *yk = y[k];
        __m256i s0 = zero, s1 = zero, ones = zero, twos = zero, onesk = zero;
        for (size_t w0 = 0; w0 < nw; w0 += 4 * STEPS2) {
            size_t w1 = nw - w0 < 4 * STEPS2 ? nw : w0 + 4 * STEPS2;
            __m256i b0 = zero, b4 = zero, u1, v1, u2, v2, k1 = zero, k2 = zero;
            size_t w = w0;
            for (; w + 8 <= w1; w += 8) {
                l1_step(x, yk, W, w, masked, &u1, &v1, &k1);
                l1_step(x, yk, W, w + 4, masked, &u2, &v2, &k2);
                if (masked) /* kk's twos: 2 b0 + onesk over the two steps */
                    b0 = _mm256_add_epi8(b0, gsvd_popcnt8_avx2(csa(&onesk, k1, k2)));
                __m256i t1 = csa(&ones, u1, v1), t2 = csa(&ones, u2, v2);
                b4 = _mm256_add_epi8(b4, gsvd_popcnt8_avx2(csa(&twos, t1, t2)));
            }
            if (w < w1) { /* an odd last step */
                l1_step(x, yk, W, w, masked, &u1, &v1, &k1);
                if (masked)
                    b0 = _mm256_add_epi8(b0, gsvd_popcnt8_avx2(csa(&onesk, k1, zero)));
                b4 = _mm256_add_epi8(b4, gsvd_popcnt8_avx2(csa(&twos, csa(&ones, u1, v1), zero)));
            }
            s0 = _mm256_add_epi64(s0, _mm256_slli_epi64(_mm256_sad_epu8(b0, zero), 1));
            s1 = _mm256_add_epi64(s1, _mm256_slli_epi64(_mm256_sad_epu8(b4, zero), 2));
        }
        s0 = fold(s0, gsvd_popcnt8_avx2(onesk));
        s1 = fold(s1, gsvd_popcnt8_avx2(ones));
        s1 = _mm256_add_epi64(s1,
                              _mm256_slli_epi64(_mm256_sad_epu8(gsvd_popcnt8_avx2(twos), zero), 1));
        out[k][0] = masked ? gsvd_sum4_epi64_avx2(s0) : 0;
        out[k][1] = gsvd_sum4_epi64_avx2(s1);
        out[k][2] = 0;
    }
}

PD_AVX2 void gsvd_pd_pair4_avx2_l1_k(const uint64_t *x, const uint64_t *const y[4], size_t W,
                                     size_t nw, uint64_t out[4][NW])
{
    pair4_l1_avx2_body(x, y, W, nw, out, 1);
}

PD_AVX2 void gsvd_pd_pair4_avx2_l1(const uint64_t *x, const uint64_t *const y[4], size_t W,
                                   size_t nw, uint64_t out[4][NW])
{
    pair4_l1_avx2_body(x, y, W, nw, out, 0);
}
PD_PAIR4_AVX2(gsvd_pd_pair4_avx2_pq_k, 0, 1)
PD_PAIR4_AVX2(gsvd_pd_pair4_avx2_pq, 0, 0)

/* The wide counts (pairw_scalar's): masked, all eight; full (a complete segment), only the
 * pairwise |Ax & Ay|, |Ax & By| + |Bx & Ay|, |Bx & By| (the rest left 0 for the caller). */
PD_AVX2 static inline __attribute__((always_inline)) void
pairw_avx2_body(const uint64_t *x, const uint64_t *const y[4], size_t W, size_t nw,
                uint64_t out[4][NW], const int masked)
{
    for (int k = 0; k < 4; k++) {
        const uint64_t *yk = y[k];
        __m256i s[NW], b[NW];
        for (int q = 0; q < NW; q++)
            s[q] = _mm256_setzero_si256();
        for (size_t w0 = 0; w0 < nw; w0 += 4 * STEPS) {
            size_t w1 = nw - w0 < 4 * STEPS ? nw : w0 + 4 * STEPS;
            for (int q = 0; q < NW; q++)
                b[q] = _mm256_setzero_si256();
            for (size_t w = w0; w < w1; w += 4) {
                __m256i xa = ld(x + W + w), xb = ld(x + 2 * W + w);
                __m256i ya = ld(yk + W + w), yb = ld(yk + 2 * W + w);
                if (masked) {
                    __m256i xc = ld(x + w), yc = ld(yk + w);
                    b[0] = _mm256_add_epi8(b[0], gsvd_popcnt8_avx2(_mm256_and_si256(xc, yc)));
                    b[1] = _mm256_add_epi8(b[1], gsvd_popcnt8_avx2(_mm256_and_si256(xa, yc)));
                    b[2] = _mm256_add_epi8(b[2], gsvd_popcnt8_avx2(_mm256_and_si256(xb, yc)));
                    b[3] = _mm256_add_epi8(b[3], gsvd_popcnt8_avx2(_mm256_and_si256(ya, xc)));
                    b[4] = _mm256_add_epi8(b[4], gsvd_popcnt8_avx2(_mm256_and_si256(yb, xc)));
                }
                b[5] = _mm256_add_epi8(b[5], gsvd_popcnt8_avx2(_mm256_and_si256(xa, ya)));
                b[6] = _mm256_add_epi8(b[6], gsvd_popcnt8_avx2(_mm256_and_si256(xa, yb)));
                b[6] = _mm256_add_epi8(b[6], gsvd_popcnt8_avx2(_mm256_and_si256(xb, ya)));
                b[7] = _mm256_add_epi8(b[7], gsvd_popcnt8_avx2(_mm256_and_si256(xb, yb)));
            }
            for (int q = masked ? 0 : 5; q < NW; q++)
                s[q] = fold(s[q], b[q]);
        }
        for (int q = 0; q < NW; q++)
            out[k][q] = masked || q >= 5 ? gsvd_sum4_epi64_avx2(s[q]) : 0;
    }
}

PD_AVX2 void gsvd_pd_pairw_avx2(const uint64_t *x, const uint64_t *const y[4], size_t W, size_t nw,
                                uint64_t out[4][NW])
{
    pairw_avx2_body(x, y, W, nw, out, 1);
}

PD_AVX2 void gsvd_pd_pairw_avx2_full(const uint64_t *x, const uint64_t *const y[4], size_t W,
                                     size_t nw, uint64_t out[4][NW])
{
    pairw_avx2_body(x, y, W, nw, out, 0);
}

/* Step w's KING vectors: kk, het-het, IBS0, Px & Cy, Py & Cx (masked); unmasked only het-het
 * and IBS0 (the rest zero). */
PD_AVX2 static inline __attribute__((always_inline)) void king_step(const uint64_t *x,
                                                                    const uint64_t *yk, size_t W,
                                                                    size_t w, const int masked,
                                                                    __m256i v[NK])
{
    __m256i xp = ld(x + 2 * W + w), yp = ld(yk + 2 * W + w);
    __m256i da = _mm256_xor_si256(ld(x + W + w), ld(yk + W + w));
    v[0] = v[3] = v[4] = _mm256_setzero_si256();
    if (masked) {
        __m256i xc = ld(x + w), yc = ld(yk + w), kk = _mm256_and_si256(xc, yc);
        da = _mm256_and_si256(da, kk);
        v[0] = kk;
        v[3] = _mm256_and_si256(xp, yc);
        v[4] = _mm256_and_si256(yp, xc);
    }
    v[1] = _mm256_and_si256(xp, yp);
    v[2] = _mm256_andnot_si256(_mm256_or_si256(xp, yp), da);
}

/* The KING counts (pairk_scalar's): masked, all five; unmasked, het-het and IBS0 only.  Each
 * count's two steps go through one carry-save adder into its running ones, and only the
 * twos are looked up (2 table popcounts of 4 become 1 of 2 and an adder): 5% less time
 * capped at AVX2 on Zen 4 than one lookup a vector. */
PD_AVX2 static inline __attribute__((always_inline)) void
pairk_avx2_body(const uint64_t *x, const uint64_t *const y[4], size_t W, size_t nw,
                uint64_t out[4][NW], const int masked)
{
    enum { STEPS2 = 60 }; /* steps between two vpsadbw: a byte gains 8 in two */
    const __m256i zero = _mm256_setzero_si256();
    const int q0 = masked ? 0 : 1, q1 = masked ? NK : 3; /* the counts computed */
    for (int k = 0; k < 4; k++) {
        const uint64_t *yk = y[k];
        __m256i s[NK], ones[NK];
        for (int q = 0; q < NK; q++)
            s[q] = ones[q] = zero;
        for (size_t w0 = 0; w0 < nw; w0 += 4 * STEPS2) {
            size_t w1 = nw - w0 < 4 * STEPS2 ? nw : w0 + 4 * STEPS2, w = w0;
            __m256i b[NK], v1[NK], v2[NK];
            for (int q = 0; q < NK; q++)
                b[q] = zero;
            for (; w + 8 <= w1; w += 8) {
                king_step(x, yk, W, w, masked, v1);
                king_step(x, yk, W, w + 4, masked, v2);
                for (int q = q0; q < q1; q++)
                    b[q] = _mm256_add_epi8(b[q], gsvd_popcnt8_avx2(csa(&ones[q], v1[q], v2[q])));
            }
            if (w < w1) { /* an odd last step */
                king_step(x, yk, W, w, masked, v1);
                for (int q = q0; q < q1; q++)
                    b[q] = _mm256_add_epi8(b[q], gsvd_popcnt8_avx2(csa(&ones[q], v1[q], zero)));
            }
            for (int q = q0; q < q1; q++)
                s[q] = _mm256_add_epi64(s[q], _mm256_slli_epi64(_mm256_sad_epu8(b[q], zero), 1));
        }
        for (int q = 0; q < NK; q++)
            out[k][q] = q >= q0 && q < q1
                            ? gsvd_sum4_epi64_avx2(fold(s[q], gsvd_popcnt8_avx2(ones[q])))
                            : 0;
    }
}

PD_AVX2 void gsvd_pd_pairk_avx2_k(const uint64_t *x, const uint64_t *const y[4], size_t W,
                                  size_t nw, uint64_t out[4][NW])
{
    pairk_avx2_body(x, y, W, nw, out, 1);
}

PD_AVX2 void gsvd_pd_pairk_avx2(const uint64_t *x, const uint64_t *const y[4], size_t W, size_t nw,
                                uint64_t out[4][NW])
{
    pairk_avx2_body(x, y, W, nw, out, 0);
}

#endif /* PD_X86 */
