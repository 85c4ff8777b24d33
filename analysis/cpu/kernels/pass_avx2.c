/* analysis/cpu/kernels/pass_avx2.c - a pass group's float32 products with AVX2 FMA on the 2-bit
 * codes (see the header).
 *
 * Both products are vectorised along the samples, so no lane is wasted whatever the column count
 * (columns padded to 8 would waste a sixth of every FMA at the default 20):
 *   T = Z X:     chunk by chunk of kc samples (X^T's chunk, c x kc floats, stays in L1 while
 *                the group's rows pass), two rows at a time decoded into a 2 x kc buffer, and
 *                2 rows x J columns of 8-lane accumulators (J <= 6: 12 ymm) over the chunk; the
 *                lanes carry over the chunks in memory (tp) and are added in float64 at the end;
 *   Yg = Z^T T:  16 samples at a time, every row of the group decoded for them (zy, 64 bytes a
 *                row), and 16 samples x J columns (12 ymm) over the rows, J broadcasts of T a row.
 * Decoding is a lookup: the row's four float32 values in both halves of a ymm, the 2-bit code of
 * each lane shifted down (vpsrlvd) and picked by vpermps, 8 codes per step from two bytes.
 * Measured choices are in analysis/cpu/kernels/README.md. */
#include "gsvd_config.h"

#include "analysis/cpu/kernels/pass_avx2.h"

#include <stdint.h>
#include <string.h>

#include "analysis/scan/gblock_std.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PA_X86 1
#else
#define PA_X86 0
#endif

enum {
    PREFETCH_ROWS = 48, /* rows ahead whose codes are asked for */
    JMAX = 6,           /* columns of one register panel */
    SY = 16,            /* X^T's rows are padded to a multiple of this */
    SB = 64,            /* samples of one Yg block: 16 bytes of each row's codes */
    YROWS = 128         /* rows of one Yg sub-block (their decoded codes: 32 KiB) */
};

struct gsvd_avx2x {
    size_t n, c, np, kc; /* samples, columns, n padded to SY, samples per T chunk */
    float *xt;           /* c x np: X^T, zeros past n */
    size_t xt_cap;       /* bytes allocated (gsvd_reserve_large) */
};

struct gsvd_avx2w {
    size_t rows, rp, n, c, kc; /* reserved for: group rows (rp: even), x's shape */
    float *lut;                /* rp x 8: each row's four values, twice */
    float *tp;                 /* rp x c x 8: T's lane sums */
    float *t32;                /* rp x c: T in float32, by panel (panel j0..j0 + J at rp j0,
                                * rows J floats apart) */
    float *zb;                 /* 2 x kc: two rows' decoded chunk */
    float *zy;                 /* YROWS x SB: the decoded codes of a Yg block */
    float *ya;                 /* SB / 16 x 2 c x 8: a Yg block's accumulators, by panel */
};

int gsvd_avx2x_new(gsvd_avx2x **out)
{
    *out = gsvd_calloc(1, sizeof **out);
    return *out ? GSVD_OK : GSVD_ENOMEM;
}

int gsvd_avx2w_new(gsvd_avx2w **out)
{
    *out = gsvd_calloc(1, sizeof **out);
    return *out ? GSVD_OK : GSVD_ENOMEM;
}

void gsvd_avx2x_free(gsvd_avx2x *x)
{
    if (!x)
        return;
    gsvd_free(x->xt);
    gsvd_free(x);
}

static void w_release(gsvd_avx2w *w)
{
    gsvd_free(w->lut);
    gsvd_free(w->tp);
    gsvd_free(w->t32);
    gsvd_free(w->zb);
    gsvd_free(w->zy);
    gsvd_free(w->ya);
}

void gsvd_avx2w_free(gsvd_avx2w *w)
{
    if (!w)
        return;
    w_release(w);
    gsvd_free(w);
}

static size_t round_up(size_t v, size_t m)
{
    return (v + m - 1) / m * m;
}

/* Samples per T chunk: X^T's chunk within ~24 KiB (an L1 beside the decoded rows), a multiple
 * of 16, 64 .. 1024. */
