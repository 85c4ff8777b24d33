/* analysis/gram_i8.c - AMX int8 tiles of the Gram on the genotype integers (see the header).
 * Only this file is compiled with -mamx-tile -mamx-int8 (CMake, where the compiler accepts
 * them); the intrinsics run only after gsvd_amx_int8_usable() said yes. */
#include "gsvd_config.h"

#include "analysis/gram_i8.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gram_amx.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"

#if GSVD_HAVE_AMX
#include <immintrin.h>
#endif

#define R_BASE 127 /* R = 127 u: a missing call's u* to 1/254 */

/* A class: padded rows [k0, k1) whose weights share the scale 2^e. */
struct i8_class {
    size_t k0, k1;
    int e;
};

struct gsvd_i8_pack {
    size_t rows, n;       /* the group: rows x n */
    size_t kp, np, nb;    /* padded rows (classes padded to 64), samples padded to 32, np / 16 */
    int32_t *src;         /* kp: the group row of each padded row, -1 for padding */
    uint8_t *lut;         /* kp x 16: by call code, bytes 0..3 L_h, 4..7 L_l, 8..11 R */
    double *lv, *rv;      /* rows x 4: by call code, the row's term of the centring sums */
    double *plv, *prv;    /* kp x 4: lv, rv in padded order (zeros for padding rows) */
    double *usl, *usr;    /* kp / 64 x np: each unit's part of sl, sr */
    double t;             /* sum of a c^2 over the rows */
    double *sl, *sr;      /* n: sum_v 2^e c L_v(i) and sum_v a c R_v(j) / 127 */
    struct i8_class *cls; /* n_cls classes, by increasing e */
    size_t n_cls;
    int *row_e;       /* rows: class exponent of each row (planning scratch) */
    uint64_t *order;  /* rows: (e + 2^20) << 32 | row, sorted (planning scratch) */
    uint8_t *row_lut; /* rows x 16: the lookup tables by row (planning scratch) */
    size_t rows_cap, kp_cap, np_cap, n_cap;
    /* Tiles of 1 KiB in one piece (16 rows of 64 bytes), unit u (64 padded rows), sample
     * block b (16 samples), U = kp / 64 units; laid out so that the tiles one 16 x 32 output
     * block reads over consecutive units are consecutive in memory (two streams the
     * prefetchers follow; a stride of nb KiB between units left every load to miss L1):
     *   A (at), sample-major, digit d (0 hi, 1 lo) at ((b U + u) 2 + d) KiB:
     *       [m][k] = L_d(64 u + k, 16 b + m);
     *   B (bt), VNNI quads, at ((b/2 U + u) 2 + b%2) KiB: [r][4 c + q] = R(64 u + 4 r + q,
     *       16 b + c). */
    uint8_t *at, *bt;
    size_t tile_cap; /* bytes allocated in at (bt has half) */
};

int gsvd_i8_pack_new(gsvd_i8_pack **out)
{
    *out = gsvd_calloc(1, sizeof **out);
    return *out ? GSVD_OK : GSVD_ENOMEM;
}

void gsvd_i8_pack_free(gsvd_i8_pack *p)
{
    if (!p)
        return;
    gsvd_free(p->src);
    gsvd_free(p->lut);
    gsvd_free(p->lv);
    gsvd_free(p->rv);
    gsvd_free(p->plv);
    gsvd_free(p->prv);
    gsvd_free(p->usl);
    gsvd_free(p->usr);
    gsvd_free(p->sl);
    gsvd_free(p->sr);
    gsvd_free(p->cls);
    gsvd_free(p->row_e);
    gsvd_free(p->order);
    gsvd_free(p->row_lut);
    gsvd_free(p->at);
    gsvd_free(p->bt);
    gsvd_free(p);
}

size_t gsvd_i8_pack_units(const gsvd_i8_pack *p)
{
    return p->kp / GSVD_I8_KBLK;
}

/* Grow *a to hold n elements of size sz (contents dropped). */
static int grow(void *a, size_t n, size_t sz)
{
    void **pp = a;
    gsvd_free(*pp);
    *pp = gsvd_malloc(n ? n * sz : 1);
    return *pp ? GSVD_OK : GSVD_ENOMEM;
}

