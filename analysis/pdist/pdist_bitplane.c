/* analysis/pdist/pdist_bitplane.c - the bit-plane kernel: genotypes in {0, 1, 2} (or missing)
 * become three bit planes per item, 64 features per word: C = called, A = [g >= 1] and a third
 * plane, B = [g >= 2] for the metrics that only need sum |u - v| (cityblock, ibs) and for a device,
 * P = [g == 1] for the others on the host and for king/ibs0 everywhere (five KING counts per
 * pair: n, het-het, IBS0, |Px & Cy|, |Py & Cx|, gsvd_pd_king_to_sums).  A pair's counts (n, one,
 * two; see pdist_metric.h) are popcounts of ANDs and XORs of its planes: with K = Cx & Cy and a =
 * (Ax ^ Ay) & K, n = |K|; L1 metrics: one + 2 two = |a| + |(Bx ^ By) & K|; the others: one = |(Px ^
 * Py) & K|
 * (|u - v| = 1 exactly where P differs), two = |a & ~(Px ^ Py)| (A differs, P does not: {0, 2}).
 * Counts are integers, so the result is exact and independent of the order in which threads
 * add them.
 *
 * A segment without missing calls (imputed data, or a stretch of variants called everywhere)
 * is "complete": K is all ones, so its pairs skip the mask and the popcount of n (n += F):
 * 6 vector operations per word and pair instead of 9 (L1) or 10.
 *
 * Features are packed into a segment of W words per plane (W a multiple of 8); a full segment
 * is "flushed": every pair of the band gets the segment's counts, tile by tile over threads.
 * With a cache budget the segments of the first pass are kept and later bands replay them
 * instead of reading the input again.  With a device (env.dev) a flushed segment goes to the
 * device, which adds the same counts to its copy of the band (gpu/pdist_body.h); band_end and
 * replay bring them back into cnt.  Packing the planes from a stripe is in
 * pdist_bitplane_pack.c. */
#include "gsvd_config.h"

#include <string.h>

#include "analysis/pdist/pdist_bitplane_internal.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/cpu.h"
#include "common/err.h"
#include "common/parallel.h"

static int cpu_has_avx512(void)
{
#if PD_X86
    __builtin_cpu_init();
    return gsvd_cpu_allows(GSVD_CPU_AVX512) && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512vpopcntdq");
#else
    return 0;
#endif
}

const char *gsvd_pdist_popcount_engine(void)
{
    if (cpu_has_avx512())
        return "AVX-512 VPOPCNTDQ";
    if (gsvd_cpu_avx2(NULL, 0))
        return "AVX2";
    if (gsvd_cpu_popcnt()) /* not in x86-64's baseline (SIGILL there); off at level base */
        return "POPCNT";
    return "portable code";
}

static size_t seg_words(const struct bp *b)
{
    return b->n * 3 * b->W;
}

size_t gsvd_pd_bitplane_words(size_t n, uint64_t m, uint64_t stripe_bytes)
{
    size_t W = 256;
    uint64_t need = (m + 511) / 512 * 8; /* words of all features, whole vectors */
    while (W > 8 && ((uint64_t)n * 24 * W > stripe_bytes || W / 2 >= need))
        W /= 2;
    return W;
}

uint64_t gsvd_pd_bitplane_cache_bytes(size_t n, uint64_t m, uint64_t stripe_bytes)
{
    size_t W = gsvd_pd_bitplane_words(n, m, stripe_bytes);
    uint64_t segments = (m + 64 * (uint64_t)W - 1) / (64 * (uint64_t)W);
    return segments * n * 3 * W * sizeof(uint64_t);
}

static uint64_t apart_rows_bytes(const struct pd_env *env)
{
    return gsvd_pd_apart_rows_bytes(env->n,
                                    gsvd_pd_bitplane_words(env->n, env->m, env->stripe_bytes));
}

int gsvd_pd_bitplane_apart(const struct pd_env *env)
{
    enum gsvd_pdist_metric m = env->p->metric;
    return (gsvd_pd_king_metric(m) || m == GSVD_PDIST_CITYBLOCK || m == GSVD_PDIST_IBS) &&
           !env->dev && (env->p->memory == 0 || apart_rows_bytes(env) <= env->p->memory / 4);
}

/* The segment's planes are accounted for by the engine's stripe_bytes; counting missing calls
 * apart keeps their variant-major rows beside them (pdist_bitplane_apart.c). */
static uint64_t bp_fixed_bytes(const struct pd_env *env)
{
    return gsvd_pd_bitplane_apart(env) ? apart_rows_bytes(env) : 0;
}

static void bp_destroy(void *st);

