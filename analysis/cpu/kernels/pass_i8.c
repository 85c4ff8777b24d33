/* analysis/cpu/kernels/pass_i8.c - a pass group's products on AMX int8 tiles (see the header).
 * Only this file and the Gram kernels are compiled with -mamx-tile -mamx-int8 (CMake, where the
 * compiler accepts them); the intrinsics run only after gsvd_amx_int8_usable() said yes. */
#include "gsvd_config.h"

#include "analysis/cpu/kernels/pass_i8.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "analysis/scan/gblock_std.h"
#include "analysis/cpu/kernels/gram_amx.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"

#if GSVD_HAVE_AMX
#include <immintrin.h>
#endif

#define KC 1024  /* samples per chunk of T's products: 32 int8 rows of KC bytes, 32 KiB */
#define QBITS 20 /* bits of a rounded X or W entry (three 7-bit digits hold 21) */

struct gsvd_i8x {
    size_t n, c, np, dp; /* samples, columns; n padded to 64; digit columns 3c padded to 32 */
    size_t cp;           /* c padded to 16: the row stride of xr */
    int8_t *xd;          /* np / 4 x dp x 4: X~'s digits as VNNI quads (B of T's tiles) */
    float *xr;           /* n x cp: X~ in integer units (exact: |X~| <= 2^20; zeros past c) */
    double *inv;         /* c: 1 / the column's scale */
    double *xsum;        /* c: column sums of xr */
    size_t xd_cap, xr_cap, inv_cap, xsum_cap; /* bytes allocated (gsvd_reserve_large) */
};

struct gsvd_i8w {
    size_t rows, n, c, cp, rp, dp; /* reserved for: group rows (rp: padded to 64), x's shape */
    uint8_t *a1;                   /* 32 x KC: a chunk of 32 rows' codes as int8 (A of T) */
    int32_t *tint;                 /* rp x dp: T's digit sums */
    double *t;                     /* rp x c: T */
    double *msum;                  /* rp x cp: X~ summed over each row's missing calls */
    int8_t *wd;                    /* dp x rp: W~'s digits, digit-major (A of Yg's tiles) */
    int8_t *wv;                    /* dp x rp: V~'s digits, V = (m - b) T (the missing calls) */
    uint8_t *b2;                   /* rp x 64: 64 samples' codes as VNNI quads (B of Yg) */
    uint8_t *b2m;                  /* rp x 64: the same samples' missing calls as 0/1 quads */
    int32_t *acc;                  /* dp x 32: Yg's digit sums for 32 samples */
    float *fold;                   /* 32 x c: those samples' Yg rows */
    uint16_t *mpos;   /* missing calls of a chunk of 32 rows: sample within the chunk, */
    size_t mrow[33];  /* row r's from mrow[r] to mrow[r + 1] */
    double *winv, *u; /* c: W~'s 1 / scale per column; sum_r b_r t_r */
};

int gsvd_i8x_new(gsvd_i8x **out)
{
    *out = gsvd_calloc(1, sizeof **out);
    return *out ? GSVD_OK : GSVD_ENOMEM;
}

int gsvd_i8w_new(gsvd_i8w **out)
{
    *out = gsvd_calloc(1, sizeof **out);
    return *out ? GSVD_OK : GSVD_ENOMEM;
}

void gsvd_i8x_free(gsvd_i8x *x)
{
    if (!x)
        return;
    gsvd_free(x->xd);
    gsvd_free(x->xr);
    gsvd_free(x->inv);
    gsvd_free(x->xsum);
    gsvd_free(x);
}

static void w_release(gsvd_i8w *w)
{
    gsvd_free(w->a1);
    gsvd_free(w->tint);
    gsvd_free(w->t);
    gsvd_free(w->msum);
    gsvd_free(w->wd);
    gsvd_free(w->wv);
    gsvd_free(w->b2m);
    gsvd_free(w->b2);
    gsvd_free(w->acc);
    gsvd_free(w->fold);
    gsvd_free(w->mpos);
    gsvd_free(w->winv);
    gsvd_free(w->u);
}

