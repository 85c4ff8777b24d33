/* tests/unit/test_pass_avx2.c - a pass group's float32 products with AVX2 FMA on the 2-bit codes
 * (analysis/cpu/kernels/pass_avx2.h) against a float64 oracle written from the standardisation's
 * definition (analysis/scan/gblock_std.h: the float32 value of each code), not from the engine's
 * order of sums: T = Z X and Y = Z^T T in float64.  Every entry must lie within the rounding the
 * header promises, bounded the textbook way (u = 2^-24, g(k) = k u / (1 - k u) for a sum of k
 * float32 fused multiply-adds):
 *   T's lanes: sums of n / 8 + 1 terms, added in float64 and rounded to float32:
 *       |T~ - T| <= g(n / 8 + 1) sum_i |z_ri x_ij| + u |T|,
 *   Yg: a sum over the group's rows of z t~ (g(rows + 1)) and the error of t~ carried through z,
 * doubled for slack.  Shapes: one row and sample; odd rows (a pair's second row past the
 * group); samples below, at and above 8, 16 and the chunk (several chunks, a partial last one);
 * 1 .. 23 columns (one to four register panels of uneven widths); rows above the 512 of a Yg
 * sub-block; no missing calls, 10% and 90% missing, a non-zero missing value, a zero scale.
 * Also: the same group twice gives the same bytes, as does a workspace reused after a larger
 * group and X of another shape.  Exit 77 (skipped) where the AVX2 engine cannot run. */
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/scan/gblock_std.h"
#include "analysis/cpu/kernels/pass_avx2.h"
#include "common/cpu.h"
#include "common/err.h"
#include "gsvd_test.h"
#include "unit/pass_group.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static double uniform(void)
{
    return gsvd_test_uniform(&rng_state);
}

/* The float32 value the definition gives, in float64. */
static double zval(const struct grp *g, size_t r, size_t i)
{
    unsigned q = gsvd_std_p2_code(g->p2 + r * gsvd_std_p2_row_bytes(g->n), i);
    return (double)gsvd_std_p2(q, g->center[r], g->scale[r], g->missing[r]);
}

static double gamma_u(double k)
{
    double u = ldexp(1.0, -24);
    return k * u / (1 - k * u);
}

/* One group against the oracle; returns the worst error in units of the entry's allowance.
 * yg_out (n x c) receives the engine's result. */
static double check_group(const struct grp *g, size_t c, const float *xf, gsvd_avx2x *x,
                          gsvd_avx2w *w, float *yg_out)
{
    size_t n = g->n, rows = g->rows;
    float *yg = malloc(n * c * sizeof *yg), *yg2 = malloc(n * c * sizeof *yg2);
    double *t = calloc(rows * c, sizeof *t), *ta = calloc(rows * c, sizeof *ta),
           *y = calloc(n * c, sizeof *y), *allow = calloc(n * c, sizeof *allow), worst = 0;
    double u = ldexp(1.0, -24), gt = gamma_u((double)(n / 8 + 2)), gy = gamma_u((double)rows + 1);
    struct gsvd_gblock blk = {.n_rows = rows,
                              .n_cols = n,
                              .p2 = g->p2,
                              .center = g->center,
                              .scale = g->scale,
                              .missing = g->missing};

    for (size_t r = 0; r < rows; r++)
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < c; j++) {
                double p = zval(g, r, i) * (double)xf[i * c + j];
                t[r * c + j] += p;
                ta[r * c + j] += fabs(p);
            }
    for (size_t r = 0; r < rows; r++)
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < c; j++) {
                double z = zval(g, r, i), tt = t[r * c + j];
                double et = gt * ta[r * c + j] + u * fabs(tt); /* |t~ - t| */
                y[i * c + j] += z * tt;
                allow[i * c + j] += fabs(z) * (gy * (fabs(tt) + et) + et);
            }
    GSVD_CHECK_RC(gsvd_avx2x_set(x, n, c, xf), GSVD_OK);
    GSVD_CHECK_RC(gsvd_avx2w_reserve(w, x, rows), GSVD_OK);
    gsvd_avx2_pass_group(x, w, &blk, yg);
    for (size_t k = 0; k < n * c; k++) {
        double a = 2 * (allow[k] + u * fabs(y[k])) + 1e-30;
        double e = fabs((double)yg[k] - y[k]) / a;
        worst = e > worst ? e : worst;
    }
    gsvd_avx2_pass_group(x, w, &blk, yg2);
    GSVD_CHECK(memcmp(yg, yg2, n * c * sizeof *yg) == 0);
    if (yg_out)
        memcpy(yg_out, yg, n * c * sizeof *yg);
    free(yg), free(yg2), free(t), free(ta), free(y), free(allow);
    return worst;
}

