/* analysis/cpu/kernels/gram_i8_avx2.c - the int8 Gram's AVX2 engine (see
 * analysis/cpu/kernels/gram_i8.h) for CPUs without AMX or AVX-512: the pack (the AVX-512 packing's
 * layout and centring sums, bit for bit) and the products P_h = L_h R', P_l = L_l R' per weight
 * class, the same integers, folded into float64 with the same operation in the same order, so
 * a Gram has the same bytes as on the AMX and VNNI engines.
 *
 * Products: AVX2 has no byte dot product that holds 254 x 254 without saturating (vpmaddubsw
 * adds two signed 16-bit products), so L and R are widened to 16 bits and multiplied with
 * vpmaddwd (16 products a step, pairs of rows added into int32: the partial sums stay below
 * 254 x 254 x 32,768 < 2^31).  Register block: 4 samples i (their L_h and L_l quads of rows,
 * widened once per register pass into a 16 KiB buffer, broadcast) x 4 samples j (one R quad row,
 * widened as it is loaded) x 2 digits = 8 accumulators, each lane pair the sums of rows 4r, 4r+1
 * and 4r+2, 4r+3, added at the end.  This runs at about the float32 FMA rate (two products per
 * entry at 16 per vpmaddwd), so `-m auto` keeps the float32 Gram on such CPUs and this engine
 * serves `--gram-kernel i8` (the same bytes on every CPU).  Measurements: kernels/README.md. */
#include "gsvd_config.h"

#include "analysis/cpu/kernels/gram_i8_internal.h"

#include <string.h>

#if GSVD_I8_X86

#define AVX2_TARGET __attribute__((target("avx2,fma")))

enum {
    IB = 4,          /* samples i of a register block */
    JB = 4,          /* samples j of a register block (one R quad row: 16 bytes) */
    UNIT = 64,       /* rows of a unit (GSVD_I8_KBLK) */
    VKB = 16 * UNIT, /* rows of one register pass */
    TS = GSVD_I8_TILE
};

/* ---- the pack --------------------------------------------------------------------------- */

/* Samples [s0, s0 + 16) of padded row k (zeros for a padding row and past n). */
AVX2_TARGET static inline __m128i load_row16(const gsvd_i8_pack *p, const uint8_t *codes, size_t k,
                                             size_t s0)
{
    int32_t r = p->src[k];
    if (r < 0 || s0 >= p->n)
        return _mm_setzero_si128();
    const uint8_t *src = codes + (size_t)r * p->n + s0;
    if (p->n - s0 >= 16)
        return _mm_loadu_si128((const __m128i *)(const void *)src);
    uint8_t t[16] = {0};
    memcpy(t, src, p->n - s0);
    return _mm_loadu_si128((const __m128i *)(const void *)t);
}

/* 4 samples' terms of row k (by code: the row's 4 values of lv) as 4 doubles: vpermd on the
 * doubles' 32-bit halves, index 2 code and 2 code + 1. */
AVX2_TARGET static inline __m256d lookup4(__m256i lv, __m128i codes4)
{
    __m256i c = _mm256_cvtepu8_epi64(codes4); /* codes 0..3 in 64-bit lanes */
    __m256i idx =
        _mm256_add_epi64(_mm256_add_epi64(_mm256_slli_epi64(c, 1), _mm256_slli_epi64(c, 33)),
                         _mm256_set1_epi64x((long long)1 << 32));
    return _mm256_castsi256_pd(_mm256_permutevar8x32_epi32(lv, idx));
}

/* The centring terms of a block of 16 samples, in registers over a strip's units: sl (4 x 4
 * samples) and what sr adds to it for the missing calls. */
struct sums2 {
    __m256d sl[4], dm[4];
};

/* Row k's terms (codes: its 16 samples) added to s, as sum_quad of gram_i8.c does for each of
 * its rows: the call's term looked up by code, the missing calls' difference where a lane holds
 * one (blended, so the other lanes keep their bits). */