/* Room for the rows' plan (before the classes are known). */
static int reserve_rows(gsvd_i8_pack *p, size_t rows, size_t n)
{
    int rc = GSVD_OK;
    if (rows > p->rows_cap) {
        GSVD_TRY(grow(&p->lv, rows * 4, sizeof *p->lv));
        GSVD_TRY(grow(&p->rv, rows * 4, sizeof *p->rv));
        GSVD_TRY(grow(&p->row_e, rows, sizeof *p->row_e));
        GSVD_TRY(grow(&p->order, rows, sizeof *p->order));
        GSVD_TRY(grow(&p->cls, rows, sizeof *p->cls));
        GSVD_TRY(grow(&p->row_lut, rows * 16, 1));
        p->rows_cap = rows;
    }
    if (n > p->n_cap) {
        GSVD_TRY(grow(&p->sl, n, sizeof *p->sl));
        GSVD_TRY(grow(&p->sr, n, sizeof *p->sr));
        p->n_cap = n;
    }
out:
    if (rc < 0) /* a failed grow left some arrays smaller than the caps say */
        p->rows_cap = p->n_cap = 0;
    return rc;
}

/* Room for kmax padded rows of n samples (the classes are known). */
static int reserve_padded(gsvd_i8_pack *p, size_t n, size_t kmax)
{
    size_t np = (n + 31) / 32 * 32, bytes;
    int rc = GSVD_OK;

    if (np < n || gsvd_mul_size(kmax, 2 * np, &bytes) < 0)
        return GSVD_EINVAL;
    if (kmax > p->kp_cap || np > p->np_cap) {
        GSVD_TRY(grow(&p->src, kmax, sizeof *p->src));
        GSVD_TRY(grow(&p->lut, kmax * 16, 1));
        GSVD_TRY(grow(&p->plv, kmax * 4, sizeof *p->plv));
        GSVD_TRY(grow(&p->prv, kmax * 4, sizeof *p->prv));
        GSVD_TRY(grow(&p->usl, kmax / GSVD_I8_KBLK * np, sizeof *p->usl));
        GSVD_TRY(grow(&p->usr, kmax / GSVD_I8_KBLK * np, sizeof *p->usr));
        p->kp_cap = kmax;
        p->np_cap = np;
    }
    if (bytes > p->tile_cap) {
        GSVD_TRY(grow(&p->at, bytes, 1));
        GSVD_TRY(grow(&p->bt, bytes / 2, 1));
        p->tile_cap = bytes;
    }
    p->np = np;
    p->nb = np / 16;
out:
    if (rc < 0)
        p->kp_cap = p->np_cap = p->tile_cap = 0;
    return rc;
}

/* The digits of weight a: a ~ 2^e (hi + lo / 128), hi in 64..127, lo in 0..127. */
static void digits(double a, int *e, unsigned *hi, unsigned *lo)
{
    int x;
    double f = frexp(a, &x) * 128.0; /* [64, 128) */
    double h = floor(f), l = nearbyint((f - h) * 128.0);
    if (l >= 128.0) {
        l = 0;
        h += 1;
    }
    *e = x - 7;
    if (h >= 128.0) {
        h = 64;
        *e += 1;
    }
    *hi = (unsigned)h;
    *lo = (unsigned)l;
}

/* One row's lookup tables and centring terms; returns its relative weight error, or -1 when
 * the row is not for this kernel. */