static size_t chunk_samples(size_t c)
{
    size_t kc = (size_t)24 * 1024 / (4 * c) / 16 * 16;
    return kc < 64 ? 64 : kc > 1024 ? 1024 : kc;
}

int gsvd_avx2x_set(gsvd_avx2x *x, size_t n, size_t c, const float *xf)
{
    size_t np = round_up(n ? n : 1, SY), cells;
    int rc = GSVD_OK;

    if (c == 0 || np < n || gsvd_mul_size(c, np, &cells) < 0)
        return GSVD_EINVAL;
    GSVD_TRY(gsvd_reserve_large(&x->xt, &x->xt_cap, cells, sizeof *x->xt));
    x->n = n, x->c = c, x->np = np, x->kc = chunk_samples(c);
    for (size_t j = 0; j < c; j++) {
        float *d = x->xt + j * np;
        for (size_t i = 0; i < n; i++)
            d[i] = xf[i * c + j];
        memset(d + n, 0, (np - n) * sizeof *d);
    }
out:
    return rc;
}

int gsvd_avx2w_reserve(gsvd_avx2w *w, const gsvd_avx2x *x, size_t rows)
{
    size_t rp = round_up(rows ? rows : 1, 2), c = x->c, tp;

    if (w->lut && rp <= w->rp && c == w->c && x->n == w->n && x->kc == w->kc)
        return GSVD_OK;
    w_release(w);
    memset(w, 0, sizeof *w);
    if (gsvd_mul_size(rp, c * 8 * sizeof(float), &tp) < 0)
        return GSVD_EINVAL;
    w->lut = gsvd_aligned_alloc(64, rp * 8 * sizeof(float));
    w->tp = gsvd_aligned_alloc(64, tp);
    w->t32 = gsvd_aligned_alloc(64, rp * c * sizeof(float));
    w->zb = gsvd_aligned_alloc(64, 2 * x->kc * sizeof(float));
    w->zy = gsvd_aligned_alloc(64, YROWS * SB * sizeof(float));
    w->ya = gsvd_aligned_alloc(64, SB / 16 * 2 * c * 8 * sizeof(float));
    if (!w->lut || !w->tp || !w->t32 || !w->zb || !w->zy || !w->ya) {
        w_release(w);
        memset(w, 0, sizeof *w);
        return GSVD_ENOMEM;
    }
    w->rows = rows, w->rp = rp, w->c = c, w->n = x->n, w->kc = x->kc;
    return GSVD_OK;
}

double gsvd_avx2p_bytes(size_t n, size_t c, size_t rows, size_t threads)
{
    double np = (double)round_up(n ? n : 1, SY), rp = (double)round_up(rows ? rows : 1, 2);
    double w = rp * (32.0 + 36.0 * (double)c) + 8.0 * (double)chunk_samples(c ? c : 1) +
               4.0 * YROWS * SB + 4.0 * SB * (double)c;
    return np * (double)c * 4.0 + (double)threads * w;
}

#if PA_X86

#define PA_TARGET __attribute__((target("avx2,fma")))

/* The 16 codes of the 4 bytes at w (a little-endian word) as the row's values into d[0..16):
 * the word broadcast, each lane's code shifted down and looked up in `table`. */
PA_TARGET static inline void decode16_word(__m256i w, __m256 table, float *d)
{
    const __m256i lo = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    const __m256i hi = _mm256_setr_epi32(16, 18, 20, 22, 24, 26, 28, 30);
    const __m256i three = _mm256_set1_epi32(3);
    _mm256_store_ps(
        d, _mm256_permutevar8x32_ps(table, _mm256_and_si256(_mm256_srlv_epi32(w, lo), three)));
    _mm256_store_ps(
        d + 8, _mm256_permutevar8x32_ps(table, _mm256_and_si256(_mm256_srlv_epi32(w, hi), three)));
}

/* Codes [s, s + 16 k) of a packed row of rb bytes (s a multiple of 4; codes past the row read
 * as 0) into d: straight loads where the bytes lie inside the row, a zero-padded copy for the
 * row's end. */
