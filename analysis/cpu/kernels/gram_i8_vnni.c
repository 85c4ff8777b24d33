/* analysis/cpu/kernels/gram_i8_vnni.c - the int8 Gram's AVX-512 VNNI engine (see
 * analysis/cpu/kernels/gram_i8.h): the AMX engine's products, P_h = L_h R' and P_l = L_l R' per
 * weight class, from the same pack, with vpdpbusd (16 int32 lanes, each the sum of four unsigned x
 * signed byte products).
 *
 * vpdpbusd multiplies unsigned bytes by signed ones, and L and R both reach 254, so it takes
 * R - 128 (the pack's bytes with the top bit flipped) and the products get 128 times the
 * class's sums of L back: P = L (R - 128)' + 128 (L' 1) 1'.  The partial sums stay within
 * 254 x 128 x rows < 2^31, and the fold forms the AMX engine's integer 128 P_h + P_l in int64
 * and adds it to c in the same order (classes ascending, one fused multiply-add per entry and
 * class), so the two engines give the same bytes.
 *
 * Register block: 4 samples i (their L_h and L_l dwords broadcast) x 32 samples j (two zmm of
 * R quads) x 2 digits = 16 accumulators over VKB rows; i blocks outer, so an i block's L rows
 * (8 KiB) stay in L1 while the j blocks pass, and the tile's R panel over VKB rows (256 KiB)
 * in L2.  Measured alternatives are in docs/dev/gram-i8.md. */
#include "gsvd_config.h"

#include "analysis/cpu/kernels/gram_i8_internal.h"

#include <string.h>

#if GSVD_I8_X86

#define VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")))

enum {
    IB = 4,          /* samples i of a register block */
    JB = 32,         /* samples j of a register block (two 16-sample B tiles) */
    UNIT = 64,       /* rows of a unit (GSVD_I8_KBLK) */
    VKB = 16 * UNIT, /* rows of one register pass */
    TS = GSVD_I8_TILE
};
_Static_assert(UNIT == GSVD_I8_KBLK, "a unit is the pack's row block");

/* The class's sums of L_h and L_l for samples [i0, i0 + mi): each sample's 64-byte rows of
 * every unit, summed by vpsadbw (at most 254 x 32,768 < 2^31). */
VNNI_TARGET static void l_sums(const gsvd_i8_pack *p, const struct i8_class *cl, size_t i0,
                               size_t mi, int32_t *sh, int32_t *sl)
{
    const size_t units = p->kp / UNIT;
    const __m512i zero = _mm512_setzero_si512();
    for (size_t i = 0; i < mi; i++) {
        size_t s = i0 + i, b = s / 16, m = s % 16;
        __m512i h = zero, l = zero;
        for (size_t u = cl->k0 / UNIT; u < cl->k1 / UNIT; u++) {
            const uint8_t *a = p->at + (b * units + u) * 2048 + m * 64;
            h = _mm512_add_epi64(h, _mm512_sad_epu8(_mm512_loadu_si512(a), zero));
            l = _mm512_add_epi64(l, _mm512_sad_epu8(_mm512_loadu_si512(a + 1024), zero));
        }
        sh[i] = (int32_t)_mm512_reduce_add_epi64(h);
        sl[i] = (int32_t)_mm512_reduce_add_epi64(l);
    }
}

/* L_d's dword (rows 4 r .. 4 r + 3 of the unit) of sample row a, broadcast. */
VNNI_TARGET static inline __m512i bcast(const uint8_t *a)
{
    int32_t v;
    memcpy(&v, a, sizeof v);
    return _mm512_set1_epi32(v);
}

/* One register block's sums over units [u0, u1): samples si .. si + 3 (one 16-sample block)
 * against sj .. sj + 31 (sj a multiple of 32), added to what acc carries from the class's
 * earlier register passes unless first; into out[i][d][j] (d 0 hi, 1 lo) when last, else
 * carried in acc (the block's corner; rows of TS int32, P_l's at TS^2). */