void gsvd_i8w_free(gsvd_i8w *w)
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

/* The power of two putting a column's largest magnitude mx just under 2^QBITS. */
static double col_scale(double mx)
{
    int e;
    frexp(mx > 0 ? mx : 1, &e);
    return ldexp(1.0, QBITS - e);
}

/* v (|v| <= 2^QBITS) as three signed 7-bit digits, low first: v = d0 + 128 d1 + 16384 d2. */
static void digits3(long v, int8_t d[3])
{
    long d0 = ((v % 128) + 128 + 64) % 128 - 64, v1 = (v - d0) / 128;
    long d1 = ((v1 % 128) + 128 + 64) % 128 - 64;
    d[0] = (int8_t)d0;
    d[1] = (int8_t)d1;
    d[2] = (int8_t)((v1 - d1) / 128);
}

int gsvd_i8x_set(gsvd_i8x *x, size_t n, size_t c, const float *xf)
{
    size_t np = round_up(n ? n : 1, 64), dp, cp, nc;
    int rc = GSVD_OK;

    if (c == 0 || c > SIZE_MAX / 3 - 32)
        return GSVD_EINVAL;
    dp = round_up(3 * c, 32);
    cp = round_up(c, 16);
    if (gsvd_mul_size(n, cp, &nc) < 0)
        return GSVD_EINVAL;
    GSVD_TRY(gsvd_reserve_large(&x->xd, &x->xd_cap, np, dp));
    GSVD_TRY(gsvd_reserve_large(&x->xr, &x->xr_cap, nc, sizeof *x->xr));
    GSVD_TRY(gsvd_reserve_large(&x->inv, &x->inv_cap, c, sizeof *x->inv));
    GSVD_TRY(gsvd_reserve_large(&x->xsum, &x->xsum_cap, c, sizeof *x->xsum));
    x->n = n, x->c = c, x->np = np, x->dp = dp, x->cp = cp;
    memset(x->xd, 0, np * dp);
    memset(x->xr, 0, nc * sizeof *x->xr);
    for (size_t j = 0; j < c; j++) {
        double mx = 0, q, sum = 0;
        for (size_t i = 0; i < n; i++) {
            double v = fabs((double)xf[i * c + j]);
            if (!(v <= 1e300)) /* NaN or infinite */
                return GSVD_EINVAL;
            mx = v > mx ? v : mx;
        }
        q = col_scale(mx);
        x->inv[j] = 1 / q;
        for (size_t i = 0; i < n; i++) {
            long v = lrint((double)xf[i * c + j] * q);
            int8_t d[3];
            digits3(v, d);
            x->xr[i * cp + j] = (float)v;
            sum += (double)v;
            for (size_t k = 0; k < 3; k++)
                x->xd[(i / 4) * dp * 4 + (3 * j + k) * 4 + i % 4] = d[k];
        }
        x->xsum[j] = sum;
    }
out:
    return rc;
}

