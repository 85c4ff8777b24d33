/* bench/amx_pass_probe.c - what one randomized-PCA pass (Y = Z^T (Z X)) would cost on Intel AMX
 * int8 tiles, measured before building it into the CPU backend (NOTES.md, issue 12: P2's
 * passes).  Not gensvd code: a probe of the design, checked against a float64 reference.
 *
 * The design.  Z's rows are 2-bit codes c (0, 1, 2; 3 = missing) standardised per row,
 * z = (c - mu) / s for called entries and 0 for missing ones.  With c' = c (0 where missing):
 *   T = Z X:     t_r = (c'_r X - mu_r (colsum X - sum_{i missing in r} X_i)) / s_r
 *   Y = Z^T T:   Y = C'^T W - 1 (sum_r mu_r w_r)^T + sum_{missing (r,i)} mu_r w_r at row i,
 *                with w_r = t_r / s_r.
 * X (once per pass) and W (per sub-tile of 64 rows) are rounded per column to integers of 20
 * bits (relative 2^-20 of the column's largest entry) split in three signed 7-bit digits, so
 * both products are int8 tile products with exact int32 sums (TDPBUSD: codes x X digits;
 * TDPBSUD: W digits x codes); digits are recombined in float64.  Every code is expanded twice
 * per pass, from the 2-bit row into an L2-resident sub-tile: as int8 rows (samples as the depth)
 * and as 4-variant quads (variants as the depth, the VNNI layout of the second product).  The
 * missing corrections are sparse (1% of calls), the centring a rank-1 term per sub-tile.
 *
 *   amx_pass_probe [M N L THREADS]   M x N codes (default 8,192 x 20,000: a slice of P2),
 *                                    L basis columns (20), THREADS (2)
 * Prints the pass time scaled to 100,000 rows, the parts of one sub-tile, and the largest
 * relative error of a column of Y against the float64 reference.
 *   cc -O3 -march=sapphirerapids -pthread bench/amx_pass_probe.c -lm -o amx_pass_probe */
#define _GNU_SOURCE
#include <immintrin.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum {
    S = 64,
    DC = 64,
    MAXL = 21,
    KC = 2048
}; /* rows per sub-tile; digit columns (3 L <=
    * 63); samples per chunk of product 1 */

struct probe {
    size_t m, n, np, rb, l;
    const uint8_t *p2;           /* m x rb packed codes */
    const double *mu, *sc;       /* per row */
    const float *x;              /* n x l */
    int8_t *xv;                  /* X digits, VNNI: np/4 x (DC x 4) */
    double qx[MAXL], xsum[MAXL]; /* per column: scale, sum of the rounded column */
    double *xq;                  /* rounded X, n x l (for the missing corrections) */
};

struct worker {
    const struct probe *p;
    size_t t, nt;
    double *y;      /* n x l, float64, this worker's rows' part */
    double u[MAXL]; /* centring terms summed over the worker's sub-tiles */
    double secs[3]; /* product 1 (with its expansion), between, product 2 */
};

static uint64_t next(uint64_t *s) /* xorshift64 */
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

struct tilecfg {
    uint8_t palette, start, res[14];
    uint16_t colsb[16];
    uint8_t rows[16];
};

static void tiles_on(void)
{
    struct tilecfg c = {.palette = 1};
    for (int i = 0; i < 8; i++) {
        c.colsb[i] = 64;
        c.rows[i] = 16;
    }
    _tile_loadconfig(&c);
}

/* v rounded to 20 bits as three signed 7-bit digits, low first */
static void digits(long v, int8_t d[3])
{
    long d0 = ((v % 128) + 128 + 64) % 128 - 64, v1 = (v - d0) / 128;
    long d1 = ((v1 % 128) + 128 + 64) % 128 - 64, d2 = (v1 - d1) / 128;
    d[0] = (int8_t)d0;
    d[1] = (int8_t)d1;
    d[2] = (int8_t)d2;
}

/* scale putting a column's largest magnitude m just under 2^20 */
static double col_scale(double m)
{
    int e;
    frexp(m > 0 ? m : 1, &e);
    return ldexp(1.0, 20 - e);
}