PA_TARGET static inline void decode(const uint8_t *row, size_t rb, size_t s, size_t k, __m256 table,
                                    float *d)
{
    size_t b = s / 4, q = 0;
    if (b + 4 * k <= rb) {
        for (; q < k; q++) {
            int32_t w;
            memcpy(&w, row + b + 4 * q, 4);
            decode16_word(_mm256_set1_epi32(w), table, d + 16 * q);
        }
        return;
    }
    for (; q < k; q++, b += 4) {
        uint8_t t[4] = {0};
        int32_t w;
        if (b < rb)
            memcpy(t, row + b, rb - b < 4 ? rb - b : 4);
        memcpy(&w, t, 4);
        decode16_word(_mm256_set1_epi32(w), table, d + 16 * q);
    }
}

/* Rows r, r + 1 (r + 1 may be past the group: zeros) of samples [s0, s0 + kc) into w->zb, kc
 * floats apart. */
PA_TARGET static void t_decode(gsvd_avx2w *w, const struct gsvd_gblock *g, size_t r, size_t s0,
                               size_t kc)
{
    size_t rb = gsvd_std_p2_row_bytes(g->n_cols);
    for (size_t q = 0; q < 2; q++) {
        float *d = w->zb + q * kc;
        if (r + q >= g->n_rows) {
            memset(d, 0, kc * sizeof *d);
            continue;
        }
        const uint8_t *row = g->p2 + (r + q) * rb;
        if (r + q + PREFETCH_ROWS < g->n_rows) /* rows are rb apart: no prefetcher follows */
            for (size_t b = s0 / 4; b < (s0 + kc) / 4 && b < rb; b += 64)
                __builtin_prefetch(row + PREFETCH_ROWS * rb + b);
        __m256 table = _mm256_load_ps(w->lut + (r + q) * 8);
        decode(row, rb, s0, kc / 16, table, d);
    }
}

/* T's lane sums of rows r, r + 1 and columns [j0, j0 + J) over the decoded chunk z (kc samples
 * of each row, one after the other; X^T's chunk at xt, rows np apart), added to tp (rows c x 8
 * floats apart; zeros first). */
PA_TARGET static inline __attribute__((always_inline)) void t_panel(const float *z, const float *xt,
                                                                    size_t np, size_t kc, float *tp,
                                                                    size_t c, int first,
                                                                    const int J)
{
    __m256 a0[JMAX], a1[JMAX];
#pragma GCC unroll 6
    for (int j = 0; j < J; j++) {
        a0[j] = first ? _mm256_setzero_ps() : _mm256_load_ps(tp + 8 * j);
        a1[j] = first ? _mm256_setzero_ps() : _mm256_load_ps(tp + 8 * (c + j));
    }
    for (size_t k = 0; k < kc; k += 8) {
        __m256 z0 = _mm256_load_ps(z + k), z1 = _mm256_load_ps(z + kc + k);
#pragma GCC unroll 6
        for (int j = 0; j < J; j++) {
            __m256 xv = _mm256_load_ps(xt + j * np + k);
            /* one load for both rows: without this the compilers fold it into each FMA, and
             * two loads per FMA pair are more than CPUs with two load ports issue */
            __asm__("" : "+x"(xv));
            a0[j] = _mm256_fmadd_ps(z0, xv, a0[j]);
            a1[j] = _mm256_fmadd_ps(z1, xv, a1[j]);
        }
    }
#pragma GCC unroll 6
    for (int j = 0; j < J; j++) {
        _mm256_store_ps(tp + 8 * j, a0[j]);
        _mm256_store_ps(tp + 8 * (c + j), a1[j]);
    }
}

/* Yg's accumulators of 16 samples, columns [j0, j0 + J) (ya: 2 x J x 8 floats), over decoded
 * rows zy (nr rows, SB floats apart) and T's panel t (rows of J floats). */