static int bp_create(const struct pd_env *env, void **out)
{
    struct bp *b = gsvd_calloc(1, sizeof *b);
    size_t words;

    *out = NULL;
    if (!b)
        return GSVD_ENOMEM;
    b->env = *env;
    b->n = env->n;
    b->W = gsvd_pd_bitplane_words(env->n, env->m, env->stripe_bytes);
    if (gsvd_mul_size(b->n ? b->n : 1, 3 * b->W, &words) < 0 || words > SIZE_MAX / 8) {
        gsvd_free(b);
        return GSVD_ENOMEM;
    }
    b->cur.planes = gsvd_alloc_large(words * sizeof(uint64_t));
    if (!b->cur.planes) {
        gsvd_free(b);
        return GSVD_ENOMEM;
    }
    memset(b->cur.planes, 0, words * sizeof(uint64_t));
    b->cur.complete = 1;
    b->caching = env->cache_bytes > 0;
    b->avx512 = env->p->simd == GSVD_PDIST_SIMD_AUTO && cpu_has_avx512();
    b->avx2 = env->p->simd == GSVD_PDIST_SIMD_AUTO && !b->avx512 && gsvd_cpu_avx2(NULL, 0);
    b->popcnt = gsvd_cpu_popcnt();
#if PD_X86
    /* the packing's AVX-512 workers (pdist_bitplane_pack.c): F and BW, and POPCNT for the
     * called counts */
    b->avx512bw = env->p->simd == GSVD_PDIST_SIMD_AUTO && gsvd_cpu_allows(GSVD_CPU_AVX512) &&
                  __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                  __builtin_cpu_supports("popcnt");
    b->gfni = b->avx512bw && __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("gfni");
#endif
    b->l1 = env->p->metric == GSVD_PDIST_CITYBLOCK || env->p->metric == GSVD_PDIST_IBS;
    b->wide = gsvd_pd_bitplane_wide_metric(env->p->metric);
    b->king = gsvd_pd_king_metric(env->p->metric);
    b->ncnt = b->wide ? NW : b->king ? NK : NC;
    if (b->wide)
        b->env.dev = NULL; /* the device kernels count n, one, two (or KING's) only */
    if (b->wide || b->king || b->l1) {
        if (!(b->isum = gsvd_malloc(2 * (b->n ? b->n : 1) * sizeof *b->isum))) {
            bp_destroy(b);
            return GSVD_ENOMEM;
        }
    }
    /* a device counts from C, A, B (gpu/pdist_body.h); the wide counts need B too; KING's
     * counts need P, on the host and on a device */
    b->pplane = b->king || (!b->l1 && !b->wide && !b->env.dev);
    if ((b->king || b->l1) && gsvd_pd_bitplane_apart(&b->env)) {
        int rc = gsvd_pd_apart_create(&b->ap, b->n, b->W, env->n_threads, b->l1);
        if (rc < 0) {
            bp_destroy(b);
            return rc;
        }
    }
    *out = b;
    return GSVD_OK;
}

static void drop_kept(struct bp *b)
{
    for (size_t i = 0; i < b->n_kept; i++)
        gsvd_free(b->kept[i].planes);
    gsvd_free(b->kept);
    b->kept = NULL;
    b->n_kept = b->kept_cap = 0;
    b->kept_bytes = 0;
    b->caching = b->complete = 0;
}

static void bp_destroy(void *st)
{
    struct bp *b = st;
    if (!b)
        return;
    drop_kept(b);
    gsvd_free(b->cur.planes);
    gsvd_free(b->cnt);
    gsvd_free(b->isum);
    gsvd_pd_apart_destroy(b->ap);
    gsvd_free(b);
}

static int bp_band_begin(void *st, size_t row0, size_t n_rows)
{
    struct bp *b = st;
    void *acc = b->cnt;
    int rc;

    b->row0 = row0;
    b->nb = n_rows;
    b->nc = b->n - row0;
    rc = gsvd_pd_band_acc(&acc, &b->cnt_cap, n_rows, b->nc, b->ncnt, sizeof *b->cnt);
    b->cnt = acc;
    if (rc == GSVD_OK && b->ap)
        rc = gsvd_pd_apart_band(b->ap, row0, n_rows);
    if (rc == GSVD_OK && b->env.dev) {
        struct gsvd_pd_dev_band band = {.kind = GSVD_PD_DEV_COUNTS,
                                        .nb = n_rows,
                                        .nc = b->nc,
                                        .W = b->W,
                                        .l1 = b->l1,
                                        .king = b->king};
        rc = gsvd_backend_pd_begin(b->env.dev, &band);
    }
    return rc;
}

/* ---- pair counts ---------------------------------------------------------------------------- */

/* Counts of x against y[0..3] over nw words (planes W apart): out[k] = n, one, two as in the
 * header comment; l1: n, one + 2 two, 0 (planes C, A, B), else planes C, A, P.  masked = 0 (a
 * complete segment): K is taken as all ones and n is left 0 for the caller to add. */
typedef void (*pair4_fn)(const uint64_t *x, const uint64_t *const y[4], size_t W, size_t nw,
                         uint64_t out[4][NW]);

/* A pair4_fn `name` compiled with `attr` around body(..., l1, masked) with constant flags. */
#define PD_PAIR4(attr, body, name, l1, masked)                                                     \
    attr static void name(const uint64_t *x, const uint64_t *const y[4], size_t W, size_t nw,      \
                          uint64_t out[4][NW])                                                     \
    {                                                                                              \
        body(x, y, W, nw, out, l1, masked);                                                        \
    }