static double plan_row(gsvd_i8_pack *p, size_t r, float center, float scale, float missing)
{
    double s = scale, c = center, a = s * s, ustar, alpha, ah, t, lh, ll;
    unsigned hi, lo;
    int e;
    uint8_t *lut = p->row_lut + r * 16; /* by row; copied to padded order by plan */

    if (!(a > 0) || !isfinite(a) || !isfinite(c))
        return -1;
    ustar = c + (double)missing / s;
    if (!(ustar >= 0 && ustar <= 2))
        return -1;
    digits(a, &e, &hi, &lo);
    alpha = hi + lo / 128.0;
    ah = ldexp(alpha, e);
    /* one octave per class, R = 127 u: two octaves per class (the upper one's factor 2 in R,
     * rho = 63 or 126) ran ~10% faster on many classes but rounded u* to 1/126, which
     * doubled the missing calls' error (docs/decisions.md) */
    unsigned rho = R_BASE;
    t = alpha * ustar; /* < 256 */
    lh = floor(t);
    ll = nearbyint((t - lh) * 128.0); /* <= 128 */
    memset(lut, 0, 16);
    lut[1] = (uint8_t)hi;
    lut[2] = (uint8_t)(2 * hi);
    lut[3] = (uint8_t)lh;
    lut[5] = (uint8_t)lo;
    lut[6] = (uint8_t)(2 * lo);
    lut[7] = (uint8_t)ll;
    lut[9] = (uint8_t)rho;
    lut[10] = (uint8_t)(2 * rho);
    lut[11] = (uint8_t)nearbyint(rho * ustar);
    p->row_e[r] = e;
    for (unsigned q = 0; q < 4; q++) {
        double lval = lut[q] + lut[4 + q] / 128.0;
        p->lv[r * 4 + q] = ldexp(c, e) * lval;
        p->rv[r * 4 + q] = ah * c * lut[8 + q] / rho;
    }
    p->t += ah * c * c;
    return fabs(ah - a) / a;
}

