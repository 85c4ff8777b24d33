/* analysis/cpu/kernels/gram_i8.c - the int8 Gram on the genotype integers (see the header): the
 * pack's planning and packing (AVX-512), the engine probe, and the AMX int8 tile engine.  Only this
 * file's AMX part needs -mamx-tile -mamx-int8 (CMake, where the compiler accepts them); the
 * VNNI engine is gram_i8_vnni.c, the AVX2 engine (and its packing) gram_i8_avx2.c.  Each engine
 * runs only after its probe said yes. */
#include "gsvd_config.h"

#include "analysis/cpu/kernels/gram_i8.h"
#include "analysis/cpu/kernels/gram_i8_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cpu/kernels/gram_amx.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/cpu.h"
#include "common/err.h"

int gsvd_i8_pack_new(gsvd_i8_pack **out, int engine)
{
    *out = NULL;
    if (engine != GSVD_I8_AMX && engine != GSVD_I8_VNNI && engine != GSVD_I8_AVX2)
        return GSVD_EINVAL;
    *out = gsvd_calloc(1, sizeof **out);
    if (!*out)
        return GSVD_ENOMEM;
    (*out)->engine = engine;
    return GSVD_OK;
}

void gsvd_i8_pack_free(gsvd_i8_pack *p)
{
    if (!p)
        return;
    gsvd_free(p->src);
    gsvd_free(p->lut);
    gsvd_free(p->lv);
    gsvd_free(p->dv);
    gsvd_free(p->plv);
    gsvd_free(p->pdv);
    gsvd_free(p->sl);
    gsvd_free(p->sr);
    gsvd_free(p->cls);
    gsvd_free(p->row_e);
    gsvd_free(p->order);
    gsvd_free(p->row_lut);
    gsvd_free(p->at);
    gsvd_free(p->bt);
    gsvd_free(p->bt1);
    gsvd_free(p);
}

size_t gsvd_i8_pack_strips(const gsvd_i8_pack *p)
{
    return (p->n + GSVD_I8_STRIP - 1) / GSVD_I8_STRIP;
}

/* Room for the rows' plan (before the classes are known).  All arrays come from
 * gsvd_reserve_large: the large ones (the tile panels, read 2 KiB at a time from many places)
 * on huge pages where the system gives them. */
static int reserve_rows(gsvd_i8_pack *p, size_t rows)
{
    int rc = GSVD_OK;
    if (rows > p->rows_cap) {
        GSVD_TRY(gsvd_reserve_large(&p->lv, NULL, rows * 4, sizeof *p->lv));
        GSVD_TRY(gsvd_reserve_large(&p->dv, NULL, rows, sizeof *p->dv));
        GSVD_TRY(gsvd_reserve_large(&p->row_e, NULL, rows, sizeof *p->row_e));
        GSVD_TRY(gsvd_reserve_large(&p->order, NULL, rows, sizeof *p->order));
        GSVD_TRY(gsvd_reserve_large(&p->cls, NULL, rows, sizeof *p->cls));
        GSVD_TRY(gsvd_reserve_large(&p->row_lut, NULL, rows * 16, 1));
        p->rows_cap = rows;
    }

out:
    if (rc < 0) /* a failed grow left some arrays smaller than the caps say */
        p->rows_cap = 0;
    return rc;
}