int gsvd_i8w_reserve(gsvd_i8w *w, const gsvd_i8x *x, size_t rows)
{
    size_t rp = round_up(rows ? rows : 1, 64), dp = x->dp, c = x->c, cp = x->cp, n = x->n, ms;

    if (rows > GSVD_I8P_MAX_ROWS)
        return GSVD_EINVAL;
    if (w->a1 && rp <= w->rp && dp == w->dp && c == w->c && n == w->n && cp == w->cp)
        return GSVD_OK;
    w_release(w);
    memset(w, 0, sizeof *w);
    if (gsvd_mul_size(rp, dp * sizeof(int32_t), &ms) < 0)
        return GSVD_EINVAL;
    w->a1 = gsvd_aligned_alloc(64, 32 * KC);
    w->tint = gsvd_aligned_alloc(64, rp * dp * sizeof *w->tint);
    w->t = gsvd_malloc(rp * c * sizeof *w->t);
    w->msum = gsvd_aligned_alloc(64, rp * cp * sizeof *w->msum);
    w->wd = gsvd_aligned_alloc(64, dp * rp);
    w->wv = gsvd_aligned_alloc(64, dp * rp);
    w->b2m = gsvd_aligned_alloc(64, rp * 64);
    w->b2 = gsvd_aligned_alloc(64, rp * 64);
    w->acc = gsvd_aligned_alloc(64, dp * 32 * sizeof *w->acc);
    w->fold = gsvd_aligned_alloc(64, 32 * c * sizeof *w->fold);
    w->mpos = gsvd_aligned_alloc(64, (32 * KC + 64) * sizeof *w->mpos);
    w->winv = gsvd_malloc(c * sizeof *w->winv);
    w->u = gsvd_malloc(c * sizeof *w->u);
    if (!w->a1 || !w->tint || !w->t || !w->msum || !w->wd || !w->wv || !w->b2m || !w->b2 ||
        !w->acc || !w->fold || !w->mpos || !w->winv || !w->u) {
        w_release(w);
        memset(w, 0, sizeof *w);
        return GSVD_ENOMEM;
    }
    w->rows = rows, w->rp = rp, w->dp = dp, w->c = c, w->cp = cp, w->n = n;
    return GSVD_OK;
}

double gsvd_i8p_bytes(size_t n, size_t c, size_t rows, size_t threads)
{
    double np = (double)round_up(n ? n : 1, 64), dp = (double)round_up(3 * c, 32);
    double cp = (double)round_up(c, 16), rp = (double)round_up(rows ? rows : 1, 64);
    double x = np * dp + (double)n * cp * 4.0 + 16.0 * (double)c;
    double w = 32.0 * KC + rp * (4.0 * dp + 8.0 * (double)c + 8.0 * cp + 2.0 * dp + 128.0) +
               dp * 32.0 * 4.0 + 32.0 * cp * 4.0 + (32.0 * KC + 64.0) * 2.0 + 16.0 * (double)c;
    return x + (double)threads * w;
}

#if GSVD_HAVE_AMX

/* popcnt: the missing calls' counts (GCC emits POPCNT under any AVX target anyway) */
#define I8P_TARGET                                                                                 \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi,avx512vbmi2,popcnt")))

/* Up to 16 bytes of a packed row from byte `off` (the row has rb bytes; zeros past it). */
I8P_TARGET static inline __m128i load16(const uint8_t *row, size_t off, size_t rb)
{
    if (off + 16 <= rb)
        return _mm_loadu_si128((const __m128i *)(const void *)(row + off));
    if (off >= rb)
        return _mm_setzero_si128();
    return _mm_maskz_loadu_epi8((__mmask16)((1u << (rb - off)) - 1), row + off);
}

/* 64 codes (16 packed bytes in the low lane of v) as int8, missing (3) as 0; *miss = their
 * lanes.  Byte j takes bits 2 (j % 4) of source byte j / 4. */
I8P_TARGET static inline __m512i expand_row64(__m128i src, __mmask64 *miss)
{
    const __m512i idx =
        _mm512_set_epi8(15, 15, 15, 15, 14, 14, 14, 14, 13, 13, 13, 13, 12, 12, 12, 12, 11, 11, 11,
                        11, 10, 10, 10, 10, 9, 9, 9, 9, 8, 8, 8, 8, 7, 7, 7, 7, 6, 6, 6, 6, 5, 5, 5,
                        5, 4, 4, 4, 4, 3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
    /* byte i of each qword: bit offset 8 i + 2 (i % 4) of its qword */
    const __m512i sh = _mm512_set1_epi64(0x3e342a201e140a00LL);
    __m512i v = _mm512_permutexvar_epi8(idx, _mm512_castsi128_si512(src));
    v = _mm512_and_si512(_mm512_multishift_epi64_epi8(sh, v), _mm512_set1_epi8(3));
    *miss = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(3));
    return _mm512_maskz_mov_epi8(~*miss, v);
}