/* Rows by class, then by index. */
static int by_key(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

int gsvd_i8_pack_plan(gsvd_i8_pack *p, size_t rows, size_t n, const float *center,
                      const float *scale, const float *missing, double *werr)
{
    size_t kmax = 0;
    double worst = 0;
    int rc = GSVD_OK;

    if (rows > GSVD_I8_MAX_ROWS || n == 0)
        return GSVD_EINVAL;
    GSVD_TRY(reserve_rows(p, rows, n));
    p->rows = rows;
    p->n = n;
    p->t = 0;
    for (size_t r = 0; r < rows; r++) {
        double err = plan_row(p, r, center[r], scale[r], missing ? missing[r] : 0.0f);
        if (err < 0) {
            rc = GSVD_EINVAL;
            goto out;
        }
        worst = err > worst ? err : worst;
    }
    for (size_t r = 0; r < rows; r++) /* e is within +-2^10 (a finite double's exponent) */
        p->order[r] = (uint64_t)(p->row_e[r] + (1 << 20)) << 32 | r;
    qsort(p->order, rows, sizeof *p->order, by_key);
    for (size_t q = 0; q < rows; q++) /* each class padded to a unit */
        if (q + 1 == rows ||
            p->row_e[p->order[q] & 0xffffffffu] != p->row_e[p->order[q + 1] & 0xffffffffu])
            kmax += GSVD_I8_KBLK;
    kmax += rows;
    GSVD_TRY(reserve_padded(p, n, kmax));
    p->n_cls = 0;
    p->kp = 0;
    for (size_t q = 0; q < rows;) {
        size_t r0 = (size_t)(p->order[q] & 0xffffffffu);
        int e = p->row_e[r0];
        struct i8_class *c = &p->cls[p->n_cls++];
        c->k0 = p->kp;
        c->e = e;
        for (; q < rows && p->row_e[p->order[q] & 0xffffffffu] == e; q++) {
            size_t r = (size_t)(p->order[q] & 0xffffffffu);
            p->src[p->kp] = (int32_t)r;
            memcpy(p->lut + p->kp * 16, p->row_lut + r * 16, 16);
            memcpy(p->plv + p->kp * 4, p->lv + r * 4, 4 * sizeof *p->plv);
            memcpy(p->prv + p->kp * 4, p->rv + r * 4, 4 * sizeof *p->prv);
            p->kp++;
        }
        for (; p->kp % GSVD_I8_KBLK; p->kp++) {
            p->src[p->kp] = -1;
            memset(p->lut + p->kp * 16, 0, 16);
            memset(p->plv + p->kp * 4, 0, 4 * sizeof *p->plv);
            memset(p->prv + p->kp * 4, 0, 4 * sizeof *p->prv);
        }
        c->k1 = p->kp;
    }
    *werr = worst;
out:
    return rc;
}

#if GSVD_HAVE_AMX

#define GSVD_I8_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")))

/* Samples [16 b, 16 b + 16) of padded rows k .. k + 3, one row per 128-bit lane (zeros for
 * padding rows and samples past n). */
GSVD_I8_TARGET static __m128i load_row(const gsvd_i8_pack *p, const uint8_t *codes, size_t k,
                                       size_t s0, __mmask16 m)
{
    int32_t r = p->src[k];
    return r >= 0 ? _mm_maskz_loadu_epi8(m, codes + (size_t)r * p->n + s0) : _mm_setzero_si128();
}

GSVD_I8_TARGET static __m512i load_quad(const gsvd_i8_pack *p, const uint8_t *codes, size_t k,
                                        size_t s0, __mmask16 m)
{
    __m512i v = _mm512_castsi128_si512(load_row(p, codes, k, s0, m));
    v = _mm512_inserti32x4(v, load_row(p, codes, k + 1, s0, m), 1);
    v = _mm512_inserti32x4(v, load_row(p, codes, k + 2, s0, m), 2);
    return _mm512_inserti32x4(v, load_row(p, codes, k + 3, s0, m), 3);
}

/* Padded row k's terms of the centring sums for the 16 codes in x, added to sl[2], sr[2]. */
GSVD_I8_TARGET static void sum_row(const gsvd_i8_pack *p, size_t k, __m128i x, __m512d *sl,
                                   __m512d *sr)
{
    __m512i i0 = _mm512_cvtepu8_epi64(x), i1 = _mm512_cvtepu8_epi64(_mm_srli_si128(x, 8));
    __m512d lv = _mm512_castpd256_pd512(_mm256_loadu_pd(p->plv + 4 * k));
    __m512d rv = _mm512_castpd256_pd512(_mm256_loadu_pd(p->prv + 4 * k));
    sl[0] = _mm512_add_pd(sl[0], _mm512_permutexvar_pd(i0, lv));
    sl[1] = _mm512_add_pd(sl[1], _mm512_permutexvar_pd(i1, lv));
    sr[0] = _mm512_add_pd(sr[0], _mm512_permutexvar_pd(i0, rv));
    sr[1] = _mm512_add_pd(sr[1], _mm512_permutexvar_pd(i1, rv));
}

/* The 16 x 16 dword transpose of 16 rows of 64 bytes at src into dst: unpacks within 128-bit
 * lanes, then lanes across registers. */
GSVD_I8_TARGET static void transpose16(const uint32_t *src, uint8_t *dst)
{
    __m512i r[16], t[16], u[16];
    for (int i = 0; i < 16; i++)
        r[i] = _mm512_loadu_si512(src + 16 * i);
    for (int i = 0; i < 16; i += 2) { /* lane L: r_i[4L], r_i+1[4L], r_i[4L+1], ... */
        t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) { /* u[i + j] lane L: rows i..i+3 at column 4L + j */
        u[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
        u[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
        u[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
        u[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
    }
    for (int j = 0; j < 4; j++) { /* row 4L + j: lane L of u[j], u[4 + j], u[8 + j], u[12 + j] */
        __m512i a = _mm512_shuffle_i32x4(u[j], u[4 + j], 0x44);
        __m512i b = _mm512_shuffle_i32x4(u[j], u[4 + j], 0xee);
        __m512i c = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0x44);
        __m512i d = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0xee);
        _mm512_storeu_si512(dst + 64 * j, _mm512_shuffle_i32x4(a, c, 0x88));
        _mm512_storeu_si512(dst + 64 * (4 + j), _mm512_shuffle_i32x4(a, c, 0xdd));
        _mm512_storeu_si512(dst + 64 * (8 + j), _mm512_shuffle_i32x4(b, d, 0x88));
        _mm512_storeu_si512(dst + 64 * (12 + j), _mm512_shuffle_i32x4(b, d, 0xdd));
    }
}

GSVD_I8_TARGET void gsvd_i8_pack_rows(gsvd_i8_pack *p, const uint8_t *codes, size_t u)
{
    /* VNNI quads: byte 4 c + q of a tile row <- lane q, byte c */
    uint8_t perm_b[64];
    for (int j = 0; j < 64; j++)
        perm_b[j] = (uint8_t)((j & 3) * 16 + (j >> 2));
    const __m512i perm = _mm512_loadu_si512(perm_b);
    const __m512i off_l = _mm512_set1_epi8(4), off_r = _mm512_set1_epi8(8);
    uint32_t th[256], tl[256]; /* one unit's L_h, L_l quads before the transpose */

    for (size_t b = 0; b < p->nb; b++) {
        size_t s0 = 16 * b, valid = p->n > s0 ? p->n - s0 : 0;
        __mmask16 m = (__mmask16)(valid >= 16 ? 0xffffu : (1u << valid) - 1u);
        size_t units = p->kp / GSVD_I8_KBLK, aoff = (b * units + u) * 2048;
        size_t boff = ((b / 2 * units + u) * 2 + b % 2) * 1024;
        __m512d sl[2] = {_mm512_setzero_pd(), _mm512_setzero_pd()}, sr[2] = {sl[0], sl[0]};
        for (size_t r = 0; r < 16; r++) {
            size_t k = u * GSVD_I8_KBLK + 4 * r;
            __m512i codes4 = load_quad(p, codes, k, s0, m);
            /* the centring sums' terms, in padded row order */
            sum_row(p, k, _mm512_castsi512_si128(codes4), sl, sr);
            sum_row(p, k + 1, _mm512_extracti32x4_epi32(codes4, 1), sl, sr);
            sum_row(p, k + 2, _mm512_extracti32x4_epi32(codes4, 2), sl, sr);
            sum_row(p, k + 3, _mm512_extracti32x4_epi32(codes4, 3), sl, sr);
            __m512i lut = _mm512_loadu_si512(p->lut + k * 16);
            __m512i vh = _mm512_shuffle_epi8(lut, codes4);
            __m512i vl = _mm512_shuffle_epi8(lut, _mm512_add_epi8(codes4, off_l));
            __m512i vr = _mm512_shuffle_epi8(lut, _mm512_add_epi8(codes4, off_r));
            _mm512_storeu_si512(p->bt + boff + 64 * r, _mm512_permutexvar_epi8(perm, vr));
            _mm512_storeu_si512(th + 16 * r, _mm512_permutexvar_epi8(perm, vh));
            _mm512_storeu_si512(tl + 16 * r, _mm512_permutexvar_epi8(perm, vl));
        }
        transpose16(th, p->at + aoff); /* sample c's row: dword c of every quad row */
        transpose16(tl, p->at + aoff + 1024);
        _mm512_storeu_pd(p->usl + u * p->np + s0, sl[0]);
        _mm512_storeu_pd(p->usl + u * p->np + s0 + 8, sl[1]);
        _mm512_storeu_pd(p->usr + u * p->np + s0, sr[0]);
        _mm512_storeu_pd(p->usr + u * p->np + s0 + 8, sr[1]);
    }
}

GSVD_I8_TARGET void gsvd_i8_pack_sums(gsvd_i8_pack *p)
{
    size_t units = p->kp / GSVD_I8_KBLK;
    for (size_t s = 0; s < p->n; s++) {
        double a = 0, b = 0;
        for (size_t u = 0; u < units; u++) {
            a += p->usl[u * p->np + s];
            b += p->usr[u * p->np + s];
        }
        p->sl[s] = a;
        p->sr[s] = b;
    }
}

#define KB                                                                                         \
    512 /* rows per pass over a tile: the A (256 KiB), B (128 KiB) panels and C stay in L2         \
         */

/* Rows [k, k + kl) of the 16 x 32 block at samples (si, sj): P_h into tmm0, 1, P_l into 2, 3. */
static void block_rows(const gsvd_i8_pack *p, size_t si, size_t sj, size_t k, size_t kl)
{
    size_t units = p->kp / GSVD_I8_KBLK, u0 = k / GSVD_I8_KBLK, u1 = (k + kl) / GSVD_I8_KBLK;
    const uint8_t *a = p->at + (si / 16 * units + u0) * 2048;
    const uint8_t *b = p->bt + (sj / 32 * units + u0) * 2048;
    for (size_t u = u0; u < u1; u++, a += 2048, b += 2048) {
        _tile_loadd(4, a, 64);
        _tile_loadd(6, b, 64);
        _tile_loadd(7, b + 1024, 64);
        _tile_dpbuud(0, 4, 6);
        _tile_dpbuud(1, 4, 7);
        _tile_loadd(5, a + 1024, 64);
        _tile_dpbuud(2, 5, 6);
        _tile_dpbuud(3, 5, 7);
    }
}

/* c += 2^e (P_h + P_l / 128) over the mi x mj block (exact per class: P_h 128 + P_l < 2^39). */
GSVD_I8_TARGET static void fold_class(double *c, const int32_t *ph, const int32_t *pl, size_t mi,
                                      size_t mj, int e)
{
    const __m512d sc = _mm512_set1_pd(ldexp(1.0, e - 7));
    for (size_t i = 0; i < mi; i++)
        for (size_t j = 0; j < mj; j += 8) {
            size_t at = i * GSVD_I8_TILE + j;
            __m512i h = _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(ph + at)));
            __m512i l = _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(pl + at)));
            __m512i v = _mm512_add_epi64(_mm512_slli_epi64(h, 7), l);
            __m512d d = _mm512_mul_pd(_mm512_cvtepi64_pd(v), sc);
            _mm512_storeu_pd(c + at, _mm512_add_pd(_mm512_loadu_pd(c + at), d));
        }
}