/* Room for kmax padded rows of n samples (the classes are known). */
static int reserve_padded(gsvd_i8_pack *p, size_t n, size_t kmax)
{
    size_t np = (n + 31) / 32 * 32, bytes;
    int rc = GSVD_OK;

    if (np < n || gsvd_mul_size(kmax, 2 * np, &bytes) < 0)
        return GSVD_EINVAL;
    if (kmax > p->kp_cap) {
        GSVD_TRY(gsvd_reserve_large(&p->src, NULL, kmax, sizeof *p->src));
        GSVD_TRY(gsvd_reserve_large(&p->lut, NULL, kmax * 16, 1));
        GSVD_TRY(gsvd_reserve_large(&p->plv, NULL, kmax * 4, sizeof *p->plv));
        GSVD_TRY(gsvd_reserve_large(&p->pdv, NULL, kmax, sizeof *p->pdv));
        p->kp_cap = kmax;
    }
    if (np > p->np_cap) {
        GSVD_TRY(gsvd_reserve_large(&p->sl, NULL, np, sizeof *p->sl));
        GSVD_TRY(gsvd_reserve_large(&p->sr, NULL, np, sizeof *p->sr));
        p->np_cap = np;
    }
    if (bytes > p->tile_cap) {
        GSVD_TRY(gsvd_reserve_large(&p->at, NULL, bytes, 1));
        GSVD_TRY(gsvd_reserve_large(&p->bt, NULL, bytes / 2, 1));
        if (p->engine == GSVD_I8_AVX2) /* its R1 bytes (gram_i8_avx2.c) */
            GSVD_TRY(gsvd_reserve_large(&p->bt1, NULL, bytes / 2, 1));
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
     * doubled the missing calls' error (docs/dev/decisions.md) */
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
    for (unsigned q = 0; q < 4; q++) /* q u for a call: 2^e c alpha q = a^ c q, as in sr */
        p->lv[r * 4 + q] = ldexp(c, e) * (lut[q] + lut[4 + q] / 128.0);
    p->dv[r] = ah * c * lut[11] / rho - p->lv[r * 4 + 3];
    p->t += ah * c * c;
    return fabs(ah - a) / a;
}

/* Rows by class, then by index. */
static int by_key(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

int gsvd_i8_pack_plan(gsvd_i8_pack *p, size_t rows, size_t n, const uint8_t *codes,
                      const float *center, const float *scale, const float *missing, double *werr)
{
    size_t kmax = 0;
    double worst = 0;
    int rc = GSVD_OK;

    if (rows > GSVD_I8_MAX_ROWS || n == 0)
        return GSVD_EINVAL;
    GSVD_TRY(reserve_rows(p, rows));
    p->rows = rows;
    p->n = n;
    p->codes = codes;
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
            p->pdv[p->kp] = p->dv[r];
            p->kp++;
        }
        for (; p->kp % GSVD_I8_KBLK; p->kp++) {
            p->src[p->kp] = -1;
            memset(p->lut + p->kp * 16, 0, 16);
            memset(p->plv + p->kp * 4, 0, 4 * sizeof *p->plv);
            p->pdv[p->kp] = 0;
        }
        c->k1 = p->kp;
    }
    *werr = worst;
out:
    return rc;
}

static pthread_once_t vnni_once = PTHREAD_ONCE_INIT;
static const char *vnni_no; /* why the VNNI engine cannot run, NULL when it can */

/* The VNNI engine's probe, run once: the packing's AVX-512 (F, BW, VL, DQ, VBMI) and the
 * products' VNNI; __builtin_cpu_supports also asks whether the OS saves the AVX-512 state. */
static void vnni_probe(void)
{
#if GSVD_I8_X86
    __builtin_cpu_init();
    if (!gsvd_cpu_allows(GSVD_CPU_AVX512))
        vnni_no = "GENSVD_CPU_LEVEL caps the kernels below AVX-512";
    else if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
             !__builtin_cpu_supports("avx512vl") || !__builtin_cpu_supports("avx512dq") ||
             !__builtin_cpu_supports("avx512vbmi"))
        vnni_no = "the CPU or OS has no AVX-512F, BW, VL, DQ and VBMI, which pack the rows";
    else if (!__builtin_cpu_supports("avx512vnni"))
        vnni_no = "the CPU has no AVX-512 VNNI (vpdpbusd)";
#else
    vnni_no = "not an x86-64 build";
#endif
}

static int vnni_usable(char *why, size_t why_len)
{
    pthread_once(&vnni_once, vnni_probe);
    if (why && why_len)
        snprintf(why, why_len, "%s", vnni_no ? vnni_no : "");
    return vnni_no == NULL;
}

int gsvd_i8_engine_usable(int engine, char *why, size_t why_len)
{
    if (engine == GSVD_I8_AMX)
        return gsvd_amx_int8_usable(why, why_len);
    if (engine == GSVD_I8_VNNI)
        return vnni_usable(why, why_len);
    if (engine == GSVD_I8_AVX2)
        return gsvd_cpu_avx2(why, why_len);
    if (why && why_len)
        snprintf(why, why_len, "not an int8 engine");
    return 0;
}

int gsvd_i8_engine_pick(char *why, size_t why_len)
{
    char amx[128], vnni[128], avx2[128];

    if (gsvd_amx_int8_usable(amx, sizeof amx))
        return GSVD_I8_AMX;
    if (vnni_usable(vnni, sizeof vnni))
        return GSVD_I8_VNNI;
    if (gsvd_cpu_avx2(avx2, sizeof avx2))
        return GSVD_I8_AVX2;
    if (why && why_len)
        snprintf(why, why_len, "%s; %s; %s", amx, vnni, avx2);
    return 0;
}

int gsvd_i8_engine_fast(int engine)
{
    return engine == GSVD_I8_AMX || engine == GSVD_I8_VNNI;
}