/* Rows [r0, r0 + 32) of g (zeros past its rows), samples [s0, s0 + kc) into w->a1 as int8;
 * each row's missing calls (their samples less s0) listed in w->mpos from w->mrow[r]. */
I8P_TARGET static void chunk_rows(gsvd_i8w *w, const struct gsvd_gblock *g, size_t r0, size_t s0,
                                  size_t kc)
{
    size_t rb = gsvd_std_p2_row_bytes(g->n_cols), k = 0;
    uint16_t *pos = w->mpos;
    const __m512i lo = _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17,
                                        16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i hi = _mm512_add_epi16(lo, _mm512_set1_epi16(32));

    for (size_t r = 0; r < 32; r++) {
        uint8_t *dst = w->a1 + r * KC;
        w->mrow[r] = k;
        if (r0 + r >= g->n_rows) {
            memset(dst, 0, kc);
            continue;
        }
        const uint8_t *row = g->p2 + (r0 + r) * rb;
        for (size_t i = 0; i < kc; i += 64) {
            __mmask64 mk;
            __m512i v = expand_row64(load16(row, (s0 + i) / 4, rb), &mk), at;
            _mm512_store_si512((void *)(dst + i), v);
            /* the missing lanes' positions, without a branch (pos has 64 entries of slack) */
            at = _mm512_set1_epi16((short)i);
            _mm512_storeu_si512((void *)(pos + k), _mm512_maskz_compress_epi16(
                                                       (__mmask32)mk, _mm512_add_epi16(lo, at)));
            k += (size_t)__builtin_popcount((unsigned)mk);
            _mm512_storeu_si512(
                (void *)(pos + k),
                _mm512_maskz_compress_epi16((__mmask32)(mk >> 32), _mm512_add_epi16(hi, at)));
            k += (size_t)__builtin_popcount((unsigned)(mk >> 32));
        }
    }
    w->mrow[32] = k;
}

/* X~ summed over the missing calls of rows [r0, r0 + 32) in the chunk at s0 (w->mpos) into
 * w->msum: a row's
 * run adds in float32 registers (a few 1e-8 relative), then once into float64. */
I8P_TARGET static void missing_sums(const gsvd_i8x *x, gsvd_i8w *w, size_t r0, size_t s0)
{
    size_t cp = x->cp;
    const float *xr = x->xr + s0 * cp;
    for (size_t r = 0; r < 32; r++) {
        size_t e0 = w->mrow[r], e1 = w->mrow[r + 1];
        double *d = w->msum + (r0 + r) * cp;
        for (size_t j = 0; j < cp && e0 < e1; j += 32) {
            __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
            int two = j + 16 < cp;
            for (size_t e = e0; e < e1; e++) {
                const float *v = xr + (size_t)w->mpos[e] * cp + j;
                a0 = _mm512_add_ps(a0, _mm512_load_ps(v));
                if (two)
                    a1 = _mm512_add_ps(a1, _mm512_load_ps(v + 16));
            }
            for (size_t q = 0; q < (two ? 2u : 1u); q++) {
                __m512 a = q ? a1 : a0;
                double *dd = d + j + 16 * q;
                _mm512_store_pd(dd, _mm512_add_pd(_mm512_load_pd(dd),
                                                  _mm512_cvtps_pd(_mm512_castps512_ps256(a))));
                _mm512_store_pd(
                    dd + 8, _mm512_add_pd(_mm512_load_pd(dd + 8),
                                          _mm512_cvtps_pd(_mm256_castpd_ps(
                                              _mm512_extractf64x4_pd(_mm512_castps_pd(a), 1)))));
            }
        }
    }
}

/* T's digit sums of rows [r0, r0 + 32) over the chunk of kc samples at s0 (already in w->a1)
 * into w->tint: the four 16 x 16 accumulators (two row tiles x two tiles of 16 digit columns)
 * start from zero at the first chunk and go back to w->tint after each. */