static float *random_x(size_t n, size_t c)
{
    float *xf = malloc(n * c * sizeof *xf);
    for (size_t i = 0; i < n * c; i++)
        xf[i] = (float)((uniform() - 0.5) * (i % 5 ? 1.0 : 40.0));
    return xf;
}

static void check_shapes(void)
{
    static const size_t rows_s[] = {1, 2, 33, 97, 600};
    static const size_t n_s[] = {1, 7, 16, 17, 130, 1100, 2049};
    static const size_t c_s[] = {1, 5, 13, 20, 23, 6};
    static const double miss_s[] = {0, 0.1, 0.9};
    gsvd_avx2x *x = NULL;
    gsvd_avx2w *w = NULL;
    double worst = 0;
    size_t k = 0;

    GSVD_CHECK_RC(gsvd_avx2x_new(&x), GSVD_OK);
    GSVD_CHECK_RC(gsvd_avx2w_new(&w), GSVD_OK);
    for (size_t a = 0; a < sizeof rows_s / sizeof *rows_s; a++)
        for (size_t b = 0; b < sizeof n_s / sizeof *n_s; b++) {
            size_t c = c_s[k % 6];
            double miss = miss_s[k % 3];
            struct grp g;
            if (rows_s[a] * n_s[b] > 100000)
                continue; /* the oracle is cubic */
            grp_make(&g, rows_s[a], n_s[b], miss, k % 2 == 1, &rng_state);
            float *xf = random_x(g.n, c);
            double e = check_group(&g, c, xf, x, w, NULL);
            if (!(e <= 1))
                fprintf(stderr, "rows %zu n %zu c %zu missing %.1f: error %.3g of the allowance\n",
                        rows_s[a], n_s[b], c, miss, e);
            worst = e > worst ? e : worst;
            free(xf);
            grp_free(&g);
            k++;
        }
    GSVD_CHECK(worst <= 1);
    fprintf(stderr, "worst entry: %.3g of its allowance\n", worst);
    gsvd_avx2x_free(x);
    gsvd_avx2w_free(w);
}

/* A workspace that served a larger group and X of another shape gives the bytes of a fresh
 * one. */
static void check_reuse(void)
{
    gsvd_avx2x *x1 = NULL, *x2 = NULL;
    gsvd_avx2w *w1 = NULL, *w2 = NULL;
    struct grp big, small;
    size_t c = 20;

    GSVD_CHECK_RC(gsvd_avx2x_new(&x1), GSVD_OK);
    GSVD_CHECK_RC(gsvd_avx2x_new(&x2), GSVD_OK);
    GSVD_CHECK_RC(gsvd_avx2w_new(&w1), GSVD_OK);
    GSVD_CHECK_RC(gsvd_avx2w_new(&w2), GSVD_OK);
    grp_make(&big, 130, 300, 0.1, 1, &rng_state);
    grp_make(&small, 45, 77, 0.05, 0, &rng_state);
    float *xb = random_x(big.n, 7), *xs = random_x(small.n, c);
    float *ya = malloc(small.n * c * sizeof *ya), *yb = malloc(small.n * c * sizeof *yb);
    GSVD_CHECK(check_group(&big, 7, xb, x1, w1, NULL) <= 1);
    GSVD_CHECK(check_group(&small, c, xs, x1, w1, ya) <= 1);
    GSVD_CHECK(check_group(&small, c, xs, x2, w2, yb) <= 1);
    GSVD_CHECK(memcmp(ya, yb, small.n * c * sizeof *ya) == 0);
    free(xb), free(xs), free(ya), free(yb);
    grp_free(&big);
    grp_free(&small);
    gsvd_avx2x_free(x1);
    gsvd_avx2x_free(x2);
    gsvd_avx2w_free(w1);
    gsvd_avx2w_free(w2);
    gsvd_avx2x_free(NULL);
    gsvd_avx2w_free(NULL);
}

int main(void)
{
    char why[256];
    gsvd_avx2x *x = NULL;
    float xf[2] = {1, 2};

    GSVD_CHECK_RC(gsvd_avx2x_new(&x), GSVD_OK);
    GSVD_CHECK_RC(gsvd_avx2x_set(x, 2, 0, xf), GSVD_EINVAL);
    gsvd_avx2x_free(x);
    if (!gsvd_cpu_avx2(why, sizeof why)) {
        fprintf(stderr, "skipped: %s\n", why);
        return 77;
    }
    check_shapes();
    check_reuse();
    return gsvd_test_report("test_pass_avx2");
}