#if PD_X86
#define PD_AVX512 __attribute__((target("avx512f,avx512vpopcntdq")))
PD_AVX512 static inline __attribute__((always_inline)) void
pair4_avx512_body(const uint64_t *x, const uint64_t *const y[4], size_t W, size_t nw,
                  uint64_t out[4][NW], const int l1, const int masked)
{
    __m512i acc[4][NC];
    for (int k = 0; k < 4; k++)
        for (int q = 0; q < NC; q++)
            acc[k][q] = _mm512_setzero_si512();
    for (size_t w = 0; w < nw; w += 8) {
        __m512i xc = _mm512_loadu_si512((const void *)(x + w));
        __m512i xa = _mm512_loadu_si512((const void *)(x + W + w));
        __m512i x2 = _mm512_loadu_si512((const void *)(x + 2 * W + w));
        for (int k = 0; k < 4; k++) {
            const uint64_t *yk = y[k];
            __m512i ya = _mm512_loadu_si512((const void *)(yk + W + w));
            __m512i y2 = _mm512_loadu_si512((const void *)(yk + 2 * W + w));
            __m512i c1, c2;
            /* 0x28: (a ^ b) & c;  0x90: a & ~(b ^ c);  0x14: (a ^ b) & ~c */
            if (masked) {
                __m512i kk = _mm512_and_si512(xc, _mm512_loadu_si512((const void *)(yk + w)));
                __m512i da = _mm512_ternarylogic_epi64(xa, ya, kk, 0x28);
                acc[k][0] = _mm512_add_epi64(acc[k][0], _mm512_popcnt_epi64(kk));
                if (l1) {
                    c1 = da;
                    c2 = _mm512_ternarylogic_epi64(x2, y2, kk, 0x28);
                } else {
                    c1 = _mm512_ternarylogic_epi64(x2, y2, kk, 0x28);
                    c2 = _mm512_ternarylogic_epi64(da, x2, y2, 0x90);
                }
            } else if (l1) {
                c1 = _mm512_xor_si512(xa, ya);
                c2 = _mm512_xor_si512(x2, y2);
            } else {
                c1 = _mm512_xor_si512(x2, y2);
                c2 = _mm512_ternarylogic_epi64(xa, ya, c1, 0x14);
            }
            acc[k][1] = _mm512_add_epi64(acc[k][1], _mm512_popcnt_epi64(c1));
            acc[k][2] = _mm512_add_epi64(acc[k][2], _mm512_popcnt_epi64(c2));
        }
    }
    for (int k = 0; k < 4; k++) {
        out[k][0] = masked ? (uint64_t)_mm512_reduce_add_epi64(acc[k][0]) : 0;
        out[k][1] = (uint64_t)_mm512_reduce_add_epi64(acc[k][1]);
        out[k][2] = (uint64_t)_mm512_reduce_add_epi64(acc[k][2]);
        if (l1) {
            out[k][1] += out[k][2];
            out[k][2] = 0;
        }
    }
}

PD_PAIR4(PD_AVX512, pair4_avx512_body, pair4_avx512_l1_k, 1, 1)
PD_PAIR4(PD_AVX512, pair4_avx512_body, pair4_avx512_l1, 1, 0)
PD_PAIR4(PD_AVX512, pair4_avx512_body, pair4_avx512_pq_k, 0, 1)
PD_PAIR4(PD_AVX512, pair4_avx512_body, pair4_avx512_pq, 0, 0)
#endif

/* The scalar counts are compiled twice: with the POPCNT instruction (PD_POPCNT, the *_popcnt
 * functions) and with the compiler's portable popcount, and picked by the CPU (b->popcnt). */
#if PD_X86
#define PD_POPCNT __attribute__((target("popcnt")))
#endif

static inline __attribute__((always_inline)) void
pair4_scalar_body(const uint64_t *x, const uint64_t *const y[4], size_t W, size_t nw,
                  uint64_t out[4][NW], const int l1, const int masked)
{
    for (int k = 0; k < 4; k++) {
        const uint64_t *yk = y[k];
        uint64_t n = 0, one = 0, two = 0;
        for (size_t w = 0; w < nw; w++) {
            uint64_t kk = masked ? x[w] & yk[w] : ~0ull;
            uint64_t a = (x[W + w] ^ yk[W + w]) & kk, d2 = x[2 * W + w] ^ yk[2 * W + w];
            if (masked)
                n += (uint64_t)__builtin_popcountll(kk);
            if (l1) {
                one += (uint64_t)__builtin_popcountll(a) + (uint64_t)__builtin_popcountll(d2 & kk);
            } else {
                one += (uint64_t)__builtin_popcountll(d2 & kk);
                two += (uint64_t)__builtin_popcountll(a & ~d2);
            }
        }
        out[k][0] = n;
        out[k][1] = one;
        out[k][2] = two;
    }
}

/* Wide counts (planes C, A, B; see gsvd_pd_wide_to_sums) of x against y[0..3]: n = |Cx & Cy|,
 * |Ax & Cy|, |Bx & Cy|, |Ay & Cx|, |By & Cx|, |Ax & Ay|, |Ax & By| + |Bx & Ay|, |Bx & By|
 * (A and B lie inside C, so the last three need no mask).  Two columns per sweep keep the 16
 * accumulators in registers. */