AVX2_TARGET static inline void sum_row(const gsvd_i8_pack *p, size_t k, __m128i codes,
                                       struct sums2 *s)
{
    __m256i lv = _mm256_loadu_si256((const __m256i *)(const void *)(p->plv + 4 * k));
    __m256d d = _mm256_set1_pd(p->pdv[k]);
    __m128i miss = _mm_cmpeq_epi8(codes, _mm_set1_epi8(3));
    for (int g = 0; g < 4; g++) {
        __m128i c4 = _mm_srli_si128(codes, 0);
        __m128i m4 = miss;
        switch (g) { /* (byte shifts take immediates) */
        case 1:
            c4 = _mm_srli_si128(codes, 4);
            m4 = _mm_srli_si128(miss, 4);
            break;
        case 2:
            c4 = _mm_srli_si128(codes, 8);
            m4 = _mm_srli_si128(miss, 8);
            break;
        case 3:
            c4 = _mm_srli_si128(codes, 12);
            m4 = _mm_srli_si128(miss, 12);
            break;
        default:
            break;
        }
        s->sl[g] = _mm256_add_pd(s->sl[g], lookup4(lv, c4));
        __m256d mm = _mm256_castsi256_pd(_mm256_cvtepi8_epi64(m4));
        s->dm[g] = _mm256_blendv_pd(s->dm[g], _mm256_add_pd(s->dm[g], d), mm);
    }
}

/* Unit u, samples [16 b, 16 b + 16) into the tile layouts (gram_i8.c's pack_block: the same
 * bytes), with the block's centring terms. */
AVX2_TARGET static void pack_block(gsvd_i8_pack *p, const uint8_t *codes, size_t u, size_t b,
                                   struct sums2 *s)
{
    const __m128i off_l = _mm_set1_epi8(4), off_r = _mm_set1_epi8(8);
    size_t units = p->kp / GSVD_I8_KBLK, aoff = (b * units + u) * 2048;
    size_t boff = ((b / 2 * units + u) * 2 + b % 2) * 1024;
    uint8_t *ah = p->at + aoff, *al = ah + 1024, *bq = p->bt + boff;

    for (size_t r = 0; r < 16; r++) {
        size_t k = u * GSVD_I8_KBLK + 4 * r;
        __m128i vh[4], vl[4], vr[4];
        for (size_t q = 0; q < 4; q++) {
            __m128i c = load_row16(p, codes, k + q, 16 * b);
            __m128i lut = _mm_loadu_si128((const __m128i *)(const void *)(p->lut + (k + q) * 16));
            sum_row(p, k + q, c, s);
            vh[q] = _mm_shuffle_epi8(lut, c);
            vl[q] = _mm_shuffle_epi8(lut, _mm_add_epi8(c, off_l));
            vr[q] = _mm_shuffle_epi8(lut, _mm_add_epi8(c, off_r));
        }
        /* quads [4 c + q]: bytes of rows 0, 1 paired, then those pairs of rows 0-1 and 2-3 */
        __m128i *const v[3] = {vh, vl, vr};
        __m128i quads[3][4];
        for (int d = 0; d < 3; d++) {
            __m128i p01l = _mm_unpacklo_epi8(v[d][0], v[d][1]),
                    p01h = _mm_unpackhi_epi8(v[d][0], v[d][1]);
            __m128i p23l = _mm_unpacklo_epi8(v[d][2], v[d][3]),
                    p23h = _mm_unpackhi_epi8(v[d][2], v[d][3]);
            quads[d][0] = _mm_unpacklo_epi16(p01l, p23l);
            quads[d][1] = _mm_unpackhi_epi16(p01l, p23l);
            quads[d][2] = _mm_unpacklo_epi16(p01h, p23h);
            quads[d][3] = _mm_unpackhi_epi16(p01h, p23h);
        }
        for (int h = 0; h < 4; h++)
            _mm_storeu_si128((__m128i *)(void *)(bq + 64 * r + 16 * h), quads[2][h]);
        /* A, sample-major: sample c's row holds dword c of every quad row */
        for (int h = 0; h < 4; h++) {
            uint32_t wh[4], wl[4];
            _mm_storeu_si128((__m128i *)(void *)wh, quads[0][h]);
            _mm_storeu_si128((__m128i *)(void *)wl, quads[1][h]);
            for (int c = 0; c < 4; c++) {
                memcpy(ah + (4 * h + c) * 64 + 4 * r, &wh[c], 4);
                memcpy(al + (4 * h + c) * 64 + 4 * r, &wl[c], 4);
            }
        }
    }
}

