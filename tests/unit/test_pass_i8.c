/* tests/unit/test_pass_i8.c - a pass group's products on AMX int8 tiles
 * (analysis/cpu/kernels/pass_i8.h) against a float64 oracle written from the standardisation's
 * definition (analysis/scan/gblock.h: z = (q - center) scale for a call q, the row's missing value
 * for a missing call), not from the kernel's algebra: Y = Z^T (Z X) in float64.  Every entry must
 * lie within the rounding the header promises: X and W = a Z X rounded to 2^-20 of their columns'
 * largest magnitude, with one scale per column for W and V = (m - b) Z X (the missing calls' term),
 * so |Yg - Y| <= 2^-19 (|Z|^T |Z| max|x| 1 + 2 rows max(|w|, |v|)) + float32 rounding of Yg.
 * Shapes: one row and sample; rows across the 32-row blocks and 64-row tiles; samples below,
 * at and above 64 and the 2,048-sample chunk; 1 .. 22 columns (one and several 32-column digit
 * halves); no missing calls, 10% and 90% missing, a non-zero missing value, a zero scale.
 * Also: the same group twice gives the same bytes, a workspace reused for a smaller group and
 * X of another shape, and non-finite X refused.  Exit 77 (skipped) where the int8 tiles cannot
 * run. */
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/scan/gblock_std.h"
#include "analysis/cpu/kernels/gram_amx.h"
#include "analysis/cpu/kernels/pass_i8.h"
#include "common/alloc.h"
#include "common/err.h"
#include "gsvd_test.h"
#include "unit/pass_group.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;
static double col_worst; /* largest relative 2-norm error of a column */

static double uniform(void)
{
    return gsvd_test_uniform(&rng_state);
}

static double zval(const struct grp *g, size_t r, size_t i)
{
    unsigned q = gsvd_std_p2_code(g->p2 + r * gsvd_std_p2_row_bytes(g->n), i);
    return q == 3 ? (double)g->missing[r]
                  : ((double)q - (double)g->center[r]) * (double)g->scale[r];
}

/* One group against the oracle; returns the worst error in units of the entry's allowance. */
static double check_group(const struct grp *g, size_t c, gsvd_i8x *x, gsvd_i8w *w)
{
    size_t n = g->n, rows = g->rows;
    float *xf = malloc(n * c * sizeof *xf), *yg = malloc(n * c * sizeof *yg),
          *yg2 = malloc(n * c * sizeof *yg2);
    double *t = calloc(rows * c, sizeof *t), *y = calloc(n * c, sizeof *y),
           *za = calloc(n, sizeof *za), *xmax = calloc(c, sizeof *xmax),
           *wmax = calloc(c, sizeof *wmax), worst = 0;
    struct gsvd_gblock blk = {.n_rows = rows,
                              .n_cols = n,
                              .p2 = g->p2,
                              .center = g->center,
                              .scale = g->scale,
                              .missing = g->missing};

    for (size_t i = 0; i < n * c; i++)
        xf[i] = (float)((uniform() - 0.5) * (i % 5 ? 1.0 : 40.0));
    for (size_t i = 0; i < n * c; i++)
        xmax[i % c] = fmax(xmax[i % c], fabs((double)xf[i]));
    for (size_t r = 0; r < rows; r++)
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < c; j++)
                t[r * c + j] += zval(g, r, i) * (double)xf[i * c + j];
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < c; j++)
            wmax[j] = fmax(wmax[j], fmax(fabs((double)g->scale[r] * t[r * c + j]),
                                         fabs(((double)g->missing[r] +
                                               (double)g->center[r] * (double)g->scale[r]) *
                                              t[r * c + j])));
    for (size_t r = 0; r < rows; r++)
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < c; j++)
                y[i * c + j] += zval(g, r, i) * t[r * c + j];
    /* |Z|^T |Z| 1 per sample, and the number of calls per sample (|Q|^T 1 <= 2 calls) */
    double *zz = calloc(n, sizeof *zz), *qq = calloc(n, sizeof *qq);
    for (size_t r = 0; r < rows; r++) {
        double rs = 0;
        for (size_t i = 0; i < n; i++)
            rs += fabs(zval(g, r, i));
        for (size_t i = 0; i < n; i++) {
            zz[i] += fabs(zval(g, r, i)) * rs;
            qq[i] += 2;
        }
    }
    GSVD_CHECK_RC(gsvd_i8x_set(x, n, c, xf), GSVD_OK);
    GSVD_CHECK_RC(gsvd_i8w_reserve(w, x, rows), GSVD_OK);
    gsvd_i8_pass_group(x, w, &blk, yg);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < c; j++) {
            double allow =
                ldexp(zz[i] * xmax[j] + qq[i] * wmax[j], -19) + 4e-7 * fabs(y[i * c + j]) + 1e-30;
            double e = fabs((double)yg[i * c + j] - y[i * c + j]) / allow;
            worst = e > worst ? e : worst;
        }
    /* and each column within 3e-5 in the 2-norm (~1e-6 at 1% missing; 2e-5 where 90% of the
     * calls are missing and their term carries Y; with one row, t = z x may cancel far below
     * |z| |x|, and the entry allowance is the meaningful check) */
    for (size_t j = 0; j < c; j++) {
        double d2 = 0, y2 = 0;
        for (size_t i = 0; i < n; i++) {
            d2 += ((double)yg[i * c + j] - y[i * c + j]) * ((double)yg[i * c + j] - y[i * c + j]);
            y2 += y[i * c + j] * y[i * c + j];
        }
        if (rows > 1 && y2 > 0 && sqrt(d2 / y2) > col_worst)
            col_worst = sqrt(d2 / y2);
    }
    gsvd_i8_pass_group(x, w, &blk, yg2);
    GSVD_CHECK(memcmp(yg, yg2, n * c * sizeof *yg) == 0);
    free(xf), free(yg), free(yg2), free(t), free(y), free(za), free(xmax), free(wmax), free(zz),
        free(qq);
    return worst;
}