/* 64 codes of 16 packed bytes as int8 (missing -> 0); *miss gets the missing lanes */
static inline __m512i expand64(const uint8_t *p, __mmask64 *miss)
{
    static const uint8_t idx_b[64] = {0,  1,  0, 0, 0, 0, 0, 0, 2,  3,  0, 0, 0, 0, 0, 0,
                                      4,  5,  0, 0, 0, 0, 0, 0, 6,  7,  0, 0, 0, 0, 0, 0,
                                      8,  9,  0, 0, 0, 0, 0, 0, 10, 11, 0, 0, 0, 0, 0, 0,
                                      12, 13, 0, 0, 0, 0, 0, 0, 14, 15, 0, 0, 0, 0, 0, 0};
    __m512i src = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)p));
    __m512i v = _mm512_permutexvar_epi8(_mm512_loadu_si512(idx_b), src);
    v = _mm512_multishift_epi64_epi8(_mm512_set1_epi64(0x0e0c0a0806040200LL), v);
    v = _mm512_and_si512(v, _mm512_set1_epi8(3));
    *miss = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(3));
    return _mm512_maskz_mov_epi8(~*miss, v);
}

static void *work(void *arg)
{
    struct worker *w = arg;
    const struct probe *p = w->p;
    size_t np = p->np, l = p->l, nq = S / 4;
    int8_t *rows = aligned_alloc(4096, S * KC), *quads = aligned_alloc(4096, S * 64);
    int32_t *tint = aligned_alloc(64, S * DC * 4), *cb = aligned_alloc(64, 4 * 256 * 4);
    int8_t *wv = aligned_alloc(64, DC * S);
    uint8_t *mrow = malloc(S * np / 8);                 /* missing calls (at most 1/8): row, */
    uint32_t *mcol = malloc(S * np / 8 * sizeof *mcol); /* sample */
    float *yt = aligned_alloc(64, l * np * 4);          /* Y^T of this worker, float32 like Yg */
    float *ym = calloc(np * l, 4);                      /* the missing corrections, row layout */
    double *t = malloc(S * l * sizeof *t), *wq = malloc(S * l * sizeof *wq);
    uint8_t qi[64];

    for (int sm = 0; sm < 16; sm++)
        for (int v = 0; v < 4; v++)
            qi[sm * 4 + v] = (uint8_t)(v * 16 + sm);
    const __m512i qidx = _mm512_loadu_si512(qi);
    memset(yt, 0, l * np * 4);
    memset(wv, 0, DC * S);
    tiles_on();
    for (size_t s0 = w->t * S; s0 < p->m; s0 += w->nt * S) {
        size_t nm = 0, cap = S * np / 8;
        double t0 = now(), t1;
        /* product 1 by chunks of KC samples: expand the chunk's rows (int8, L1/L2), then its
         * tile products; the int32 sums of T stay in tint between chunks */
        for (size_t c0 = 0; c0 < np; c0 += KC) {
            size_t kc = np - c0 < KC ? np - c0 : KC;
            for (size_t i = 0; i < kc; i += 64)
                for (size_t r = 0; r < S; r++) {
                    __mmask64 mk;
                    __m512i a = expand64(p->p2 + (s0 + r) * p->rb + (c0 + i) / 4, &mk);
                    _mm512_store_si512(rows + r * KC + i, a);
                    while (mk && nm < cap) {
                        mrow[nm] = (uint8_t)r;
                        mcol[nm++] = (uint32_t)(c0 + i + (size_t)__builtin_ctzll(mk));
                        mk &= mk - 1;
                    }
                }
            for (size_t r0 = 0; r0 < S; r0 += 32)
                for (int ch = 0; ch < 2; ch++) {
                    int32_t *c = tint + r0 * DC + ch * 32;
                    if (c0 == 0) {
                        _tile_zero(0);
                        _tile_zero(1);
                        _tile_zero(2);
                        _tile_zero(3);
                    } else {
                        _tile_loadd(0, c, DC * 4);
                        _tile_loadd(1, c + 16, DC * 4);
                        _tile_loadd(2, c + 16 * DC, DC * 4);
                        _tile_loadd(3, c + 16 * DC + 16, DC * 4);
                    }
                    for (size_t k = 0; k < kc; k += 64) {
                        const int8_t *b = p->xv + ((c0 + k) / 4) * 256 + ch * 128;
                        _tile_loadd(4, rows + r0 * KC + k, KC);
                        _tile_loadd(5, rows + (r0 + 16) * KC + k, KC);
                        _tile_loadd(6, b, 256);
                        _tile_loadd(7, b + 64, 256);
                        _tile_dpbusd(0, 4, 6);
                        _tile_dpbusd(1, 4, 7);
                        _tile_dpbusd(2, 5, 6);
                        _tile_dpbusd(3, 5, 7);
                    }
                    _tile_stored(0, c, DC * 4);
                    _tile_stored(1, c + 16, DC * 4);
                    _tile_stored(2, c + 16 * DC, DC * 4);
                    _tile_stored(3, c + 16 * DC + 16, DC * 4);
                }
        }
        t1 = now();
        /* t = (c'X - mu (colsum X - missing X)) / s, in units of the rounded X */
        for (size_t r = 0; r < S; r++)
            for (size_t j = 0; j < l; j++) {
                const int32_t *q = tint + r * DC + j * 3;
                t[r * l + j] =
                    (double)q[0] + 128.0 * q[1] + 16384.0 * q[2] - p->mu[s0 + r] * p->xsum[j];
            }
        for (size_t e = 0; e < nm; e++) {
            size_t r = mrow[e], i = mcol[e];
            for (size_t j = 0; j < l; j++)
                t[r * l + j] += p->mu[s0 + r] * p->xq[i * l + j];
        }
        double u[MAXL] = {0}, qw[MAXL];
        for (size_t j = 0; j < l; j++) {
            double m = 0;
            for (size_t r = 0; r < S; r++) {
                t[r * l + j] /= p->qx[j] * p->sc[s0 + r] * p->sc[s0 + r]; /* w = t / s */
                m = fmax(m, fabs(t[r * l + j]));
            }
            qw[j] = col_scale(m);
            for (size_t r = 0; r < S; r++) {
                long v = lrint(t[r * l + j] * qw[j]);
                int8_t d[3];
                digits(v, d);
                wq[r * l + j] = (double)v / qw[j];
                u[j] += p->mu[s0 + r] * wq[r * l + j];
                for (int k = 0; k < 3; k++)
                    wv[(j * 3 + (size_t)k) * S + r] = d[k];
            }
        }
        double t3 = now();
        _tile_loadd(4, wv, S);
        _tile_loadd(5, wv + 16 * S, S);
        _tile_loadd(6, wv + 32 * S, S);
        _tile_loadd(7, wv + 48 * S, S);
        for (size_t st = 0; st < np / 16; st++) {
            if (st % 4 == 0) /* the next 64 samples of the 64 rows as four B tiles (L1) */
                for (size_t r = 0; r < S; r += 4) {
                    __m512i a[4];
                    for (int k = 0; k < 4; k++) {
                        __mmask64 mk;
                        a[k] = expand64(p->p2 + (s0 + r + k) * p->rb + st * 4, &mk);
                    }
                    __m512i lo01 = _mm512_shuffle_i32x4(a[0], a[1], 0x44);
                    __m512i hi01 = _mm512_shuffle_i32x4(a[0], a[1], 0xee);
                    __m512i lo23 = _mm512_shuffle_i32x4(a[2], a[3], 0x44);
                    __m512i hi23 = _mm512_shuffle_i32x4(a[2], a[3], 0xee);
                    __m512i q[4] = {_mm512_shuffle_i32x4(lo01, lo23, 0x88),
                                    _mm512_shuffle_i32x4(lo01, lo23, 0xdd),
                                    _mm512_shuffle_i32x4(hi01, hi23, 0x88),
                                    _mm512_shuffle_i32x4(hi01, hi23, 0xdd)};
                    for (int k = 0; k < 4; k++)
                        _mm512_store_si512(quads + ((size_t)k * nq + r / 4) * 64,
                                           _mm512_permutexvar_epi8(qidx, q[k]));
                }
            _tile_loadd(3, quads + (st % 4) * nq * 64, 64);
            _tile_zero(0);
            _tile_zero(1);
            _tile_dpbsud(0, 4, 3);
            _tile_dpbsud(1, 5, 3);
            _tile_stored(0, cb, 64);
            _tile_stored(1, cb + 256, 64);
            if (3 * l > 32) {
                _tile_zero(0);
                _tile_zero(1);
                _tile_dpbsud(0, 6, 3);
                _tile_dpbsud(1, 7, 3);
                _tile_stored(0, cb + 512, 64);
                _tile_stored(1, cb + 768, 64);
            }
            for (size_t j = 0; j < l; j++) { /* digit rows 3j..3j+2, 16 samples each */
                __m512 v = _mm512_cvtepi32_ps(_mm512_load_si512(cb + 3 * j * 16));
                v = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_load_si512(cb + (3 * j + 1) * 16)),
                                    _mm512_set1_ps(128.f), v);
                v = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_load_si512(cb + (3 * j + 2) * 16)),
                                    _mm512_set1_ps(16384.f), v);
                float *y = yt + j * np + st * 16;
                _mm512_store_ps(
                    y, _mm512_fmadd_ps(v, _mm512_set1_ps((float)(1 / qw[j])), _mm512_load_ps(y)));
            }
        }
        float mw[S * MAXL];
        for (size_t r = 0; r < S; r++)
            for (size_t j = 0; j < l; j++)
                mw[r * l + j] = (float)(p->mu[s0 + r] * wq[r * l + j]);
        for (size_t e = 0; e < nm; e++) {
            size_t r = mrow[e], i = mcol[e];
            for (size_t j = 0; j < l; j++)
                ym[i * l + j] += mw[r * l + j];
        }
        for (size_t j = 0; j < l; j++) /* the centring: -u_j in every row, at the end */
            w->u[j] += u[j];
        double t4 = now();
        w->secs[0] += t1 - t0;
        w->secs[1] += t3 - t1;
        w->secs[2] += t4 - t3;
    }
    _tile_release();
    for (size_t i = 0; i < p->n; i++)
        for (size_t j = 0; j < l; j++)
            w->y[i * l + j] += (double)yt[j * np + i] + (double)ym[i * l + j] - w->u[j];
    free(rows), free(quads), free(tint), free(cb), free(wv), free(mrow), free(mcol), free(yt),
        free(ym), free(t), free(wq);
    return NULL;
}