GSVD_I8_TARGET void gsvd_i8_gram_tile(const gsvd_i8_pack *p, size_t i0, size_t j0, size_t wi,
                                      size_t wj, int32_t *acc, double *c)
{
    const size_t ld = GSVD_I8_TILE * sizeof(int32_t); /* bytes */
    size_t mi = (wi + 15) / 16 * 16, mj = (wj + 31) / 32 * 32;
    int32_t *ph = acc, *pl = acc + GSVD_I8_TILE * GSVD_I8_TILE;

    for (size_t i = 0; i < mi; i++)
        memset(c + i * GSVD_I8_TILE, 0, mj * sizeof *c);
    gsvd_amx_tiles_configure();
    for (size_t q = 0; q < p->n_cls; q++) {
        const struct i8_class *cl = &p->cls[q];
        for (size_t k = cl->k0; k < cl->k1; k += KB) {
            size_t kl = cl->k1 - k < KB ? cl->k1 - k : KB;
            for (size_t bi = 0; bi < mi; bi += 16)
                for (size_t bj = 0; bj < mj; bj += 32) {
                    int32_t *h = ph + bi * GSVD_I8_TILE + bj, *l = pl + bi * GSVD_I8_TILE + bj;
                    if (j0 + bj + 32 <= i0 + bi)
                        continue; /* below the diagonal: not read (acc keeps old values) */
                    if (k == cl->k0) {
                        _tile_zero(0);
                        _tile_zero(1);
                        _tile_zero(2);
                        _tile_zero(3);
                    } else { /* int32 through memory: exact */
                        _tile_loadd(0, h, ld);
                        _tile_loadd(1, h + 16, ld);
                        _tile_loadd(2, l, ld);
                        _tile_loadd(3, l + 16, ld);
                    }
                    block_rows(p, i0 + bi, j0 + bj, k, kl);
                    _tile_stored(0, h, ld);
                    _tile_stored(1, h + 16, ld);
                    _tile_stored(2, l, ld);
                    _tile_stored(3, l + 16, ld);
                }
        }
        fold_class(c, ph, pl, mi, mj, cl->e);
    }
    _tile_release();
    for (size_t i = 0; i < wi; i++)
        for (size_t j = 0; j < wj; j++) {
            double *v = &c[i * GSVD_I8_TILE + j];
            *v = *v / R_BASE - p->sl[i0 + i] - p->sr[j0 + j] + p->t;
        }
}

#else /* !GSVD_HAVE_AMX */

void gsvd_i8_pack_rows(gsvd_i8_pack *p, const uint8_t *codes, size_t u)
{
    (void)p;
    (void)codes;
    (void)u; /* never called: gsvd_amx_int8_usable() said no */
}

void gsvd_i8_pack_sums(gsvd_i8_pack *p)
{
    (void)p; /* never called */
}

void gsvd_i8_gram_tile(const gsvd_i8_pack *p, size_t i0, size_t j0, size_t wi, size_t wj,
                       int32_t *acc, double *c)
{
    (void)p;
    (void)i0;
    (void)j0;
    (void)wi;
    (void)wj;
    (void)acc;
    (void)c; /* never called */
}

#endif
