/* tests/unit/test_gram_i8.c - the int8 Gram tiles (analysis/cpu/kernels/gram_i8.h), on each
 * engine that runs here (AMX int8 tiles, AVX-512 VNNI, AVX2), against two float64 oracles written
 * out again here from the definitions, not from the kernel's code:
 *   model  the quantised Gram the header defines: weights a = s^2 written as 2^e (hi + lo/128)
 *          (hi in 64..127, lo to nearest), R = 127 u with the missing calls' u* rounded to
 *          1/127, L = (hi + lo/128) u with (hi + lo/128) u* rounded to 1/128, centred by c;
 *          computed from those values in float64: the tiles must agree to float64 rounding
 *          (1e-12 of the terms the centring cancels);
 *   true   Z'Z of the standardised values z = s (u - c): the tiles must stay within the
 *          error the header promises, entry by entry: 2^-14 sum |a y_i y_j| from the weights
 *          plus the missing calls' rounding (1/254 of a dosage in R, 1/16384 in L).
 * Shapes: one row and sample, rows across the 64-row units and several weight classes,
 * samples below, at and above 16, 32 and the 256-wide tile; diploid and haploid rows, 10%
 * missing, centre 0 with a missing value (scaler none).  Also: the same tile twice gives the
 * same bytes, the reported weight error is at most 2^-14, and rows the kernel does not take
 * (scale 0, an imputed dosage outside 0..2) are refused; where several engines run, each one's
 * pack and tiles give the same bytes as the next one's (every pair in turn; GENSVD_CPU_LEVEL
 * caps which run: the test runs again capped at avx512 and avx2).  A class of 1,500 rows takes
 * the VNNI and AVX2 engines through several register passes.  Exit 77 (skipped) where no engine
 * runs. */
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cpu/kernels/gram_amx.h"
#include "analysis/cpu/kernels/gram_i8.h"
#include "common/alloc.h"
#include "common/err.h"
#include "gsvd_test.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static int engines[3], n_engines; /* the engines that run here (enum gsvd_i8_engine) */

static double uniform(void)
{
    return gsvd_test_uniform(&rng_state);
}

/* The oracle's view of a row: quantised weight, the L and R values of u per code. */
struct qrow {
    double a, ahat, c, ustar;
    double lq[4], rq[4]; /* u as the kernel's L and R hold it, by code (3 = missing) */
};

static void quantise(double a, double c, double ustar, struct qrow *q)
{
    int x;
    double f = frexp(a, &x) * 128.0, hi = floor(f), lo = nearbyint((f - hi) * 128.0), alpha;
    if (lo == 128.0) {
        lo = 0;
        hi += 1;
    }
    if (hi == 128.0) { /* the same weight as 64 one class up, where L has room */
        hi = 64;
        x += 1;
    }
    alpha = hi + lo / 128.0;
    q->a = a;
    q->ahat = ldexp(alpha, x - 7);
    q->c = c;
    q->ustar = ustar;
    for (int k = 0; k < 3; k++)
        q->lq[k] = q->rq[k] = k;
    /* missing: R holds round(127 u*) / 127; L holds alpha u* to 1/128 */
    double t = alpha * ustar, th = floor(t), rho = 127.0;
    q->lq[3] = (th + nearbyint((t - th) * 128.0) / 128.0) / alpha;
    q->rq[3] = nearbyint(rho * ustar) / rho;
}

/* One shape: every upper tile of every engine against both oracles, and the engines against
 * each other.  narrow: allele frequencies 0.3..0.5 (every row in one weight class). */