int main(int argc, char **argv)
{
    struct probe p = {0};
    size_t nt = argc > 4 ? strtoul(argv[4], 0, 10) : 2;
    p.m = argc > 1 ? strtoul(argv[1], 0, 10) : 8192;
    p.n = argc > 2 ? strtoul(argv[2], 0, 10) : 20000;
    p.l = argc > 3 ? strtoul(argv[3], 0, 10) : 20;
    p.m = (p.m + S - 1) / S * S;
    p.np = (p.n + 63) / 64 * 64;
    p.rb = p.np / 4;
    if (p.l < 1 || p.l > MAXL || nt < 1 || nt > 64) {
        fprintf(stderr, "usage: amx_pass_probe [M N L<=21 THREADS]\n");
        return 2;
    }
    if (syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XTILEDATA */) != 0) {
        fprintf(stderr, "amx_pass_probe: no AMX tile permission on this machine\n");
        return 1;
    }
    uint8_t *p2 = calloc(p.m * p.rb + 64, 1);
    double *mu = malloc(p.m * sizeof *mu), *sc = malloc(p.m * sizeof *sc);
    float *x = malloc(p.n * p.l * sizeof *x);
    p.xv = aligned_alloc(4096, p.np / 4 * 256);
    p.xq = malloc(p.n * p.l * sizeof *p.xq);
    uint64_t s = 88172645463325252ULL;
    for (size_t r = 0; r < p.m; r++) { /* binomial(2, f) codes, 1% missing; mean, Patterson scale */
        double f = 0.02 + 0.96 * (double)(next(&s) >> 11) / 9007199254740992.0, sum = 0, cnt = 0;
        for (size_t i = 0; i < p.n; i++) {
            unsigned c = 3;
            if (next(&s) % 100) {
                c = ((double)(next(&s) >> 11) / 9007199254740992.0 < f) +
                    ((double)(next(&s) >> 11) / 9007199254740992.0 < f);
                sum += c, cnt++;
            }
            p2[r * p.rb + i / 4] |= (uint8_t)(c << (2 * (i % 4)));
        }
        mu[r] = sum / cnt;
        sc[r] = sqrt(mu[r] * (1 - mu[r] / 2));
    }
    for (size_t i = 0; i < p.n * p.l; i++)
        x[i] = (float)((double)(next(&s) >> 11) / 9007199254740992.0 - 0.5) * (i % 7 ? 1 : 8);
    p.p2 = p2, p.mu = mu, p.sc = sc, p.x = x;

    double tx = now();
    memset(p.xv, 0, p.np / 4 * 256);
    for (size_t j = 0; j < p.l; j++) {
        double m = 0;
        for (size_t i = 0; i < p.n; i++)
            m = fmax(m, fabs(x[i * p.l + j]));
        p.qx[j] = col_scale(m);
        p.xsum[j] = 0;
        for (size_t i = 0; i < p.n; i++) {
            long v = lrint(x[i * p.l + j] * p.qx[j]);
            int8_t d[3];
            digits(v, d);
            p.xq[i * p.l + j] = (double)v;
            p.xsum[j] += (double)v;
            for (int k = 0; k < 3; k++)
                p.xv[(i / 4) * 256 + (j * 3 + (size_t)k) * 4 + i % 4] = d[k];
        }
    }
    tx = now() - tx;

    struct worker w[64];
    pthread_t th[64];
    double t0 = now();
    for (size_t k = 0; k < nt; k++) {
        w[k] = (struct worker){.p = &p, .t = k, .nt = nt, .y = calloc(p.n * p.l, sizeof(double))};
        pthread_create(&th[k], NULL, work, &w[k]);
    }
    for (size_t k = 0; k < nt; k++)
        pthread_join(th[k], NULL);
    double wall = now() - t0;

    /* float64 reference: Y = Z^T (Z X) with the float X */
    double *y = calloc(p.n * p.l, sizeof *y), *zr = malloc(p.n * sizeof *zr), worst = 0;
    for (size_t r = 0; r < p.m; r++) {
        double tr[MAXL] = {0};
        for (size_t i = 0; i < p.n; i++) {
            unsigned c = (p2[r * p.rb + i / 4] >> (2 * (i % 4))) & 3;
            zr[i] = c == 3 ? 0 : (c - mu[r]) / sc[r];
            for (size_t j = 0; j < p.l; j++)
                tr[j] += zr[i] * x[i * p.l + j];
        }
        for (size_t i = 0; i < p.n; i++)
            for (size_t j = 0; j < p.l; j++)
                y[i * p.l + j] += zr[i] * tr[j];
    }
    for (size_t j = 0; j < p.l; j++) {
        double d2 = 0, y2 = 0;
        for (size_t i = 0; i < p.n; i++) {
            double got = 0;
            for (size_t k = 0; k < nt; k++)
                got += w[k].y[i * p.l + j];
            d2 += (got - y[i * p.l + j]) * (got - y[i * p.l + j]);
            y2 += y[i * p.l + j] * y[i * p.l + j];
        }
        worst = fmax(worst, sqrt(d2 / y2));
    }
    double parts[3] = {0};
    for (size_t k = 0; k < nt; k++)
        for (int q = 0; q < 3; q++)
            parts[q] += w[k].secs[q];
    double per_sub = 1e3 / (double)(p.m / S);
    printf("M=%zu N=%zu L=%zu threads=%zu: wall %.3f s (X digits %.3f s)\n", p.m, p.n, p.l, nt,
           wall, tx);
    printf("per sub-tile of %d rows (ms of one thread): expand + product 1 %.3f, between %.3f,"
           " expand + product 2 + fold %.3f\n",
           S, parts[0] * per_sub, parts[1] * per_sub, parts[2] * per_sub);
    printf("pass at 100,000 rows: %.3f s; largest column error against float64: %.2e\n",
           wall * 100000.0 / (double)p.m + tx, worst);
    return 0;
}