I8P_TARGET static void chunk_t(const gsvd_i8x *x, gsvd_i8w *w, size_t r0, size_t s0, size_t kc)
{
    size_t dp = x->dp, ts = dp * sizeof(int32_t);
    int32_t *t0 = w->tint + r0 * dp;

    for (size_t h = 0; h < dp; h += 32) {
        int32_t *c = t0 + h;
        if (s0 == 0) {
            _tile_zero(0);
            _tile_zero(1);
            _tile_zero(2);
            _tile_zero(3);
        } else {
            _tile_loadd(0, c, ts);
            _tile_loadd(1, c + 16, ts);
            _tile_loadd(2, c + 16 * dp, ts);
            _tile_loadd(3, c + 16 * dp + 16, ts);
        }
        for (size_t k = 0; k < kc; k += 64) {
            const int8_t *b = x->xd + (s0 + k) * dp + h * 4; /* quad (s0 + k) / 4 */
            _tile_loadd(4, w->a1 + k, KC);
            _tile_loadd(5, w->a1 + 16 * KC + k, KC);
            _tile_loadd(6, b, dp * 4);
            _tile_loadd(7, b + 64, dp * 4);
            _tile_dpbusd(0, 4, 6);
            _tile_dpbusd(1, 4, 7);
            _tile_dpbusd(2, 5, 6);
            _tile_dpbusd(3, 5, 7);
        }
        _tile_stored(0, c, ts);
        _tile_stored(1, c + 16, ts);
        _tile_stored(2, c + 16 * dp, ts);
        _tile_stored(3, c + 16 * dp + 16, ts);
    }
}

/* Row r's a, b and m of z = a q + b (a call), m (a missing call). */
static void row_abm(const struct gsvd_gblock *g, size_t r, double *a, double *b, double *m)
{
    *a = (double)g->scale[r];
    *b = -(double)g->center[r] * *a;
    *m = g->missing ? (double)g->missing[r] : 0.0;
}

/* T of rows [r0, r0 + nr) from their digit sums and their missing calls' sums. */
static void block_rows(const gsvd_i8x *x, gsvd_i8w *w, const struct gsvd_gblock *g, size_t r0,
                       size_t nr)
{
    size_t c = x->c, cp = x->cp, dp = x->dp;
    const double *ms = w->msum + r0 * cp;

    for (size_t r = 0; r < nr; r++) {
        double a, b, m;
        const int32_t *q = w->tint + (r0 + r) * dp;
        double *t = w->t + (r0 + r) * c;
        row_abm(g, r0 + r, &a, &b, &m);
        for (size_t j = 0; j < c; j++) {
            double ti = (double)q[3 * j] + 128.0 * q[3 * j + 1] + 16384.0 * q[3 * j + 2];
            t[j] = (a * ti + b * x->xsum[j] + (m - b) * ms[r * cp + j]) * x->inv[j];
        }
    }
}

/* W = a T and V = (m - b) T rounded per column over the group's rows, with one scale for
 * both, into w->wd and w->wv (digit rows 3 j + k); winv[j] the column's 1 / scale, u[j] =
 * sum_r b_r t_rj (the centring). */
static void w_digits(gsvd_i8w *w, const struct gsvd_gblock *g, size_t c, double *winv, double *u)
{
    size_t rp = w->rp, rows = g->n_rows;

    memset(w->wd, 0, w->dp * rp);
    memset(w->wv, 0, w->dp * rp);
    for (size_t j = 0; j < c; j++) {
        double mx = 0, q, sum = 0;
        for (size_t r = 0; r < rows; r++) {
            double a, b, m, t = w->t[r * c + j];
            row_abm(g, r, &a, &b, &m);
            mx = fmax(mx, fmax(fabs(a * t), fabs((m - b) * t)));
        }
        q = col_scale(mx);
        winv[j] = 1 / q;
        for (size_t r = 0; r < rows; r++) {
            double a, b, m, t = w->t[r * c + j];
            int8_t d[3], dv[3];
            row_abm(g, r, &a, &b, &m);
            sum += b * t;
            digits3(lrint(a * t * q), d);
            digits3(lrint((m - b) * t * q), dv);
            for (size_t k = 0; k < 3; k++) {
                w->wd[(3 * j + k) * rp + r] = d[k];
                w->wv[(3 * j + k) * rp + r] = dv[k];
            }
        }
        u[j] = sum;
    }
}