static void check_shape(size_t rows, size_t n, int haploid, int no_centre, int narrow)
{
    gsvd_i8_pack *p = NULL, *p2 = NULL;
    uint8_t *codes = gsvd_malloc(rows * n + 1);
    float *cen = gsvd_malloc((rows + 1) * sizeof *cen),
          *scl = gsvd_malloc((rows + 1) * sizeof *scl);
    float *mis = gsvd_malloc((rows + 1) * sizeof *mis);
    struct qrow *q = gsvd_malloc((rows + 1) * sizeof *q);
    enum { TR = GSVD_I8_TILE, TW = GSVD_I8_TILE };
    double *c = gsvd_malloc(TR * TW * sizeof *c), *c2 = gsvd_malloc(TR * TW * sizeof *c2);
    int32_t *acc = gsvd_calloc(GSVD_I8_ACC, sizeof *acc);
    double werr = -1, worst_model = 0, worst_true = 0;

    GSVD_CHECK(codes && cen && scl && mis && q && c && c2 && acc);
    if (!codes || !cen || !scl || !mis || !q || !c || !c2 || !acc)
        goto out;
    for (size_t r = 0; r < rows; r++) {
        /* allele frequencies over three decades: weights in many classes */
        double pf = narrow ? 0.3 + 0.2 * uniform() : exp(log(0.002) * uniform());
        double mean = 0, cnt = 0, ploidy = haploid ? 1 : 2;
        if (pf > 0.5)
            pf = 0.5;
        for (size_t i = 0; i < n; i++) {
            uint8_t v = 0;
            for (int h = 0; h < (int)ploidy; h++)
                v = (uint8_t)(v + (uniform() < pf));
            if (uniform() < 0.1)
                v = 3;
            codes[r * n + i] = v;
            if (v != 3) {
                mean += v;
                cnt++;
            }
        }
        mean = cnt > 0 ? mean / cnt : 0.5;
        if (mean <= 0 || mean >= ploidy)
            mean = 0.5; /* a monomorphic row: any centre inside 0..2 will do here */
        double sd = sqrt(mean / ploidy * (1 - mean / ploidy));
        cen[r] = no_centre ? 0.0f : (float)mean;
        scl[r] = no_centre ? 1.0f : (float)(1.0 / sd);
        mis[r] = no_centre ? (float)mean : 0.0f; /* u* = c + missing / s = the mean */
        quantise((double)scl[r] * scl[r], cen[r], (double)cen[r] + (double)mis[r] / scl[r], &q[r]);
    }
    GSVD_CHECK_RC(gsvd_i8_pack_new(&p, engines[0]), GSVD_OK);
    GSVD_CHECK_RC(gsvd_i8_pack_plan(p, rows, n, codes, cen, scl, mis, &werr), GSVD_OK);
    GSVD_CHECK(werr >= 0 && werr <= GSVD_I8_WEIGHT_ERR);
    for (size_t t = gsvd_i8_pack_strips(p); t-- > 0;) /* any order */
        gsvd_i8_pack_strip(p, t);
    if (n_engines > 1) { /* the other engine, packed the same way */
        double werr2;
        GSVD_CHECK_RC(gsvd_i8_pack_new(&p2, engines[1]), GSVD_OK);
        GSVD_CHECK_RC(gsvd_i8_pack_plan(p2, rows, n, codes, cen, scl, mis, &werr2), GSVD_OK);
        for (size_t t = 0; t < gsvd_i8_pack_strips(p2); t++)
            gsvd_i8_pack_strip(p2, t);
    }
    for (size_t i0 = 0; i0 < n; i0 += TR)
        for (size_t j0 = i0 / TW * TW; j0 < n; j0 += TW) { /* the backend's tiles */
            size_t wi = n - i0 < TR ? n - i0 : TR, wj = n - j0 < TW ? n - j0 : TW;
            gsvd_i8_gram_tile(p, i0, j0, wi, wj, acc, c);
            gsvd_i8_gram_tile(p2 ? p2 : p, i0, j0, wi, wj, acc, c2); /* again, or the other */
            for (size_t a = 0; a < wi; a++)
                for (size_t b = i0 + a > j0 ? i0 + a - j0 : 0; b < wj; b++) {
                    size_t i = i0 + a, j = j0 + b;
                    double model = 0, truth = 0, ref = 0, allow = 0;
                    GSVD_CHECK(memcmp(&c[a * TW + b], &c2[a * TW + b], sizeof *c) == 0);
                    for (size_t r = 0; r < rows; r++) {
                        unsigned ci = codes[r * n + i], cj = codes[r * n + j];
                        double yi = (ci == 3 ? q[r].ustar : ci) - q[r].c;
                        double yj = (cj == 3 ? q[r].ustar : cj) - q[r].c;
                        double li = q[r].lq[ci] - q[r].c, rj = q[r].rq[cj] - q[r].c;
                        model += q[r].ahat * li * rj;
                        truth += q[r].a * yi * yj;
                        /* the size of the terms the kernel cancels (centring) */
                        ref +=
                            q[r].ahat * (fabs(q[r].lq[ci]) + q[r].c) * (fabs(q[r].rq[cj]) + q[r].c);
                        allow += GSVD_I8_WEIGHT_ERR * q[r].a * fabs(yi * yj) +
                                 q[r].ahat * ((ci == 3) * fabs(yj) / 16384.0 +
                                              (cj == 3) * fabs(yi) / 254.0 +
                                              (ci == 3 && cj == 3) / (16384.0 * 254.0));
                    }
                    /* float64 sums of ~rows terms, relative to what the centring cancels */
                    double em = fabs(c[a * TW + b] - model) / (ref + 1e-300);
                    double et = (fabs(c[a * TW + b] - truth) - allow) / (ref + 1e-300);
                    worst_model = em > worst_model ? em : worst_model;
                    worst_true = et > worst_true ? et : worst_true;
                }
        }
    GSVD_CHECK(worst_model <= 1e-12);
    GSVD_CHECK(worst_true <= 1e-12);
    if (!(worst_model <= 1e-12) || !(worst_true <= 1e-12))
        fprintf(stderr,
                "  %s: rows %zu, n %zu, haploid %d, no centre %d: model %.3g, true excess %.3g\n",
                gsvd_i8_engine_name(engines[0]), rows, n, haploid, no_centre, worst_model,
                worst_true);
out:
    gsvd_i8_pack_free(p);
    gsvd_i8_pack_free(p2);
    gsvd_free(codes);
    gsvd_free(cen);
    gsvd_free(scl);
    gsvd_free(mis);
    gsvd_free(q);
    gsvd_free(c);
    gsvd_free(c2);
    gsvd_free(acc);
}