PA_TARGET static inline __attribute__((always_inline)) void
y_panel(const float *zy, size_t nr, const float *t, float *ya, int first, const int J)
{
    __m256 a0[JMAX], a1[JMAX];
#pragma GCC unroll 6
    for (int j = 0; j < J; j++) {
        a0[j] = first ? _mm256_setzero_ps() : _mm256_load_ps(ya + 8 * j);
        a1[j] = first ? _mm256_setzero_ps() : _mm256_load_ps(ya + 8 * (J + j));
    }
    for (size_t r = 0; r < nr; r++) {
        __m256 z0 = _mm256_load_ps(zy + SB * r), z1 = _mm256_load_ps(zy + SB * r + 8);
#pragma GCC unroll 6
        for (int j = 0; j < J; j++) {
            __m256 tv = _mm256_broadcast_ss(t + r * (size_t)J + (size_t)j);
            a0[j] = _mm256_fmadd_ps(z0, tv, a0[j]);
            a1[j] = _mm256_fmadd_ps(z1, tv, a1[j]);
        }
    }
#pragma GCC unroll 6
    for (int j = 0; j < J; j++) {
        _mm256_store_ps(ya + 8 * j, a0[j]);
        _mm256_store_ps(ya + 8 * (J + j), a1[j]);
    }
}

/* t_panel and y_panel for each panel width J (a constant in each: its accumulators stay in
 * registers), by J. */
#define PA_PANELS(J)                                                                               \
    PA_TARGET static void t_panel_##J(const float *z, const float *xt, size_t np, size_t kc,       \
                                      float *tp, size_t c, int first)                              \
    {                                                                                              \
        t_panel(z, xt, np, kc, tp, c, first, J);                                                   \
    }                                                                                              \
    PA_TARGET static void y_panel_##J(const float *zy, size_t nr, const float *t, float *ya,       \
                                      int first)                                                   \
    {                                                                                              \
        y_panel(zy, nr, t, ya, first, J);                                                          \
    }
PA_PANELS(1)
PA_PANELS(2)
PA_PANELS(3)
PA_PANELS(4)
PA_PANELS(5)
PA_PANELS(6)
#undef PA_PANELS

typedef void (*t_panel_fn)(const float *z, const float *xt, size_t np, size_t kc, float *tp,
                           size_t c, int first);
typedef void (*y_panel_fn)(const float *zy, size_t nr, const float *t, float *ya, int first);
static const t_panel_fn t_panels[JMAX + 1] = {NULL,      t_panel_1, t_panel_2, t_panel_3,
                                              t_panel_4, t_panel_5, t_panel_6};
static const y_panel_fn y_panels[JMAX + 1] = {NULL,      y_panel_1, y_panel_2, y_panel_3,
                                              y_panel_4, y_panel_5, y_panel_6};

/* The panels: ceil(c / JMAX) of them, of nearly equal widths; *j0 and *J of panel p. */
static size_t panels(size_t c)
{
    return (c + JMAX - 1) / JMAX;
}

static void panel_at(size_t c, size_t p, size_t *j0, int *J)
{
    size_t np = panels(c);
    *j0 = p * c / np;
    *J = (int)((p + 1) * c / np - *j0);
}

/* T = Z X for the group: tp's lanes chunk by chunk, then summed into t32. */
PA_TARGET static void product_t(const gsvd_avx2x *x, gsvd_avx2w *w, const struct gsvd_gblock *g)
{
    size_t c = x->c, np = x->np, kc = x->kc, rows = g->n_rows;

    for (size_t s0 = 0; s0 < np; s0 += kc) {
        size_t k = np - s0 < kc ? np - s0 : kc; /* a multiple of 16 */
        for (size_t r = 0; r < rows; r += 2) {
            t_decode(w, g, r, s0, k); /* the two rows k floats apart */
            for (size_t p = 0; p < panels(c); p++) {
                size_t j0;
                int J;
                panel_at(c, p, &j0, &J);
                const float *xt = x->xt + j0 * np + s0;
                float *tp = w->tp + (r * c + j0) * 8;
                t_panels[J](w->zb, xt, np, k, tp, c, s0 == 0);
            }
        }
    }
    for (size_t p = 0; p < panels(c); p++) {
        size_t j0;
        int J;
        panel_at(c, p, &j0, &J);
        for (size_t r = 0; r < rows; r++)
            for (size_t j = j0; j < j0 + (size_t)J; j++) {
                const float *l = w->tp + (r * c + j) * 8;
                double s = 0;
                for (int q = 0; q < 8; q++)
                    s += (double)l[q];
                w->t32[w->rp * j0 + r * (size_t)J + j - j0] = (float)s;
            }
    }
}