/* Samples [64 sb, 64 sb + 64) of every row as VNNI quads into w->b2: tile (u, o) (rows
 * [64 u, 64 u + 64), samples 16 o ..) at ((4 u + o) KiB), [quad][4 s + k] = code of row
 * 4 quad + k at sample 16 o + s, missing as 0. */
I8P_TARGET static void quads64(gsvd_i8w *w, const struct gsvd_gblock *g, size_t sb,
                               const __m512i idx[4])
{
    size_t rb = gsvd_std_p2_row_bytes(g->n_cols), off = sb * 16;
    /* byte i of an even / odd qword: bit offset 8 i + 2 (sample % 4) */
    const __m512i sh = _mm512_set_epi64(
        0x3e362e261c140c04LL, 0x3a322a2218100800LL, 0x3e362e261c140c04LL, 0x3a322a2218100800LL,
        0x3e362e261c140c04LL, 0x3a322a2218100800LL, 0x3e362e261c140c04LL, 0x3a322a2218100800LL);
    const __m512i three = _mm512_set1_epi8(3);

    for (size_t v4 = 0; v4 < w->rp / 4; v4++) {
        __m128i l[4];
        for (size_t k = 0; k < 4; k++) {
            size_t r = 4 * v4 + k;
            l[k] = r < g->n_rows ? load16(g->p2 + r * rb, off, rb) : _mm_setzero_si128();
        }
        __m512i src = _mm512_castsi128_si512(l[0]);
        src = _mm512_inserti32x4(src, l[1], 1);
        src = _mm512_inserti32x4(src, l[2], 2);
        src = _mm512_inserti32x4(src, l[3], 3);
        size_t at = (v4 / 16) * 4096 + (v4 % 16) * 64;
        for (size_t o = 0; o < 4; o++) {
            __m512i v = _mm512_permutexvar_epi8(idx[o], src);
            v = _mm512_and_si512(_mm512_multishift_epi64_epi8(sh, v), three);
            __mmask64 miss = _mm512_cmpeq_epi8_mask(v, three);
            _mm512_store_si512((void *)(w->b2 + at + o * 1024), _mm512_maskz_mov_epi8(~miss, v));
            _mm512_store_si512((void *)(w->b2m + at + o * 1024),
                               _mm512_maskz_mov_epi8(miss, _mm512_set1_epi8(1)));
        }
    }
}

/* Accumulators tmm0..3 += two A tiles (16 signed digit rows each, at a and a + 16 lda) times
 * two B tiles of unsigned quads (16 samples each, at b and b + 1 KiB). */
I8P_TARGET static inline __attribute__((always_inline)) void
tiles_2x2_su(const int8_t *a, size_t lda, const uint8_t *b)
{
    _tile_loadd(4, a, lda);
    _tile_loadd(5, a + 16 * lda, lda);
    _tile_loadd(6, b, 64);
    _tile_loadd(7, b + 1024, 64);
    _tile_dpbsud(0, 4, 6);
    _tile_dpbsud(1, 4, 7);
    _tile_dpbsud(2, 5, 6);
    _tile_dpbsud(3, 5, 7);
}

/* Yg's digit sums of samples [s0, s0 + 32) (sub-block `sub` of w->b2) into w->acc, then
 * recombined with the centring into yg's rows. */