VNNI_TARGET static void block(const gsvd_i8_pack *p, size_t si, size_t sj, size_t u0, size_t u1,
                              int first, int last, int32_t *acc, int32_t out[IB][2][JB])
{
    const size_t units = p->kp / UNIT;
    const __m512i flip = _mm512_set1_epi8((char)0x80); /* R - 128 as a signed byte */
    const uint8_t *a = p->at + (si / 16 * units + u0) * 2048 + si % 16 * 64;
    const uint8_t *b = p->bt + (sj / 32 * units + u0) * 2048;
    __m512i h00 = _mm512_setzero_si512(), h01 = h00, h10 = h00, h11 = h00, h20 = h00, h21 = h00,
            h30 = h00, h31 = h00, l00 = h00, l01 = h00, l10 = h00, l11 = h00, l20 = h00, l21 = h00,
            l30 = h00, l31 = h00;

    for (size_t u = u0; u < u1; u++, a += 2048, b += 2048)
        for (size_t r = 0; r < 16; r++) {
            __m512i r0 = _mm512_xor_si512(_mm512_loadu_si512(b + 64 * r), flip);
            __m512i r1 = _mm512_xor_si512(_mm512_loadu_si512(b + 1024 + 64 * r), flip);
            __m512i x;
#define GSVD_VNNI_ROW(i, H0, H1, L0, L1)                                                           \
    x = bcast(a + (i)*64 + 4 * r);                                                                 \
    H0 = _mm512_dpbusd_epi32(H0, x, r0);                                                           \
    H1 = _mm512_dpbusd_epi32(H1, x, r1);                                                           \
    x = bcast(a + 1024 + (i)*64 + 4 * r);                                                          \
    L0 = _mm512_dpbusd_epi32(L0, x, r0);                                                           \
    L1 = _mm512_dpbusd_epi32(L1, x, r1);
            GSVD_VNNI_ROW(0, h00, h01, l00, l01)
            GSVD_VNNI_ROW(1, h10, h11, l10, l11)
            GSVD_VNNI_ROW(2, h20, h21, l20, l21)
            GSVD_VNNI_ROW(3, h30, h31, l30, l31)
#undef GSVD_VNNI_ROW
        }
    __m512i all[IB][2][2] = {{{h00, h01}, {l00, l01}},
                             {{h10, h11}, {l10, l11}},
                             {{h20, h21}, {l20, l21}},
                             {{h30, h31}, {l30, l31}}};
    for (int i = 0; i < IB; i++)
        for (int d = 0; d < 2; d++)
            for (int z = 0; z < 2; z++) {
                int32_t *m = acc + (size_t)d * TS * TS + (size_t)i * TS + 16 * z;
                __m512i v = all[i][d][z];
                if (!first) /* the class's earlier register passes */
                    v = _mm512_add_epi32(v, _mm512_loadu_si512(m));
                if (last)
                    _mm512_storeu_si512(out[i][d] + 16 * z, v);
                else
                    _mm512_storeu_si512(m, v);
            }
}

/* A block's class total into c: c += (128 P_h + P_l) scale with P_d = out_d + 128 L_d's sum,
 * the AMX engine's integer and operation. */
VNNI_TARGET static void fold(int32_t out[IB][2][JB], const int32_t *sh, const int32_t *sl,
                             __m512d scale, double *c)
{
    for (int i = 0; i < IB; i++) {
        __m512i add = _mm512_set1_epi64(128 * (128 * (int64_t)sh[i] + sl[i]));
        double *o = c + (size_t)i * TS;
        for (int j = 0; j < JB; j += 8)
            gsvd_i8_fold8(out[i][0] + j, out[i][1] + j, add, scale, o + j);
    }
}

VNNI_TARGET void gsvd_i8_gram_tile_vnni(const gsvd_i8_pack *p, size_t i0, size_t j0, size_t wi,
                                        size_t wj, int32_t *acc, double *c)
{
    size_t mi = (wi + 15) / 16 * 16, mj = (wj + JB - 1) / JB * JB;
    int32_t sh[TS], sl[TS], out[IB][2][JB] __attribute__((aligned(64)));

    gsvd_i8_tile_centring(p, i0, j0, wi, wj, mi, mj, c);
    for (size_t q = 0; q < p->n_cls; q++) {
        const struct i8_class *cl = &p->cls[q];
        const __m512d scale = _mm512_set1_pd(gsvd_i8_class_scale(cl));
        l_sums(p, cl, i0, mi, sh, sl);
        for (size_t k = cl->k0; k < cl->k1; k += VKB) {
            size_t k1 = cl->k1 - k < VKB ? cl->k1 : k + VKB;
            int first = k == cl->k0, last = k1 == cl->k1;
            for (size_t bi = 0; bi < mi; bi += IB)
                for (size_t bj = 0; bj < mj; bj += JB) {
                    if (j0 + bj + JB <= i0 + bi)
                        continue; /* below the diagonal: not read */
                    block(p, i0 + bi, j0 + bj, k / UNIT, k1 / UNIT, first, last, acc + bi * TS + bj,
                          out);
                    if (last)
                        fold(out, sh + bi, sl + bi, scale, c + bi * TS + bj);
                }
        }
    }
}

#else /* !GSVD_I8_X86 */

void gsvd_i8_gram_tile_vnni(const gsvd_i8_pack *p, size_t i0, size_t j0, size_t wi, size_t wj,
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