static void check_shapes(void)
{
    static const size_t rows_s[] = {1, 31, 33, 64, 97};
    static const size_t n_s[] = {1, 63, 64, 65, 130, 2049};
    static const size_t c_s[] = {1, 11, 20, 22};
    static const double miss_s[] = {0, 0.1, 0.9};
    gsvd_i8x *x = NULL;
    gsvd_i8w *w = NULL;
    double worst = 0;
    size_t k = 0;

    GSVD_CHECK_RC(gsvd_i8x_new(&x), GSVD_OK);
    GSVD_CHECK_RC(gsvd_i8w_new(&w), GSVD_OK);
    for (size_t a = 0; a < sizeof rows_s / sizeof *rows_s; a++)
        for (size_t b = 0; b < sizeof n_s / sizeof *n_s; b++) {
            size_t c = c_s[k % 4];
            double miss = miss_s[k % 3];
            struct grp g;
            if (rows_s[a] * n_s[b] > 97 * 130 && c > 1 && a != 3)
                c = 20; /* the large shapes once each at the default basis width */
            grp_make(&g, rows_s[a], n_s[b], miss, k % 2 == 1, &rng_state);
            double e = check_group(&g, c, x, w);
            if (!(e <= 1))
                fprintf(stderr, "rows %zu n %zu c %zu missing %.1f: error %.3g of the allowance\n",
                        rows_s[a], n_s[b], c, miss, e);
            worst = e > worst ? e : worst;
            grp_free(&g);
            k++;
        }
    GSVD_CHECK(worst <= 1);
    GSVD_CHECK(col_worst <= 3e-5);
    fprintf(stderr, "worst entry: %.3g of its allowance; worst column: %.3g relative\n", worst,
            col_worst);
    gsvd_i8x_free(x);
    gsvd_i8w_free(w);
}

static void check_refusals(void)
{
    gsvd_i8x *x = NULL;
    gsvd_i8w *w = NULL;
    float xf[4] = {1, 2, NAN, 4};
    GSVD_CHECK_RC(gsvd_i8x_new(&x), GSVD_OK);
    GSVD_CHECK_RC(gsvd_i8w_new(&w), GSVD_OK);
    GSVD_CHECK_RC(gsvd_i8x_set(x, 2, 2, xf), GSVD_EINVAL);
    xf[2] = INFINITY;
    GSVD_CHECK_RC(gsvd_i8x_set(x, 2, 2, xf), GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_i8x_set(x, 4, 0, xf), GSVD_EINVAL);
    xf[2] = 3;
    GSVD_CHECK_RC(gsvd_i8x_set(x, 2, 2, xf), GSVD_OK);
    GSVD_CHECK_RC(gsvd_i8w_reserve(w, x, GSVD_I8P_MAX_ROWS + 1), GSVD_EINVAL);
    gsvd_i8x_free(x);
    gsvd_i8w_free(w);
    gsvd_i8x_free(NULL);
    gsvd_i8w_free(NULL);
}

int main(void)
{
    char why[256];
    if (!gsvd_amx_int8_usable(why, sizeof why)) {
        fprintf(stderr, "skipped: %s\n", why);
        return 77;
    }
    check_refusals();
    check_shapes();
    return gsvd_test_report("test_pass_i8");
}