/* Yg = Z^T T for samples [s0, s0 + SB): row sub-block by sub-block, its rows decoded for
 * those samples (each row's 16 bytes of codes read once), and for each 16 samples its panels
 * added to ya; then ya into yg's rows. */
PA_TARGET static void product_y_block(gsvd_avx2w *w, const struct gsvd_gblock *g, size_t s0,
                                      float *yg)
{
    size_t c = w->c, rows = g->n_rows, n = g->n_cols, rb = gsvd_std_p2_row_bytes(n);
    size_t ns = n - s0 < SB ? n - s0 : SB;

    for (size_t r0 = 0; r0 < rows; r0 += YROWS) {
        size_t nr = rows - r0 < YROWS ? rows - r0 : YROWS;
        for (size_t r = 0; r < nr; r++) {
            const uint8_t *row = g->p2 + (r0 + r) * rb;
            __m256 table = _mm256_load_ps(w->lut + (r0 + r) * 8);
            if (r0 + r + PREFETCH_ROWS < rows) { /* the 16 bytes may span two lines */
                __builtin_prefetch(row + PREFETCH_ROWS * rb + s0 / 4);
                __builtin_prefetch(row + PREFETCH_ROWS * rb + s0 / 4 + SB / 4 - 1);
            }
            decode(row, rb, s0, (ns + 15) / 16, table, w->zy + SB * r);
        }
        for (size_t q = 0; q < SB && s0 + q < n; q += 16)
            for (size_t p = 0; p < panels(c); p++) {
                size_t j0;
                int J;
                panel_at(c, p, &j0, &J);
                const float *t = w->t32 + w->rp * j0 + r0 * (size_t)J;
                const float *zy = w->zy + q;
                float *ya = w->ya + (q / 16 * 2 * c + 2 * j0) * 8;
                int first = r0 == 0;
                y_panels[J](zy, nr, t, ya, first);
            }
    }
    for (size_t q = 0; q < ns; q += 16)
        for (size_t p = 0; p < panels(c); p++) {
            size_t j0;
            int J;
            panel_at(c, p, &j0, &J);
            const float *ya = w->ya + (q / 16 * 2 * c + 2 * j0) * 8;
            for (size_t s = 0; s < 16 && q + s < ns; s++)
                for (int j = 0; j < J; j++)
                    yg[(s0 + q + s) * c + j0 + (size_t)j] =
                        ya[8 * ((s / 8) * (size_t)J + (size_t)j) + s % 8];
        }
}

PA_TARGET void gsvd_avx2_pass_group(const gsvd_avx2x *x, gsvd_avx2w *w, const struct gsvd_gblock *g,
                                    float *yg)
{
    for (size_t r = 0; r < g->n_rows; r++) { /* each row's values by code: gblock_std.h's */
        float c0 = g->center[r], s0 = g->scale[r], m0 = g->missing ? g->missing[r] : 0.0f;
        for (unsigned q = 0; q < 8; q++)
            w->lut[r * 8 + q] = gsvd_std_p2(q % 4, c0, s0, m0);
    }
    product_t(x, w, g);
    for (size_t s0 = 0; s0 < x->n; s0 += SB)
        product_y_block(w, g, s0, yg);
}

#else /* !PA_X86 */

void gsvd_avx2_pass_group(const gsvd_avx2x *x, gsvd_avx2w *w, const struct gsvd_gblock *g,
                          float *yg)
{
    (void)x;
    (void)w;
    (void)g;
    (void)yg; /* never called: gsvd_cpu_avx2() said no */
}

#endif