#if PD_X86
PD_AVX512 static void pairw_avx512(const uint64_t *x, const uint64_t *const y[4], size_t W,
                                   size_t nw, uint64_t out[4][NW])
{
    for (int h = 0; h < 4; h += 2) {
        __m512i acc[2][NW];
        for (int k = 0; k < 2; k++)
            for (int q = 0; q < NW; q++)
                acc[k][q] = _mm512_setzero_si512();
        for (size_t w = 0; w < nw; w += 8) {
            __m512i xc = _mm512_loadu_si512((const void *)(x + w));
            __m512i xa = _mm512_loadu_si512((const void *)(x + W + w));
            __m512i xb = _mm512_loadu_si512((const void *)(x + 2 * W + w));
            for (int k = 0; k < 2; k++) {
                const uint64_t *yk = y[h + k];
                __m512i yc = _mm512_loadu_si512((const void *)(yk + w));
                __m512i ya = _mm512_loadu_si512((const void *)(yk + W + w));
                __m512i yb = _mm512_loadu_si512((const void *)(yk + 2 * W + w));
                __m512i v[NW + 1] = {
                    _mm512_and_si512(xc, yc), _mm512_and_si512(xa, yc), _mm512_and_si512(xb, yc),
                    _mm512_and_si512(ya, xc), _mm512_and_si512(yb, xc), _mm512_and_si512(xa, ya),
                    _mm512_and_si512(xa, yb), _mm512_and_si512(xb, yb), _mm512_and_si512(xb, ya)};
                for (int q = 0; q < NW; q++)
                    acc[k][q] = _mm512_add_epi64(acc[k][q], _mm512_popcnt_epi64(v[q]));
                acc[k][6] = _mm512_add_epi64(acc[k][6], _mm512_popcnt_epi64(v[NW]));
            }
        }
        for (int k = 0; k < 2; k++)
            for (int q = 0; q < NW; q++)
                out[h + k][q] = (uint64_t)_mm512_reduce_add_epi64(acc[k][q]);
    }
}
#endif

static inline __attribute__((always_inline)) void
pairw_scalar_body(const uint64_t *x, const uint64_t *const y[4], size_t W, size_t nw,
                  uint64_t out[4][NW], const int l1, const int masked)
{
    (void)l1;
    (void)masked;
    for (int k = 0; k < 4; k++) {
        const uint64_t *yk = y[k];
        uint64_t c[NW] = {0};
        for (size_t w = 0; w < nw; w++) {
            uint64_t xc = x[w], xa = x[W + w], xb = x[2 * W + w];
            uint64_t yc = yk[w], ya = yk[W + w], yb = yk[2 * W + w];
            c[0] += (uint64_t)__builtin_popcountll(xc & yc);
            c[1] += (uint64_t)__builtin_popcountll(xa & yc);
            c[2] += (uint64_t)__builtin_popcountll(xb & yc);
            c[3] += (uint64_t)__builtin_popcountll(ya & xc);
            c[4] += (uint64_t)__builtin_popcountll(yb & xc);
            c[5] += (uint64_t)__builtin_popcountll(xa & ya);
            c[6] +=
                (uint64_t)__builtin_popcountll(xa & yb) + (uint64_t)__builtin_popcountll(xb & ya);
            c[7] += (uint64_t)__builtin_popcountll(xb & yb);
        }
        for (int q = 0; q < NW; q++)
            out[k][q] = c[q];
    }
}

/* The wide counts of a complete segment (C all ones): only the pairwise |Ax & Ay|,
 * |Ax & By| + |Bx & Ay|, |Bx & By| (out[k][5..7]); n and the items' own counts are added by
 * the caller. */
#if PD_X86
PD_AVX512 static void pairw_avx512_full(const uint64_t *x, const uint64_t *const y[4], size_t W,
                                        size_t nw, uint64_t out[4][NW])
{
    __m512i acc[4][3];
    for (int k = 0; k < 4; k++)
        for (int q = 0; q < 3; q++)
            acc[k][q] = _mm512_setzero_si512();
    for (size_t w = 0; w < nw; w += 8) {
        __m512i xa = _mm512_loadu_si512((const void *)(x + W + w));
        __m512i xb = _mm512_loadu_si512((const void *)(x + 2 * W + w));
        for (int k = 0; k < 4; k++) {
            __m512i ya = _mm512_loadu_si512((const void *)(y[k] + W + w));
            __m512i yb = _mm512_loadu_si512((const void *)(y[k] + 2 * W + w));
            acc[k][0] = _mm512_add_epi64(acc[k][0], _mm512_popcnt_epi64(_mm512_and_si512(xa, ya)));
            acc[k][1] = _mm512_add_epi64(acc[k][1], _mm512_popcnt_epi64(_mm512_and_si512(xa, yb)));
            acc[k][1] = _mm512_add_epi64(acc[k][1], _mm512_popcnt_epi64(_mm512_and_si512(xb, ya)));
            acc[k][2] = _mm512_add_epi64(acc[k][2], _mm512_popcnt_epi64(_mm512_and_si512(xb, yb)));
        }
    }
    for (int k = 0; k < 4; k++) {
        for (int q = 0; q < 5; q++)
            out[k][q] = 0;
        for (int q = 0; q < 3; q++)
            out[k][5 + q] = (uint64_t)_mm512_reduce_add_epi64(acc[k][q]);
    }
}
#endif

static inline __attribute__((always_inline)) void
pairw_full_body(const uint64_t *x, const uint64_t *const y[4], size_t W, size_t nw,
                uint64_t out[4][NW], const int l1, const int masked)
{
    (void)l1;
    (void)masked;
    for (int k = 0; k < 4; k++) {
        const uint64_t *ya = y[k] + W, *yb = y[k] + 2 * W, *xa = x + W, *xb = x + 2 * W;
        uint64_t aa = 0, ab = 0, bb = 0;
        for (size_t w = 0; w < nw; w++) {
            aa += (uint64_t)__builtin_popcountll(xa[w] & ya[w]);
            ab += (uint64_t)__builtin_popcountll(xa[w] & yb[w]) +
                  (uint64_t)__builtin_popcountll(xb[w] & ya[w]);
            bb += (uint64_t)__builtin_popcountll(xb[w] & yb[w]);
        }
        for (int q = 0; q < 5; q++)
            out[k][q] = 0;
        out[k][5] = aa;
        out[k][6] = ab;
        out[k][7] = bb;
    }
}