I8P_TARGET static void block_y(gsvd_i8w *w, size_t n, size_t c, size_t s0, size_t sub,
                               const double *winv, const double *u, float *yg)
{
    size_t dp = w->dp, rp = w->rp, ns = n - s0 < 32 ? n - s0 : 32;

    for (size_t h = 0; h < dp; h += 32) {
        _tile_zero(0);
        _tile_zero(1);
        _tile_zero(2);
        _tile_zero(3);
        for (size_t kv = 0; kv < rp / 64; kv++) {
            size_t at = (kv * 4 + 2 * sub) * 1024;
            tiles_2x2_su(w->wd + h * rp + kv * 64, rp, w->b2 + at);  /* codes x W */
            tiles_2x2_su(w->wv + h * rp + kv * 64, rp, w->b2m + at); /* missing x V */
        }
        _tile_stored(0, w->acc + h * 32, 128);
        _tile_stored(1, w->acc + h * 32 + 16, 128);
        _tile_stored(2, w->acc + (h + 16) * 32, 128);
        _tile_stored(3, w->acc + (h + 16) * 32 + 16, 128);
    }
    for (size_t j = 0; j < c; j++) {
        const int32_t *q = w->acc + 3 * j * 32;
        __m512d sc = _mm512_set1_pd(winv[j]), uj = _mm512_set1_pd(u[j]);
        for (size_t s = 0; s < 32; s += 8) {
            __m512d v =
                _mm512_cvtepi32_pd(_mm256_load_si256((const __m256i *)(const void *)(q + s)));
            v = _mm512_fmadd_pd(
                _mm512_cvtepi32_pd(_mm256_load_si256((const __m256i *)(const void *)(q + 32 + s))),
                _mm512_set1_pd(128.0), v);
            v = _mm512_fmadd_pd(
                _mm512_cvtepi32_pd(_mm256_load_si256((const __m256i *)(const void *)(q + 64 + s))),
                _mm512_set1_pd(16384.0), v);
            _mm256_store_ps(w->fold + j * 32 + s, _mm512_cvtpd_ps(_mm512_fmadd_pd(v, sc, uj)));
        }
    }
    for (size_t s = 0; s < ns; s++)
        for (size_t j = 0; j < c; j++)
            yg[(s0 + s) * c + j] = w->fold[j * 32 + s];
}

I8P_TARGET void gsvd_i8_pass_group(const gsvd_i8x *x, gsvd_i8w *w, const struct gsvd_gblock *g,
                                   float *yg)
{
    size_t n = x->n, c = x->c, rows = g->n_rows;
    double *wi = w->winv, *uu = w->u;
    __m512i idx[4];

    for (size_t o = 0; o < 4; o++) {
        uint8_t t[64];
        for (size_t j = 0; j < 64; j++)
            t[j] = (uint8_t)((j % 4) * 16 + 4 * o + j / 16);
        idx[o] = _mm512_loadu_si512(t);
    }
    gsvd_amx_tiles_configure();
    /* T: chunk by chunk of samples, every 32-row block of the group (the chunk's X digits and
     * X~ rows stay in L2 while the blocks pass) */
    memset(w->msum, 0, round_up(rows, 32) * x->cp * sizeof *w->msum);
    for (size_t s0 = 0; s0 < x->np; s0 += KC) {
        size_t kc = x->np - s0 < KC ? x->np - s0 : KC;
        for (size_t r0 = 0; r0 < rows; r0 += 32) {
            chunk_rows(w, g, r0, s0, kc);
            missing_sums(x, w, r0, s0);
            chunk_t(x, w, r0, s0, kc);
        }
    }
    for (size_t r0 = 0; r0 < rows; r0 += 32)
        block_rows(x, w, g, r0, rows - r0 < 32 ? rows - r0 : 32);
    w_digits(w, g, c, wi, uu);
    for (size_t sb = 0; sb < x->np / 64; sb++) {
        quads64(w, g, sb, idx);
        for (size_t sub = 0; sub < 2 && sb * 64 + sub * 32 < n; sub++)
            block_y(w, n, c, sb * 64 + sub * 32, sub, wi, uu, yg);
    }
    _tile_release();
}

#else /* !GSVD_HAVE_AMX */

void gsvd_i8_pass_group(const gsvd_i8x *x, gsvd_i8w *w, const struct gsvd_gblock *g, float *yg)
{
    (void)x;
    (void)w;
    (void)g;
    (void)yg;
    /* never called: gsvd_amx_int8_usable() said no */
}

#endif