AVX2_TARGET void gsvd_i8_pack_strip_avx2(gsvd_i8_pack *p, const uint8_t *codes, size_t t)
{
    enum { BLOCKS = GSVD_I8_STRIP / 16 };
    size_t units = p->kp / GSVD_I8_KBLK, b0 = BLOCKS * t;
    size_t nb = p->nb - b0 < BLOCKS ? p->nb - b0 : BLOCKS;
    struct sums2 s[BLOCKS];

    for (size_t j = 0; j < BLOCKS; j++)
        for (int g = 0; g < 4; g++)
            s[j].sl[g] = s[j].dm[g] = _mm256_setzero_pd();
    for (size_t u = 0; u < units; u++) /* unit by unit, as the AVX-512 packing (sum order) */
        for (size_t j = 0; j < nb; j++)
            pack_block(p, codes, u, b0 + j, &s[j]);
    for (size_t j = 0; j < nb; j++) {
        double *sl = p->sl + 16 * (b0 + j), *sr = p->sr + 16 * (b0 + j);
        for (int g = 0; g < 4; g++) {
            _mm256_storeu_pd(sl + 4 * g, s[j].sl[g]);
            _mm256_storeu_pd(sr + 4 * g, _mm256_add_pd(s[j].sl[g], s[j].dm[g]));
        }
    }
}

/* ---- the products ------------------------------------------------------------------------- */

/* Samples si .. si + 3's L_h and L_l over units [u0, u1) widened to 16 bits: lw[i][d][row]. */
AVX2_TARGET static void widen_l(const gsvd_i8_pack *p, size_t si, size_t u0, size_t u1,
                                int16_t lw[IB][2][VKB])
{
    size_t units = p->kp / UNIT;
    for (size_t i = 0; i < IB; i++) {
        size_t s = si + i, b = s / 16, m = s % 16;
        for (size_t u = u0; u < u1; u++)
            for (int d = 0; d < 2; d++) {
                const uint8_t *a = p->at + ((b * units + u) * 2 + (size_t)d) * 1024 + m * 64;
                int16_t *o = lw[i][d] + (u - u0) * UNIT;
                for (int h = 0; h < 4; h++)
                    _mm256_storeu_si256((__m256i *)(void *)(o + 16 * h),
                                        _mm256_cvtepu8_epi16(_mm_loadu_si128(
                                            (const __m128i *)(const void *)(a + 16 * h))));
            }
    }
}

/* One register block's sums over units [u0, u1): samples si .. si + 3 (widened in lw) against
 * sj .. sj + 3, added to what acc carries from the class's earlier register passes unless first;
 * folded into c (the block's corner, rows TS apart) with the class's scale when last, else
 * carried in acc (rows of TS int32, P_l's at TS^2). */
AVX2_TARGET static void block(const gsvd_i8_pack *p, int16_t lw[IB][2][VKB], size_t sj, size_t u0,
                              size_t u1, int first, int last, int32_t *acc, __m256d scale,
                              double *c)
{
    size_t units = p->kp / UNIT;
    const uint8_t *bq = p->bt + (sj / 32 * units + u0) * 2048 + (sj % 32 / 16) * 1024 + sj % 16 * 4;
    __m256i a[IB][2];
    for (int i = 0; i < IB; i++)
        a[i][0] = a[i][1] = _mm256_setzero_si256();
    for (size_t u = u0; u < u1; u++, bq += 2048)
        for (size_t r = 0; r < 16; r++) {
            __m256i rw =
                _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(bq + 64 * r)));
            size_t row = (u - u0) * UNIT + 4 * r;