/* KING counts (planes C, A, P; see gsvd_pd_king_to_sums) of x against y[0..3]: n = |K|,
 * het-het |Px & Py|, IBS0 |(Ax ^ Ay) & ~(Px | Py) & K|, |Px & Cy|, |Py & Cx| with
 * K = Cx & Cy (P lies inside C, so het-het needs no mask).  masked = 0 (a complete segment):
 * only het-het and IBS0, the rest is added by the caller (n = bits, the items' |P|). */
#if PD_X86
PD_AVX512 static inline __attribute__((always_inline)) void
pairk_avx512_body(const uint64_t *x, const uint64_t *const y[4], size_t W, size_t nw,
                  uint64_t out[4][NW], const int masked)
{
    __m512i acc[4][NK];
    for (int k = 0; k < 4; k++)
        for (int q = 0; q < NK; q++)
            acc[k][q] = _mm512_setzero_si512();
    for (size_t w = 0; w < nw; w += 8) {
        __m512i xc = _mm512_loadu_si512((const void *)(x + w));
        __m512i xa = _mm512_loadu_si512((const void *)(x + W + w));
        __m512i xp = _mm512_loadu_si512((const void *)(x + 2 * W + w));
        for (int k = 0; k < 4; k++) {
            const uint64_t *yk = y[k];
            __m512i ya = _mm512_loadu_si512((const void *)(yk + W + w));
            __m512i yp = _mm512_loadu_si512((const void *)(yk + 2 * W + w));
            __m512i hh = _mm512_and_si512(xp, yp), da;
            /* 0x28: (a ^ b) & c;  0x10: a & ~b & ~c */
            if (masked) {
                __m512i yc = _mm512_loadu_si512((const void *)(yk + w));
                __m512i kk = _mm512_and_si512(xc, yc);
                da = _mm512_ternarylogic_epi64(xa, ya, kk, 0x28);
                acc[k][0] = _mm512_add_epi64(acc[k][0], _mm512_popcnt_epi64(kk));
                acc[k][3] =
                    _mm512_add_epi64(acc[k][3], _mm512_popcnt_epi64(_mm512_and_si512(xp, yc)));
                acc[k][4] =
                    _mm512_add_epi64(acc[k][4], _mm512_popcnt_epi64(_mm512_and_si512(yp, xc)));
            } else {
                da = _mm512_xor_si512(xa, ya);
            }
            acc[k][1] = _mm512_add_epi64(acc[k][1], _mm512_popcnt_epi64(hh));
            acc[k][2] = _mm512_add_epi64(
                acc[k][2], _mm512_popcnt_epi64(_mm512_ternarylogic_epi64(da, xp, yp, 0x10)));
        }
    }
    for (int k = 0; k < 4; k++)
        for (int q = 0; q < NK; q++)
            out[k][q] =
                masked || q == 1 || q == 2 ? (uint64_t)_mm512_reduce_add_epi64(acc[k][q]) : 0;
}

PD_AVX512 static void pairk_avx512_k(const uint64_t *x, const uint64_t *const y[4], size_t W,
                                     size_t nw, uint64_t out[4][NW])
{
    pairk_avx512_body(x, y, W, nw, out, 1);
}

PD_AVX512 static void pairk_avx512(const uint64_t *x, const uint64_t *const y[4], size_t W,
                                   size_t nw, uint64_t out[4][NW])
{
    pairk_avx512_body(x, y, W, nw, out, 0);
}
#endif

static inline __attribute__((always_inline)) void
pairk_scalar_body(const uint64_t *x, const uint64_t *const y[4], size_t W, size_t nw,
                  uint64_t out[4][NW], const int masked)
{
    for (int k = 0; k < 4; k++) {
        const uint64_t *yk = y[k];
        uint64_t c[NK] = {0};
        for (size_t w = 0; w < nw; w++) {
            uint64_t xc = x[w], xa = x[W + w], xp = x[2 * W + w];
            uint64_t yc = yk[w], ya = yk[W + w], yp = yk[2 * W + w];
            uint64_t kk = masked ? xc & yc : ~0ull;
            c[1] += (uint64_t)__builtin_popcountll(xp & yp);
            c[2] += (uint64_t)__builtin_popcountll((xa ^ ya) & kk & ~(xp | yp));
            if (masked) {
                c[0] += (uint64_t)__builtin_popcountll(kk);
                c[3] += (uint64_t)__builtin_popcountll(xp & yc);
                c[4] += (uint64_t)__builtin_popcountll(yp & xc);
            }
        }
        for (int q = 0; q < NK; q++)
            out[k][q] = c[q];
    }
}

/* pairk_scalar_body in PD_PAIR4's shape (l1 unused). */
static inline __attribute__((always_inline)) void pairk_body(const uint64_t *x,
                                                             const uint64_t *const y[4], size_t W,
                                                             size_t nw, uint64_t out[4][NW],
                                                             const int l1, const int masked)
{
    (void)l1;
    pairk_scalar_body(x, y, W, nw, out, masked);
}

/* The scalar pair functions of every kind, masked and unmasked, as one set (attr: PD_POPCNT or
 * nothing); pick_pair4 takes the set the CPU runs. */