/* Rows the kernel does not take are refused, not packed wrong. */
static void check_refusals(void)
{
    gsvd_i8_pack *p = NULL;
    float cen[2] = {1.0f, 1.0f}, scl[2] = {1.0f, 0.0f}, mis[2] = {0, 0}, big[2] = {1.0f, 1.0f};
    float far[2] = {0, 5.0f};
    double werr;

    GSVD_CHECK_RC(gsvd_i8_pack_new(&p, 0), GSVD_EINVAL); /* not an engine */
    GSVD_CHECK(p == NULL);
    GSVD_CHECK_RC(gsvd_i8_pack_new(&p, engines[0]), GSVD_OK);
    if (!p)
        return;
    GSVD_CHECK_RC(gsvd_i8_pack_plan(p, 2, 8, NULL, cen, scl, mis, &werr),
                  GSVD_EINVAL); /* scale 0 */
    GSVD_CHECK_RC(gsvd_i8_pack_plan(p, 2, 8, NULL, cen, big, far, &werr), GSVD_EINVAL); /* u* = 6 */
    GSVD_CHECK_RC(gsvd_i8_pack_plan(p, GSVD_I8_MAX_ROWS + 1, 8, NULL, cen, big, mis, &werr),
                  GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_i8_pack_plan(p, 2, 8, NULL, cen, big, mis, &werr), GSVD_OK);
    gsvd_i8_pack_free(p);
}

int main(void)
{
    static const size_t shapes[][2] = {{1, 1},     {63, 17},   {64, 32},   {65, 33},
                                       {200, 300}, {700, 257}, {130, 512}, {70, 800}};
    char why[256];

    for (int e = GSVD_I8_AMX; e <= GSVD_I8_AVX2; e++) {
        if (gsvd_i8_engine_usable(e, why, sizeof why))
            engines[n_engines++] = e;
        else
            printf("test_gram_i8: %s: not here: %s\n", gsvd_i8_engine_name(e), why);
    }
    GSVD_CHECK(gsvd_i8_engine_pick(NULL, 0) == (n_engines ? engines[0] : 0));
    if (n_engines == 0) {
        printf("test_gram_i8: skipped: no int8 engine runs here\n");
        return 77;
    }
    /* each engine first, the next one (where several run) as the comparison: every pair */
    for (int round = 0; round < n_engines; round++) {
        printf("test_gram_i8: %s\n", gsvd_i8_engine_name(engines[0]));
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            check_shape(shapes[s][0], shapes[s][1], 0, 0, 0);
        check_shape(150, 100, 1, 0, 0);
        check_shape(150, 100, 0, 1, 0);
        check_shape(1500, 70, 0, 0, 1);
        check_refusals();
        int t = engines[0];
        for (int e = 0; e + 1 < n_engines; e++)
            engines[e] = engines[e + 1];
        engines[n_engines - 1] = t;
    }
    return gsvd_test_report("test_gram_i8");
}