#pragma GCC unroll 4
            for (int i = 0; i < IB; i++) {
                long long h, l;
                memcpy(&h, lw[i][0] + row, 8);
                memcpy(&l, lw[i][1] + row, 8);
                a[i][0] = _mm256_add_epi32(a[i][0], _mm256_madd_epi16(rw, _mm256_set1_epi64x(h)));
                a[i][1] = _mm256_add_epi32(a[i][1], _mm256_madd_epi16(rw, _mm256_set1_epi64x(l)));
            }
        }
    for (int i = 0; i < IB; i++) {
        /* the row pairs' sums added: P_h of j 0..3, then P_l of j 0..3 */
        __m256i v = _mm256_permute4x64_epi64(_mm256_hadd_epi32(a[i][0], a[i][1]), 0xd8);
        __m128i ph = _mm256_castsi256_si128(v), pl = _mm256_extracti128_si256(v, 1);
        int32_t *mh = acc + (size_t)i * TS, *ml = mh + (size_t)TS * TS;
        if (!first) { /* the class's earlier register passes */
            ph = _mm_add_epi32(ph, _mm_loadu_si128((const __m128i *)(const void *)mh));
            pl = _mm_add_epi32(pl, _mm_loadu_si128((const __m128i *)(const void *)ml));
        }
        if (last) {
            int32_t h[JB], l[JB];
            _mm_storeu_si128((__m128i *)(void *)h, ph);
            _mm_storeu_si128((__m128i *)(void *)l, pl);
            gsvd_i8_fold4_avx2(h, l, scale, c + (size_t)i * TS);
        } else {
            _mm_storeu_si128((__m128i *)(void *)mh, ph);
            _mm_storeu_si128((__m128i *)(void *)ml, pl);
        }
    }
}

AVX2_TARGET void gsvd_i8_gram_tile_avx2(const gsvd_i8_pack *p, size_t i0, size_t j0, size_t wi,
                                        size_t wj, int32_t *acc, double *c)
{
    size_t mi = (wi + 15) / 16 * 16, mj = (wj + 31) / 32 * 32;
    int16_t lw[IB][2][VKB] __attribute__((aligned(32)));

    gsvd_i8_tile_centring(p, i0, j0, wi, wj, mi, mj, c);
    for (size_t q = 0; q < p->n_cls; q++) {
        const struct i8_class *cl = &p->cls[q];
        const __m256d scale = _mm256_set1_pd(gsvd_i8_class_scale(cl));
        for (size_t k = cl->k0; k < cl->k1; k += VKB) {
            size_t k1 = cl->k1 - k < VKB ? cl->k1 : k + VKB;
            int first = k == cl->k0, last = k1 == cl->k1;
            for (size_t bi = 0; bi < mi; bi += IB) {
                if (j0 + mj <= i0 + bi)
                    break; /* this and every later i block lie below the diagonal */
                widen_l(p, i0 + bi, k / UNIT, k1 / UNIT, lw);
                for (size_t bj = 0; bj < mj; bj += JB) {
                    if (j0 + bj + JB <= i0 + bi)
                        continue; /* below the diagonal: not read */
                    block(p, lw, j0 + bj, k / UNIT, k1 / UNIT, first, last, acc + bi * TS + bj,
                          scale, c + bi * TS + bj);
                }
            }
        }
    }
}

#else /* !GSVD_I8_X86 */

void gsvd_i8_pack_strip_avx2(gsvd_i8_pack *p, const uint8_t *codes, size_t t)
{
    (void)p;
    (void)codes;
    (void)t; /* never called: the probe says no engine runs here */
}

void gsvd_i8_gram_tile_avx2(const gsvd_i8_pack *p, size_t i0, size_t j0, size_t wi, size_t wj,
                            int32_t *acc, double *c)
{
    (void)p;
    (void)i0;
    (void)j0;
    (void)wi;
    (void)wj;
    (void)acc;
    (void)c; /* never called: the probe says no engine runs here */
}

#endif