struct scalar_set {
    pair4_fn l1_k, l1, pq_k, pq, wide_k, wide, king_k, king;
};
#define PD_SCALAR_SET(attr, set)                                                                   \
    PD_PAIR4(attr, pair4_scalar_body, set##_l1_k, 1, 1)                                            \
    PD_PAIR4(attr, pair4_scalar_body, set##_l1, 1, 0)                                              \
    PD_PAIR4(attr, pair4_scalar_body, set##_pq_k, 0, 1)                                            \
    PD_PAIR4(attr, pair4_scalar_body, set##_pq, 0, 0)                                              \
    PD_PAIR4(attr, pairw_scalar_body, set##_wide_k, 0, 1)                                          \
    PD_PAIR4(attr, pairw_full_body, set##_wide, 0, 0)                                              \
    PD_PAIR4(attr, pairk_body, set##_king_k, 0, 1)                                                 \
    PD_PAIR4(attr, pairk_body, set##_king, 0, 0)                                                   \
    static const struct scalar_set set = {set##_l1_k,   set##_l1,   set##_pq_k,   set##_pq,        \
                                          set##_wide_k, set##_wide, set##_king_k, set##_king};

PD_SCALAR_SET(, scalar_portable)
#if PD_X86
PD_SCALAR_SET(PD_POPCNT, scalar_popcnt)
#endif

/* The pair function for this kernel and segment. */
static pair4_fn pick_pair4(const struct bp *b, int masked)
{
#if PD_X86
    if (b->king && b->avx512)
        return masked ? pairk_avx512_k : pairk_avx512;
    if (b->wide && b->avx512)
        return masked ? pairw_avx512 : pairw_avx512_full;
    if (b->avx512)
        return b->l1 ? (masked ? pair4_avx512_l1_k : pair4_avx512_l1)
                     : (masked ? pair4_avx512_pq_k : pair4_avx512_pq);
    if (b->king && b->avx2)
        return masked ? gsvd_pd_pairk_avx2_k : gsvd_pd_pairk_avx2;
    if (b->wide && b->avx2)
        return masked ? gsvd_pd_pairw_avx2 : gsvd_pd_pairw_avx2_full;
    if (b->avx2)
        return b->l1 ? (masked ? gsvd_pd_pair4_avx2_l1_k : gsvd_pd_pair4_avx2_l1)
                     : (masked ? gsvd_pd_pair4_avx2_pq_k : gsvd_pd_pair4_avx2_pq);
#endif
    const struct scalar_set *sc = &scalar_portable;
#if PD_X86
    if (b->popcnt)
        sc = &scalar_popcnt;
#endif
    if (b->king)
        return masked ? sc->king_k : sc->king;
    if (b->wide)
        return masked ? sc->wide_k : sc->wide;
    return b->l1 ? (masked ? sc->l1_k : sc->l1) : (masked ? sc->pq_k : sc->pq);
}

struct flush_job {
    struct bp *b;
    const struct segment *seg;
    size_t nw;
    size_t n_row_tiles, n_jobs;
    const size_t *job_start; /* per row tile: index of its first job */
    pair4_fn pair4;
    int unmasked;         /* counted without the called mask: n += bits */
    const uint32_t *isum; /* wide or king, unmasked: the items' |A|, |B| or missing calls, |P|
                             (the pair4 leaves them 0) */
};

/* Row tile and column tile of job j. */
static void job_tiles(const struct flush_job *f, size_t j, size_t *rt, size_t *ct)
{
    size_t lo = 0, hi = f->n_row_tiles;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (f->job_start[mid] <= j)
            lo = mid;
        else
            hi = mid;
    }
    *rt = lo;
    *ct = (lo * ROW_TILE) / COL_TILE + (j - f->job_start[lo]);
}

/* Tile job j (which worker takes it does not change its result). */
static int flush_tile(void *ctx, size_t worker, size_t j)
{
    struct flush_job *f = ctx;
    struct bp *b = f->b;
    const uint64_t *pl = f->seg->planes;
    size_t W = b->W, stride = 3 * W, nc = b->nc, nct = b->ncnt, rt, ct;
    (void)worker;

    job_tiles(f, j, &rt, &ct);
    size_t r0 = rt * ROW_TILE, r_end = r0 + ROW_TILE < b->nb ? r0 + ROW_TILE : b->nb;
    size_t c_end = (ct + 1) * COL_TILE < nc ? (ct + 1) * COL_TILE : nc;
    /* four columns at a time stay in L1 while the tile's rows stream past them */
    for (size_t c = ct * COL_TILE; c < c_end; c += 4) {
        size_t k = c_end - c < 4 ? c_end - c : 4;
        const uint64_t *y[4];
        for (size_t q = 0; q < 4; q++)
            y[q] = pl + (b->row0 + c + (q < k ? q : 0)) * stride;
        for (size_t r = r0; r < r_end && r < c + k - 1; r++) {
            const uint64_t *x = pl + (b->row0 + r) * stride;
            uint64_t res[4][NW];
            /* the next row's counts are a cache miss away (rows are nc x ncnt x 4 bytes
             * apart) */
            if (r + 1 < r_end) {
                const uint32_t *next = b->cnt + ((r + 1) * nc + c) * nct;
                __builtin_prefetch(next, 1);
                __builtin_prefetch(next + 4 * nct - 1, 1);
            }
            f->pair4(x, y, W, f->nw, res);
            for (size_t q = 0; q < k; q++) {
                if (c + q <= r)
                    continue; /* only the upper triangle */
                uint32_t *cn = b->cnt + (r * nc + c + q) * nct;
                cn[0] += f->unmasked ? (uint32_t)f->seg->bits : (uint32_t)res[q][0];
                for (size_t e = 1; e < nct; e++)
                    cn[e] += (uint32_t)res[q][e];
                const uint32_t *sx = f->isum ? f->isum + 2 * (b->row0 + r) : NULL,
                               *sy = f->isum ? f->isum + 2 * (b->row0 + c + q) : NULL;
                if (f->isum && b->king) { /* |Px & Cy| = |Px| (less |Px & My|, counted apart) */
                    cn[0] -= sx[0] + sy[0];
                    cn[3] += sx[1];
                    cn[4] += sy[1];
                } else if (f->isum && b->l1) {
                    cn[0] -= sx[0] + sy[0];
                } else if (f->isum) {
                    cn[1] += sx[0];
                    cn[2] += sx[1];
                    cn[3] += sy[0];
                    cn[4] += sy[1];
                }
            }
        }
    }
    return GSVD_OK;
}

/* A segment's missing calls are counted apart when they are at most 1 / apart_div of its calls
 * (items from the band's first row); above that the masked pair functions cost less.  Measured
 * on AMD Zen 4, 2,000 samples (analysis/pdist/README.md): KING's masked counts cost more than
 * the L1 ones, and VPOPCNTQ makes every mask cheaper than AVX2's table lookups. */
static uint64_t apart_div(const struct bp *b)
{
    if (b->king)
        return b->avx512 ? 32 : 8;
    return b->avx512 ? 128 : 32;
}

/* Each item's (from row0) |A| and |B| (wide), missing calls and |P| (king) or missing calls
 * and 0 (l1) over nw words of seg, in b->isum; returns the missing calls of all of them. */
static inline __attribute__((always_inline)) uint64_t
item_sums_body(struct bp *b, const struct segment *seg, size_t nw)
{
    uint64_t missing = 0;
    int called = b->king || b->l1; /* s0 counts C: the missing calls are the rest */
    for (size_t i = b->row0; i < b->n; i++) {
        const uint64_t *p = seg->planes + i * 3 * b->W;
        uint32_t s0 = 0, s1 = 0;
        for (size_t w = 0; w < nw; w++) {
            s0 += (uint32_t)__builtin_popcountll(p[(called ? 0 : b->W) + w]);
            s1 += b->l1 ? 0 : (uint32_t)__builtin_popcountll(p[2 * b->W + w]);
        }
        if (called)
            s0 = (uint32_t)seg->bits - s0;
        b->isum[2 * i] = s0;
        b->isum[2 * i + 1] = s1;
        missing += s0;
    }
    return missing;
}

#if PD_X86
PD_POPCNT static uint64_t item_sums_popcnt(struct bp *b, const struct segment *seg, size_t nw)
{
    return item_sums_body(b, seg, nw);
}
#endif

static uint64_t item_sums(struct bp *b, const struct segment *seg, size_t nw)
{
#if PD_X86
    if (b->popcnt)
        return item_sums_popcnt(b, seg, nw);
#endif
    return item_sums_body(b, seg, nw);
}

/* Add a segment's counts to every pair of the band. */
static int flush_pairs(struct bp *b, const struct segment *seg)
{
    size_t n_rt = (b->nb + ROW_TILE - 1) / ROW_TILE, n_ct = (b->nc + COL_TILE - 1) / COL_TILE;
    size_t *starts;
    struct flush_job f = {.b = b, .seg = seg};
    int rc, apart = 0;

    if (seg->bits == 0 || b->nb == 0)
        return GSVD_OK;
    f.nw = (seg->bits + 63) / 64;
    if (b->env.dev) /* the device counts the planes of items row0.. in groups of 8 words */
        return gsvd_backend_pd_planes(b->env.dev, seg->planes + b->row0 * 3 * b->W,
                                      (f.nw + 7) / 8 * 8);
    if (b->avx512)
        f.nw = (f.nw + 7) / 8 * 8; /* whole vectors; the words past `bits` are zero */
    else if (b->avx2)
        f.nw = (f.nw + 3) / 4 * 4;
    f.unmasked = seg->complete;
    if ((b->wide && seg->complete) || b->king || b->l1) { /* |Ax & Cy| = |Ax| etc.: once */
        uint64_t missing = item_sums(b, seg, f.nw);
        /* KING with few missing calls: counted apart (pdist_bitplane_apart.c) */
        apart = b->ap && !seg->complete &&
                missing * apart_div(b) <= (uint64_t)seg->bits * (b->n - b->row0);
        f.unmasked = seg->complete || apart;
        f.isum = f.unmasked ? b->isum : NULL;
    }
    f.pair4 = pick_pair4(b, !f.unmasked);
    b->n_seg++;
    b->n_seg_complete += (uint64_t)seg->complete;
    b->n_seg_apart += (uint64_t)apart;
    starts = gsvd_malloc(n_rt * sizeof *starts);
    if (!starts)
        return GSVD_ENOMEM;
    f.n_jobs = 0;
    for (size_t rt = 0; rt < n_rt; rt++) {
        starts[rt] = f.n_jobs;
        f.n_jobs += n_ct - (rt * ROW_TILE) / COL_TILE;
    }
    f.n_row_tiles = n_rt;
    f.job_start = starts;
    rc = gsvd_parallel_tasks(b->env.n_threads, f.n_jobs, flush_tile, &f);
    gsvd_free(starts);
    if (rc == GSVD_OK && apart)
        rc = gsvd_pd_apart_segment(b->ap, b, seg, b->isum);
    return rc;
}

/* The current segment is full (or the pass ended): count it, keep it when caching, reset. */
static int flush_current(struct bp *b)
{
    size_t words = seg_words(b);
    int rc = flush_pairs(b, &b->cur);
    if (rc < 0)
        return rc;
    if (b->caching && b->cur.bits > 0) {
        uint64_t bytes = (uint64_t)words * 8;
        if (b->kept_bytes + bytes > b->env.cache_bytes) {
            drop_kept(b); /* does not fit: later bands read the input again */
        } else {
            if (gsvd_grow(&b->kept, &b->kept_cap, b->n_kept + 1, sizeof *b->kept, 16) < 0)
                return GSVD_ENOMEM;
            uint64_t *fresh = gsvd_alloc_large(words * sizeof(uint64_t));
            if (!fresh)
                return GSVD_ENOMEM;
            b->kept[b->n_kept++] = b->cur;
            b->kept_bytes += bytes;
            b->cur.planes = fresh;
        }
    }
    memset(b->cur.planes, 0, words * sizeof(uint64_t));
    b->cur.bits = 0;
    b->cur.complete = 1;
    return GSVD_OK;
}

static int bp_add(void *st, const struct pd_stripe *s)
{
    struct bp *b = st;
    size_t cap = b->W * 64;
    int rc;

    for (size_t f = 0; f < s->n_feat;) {
        size_t k = cap - b->cur.bits < s->n_feat - f ? cap - b->cur.bits : s->n_feat - f;
        if (s->i8 && s->item_stride == 1 && s->feat_stride == b->n)
            rc = gsvd_pd_bp_pack_i8(b, s->i8 + f * b->n, b->n, k, b->cur.bits, s->called);
        else
            rc = gsvd_pd_bp_pack_any(b, s, f, k, b->cur.bits);
        if (rc != GSVD_OK)
            return rc;
        b->cur.bits += k;
        f += k;
        if (b->cur.bits == cap && (rc = flush_current(b)) < 0)
            return rc;
    }
    return GSVD_OK;
}

static int bp_band_end(void *st)
{
    struct bp *b = st;
    int rc = flush_current(b);
    if (rc < 0)
        return rc;
    if (b->caching) {
        b->caching = 0;
        b->complete = 1;
    }
    if (b->ap && (rc = gsvd_pd_apart_drain(b->ap, b)) < 0)
        return rc;
    return b->env.dev ? gsvd_backend_pd_end(b->env.dev, b->cnt) : GSVD_OK;
}

static int bp_replay(void *st, size_t row0, size_t n_rows)
{
    struct bp *b = st;
    int rc;
    if (!b->complete)
        return 0;
    if ((rc = bp_band_begin(b, row0, n_rows)) < 0)
        return rc;
    for (size_t i = 0; i < b->n_kept; i++)
        if ((rc = flush_pairs(b, &b->kept[i])) < 0)
            return rc;
    if (b->ap && (rc = gsvd_pd_apart_drain(b->ap, b)) < 0)
        return rc;
    if (b->env.dev && (rc = gsvd_backend_pd_end(b->env.dev, b->cnt)) < 0)
        return rc;
    return 1;
}

static void bp_pair_sums(void *st, size_t r, size_t c, struct gsvd_pd_sums *out)
{
    struct bp *b = st;
    const uint32_t *cn = b->cnt + (r * b->nc + c) * b->ncnt;
    if (b->wide)
        gsvd_pd_wide_to_sums(b->env.p->metric, cn, out);
    else if (b->king)
        gsvd_pd_king_to_sums(cn, out);
    else
        gsvd_pd_counts_to_sums(b->env.p->metric, b->env.p->p, cn, out);
}

static void bp_report(void *st, struct gsvd_pdist_summary *sum)
{
    struct bp *b = st;
    sum->n_segments += b->n_seg;
    sum->n_segments_complete += b->n_seg_complete;
    sum->n_segments_apart += b->n_seg_apart;
}

/* The kernel's vtable: the counts per pair (NC or NW) and whether a device may count. */
#define BP_OPS(counts, dev)                                                                        \
    {                                                                                              \
        .name = "bitplane", .pair_bytes = (counts) * sizeof(uint32_t),                             \
        .fixed_bytes = bp_fixed_bytes, .device = (dev), .counts_called = 1, .create = bp_create,   \
        .destroy = bp_destroy, .band_begin = bp_band_begin, .add = bp_add,                         \
        .band_end = bp_band_end, .replay = bp_replay,                                              \
        .replay_bytes = gsvd_pd_bitplane_cache_bytes, .pair_sums = bp_pair_sums,                   \
        .report = bp_report                                                                        \
    }

const struct pd_kernel_ops gsvd_pd_bitplane_ops = BP_OPS(NC, 1);
/* The same kernel for the metrics that need the wide counts (host only). */
const struct pd_kernel_ops gsvd_pd_bitplane_wide_ops = BP_OPS(NW, 0);
/* The same kernel for king and ibs0 (on the host or a device). */
const struct pd_kernel_ops gsvd_pd_bitplane_king_ops = BP_OPS(NK, 1);
