/* analysis/cpu/kernels/gram_i8_avx2.c - the int8 Gram's AVX2 engine (see
 * analysis/cpu/kernels/gram_i8.h) for CPUs without AMX or AVX-512: the pack (the AVX-512 packing's
 * layout and centring sums, bit for bit, and R1 below) and the products P_h = L_h R', P_l = L_l R'
 * per weight class, the same integers, folded into float64 with the same operation in the same
 * order, so a Gram has the same bytes as on the AMX and VNNI engines.
 *
 * Products: AVX2's byte dot product, vpmaddubsw, adds two unsigned x signed byte products into a
 * saturating int16, and L and R both reach 254.  So R is split: R = 127 R1 + R0 with R1 =
 * floor(R / 127).  A call's R is 127 u, so R1 = u (0..2) and R0 = 0; only a missing call's
 * imputed R = round(127 u*) leaves a remainder.  The dense product L R1' runs on vpmaddubsw
 * (pairs at most 2 x 254 x 2, added in int16 for 32 steps, then into int32 by vpmaddwd), times
 * 127; the missing calls' L R0' is added column by column from the codes (each such call adds R0
 * times its row's L to one column), in a transposed scratch merged by 8 x 8 transposes.  The
 * sums are the other engines' integers exactly.  Register block: 2 samples i (L_h and L_l
 * dwords of four rows, broadcast) x 16 samples j (two ymm of R1 quads) x 2 digits = 8 int16
 * accumulators.  Measured (kernels/README.md): faster than the vpmaddwd engine it replaced but
 * not than the float32 ssyrk, so `-m auto` keeps float32 on such CPUs and this engine serves
 * `--gram-kernel i8` (the same bytes on every CPU). */
#include "gsvd_config.h"

#include "analysis/cpu/kernels/gram_i8_internal.h"

#include <string.h>

#if GSVD_I8_X86

#define AVX2_TARGET __attribute__((target("avx2,fma")))

