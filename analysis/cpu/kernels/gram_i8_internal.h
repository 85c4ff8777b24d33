/* analysis/cpu/kernels/gram_i8_internal.h - the int8 Gram's pack, shared by its planning and
 * packing (gram_i8.c; gram_i8_avx2.c packs the same bytes with AVX2) and its three product
 * engines: AMX int8 tiles (gram_i8.c), AVX-512 VNNI (gram_i8_vnni.c) and AVX2
 * (gram_i8_avx2.c).  The engines read the same layout and form the same exact integers, so a
 * Gram has the same bytes whichever runs it.  For analysis/cpu/kernels/gram_i8*.c only. */
#ifndef GSVD_ANALYSIS_CPU_KERNELS_GRAM_I8_INTERNAL_H
#define GSVD_ANALYSIS_CPU_KERNELS_GRAM_I8_INTERNAL_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/cpu/kernels/gram_i8.h"

#define R_BASE 127 /* R = 127 u: a missing call's u* to 1/254 */

/* A class: padded rows [k0, k1) whose weights share the scale 2^e. */
struct i8_class {
    size_t k0, k1;
    int e;
};

struct gsvd_i8_pack {
    int engine;           /* enum gsvd_i8_engine: which tile function multiplies */
    size_t rows, n;       /* the group: rows x n */
    size_t kp, np, nb;    /* padded rows (classes padded to 64), samples padded to 32, np / 16 */
    int32_t *src;         /* kp: the group row of each padded row, -1 for padding */
    uint8_t *lut;         /* kp x 16: by call code, bytes 0..3 L_h, 4..7 L_l, 8..11 R */
    double *lv, *dv;      /* rows x 4, rows: by call code, the row's term of sl; sr's less sl's
                           * for a missing call (for a call the two are the same: a c u) */
    double *plv, *pdv;    /* kp x 4, kp: lv, dv in padded order (zeros for padding rows) */
    double t;             /* sum of a c^2 over the rows */
    double *sl, *sr;      /* np: sum_v 2^e c L_v(i) and sum_v a c R_v(j) / 127 */
    struct i8_class *cls; /* n_cls classes, by increasing e */
    size_t n_cls;
    int *row_e;       /* rows: class exponent of each row (planning scratch) */
    uint64_t *order;  /* rows: (e + 2^20) << 32 | row, sorted (planning scratch) */
    uint8_t *row_lut; /* rows x 16: the lookup tables by row (planning scratch) */
    size_t rows_cap, kp_cap, np_cap;
    /* Tiles of 1 KiB in one piece (16 rows of 64 bytes), unit u (64 padded rows), sample
     * block b (16 samples), U = kp / 64 units; laid out so that the tiles one 16 x 32 output
     * block reads over consecutive units are consecutive in memory (two streams the
     * prefetchers follow; a stride of nb KiB between units left every load to miss L1):
     *   A (at), sample-major, digit d (0 hi, 1 lo) at ((b U + u) 2 + d) KiB:
     *       [m][k] = L_d(64 u + k, 16 b + m);
     *   B (bt), VNNI quads, at ((b/2 U + u) 2 + b%2) KiB: [r][4 c + q] = R(64 u + 4 r + q,
     *       16 b + c). */
    uint8_t *at, *bt;
    /* The AVX2 engine's only: bt1, bt's layout, R1 = floor(R / 127) (a call's u, 0..2), so
     * R = 127 R1 + R0 with R0 nonzero only for some missing calls (gram_i8_avx2.c). */
    uint8_t *bt1;
    size_t tile_cap;      /* bytes allocated in at (bt and bt1 have half) */
    const uint8_t *codes; /* the planned group's call codes, rows x n (borrowed) */
};

/* x86-64 with GCC or clang: the packing and both engines are compiled (each function with its
 * own target attribute); they run only after the engine's probe said yes. */
#if defined(__x86_64__) && defined(__GNUC__)
#define GSVD_I8_X86 1
#include <immintrin.h>
#else
#define GSVD_I8_X86 0
#endif