const char *gsvd_i8_engine_name(int engine)
{
    switch (engine) {
    case GSVD_I8_AMX:
        return "AMX int8 tiles";
    case GSVD_I8_VNNI:
        return "AVX-512 VNNI";
    case GSVD_I8_AVX2:
        return "AVX2";
    default:
        return "none";
    }
}

#if GSVD_I8_X86

#define GSVD_I8_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")))

/* Samples [16 b, 16 b + 16) of padded rows k .. k + 3, one row per 128-bit lane (zeros for
 * padding rows and samples past n). */
GSVD_I8_TARGET static inline __m128i load_row(const gsvd_i8_pack *p, const uint8_t *codes, size_t k,
                                              size_t s0, __mmask16 m)
{
    int32_t r = p->src[k];
    return r >= 0 ? _mm_maskz_loadu_epi8(m, codes + (size_t)r * p->n + s0) : _mm_setzero_si128();
}

/* (Lane indices are immediates: a loop over them does not compile without optimisation.) */
GSVD_I8_TARGET static inline __m512i load_quad(const gsvd_i8_pack *p, const uint8_t *codes,
                                               size_t k, size_t s0, __mmask16 m)
{
    __m512i v = _mm512_castsi128_si512(load_row(p, codes, k, s0, m));
    v = _mm512_inserti32x4(v, load_row(p, codes, k + 1, s0, m), 1);
    v = _mm512_inserti32x4(v, load_row(p, codes, k + 2, s0, m), 2);
    return _mm512_inserti32x4(v, load_row(p, codes, k + 3, s0, m), 3);
}

/* The centring sums of one block of 16 samples, in registers over a strip's units: sl, and
 * what sr adds to it for the missing calls. */
struct sums {
    __m512d sl[2], dm[2];
};

/* The terms of padded rows k .. k + 3 (codes4: one row per 128-bit lane) added to s.  A call's
 * terms are looked up by code (vpermpd on the row's 4 values); the missing calls' difference
 * only where a lane holds one (about 1 row in 6 at 1% missing). */