enum {
    IB = 2,          /* samples i of a register block */
    JB = 16,         /* samples j of a register block (one 16-sample block of R1 quads) */
    UNIT = 64,       /* rows of a unit (GSVD_I8_KBLK) */
    VKB = 16 * UNIT, /* rows of one register pass */
    SPAN_UNITS = 2,  /* units an int16 lane holds: 32 steps x 1,016 < 2^15 */
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

/* R1 = floor(R / 127) of each byte (R <= 254): 0, 1 or 2. */
AVX2_TARGET static inline __m128i r1_of(__m128i r)
{
    __m128i ge127 = _mm_cmpeq_epi8(_mm_max_epu8(r, _mm_set1_epi8(127)), r);
    __m128i is254 = _mm_cmpeq_epi8(r, _mm_set1_epi8((char)254));
    return _mm_sub_epi8(_mm_sub_epi8(_mm_setzero_si128(), ge127), is254);
}

/* Unit u, samples [16 b, 16 b + 16) into the tile layouts (gram_i8.c's pack_block: the same
 * bytes), with the block's centring terms. */
AVX2_TARGET static void pack_block(gsvd_i8_pack *p, const uint8_t *codes, size_t u, size_t b,
                                   struct sums2 *s)
{
    const __m128i off_l = _mm_set1_epi8(4), off_r = _mm_set1_epi8(8);
    size_t units = p->kp / GSVD_I8_KBLK, aoff = (b * units + u) * 2048;
    size_t boff = ((b / 2 * units + u) * 2 + b % 2) * 1024;
    uint8_t *ah = p->at + aoff, *al = ah + 1024, *bq = p->bt + boff, *b1 = p->bt1 + boff;

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
        for (int h = 0; h < 4; h++) {
            _mm_storeu_si128((__m128i *)(void *)(bq + 64 * r + 16 * h), quads[2][h]);
            _mm_storeu_si128((__m128i *)(void *)(b1 + 64 * r + 16 * h), r1_of(quads[2][h]));
        }
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

/* acc += maddubs(l, b): in assembly, as one product into one scratch register (the compilers
 * scheduled the eight products first and copied every sum back, a third more instructions). */
AVX2_TARGET static inline __attribute__((always_inline)) void madd_acc(__m256i *acc, __m256i l,
                                                                       __m256i b)
{
    __m256i t;
    __asm__("vpmaddubsw %[b], %[l], %[t]\n\tvpaddw %[t], %[a], %[a]"
            : [a] "+x"(*acc), [t] "=&x"(t)
            : [b] "x"(b), [l] "x"(l));
}

#define STEP(acc0, acc1, l)                                                                        \
    do {                                                                                           \
        __m256i l_ = (l);                                                                          \
        madd_acc(&acc0, l_, b0);                                                                   \
        madd_acc(&acc1, l_, b1);                                                                   \
    } while (0)

AVX2_TARGET static inline __m256i bcast4(const uint8_t *a)
{
    int32_t x;
    memcpy(&x, a, 4);
    return _mm256_set1_epi32(x);
}

/* Sums of L_d R1 (d 0 hi, 1 lo) over units [u0, u1) for samples si, si + 1 (one 16-sample
 * block) against the 16 samples of sj's block, into out[i][d][j].  vpmaddubsw multiplies L's
 * unsigned bytes (broadcast, four rows) by R1's (0..2) and adds row pairs into int16 lanes (at
 * most 2 x 254 x 2 = 1,016): 32 steps of 4 rows stay below 2^15, then vpmaddwd by ones adds
 * each sample's two lanes (its four rows) into int32.  The next unit's R1 line is prefetched. */
AVX2_TARGET static void block(const gsvd_i8_pack *p, size_t si, size_t sj, size_t u0, size_t u1,
                              int32_t out[IB][2][JB])
{
    size_t units = p->kp / UNIT;
    const uint8_t *a = p->at + (si / 16 * units + u0) * 2048 + si % 16 * 64;
    const uint8_t *b = p->bt1 + ((sj / 32 * units + u0) * 2 + sj % 32 / 16) * 1024;
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i w[8];

    for (int q = 0; q < 8; q++)
        w[q] = _mm256_setzero_si256();
    for (size_t u = u0; u < u1; u += SPAN_UNITS) {
        size_t ue = u1 - u < SPAN_UNITS ? u1 : u + SPAN_UNITS;
        __m256i h00 = _mm256_setzero_si256(), h01 = h00, l00 = h00, l01 = h00, h10 = h00, h11 = h00,
                l10 = h00, l11 = h00;
        for (size_t v = u; v < ue; v++) {
            const uint8_t *av = a + (v - u0) * 2048, *bv = b + (v - u0) * 2048;
            for (size_t r = 0; r < 16; r++) {
                const uint8_t *ar = av + 4 * r;
                _mm_prefetch((const char *)(bv + 2048 + 64 * r), _MM_HINT_T0);
                __m256i b0 = _mm256_loadu_si256((const __m256i *)(const void *)(bv + 64 * r));
                __m256i b1 = _mm256_loadu_si256((const __m256i *)(const void *)(bv + 64 * r + 32));
                STEP(h00, h01, bcast4(ar));
                STEP(l00, l01, bcast4(ar + 1024));
                STEP(h10, h11, bcast4(ar + 64));
                STEP(l10, l11, bcast4(ar + 1088));
            }
        }
        const __m256i s[8] = {h00, h01, l00, l01, h10, h11, l10, l11};
        for (int q = 0; q < 8; q++)
            w[q] = _mm256_add_epi32(w[q], _mm256_madd_epi16(s[q], ones));
    }
    for (int q = 0; q < 8; q++) /* [i][d][h] */
        _mm256_storeu_si256((__m256i *)(void *)(out[q / 4][q / 2 % 2] + 8 * (q % 2)), w[q]);
}

/* 16 codes of row at samples [s, s + 16) (zeros past the row's n). */
AVX2_TARGET static inline __m128i codes16(const uint8_t *row, size_t n, size_t s)
{
    if (s + 16 <= n)
        return _mm_loadu_si128((const __m128i *)(const void *)(row + s));
    uint8_t t[16] = {0};
    if (s < n)
        memcpy(t, row + s, n - s);
    return _mm_loadu_si128((const __m128i *)(const void *)t);
}

/* v (16 int16 lanes) added into the 16 int32 at o. */
AVX2_TARGET static inline void add16(int32_t *o, __m256i v)
{
    __m256i *o0 = (__m256i *)(void *)o, *o1 = (__m256i *)(void *)(o + 8);
    _mm256_storeu_si256(o0, _mm256_add_epi32(_mm256_loadu_si256(o0),
                                             _mm256_cvtepu16_epi32(_mm256_castsi256_si128(v))));
    _mm256_storeu_si256(o1,
                        _mm256_add_epi32(_mm256_loadu_si256(o1),
                                         _mm256_cvtepu16_epi32(_mm256_extracti128_si256(v, 1))));
}

/* The samples i of the tile computed in column j (the blocks above the diagonal): a multiple of
 * 16 (i0 and j0 multiples of 32, blocks of 16). */
static size_t column_rows(size_t i0, size_t j0, size_t mi, size_t j)
{
    size_t end = j0 + j / JB * JB + JB; /* past the column's block */
    return end <= i0 ? 0 : end - i0 < mi ? end - i0 : mi;
}

/* A missing call waiting to be added: padded row k, tile column j, the samples i computed there. */
struct miss {
    uint16_t k, j, rows;
};

/* A batch of missing calls added into the transposed totals mt (digit d's M(i, j) at
 * mt[d TS^2 + j TS + i]): M_d(:, j) += R0 L_d(k, :), 16 samples i at a time for every call of
 * the batch (so that those 16 rows of mt, 32 KiB, stay in L1 while the batch passes); L_d by
 * vpshufb from the row's table and codes, R0 L <= 126 x 254 fits int16. */
AVX2_TARGET static void miss_batch(const gsvd_i8_pack *p, const struct miss *e, size_t n_e,
                                   size_t i0, size_t mi, int32_t *mt)
{
    const __m128i off_l = _mm_set1_epi8(4);
    for (size_t i = 0; i < mi; i += 16)
        for (size_t q = 0; q < n_e; q++) {
            if (i >= e[q].rows)
                continue;
            size_t k = e[q].k;
            const uint8_t *row = p->codes + (size_t)p->src[k] * p->n;
            __m128i lut = _mm_loadu_si128((const __m128i *)(const void *)(p->lut + k * 16));
            __m256i f = _mm256_set1_epi16((int16_t)(p->lut[k * 16 + 11] % R_BASE));
            __m128i ci = codes16(row, p->n, i0 + i);
            __m256i lh = _mm256_cvtepu8_epi16(_mm_shuffle_epi8(lut, ci));
            __m256i ll = _mm256_cvtepu8_epi16(_mm_shuffle_epi8(lut, _mm_add_epi8(ci, off_l)));
            add16(mt + (size_t)e[q].j * TS + i, _mm256_mullo_epi16(lh, f));
            add16(mt + (size_t)TS * TS + (size_t)e[q].j * TS + i, _mm256_mullo_epi16(ll, f));
        }
}

/* The class's missing calls with R0 != 0 in the tile's columns (codes read row by row, 32
 * samples a compare), added in batches into mt.  Returns whether there were any. */
AVX2_TARGET static int missing_add(const gsvd_i8_pack *p, const struct i8_class *cl, size_t i0,
                                   size_t j0, size_t mi, size_t wj, int32_t *mt)
{
    enum { BATCH = 1024, AHEAD = 8 };
    const __m256i three = _mm256_set1_epi8(3);
    struct miss e[BATCH];
    size_t n_e = 0;
    int any = 0;
    for (size_t k = cl->k0; k < cl->k1; k++) {
        if (p->src[k] < 0 || p->lut[k * 16 + 11] % R_BASE == 0)
            continue;
        const uint8_t *row = p->codes + (size_t)p->src[k] * p->n + j0;
        if (k + AHEAD < cl->k1 &&
            p->src[k + AHEAD] >= 0) /* rows come in class order, not the memory's */
            for (size_t j = 0; j < wj; j += 64)
                _mm_prefetch((const char *)(p->codes + (size_t)p->src[k + AHEAD] * p->n + j0 + j),
                             _MM_HINT_T0);
        int fetched = 0;
        for (size_t j = 0; j < wj; j += 32) {
            __m256i c;
            if (wj - j >= 32)
                c = _mm256_loadu_si256((const __m256i *)(const void *)(row + j));
            else {
                uint8_t t[32] = {0};
                memcpy(t, row + j, wj - j);
                c = _mm256_loadu_si256((const __m256i *)(const void *)t);
            }
            uint32_t m = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(c, three));
            while (m) {
                size_t jj = j + (size_t)__builtin_ctz(m), rows = column_rows(i0, j0, mi, jj);
                m &= m - 1;
                if (rows == 0)
                    continue;
                if (!fetched) { /* the samples i the batch will read */
                    for (size_t i = 0; i < mi; i += 64)
                        _mm_prefetch((const char *)(row - j0 + i0 + i), _MM_HINT_T1);
                    fetched = 1;
                }
                e[n_e++] = (struct miss){(uint16_t)k, (uint16_t)jj, (uint16_t)rows};
                any = 1;
                if (n_e == BATCH) {
                    miss_batch(p, e, n_e, i0, mi, mt);
                    n_e = 0;
                }
            }
        }
    }
    miss_batch(p, e, n_e, i0, mi, mt);
    return any;
}

/* An 8 x 8 block of the transposed totals (8 columns j of 8 samples i, rows TS apart at m)
 * added to acc's (8 rows i of 8 columns j, at a), and zeroed. */
AVX2_TARGET static void merge8(int32_t *m, int32_t *a)
{
    __m256i r[8], t[8], s[8];
    for (int q = 0; q < 8; q++) {
        __m256i *mq = (__m256i *)(void *)(m + (size_t)q * TS);
        r[q] = _mm256_loadu_si256(mq);
        _mm256_storeu_si256(mq, _mm256_setzero_si256());
    }
    for (int q = 0; q < 8; q += 2) {
        t[q] = _mm256_unpacklo_epi32(r[q], r[q + 1]);
        t[q + 1] = _mm256_unpackhi_epi32(r[q], r[q + 1]);
    }
    for (int q = 0; q < 8; q += 4) {
        s[q] = _mm256_unpacklo_epi64(t[q], t[q + 2]);
        s[q + 1] = _mm256_unpackhi_epi64(t[q], t[q + 2]);
        s[q + 2] = _mm256_unpacklo_epi64(t[q + 1], t[q + 3]);
        s[q + 3] = _mm256_unpackhi_epi64(t[q + 1], t[q + 3]);
    }
    for (int q = 0; q < 4; q++) { /* rows q and q + 4: the low and the high lanes */
        __m256i *a0 = (__m256i *)(void *)(a + (size_t)q * TS);
        __m256i *a4 = (__m256i *)(void *)(a + (size_t)(q + 4) * TS);
        _mm256_storeu_si256(a0, _mm256_add_epi32(_mm256_loadu_si256(a0),
                                                 _mm256_permute2x128_si256(s[q], s[q + 4], 0x20)));
        _mm256_storeu_si256(a4, _mm256_add_epi32(_mm256_loadu_si256(a4),
                                                 _mm256_permute2x128_si256(s[q], s[q + 4], 0x31)));
    }
}

/* The block's sums from block() times 127 (R = 127 R1 on the calls) into acc (rows TS apart,
 * P_l's at TS^2), added to what the class's earlier register passes left there unless first. */
AVX2_TARGET static void store_block(int32_t *acc, size_t bi, size_t bj, int first,
                                    int32_t out[IB][2][JB])
{
    const __m256i base = _mm256_set1_epi32(R_BASE);
    for (size_t i = 0; i < IB; i++)
        for (int d = 0; d < 2; d++)
            for (size_t h = 0; h < JB; h += 8) {
                __m256i *o =
                    (__m256i *)(void *)(acc + (size_t)d * TS * TS + (bi + i) * TS + bj + h);
                __m256i v = _mm256_mullo_epi32(
                    _mm256_loadu_si256((const __m256i *)(const void *)(out[i][d] + h)), base);
                if (!first)
                    v = _mm256_add_epi32(v, _mm256_loadu_si256(o));
                _mm256_storeu_si256(o, v);
            }
}

AVX2_TARGET void gsvd_i8_gram_tile_avx2(const gsvd_i8_pack *p, size_t i0, size_t j0, size_t wi,
                                        size_t wj, int32_t *acc, double *c)
{
    size_t mi = (wi + 15) / 16 * 16, mj = (wj + 31) / 32 * 32;
    int32_t out[IB][2][JB], *mt = acc + 2 * TS * TS; /* the missing calls' totals, zero */

    gsvd_i8_tile_centring(p, i0, j0, wi, wj, mi, mj, c);
    for (size_t q = 0; q < p->n_cls; q++) {
        const struct i8_class *cl = &p->cls[q];
        for (size_t k = cl->k0; k < cl->k1; k += VKB) {
            size_t k1 = cl->k1 - k < VKB ? cl->k1 : k + VKB;
            for (size_t bi = 0; bi < mi && i0 + bi < j0 + mj; bi += IB)
                for (size_t bj = 0; bj < mj; bj += JB) {
                    if (j0 + bj + JB <= i0 + bi)
                        continue; /* below the diagonal: not read */
                    block(p, i0 + bi, j0 + bj, k / UNIT, k1 / UNIT, out);
                    store_block(acc, bi, bj, k == cl->k0, out);
                }
        }
        if (missing_add(p, cl, i0, j0, mi, wj, mt))
            for (size_t bj = 0; bj < mj; bj += JB)
                for (size_t i = 0; i < column_rows(i0, j0, mi, bj); i += 8)
                    for (size_t j = bj; j < bj + JB; j += 8)
                        for (int d = 0; d < 2; d++)
                            merge8(mt + (size_t)d * TS * TS + j * TS + i,
                                   acc + (size_t)d * TS * TS + i * TS + j);
        const __m256d scale = _mm256_set1_pd(gsvd_i8_class_scale(cl));
        for (size_t bi = 0; bi < mi && i0 + bi < j0 + mj; bi += IB)
            for (size_t bj = 0; bj < mj; bj += JB)
                if (j0 + bj + JB > i0 + bi)
                    for (size_t i = bi; i < bi + IB; i++)
                        for (size_t j = bj; j < bj + JB; j += 4)
                            gsvd_i8_fold4_avx2(acc + i * TS + j, acc + TS * TS + i * TS + j, scale,
                                               c + i * TS + j);
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