/* What the engines share (inline: the engines' objects do not depend on each other's): the
 * tile's centring, c = t - sl_i - sr_j over the rows mi and columns mj the engine computes ... */
static inline void gsvd_i8_tile_centring(const gsvd_i8_pack *p, size_t i0, size_t j0, size_t wi,
                                         size_t wj, size_t mi, size_t mj, double *c)
{
    for (size_t i = 0; i < mi; i++) {
        double a = p->t - (i < wi ? p->sl[i0 + i] : 0.0);
        for (size_t j = 0; j < mj; j++)
            c[i * GSVD_I8_TILE + j] = a - (j < wj ? p->sr[j0 + j] : 0.0);
    }
}

/* ... and the scale of a class's integers 128 P_h + P_l: 2^(e - 7) / 127. */
static inline double gsvd_i8_class_scale(const struct i8_class *cl)
{
    return ldexp(1.0 / R_BASE, cl->e - 7);
}

#if GSVD_I8_X86
/* ... and the fold of 8 entries of a block's class totals into c, the one both engines run (so
 * that they give the same bytes): o += (128 P_h + P_l + add) scale, P_h and P_l int32 (h, l),
 * the integer exact in int64 and in float64 (< 2^53), one fused multiply-add per entry.  add is
 * what the VNNI engine adds back for its signed operand; 0 for the AMX engine. */
__attribute__((target("avx512f,avx512dq"))) static inline void
gsvd_i8_fold8(const int32_t *h, const int32_t *l, __m512i add, __m512d scale, double *o)
{
    __m512i vh = _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)h));
    __m512i vl = _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)l));
    __m512i v = _mm512_add_epi64(_mm512_add_epi64(_mm512_slli_epi64(vh, 7), vl), add);
    _mm512_storeu_pd(o, _mm512_fmadd_pd(_mm512_cvtepi64_pd(v), scale, _mm512_loadu_pd(o)));
}

/* ... and the same fold of 4 entries with AVX2 (gram_i8_avx2.c), the same operation on the same
 * numbers, so the same bytes: the int64 integer converted exactly to float64 by adding it to the
 * bits of 1.5 x 2^52 and subtracting that number (exact for |v| < 2^51; here v < 2^40), then
 * the one fused multiply-add. */
__attribute__((target("avx2,fma"))) static inline void
gsvd_i8_fold4_avx2(const int32_t *h, const int32_t *l, __m256d scale, double *o)
{
    const __m256i magic_i = _mm256_set1_epi64x(0x4338000000000000LL);
    const __m256d magic_d = _mm256_set1_pd(6755399441055744.0); /* 1.5 x 2^52 */
    __m256i vh = _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(const void *)h));
    __m256i vl = _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(const void *)l));
    __m256i v = _mm256_add_epi64(_mm256_slli_epi64(vh, 7), vl);
    __m256d d = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(v, magic_i)), magic_d);
    _mm256_storeu_pd(o, _mm256_fmadd_pd(d, scale, _mm256_loadu_pd(o)));
}
#endif

/* The VNNI engine's tile (gram_i8_vnni.c): the contract of gsvd_i8_gram_tile. */
void gsvd_i8_gram_tile_vnni(const gsvd_i8_pack *p, size_t i0, size_t j0, size_t wi, size_t wj,
                            int32_t *acc, double *c);

/* The AVX2 engine (gram_i8_avx2.c): its pack of strip t (gsvd_i8_pack_strip's contract, the
 * same bytes) and its tile (gsvd_i8_gram_tile's contract). */
void gsvd_i8_pack_strip_avx2(gsvd_i8_pack *p, const uint8_t *codes, size_t t);
void gsvd_i8_gram_tile_avx2(const gsvd_i8_pack *p, size_t i0, size_t j0, size_t wi, size_t wj,
                            int32_t *acc, double *c);

#endif /* GSVD_ANALYSIS_CPU_KERNELS_GRAM_I8_INTERNAL_H */