GSVD_I8_TARGET static inline __attribute__((always_inline)) void
sum_quad(const gsvd_i8_pack *p, size_t k, __m512i codes4, struct sums *s)
{
    __mmask64 miss = _mm512_cmpeq_epi8_mask(codes4, _mm512_set1_epi8(3));
    for (int q = 0; q < 4; q++) {
        __m128i x = q == 0   ? _mm512_castsi512_si128(codes4)
                    : q == 1 ? _mm512_extracti32x4_epi32(codes4, 1)
                    : q == 2 ? _mm512_extracti32x4_epi32(codes4, 2)
                             : _mm512_extracti32x4_epi32(codes4, 3);
        __m512i i0 = _mm512_cvtepu8_epi64(x), i1 = _mm512_cvtepu8_epi64(_mm_srli_si128(x, 8));
        __m512d lv = _mm512_castpd256_pd512(_mm256_loadu_pd(p->plv + 4 * (k + (size_t)q)));
        __mmask16 mq = (__mmask16)(miss >> (16 * q));
        s->sl[0] = _mm512_add_pd(s->sl[0], _mm512_permutexvar_pd(i0, lv));
        s->sl[1] = _mm512_add_pd(s->sl[1], _mm512_permutexvar_pd(i1, lv));
        if (mq) {
            __m512d d = _mm512_set1_pd(p->pdv[k + (size_t)q]);
            s->dm[0] = _mm512_mask_add_pd(s->dm[0], (__mmask8)mq, s->dm[0], d);
            s->dm[1] = _mm512_mask_add_pd(s->dm[1], (__mmask8)(mq >> 8), s->dm[1], d);
        }
    }
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

/* Unit u, samples [16 b, 16 b + 16) into the tile layouts, with the block's centring terms. */
GSVD_I8_TARGET static inline __attribute__((always_inline)) void
pack_block(gsvd_i8_pack *p, const uint8_t *codes, size_t u, size_t b, __m512i perm, struct sums *s)
{
    const __m512i off_l = _mm512_set1_epi8(4), off_r = _mm512_set1_epi8(8);
    uint32_t th[256], tl[256]; /* the L_h, L_l quads before the transpose */
    size_t s0 = 16 * b, valid = p->n > s0 ? p->n - s0 : 0;
    __mmask16 m = (__mmask16)(valid >= 16 ? 0xffffu : (1u << valid) - 1u);
    size_t units = p->kp / GSVD_I8_KBLK, aoff = (b * units + u) * 2048;
    size_t boff = ((b / 2 * units + u) * 2 + b % 2) * 1024;

    for (size_t r = 0; r < 16; r++) {
        size_t k = u * GSVD_I8_KBLK + 4 * r;
        __m512i codes4 = load_quad(p, codes, k, s0, m);
        sum_quad(p, k, codes4, s);
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
}

#define PREFETCH_UNITS 2 /* units ahead */

/* Ask for the lines of unit u's rows that hold strip t's samples. */
static void prefetch_strip(const gsvd_i8_pack *p, const uint8_t *codes, size_t u, size_t t)
{
    size_t s0 = t * GSVD_I8_STRIP, s1 = s0 + GSVD_I8_STRIP < p->n ? s0 + GSVD_I8_STRIP : p->n;
    for (size_t k = u * GSVD_I8_KBLK; k < (u + 1) * GSVD_I8_KBLK; k++) {
        if (p->src[k] < 0)
            continue;
        const uint8_t *row = codes + (size_t)p->src[k] * p->n;
        __asm__ volatile("prefetcht0 %0" : : "m"(row[s0]));
        __asm__ volatile("prefetcht0 %0" : : "m"(row[s1 - 1]));
    }
}

GSVD_I8_TARGET static void pack_strip_avx512(gsvd_i8_pack *p, const uint8_t *codes, size_t t)
{
    /* VNNI quads: byte 4 c + q of a tile row <- lane q, byte c */
    uint8_t perm_b[64];
    for (int j = 0; j < 64; j++)
        perm_b[j] = (uint8_t)((j & 3) * 16 + (j >> 2));
    const __m512i perm = _mm512_loadu_si512(perm_b);
    enum { BLOCKS = GSVD_I8_STRIP / 16 };
    size_t units = p->kp / GSVD_I8_KBLK, b0 = BLOCKS * t;
    size_t nb = p->nb - b0 < BLOCKS ? p->nb - b0 : BLOCKS;
    struct sums s[BLOCKS];

    for (size_t j = 0; j < BLOCKS; j++)
        s[j].sl[0] = s[j].sl[1] = s[j].dm[0] = s[j].dm[1] = _mm512_setzero_pd();
    /* unit by unit: each block's output is written in order, each row's line read once */
    for (size_t u = 0; u < units; u++) {
        if (u + PREFETCH_UNITS < units) /* the rows are in class order, not the memory's */
            prefetch_strip(p, codes, u + PREFETCH_UNITS, t);
        for (size_t j = 0; j < nb; j++)
            pack_block(p, codes, u, b0 + j, perm, &s[j]);
    }
    for (size_t j = 0; j < nb; j++) {
        double *sl = p->sl + 16 * (b0 + j), *sr = p->sr + 16 * (b0 + j);
        _mm512_storeu_pd(sl, s[j].sl[0]);
        _mm512_storeu_pd(sl + 8, s[j].sl[1]);
        _mm512_storeu_pd(sr, _mm512_add_pd(s[j].sl[0], s[j].dm[0]));
        _mm512_storeu_pd(sr + 8, _mm512_add_pd(s[j].sl[1], s[j].dm[1]));
    }
}

#endif /* GSVD_I8_X86 */

#if GSVD_HAVE_AMX

/* Rows per pass over a tile, at most: a class of the group is one pass when it is shorter
 * (passes of 512 to 8,192 rows measured within 10% of each other; one pass per class saves the
 * int32 accumulators' round trips through memory). */
#define KB 4096

/* A block's products, stored after its class's last pass, waiting to be added to c: row by row
 * between the next block's tile products (the vector unit adds while the tile unit multiplies;
 * after the products, a block's fold stalled them, which measured no faster than folding the
 * whole tile per class). */
struct fold {
    double *c;         /* the block's corner in c; NULL: nothing waiting */
    const int32_t *sc; /* 16 x 32 P_h, then 16 x 32 P_l (row stride 32) */
    __m512d scale;     /* 2^(e - 7) / 127 */
    size_t row;        /* rows of the block added so far */
};

/* Rows [f->row, upto) of the waiting block: c += (128 P_h + P_l) 2^(e - 7) / 127 (the integer
 * is exact in float64: 128 P_h + P_l < 2^39). */
GSVD_I8_TARGET static inline void fold_rows(struct fold *f, size_t upto)
{
    for (; f->row < upto; f->row++) {
        const int32_t *h = f->sc + f->row * 32, *l = h + 16 * 32;
        double *o = f->c + f->row * GSVD_I8_TILE;
        for (size_t j = 0; j < 32; j += 8)
            gsvd_i8_fold8(h + j, l + j, _mm512_setzero_si512(), f->scale, o + j);
    }
}

/* Rows [k, k + kl) of the 16 x 32 block at samples (si, sj): P_h into tmm0, 1, P_l into 2, 3;
 * the waiting fold f is added a few rows after each unit, and is done on return. */
GSVD_I8_TARGET static void block_rows(const gsvd_i8_pack *p, size_t si, size_t sj, size_t k,
                                      size_t kl, struct fold *f)
{
    size_t units = p->kp / GSVD_I8_KBLK, u0 = k / GSVD_I8_KBLK, u1 = (k + kl) / GSVD_I8_KBLK;
    size_t per = f->c ? (16 + (u1 - u0) - 1) / (u1 - u0) : 0; /* fold rows per unit */
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
        if (f->c) {
            size_t upto = (u - u0 + 1) * per;
            fold_rows(f, upto < 16 ? upto : 16);
        }
    }
    if (f->c)
        fold_rows(f, 16);
    f->c = NULL;
}

GSVD_I8_TARGET static void gram_tile_amx(const gsvd_i8_pack *p, size_t i0, size_t j0, size_t wi,
                                         size_t wj, int32_t *acc, double *c)
{
    const size_t ld = GSVD_I8_TILE * sizeof(int32_t); /* bytes */
    size_t mi = (wi + 15) / 16 * 16, mj = (wj + 31) / 32 * 32;
    int32_t *ph = acc, *pl = acc + GSVD_I8_TILE * GSVD_I8_TILE;
    int32_t sc[2][2 * 16 * 32] __attribute__((aligned(64))); /* a waiting block, the next */
    struct fold f = {.c = NULL};
    int next = 0;

    /* the centring first (the classes' products are added to it) */
    gsvd_i8_tile_centring(p, i0, j0, wi, wj, mi, mj, c);
    gsvd_amx_tiles_configure();
    for (size_t q = 0; q < p->n_cls; q++) {
        const struct i8_class *cl = &p->cls[q];
        const __m512d scale = _mm512_set1_pd(gsvd_i8_class_scale(cl));
        for (size_t k = cl->k0; k < cl->k1; k += KB) {
            size_t kl = cl->k1 - k < KB ? cl->k1 - k : KB;
            int last = k + kl == cl->k1;
            for (size_t bi = 0; bi < mi; bi += 16)
                for (size_t bj = 0; bj < mj; bj += 32) {
                    int32_t *h = ph + bi * GSVD_I8_TILE + bj, *l = pl + bi * GSVD_I8_TILE + bj;
                    if (j0 + bj + 32 <= i0 + bi)
                        continue; /* below the diagonal: not read */
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
                    block_rows(p, i0 + bi, j0 + bj, k, kl, &f);
                    if (last) { /* to the scratch not being folded; folded during the next */
                        int32_t *s = sc[next];
                        next ^= 1;
                        _tile_stored(0, s, 128);
                        _tile_stored(1, s + 16, 128);
                        _tile_stored(2, s + 16 * 32, 128);
                        _tile_stored(3, s + 16 * 32 + 16, 128);
                        f = (struct fold){c + bi * GSVD_I8_TILE + bj, s, scale, 0};
                    } else {
                        _tile_stored(0, h, ld);
                        _tile_stored(1, h + 16, ld);
                        _tile_stored(2, l, ld);
                        _tile_stored(3, l + 16, ld);
                    }
                }
        }
    }
    if (f.c)
        fold_rows(&f, 16);
    _tile_release();
}

#endif /* GSVD_HAVE_AMX */

void gsvd_i8_pack_strip(gsvd_i8_pack *p, size_t t)
{
#if GSVD_I8_X86
    if (p->engine == GSVD_I8_AVX2) /* the same bytes without AVX-512 */
        gsvd_i8_pack_strip_avx2(p, p->codes, t);
    else
        pack_strip_avx512(p, p->codes, t);
#else
    (void)p;
    (void)t; /* never called: no engine runs here */
#endif
}

void gsvd_i8_gram_tile(const gsvd_i8_pack *p, size_t i0, size_t j0, size_t wi, size_t wj,
                       int32_t *acc, double *c)
{
#if GSVD_HAVE_AMX
    if (p->engine == GSVD_I8_AMX) {
        gram_tile_amx(p, i0, j0, wi, wj, acc, c);
        return;
    }
#endif
    if (p->engine == GSVD_I8_AVX2)
        gsvd_i8_gram_tile_avx2(p, i0, j0, wi, wj, acc, c);
    else
        gsvd_i8_gram_tile_vnni(p, i0, j0, wi, wj, acc, c); /* or never called: no engine */
}
