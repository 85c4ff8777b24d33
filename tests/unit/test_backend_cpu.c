/* tests/unit/test_backend_cpu.c - the CPU backend's passes (Y = Z^T Z X on all threads):
 *  - against a float64 evaluation of the definition (analysis/scan/gblock_std.h values, sums in
 *    double): relative error within float32 rounding, trace to 1e-9;
 *  - byte-identical Y and trace for 1, 2, 3 and 5 threads and for blocks of every size (one
 *    block, single rows, 97 and 300 rows), in the three row formats (2-bit, int8, float64);
 *  - enough samples and rows that a pass has several row groups (1,024 rows of 2-bit codes, 128
 *    of int8 or float64 rows: analysis/scan/gblock.h) and several sub-tiles per group, and a
 *    partial last group;
 *  - with a bound (exact sums, common/xsum.h): Y and the trace within float32 rounding of the
 *    definition, and byte-identical for any thread count, any blocks and any split of the rows
 *    between "ranks" (separate backends whose exact parts are added afterwards, as MPI does);
 *    int8 dosages declared 0 .. 2 (staged as 2-bit codes) give the same bytes as the codes.
 * Oracle: the definition evaluated here, not the backend's own earlier output. */
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/backend.h"
#include "analysis/scan/gblock_std.h"
#include "analysis/pca/pca_device.h"
#include "common/err.h"
#include "common/rng.h"
#include "gsvd_test.h"

/* backend.c's registry is defined by cli/ in the program; a test names its own */
const struct gsvd_backend_ops *const gsvd_backend_registry[] = {&gsvd_backend_cpu_ops, NULL};

/* 40,000 samples: sub-tiles of 16 rows; ROWS rows of the 2-bit and int8 formats, ROWS_F64 of
 * float64 (its groups are smaller) */
enum { N = 40000, ROWS = 2300, ROWS_F64 = 700, C = 3 };

struct data {
    int fmt;     /* 1 p2, 2 i8, 3 f64 */
    size_t rows; /* ROWS, or ROWS_F64 */
    uint8_t *p2;
    int8_t *i8;
    double *f64;
    float center[ROWS], scale[ROWS], miss[ROWS];
    uint64_t index[ROWS]; /* variant indices (offset, so that groups do not start at 0) */
};

static struct gsvd_gblock block_of(const struct data *d, size_t r0, size_t rows)
{
    size_t rb = gsvd_std_p2_row_bytes(N);
    return (struct gsvd_gblock){.n_rows = rows,
                                .n_cols = N,
                                .p2 = d->fmt == 1 ? d->p2 + r0 * rb : NULL,
                                .i8 = d->fmt == 2 ? d->i8 + r0 * N : NULL,
                                .f64 = d->fmt == 3 ? d->f64 + r0 * N : NULL,
                                .center = d->center + r0,
                                .scale = d->scale + r0,
                                .missing = d->miss + r0,
                                .index = d->index + r0};
}

static float value(const struct data *d, size_t r, size_t i)
{
    if (d->fmt == 1)
        return gsvd_std_p2(gsvd_std_p2_code(d->p2 + r * gsvd_std_p2_row_bytes(N), i), d->center[r],
                           d->scale[r], d->miss[r]);
    if (d->fmt == 2)
        return gsvd_std_i8(d->i8[r * N + i], d->center[r], d->scale[r], d->miss[r]);
    return gsvd_std_f64(d->f64[r * N + i], d->center[r], d->scale[r], d->miss[r]);
}

static void make(struct data *d, int fmt)
{
    size_t rb = gsvd_std_p2_row_bytes(N);
    memset(d, 0, sizeof *d);
    d->fmt = fmt;
    d->rows = fmt == 3 ? ROWS_F64 : ROWS;
    d->p2 = calloc(d->rows * rb, 1);
    d->i8 = malloc(d->rows * N);
    d->f64 = fmt == 3 ? malloc(d->rows * N * sizeof *d->f64) : NULL;
    for (size_t r = 0; r < d->rows; r++) {
        d->index[r] = 1024 + r;
        d->center[r] = 0.2f + (float)(r % 17) * 0.1f;
        d->scale[r] = 0.5f + (float)(r % 5) * 0.25f;
        d->miss[r] = r % 3 ? 0.0f : 0.125f;
        for (size_t i = 0; i < N; i++) {
            struct gsvd_rng4 w = gsvd_rng_words(11, 1, r, i);
            uint64_t h = (uint64_t)w.v[0] << 32 | w.v[1];
            int v = (int)(h % 50) == 0 ? -1 : (int)((h >> 8) % 3); /* 2% missing */
            d->i8[r * N + i] = (int8_t)v;
            if (d->f64)
                d->f64[r * N + i] = v < 0 ? NAN : (double)v + (double)((h >> 20) % 7) * 0.125;
            d->p2[r * rb + i / 4] |= (uint8_t)((v < 0 ? 3 : v) << (2 * (i % 4)));
        }
    }
}

static void drop(struct data *d)
{
    free(d->p2);
    free(d->i8);
    free(d->f64);
}

/* One pass with the given thread count, blocks of `step` rows (0: one block). */
static int pass(const struct data *d, size_t threads, size_t step, const double *x, double *y,
                double *trace)
{
    struct gsvd_backend_params bp = {.n_threads = threads};
    gsvd_backend *be = NULL;
    int rc = gsvd_backend_create(&gsvd_backend_cpu_ops, &bp, &be);
    *trace = 0;
    if (rc == GSVD_OK)
        rc = gsvd_backend_pass_begin(be, N, C, x);
    for (size_t r0 = 0; rc == GSVD_OK && r0 < d->rows; r0 += step ? step : d->rows) {
        size_t rows = step && d->rows - r0 > step ? step : d->rows - r0;
        struct gsvd_gblock b = block_of(d, r0, rows);
        rc = gsvd_backend_pass_block(be, &b, trace);
    }
    if (rc == GSVD_OK)
        rc = gsvd_backend_pass_end(be, y);
    gsvd_backend_destroy(be);
    return rc;
}

/* Exact parts of rows [a, b) with a bound, blocks of `step` rows, into hi/lo/tr (added). */
static int pass_parts(const struct data *d, const struct gsvd_zbound *zb, size_t threads,
                      size_t step, size_t a, size_t b, const double *x, double *hi, double *lo,
                      double *tr)
{
    struct gsvd_backend_params bp = {.n_threads = threads};
    gsvd_backend *be = NULL;
    double *h = malloc((size_t)N * C * sizeof *h), *l = malloc((size_t)N * C * sizeof *l);
    double t[2] = {0, 0}, sumsq = 0;
    int rc = h && l ? gsvd_backend_create(&gsvd_backend_cpu_ops, &bp, &be) : GSVD_ENOMEM;
    if (rc == GSVD_OK)
        rc = gsvd_backend_set_bound(be, zb);
    if (rc == GSVD_OK)
        rc = gsvd_backend_pass_begin(be, N, C, x);
    for (size_t r0 = a; rc == GSVD_OK && r0 < b; r0 += step ? step : b - a) {
        size_t rows = step && b - r0 > step ? step : b - r0;
        struct gsvd_gblock blk = block_of(d, r0, rows);
        rc = gsvd_backend_pass_block(be, &blk, &sumsq);
    }
    if (rc == GSVD_OK)
        rc = gsvd_backend_pass_end_parts(be, h, l, t);
    for (size_t i = 0; rc == GSVD_OK && i < (size_t)N * C; i++) {
        hi[i] += h[i]; /* exact: both on their grids */
        lo[i] += l[i];
    }
    tr[0] += t[0];
    tr[1] += t[1];
    gsvd_backend_destroy(be);
    free(h);
    free(l);
    return rc;
}

/* Y and trace from rank parts split at the given rows (cuts, ascending, 0 < cut < d->rows). */
static int pass_split(const struct data *d, const struct gsvd_zbound *zb, size_t threads,
                      size_t step, const size_t *cuts, size_t n_cuts, const double *x, double *y,
                      double *trace)
{
    double *lo = calloc((size_t)N * C, sizeof *lo), tr[2] = {0, 0};
    int rc = lo ? GSVD_OK : GSVD_ENOMEM;
    memset(y, 0, (size_t)N * C * sizeof *y);
    for (size_t k = 0; rc == GSVD_OK && k <= n_cuts; k++)
        rc = pass_parts(d, zb, threads, step, k ? cuts[k - 1] : 0, k < n_cuts ? cuts[k] : d->rows,
                        x, y, lo, tr);
    for (size_t i = 0; rc == GSVD_OK && i < (size_t)N * C; i++)
        y[i] += lo[i];
    *trace = tr[0] + tr[1];
    free(lo);
    return rc;
}

/* The bounded passes of d; max_dosage 2: int8 rows are dosages 0 .. 2 (staged as 2-bit codes).
 * codes_y, codes_trace: the 2-bit format's result (fmt 1 stores it, fmt 2 at max_dosage 2
 * compares with it). */
static void test_bounded(const struct data *d, const double *x, const double *ref, double ref_trace,
                         double norm, unsigned max_dosage, double *codes_y, double *codes_trace)
{
    double *y = malloc((size_t)N * C * sizeof *y), *y2 = malloc((size_t)N * C * sizeof *y2);
    double trace, trace2, worst = 0, zmax = 0, rowmax = 0;
    struct gsvd_zbound zb = {.rows = d->rows, .max_dosage = max_dosage};
    /* cuts at Gram-group multiples of the variant index (1,024 rows at N = 40,000; the rows'
     * indices start at 1,024), as gsvd_pca_split makes them */
    size_t G = gsvd_backend_gram_group_rows(N), cuts[2], n_split = 0;
    for (size_t k = 2; n_split < 2 && k * G - 1024 < d->rows; k++)
        cuts[n_split++] = k * G - 1024;
    GSVD_CHECK(n_split == 2 || d->fmt == 3);
    for (size_t r = 0; r < d->rows; r++) {
        double ss = 0;
        for (size_t i = 0; i < N; i++) {
            double v = value(d, r, i);
            zmax = fmax(zmax, fabs(v));
            ss += v * v;
        }
        rowmax = fmax(rowmax, ss);
    }
    zb.max_abs = zmax;
    zb.row_sumsq = rowmax * 1.001;
    GSVD_CHECK_RC(pass_split(d, &zb, 1, 0, NULL, 0, x, y, &trace), GSVD_OK);
    for (size_t i = 0; i < (size_t)N * C; i++)
        worst = fmax(worst, fabs(y[i] - ref[i]));
    GSVD_CHECK(worst <= 1e-4 * norm);
    GSVD_CHECK_NEAR(trace / ref_trace, 1.0, 1e-9);
    /* any threads, blocks and split into ranks: the same bytes */
    static const size_t threads[] = {2, 3}, steps[] = {0, 97};
    for (size_t a = 0; a < 2; a++)
        for (size_t b = 0; b < 2; b++)
            for (size_t n_cuts = 0; n_cuts <= n_split; n_cuts++) {
                GSVD_CHECK_RC(
                    pass_split(d, &zb, threads[a], steps[b], cuts, n_cuts, x, y2, &trace2),
                    GSVD_OK);
                GSVD_CHECK(memcmp(y, y2, (size_t)N * C * sizeof *y) == 0);
                GSVD_CHECK(memcmp(&trace, &trace2, sizeof trace) == 0);
            }
    if (d->fmt == 1) {
        memcpy(codes_y, y, (size_t)N * C * sizeof *y);
        *codes_trace = trace;
    } else if (max_dosage == 2) { /* the same calls as the 2-bit rows: the same bytes */
        GSVD_CHECK(memcmp(codes_y, y, (size_t)N * C * sizeof *y) == 0);
        GSVD_CHECK(memcmp(codes_trace, &trace, sizeof trace) == 0);
    }
    free(y);
    free(y2);
}

static void test_format(int fmt)
{
    static struct data d;
    double *x = malloc((size_t)N * C * sizeof *x), *y = malloc((size_t)N * C * sizeof *y);
    double *y2 = malloc((size_t)N * C * sizeof *y2), *ref = calloc((size_t)N * C, sizeof *ref);
    double *zr = malloc((size_t)N * sizeof *zr);
    static double codes_y[(size_t)N * C], codes_trace;
    double trace, trace2, ref_trace = 0, worst = 0, norm = 0;
    static const size_t threads[] = {1, 2, 3, 5}, steps[] = {0, 1, 97, 300};

    make(&d, fmt);
    for (size_t i = 0; i < (size_t)N * C; i++)
        x[i] = gsvd_rng_normal(5, GSVD_RNG_PCA_OMEGA, i / C, i % C);
    /* the definition in float64: Y = sum over rows of z (z . x), trace = sum z^2 */
    for (size_t r = 0; r < d.rows; r++) {
        double tr[C] = {0};
        for (size_t i = 0; i < N; i++) {
            zr[i] = (double)value(&d, r, i);
            ref_trace += zr[i] * zr[i];
            for (size_t q = 0; q < C; q++)
                tr[q] += zr[i] * (double)(float)x[i * C + q];
        }
        for (size_t i = 0; i < N; i++)
            for (size_t q = 0; q < C; q++)
                ref[i * C + q] += zr[i] * tr[q];
    }
    GSVD_CHECK_RC(pass(&d, 1, 0, x, y, &trace), GSVD_OK);
    for (size_t i = 0; i < (size_t)N * C; i++) {
        worst = fmax(worst, fabs(y[i] - ref[i]));
        norm = fmax(norm, fabs(ref[i]));
    }
    GSVD_CHECK(worst <= 1e-4 * norm);
    if (!(worst <= 1e-4 * norm))
        fprintf(stderr, "format %d: max |Y - ref| %.3g, max |ref| %.3g\n", fmt, worst, norm);
    GSVD_CHECK_NEAR(trace / ref_trace, 1.0, 1e-9); /* the reference sums up to 92M terms in order */
    if (fmt != 3)                                  /* exact sums need a bound: integer genotypes */
        test_bounded(&d, x, ref, ref_trace, norm, 0, codes_y, &codes_trace);
    if (fmt == 2)
        test_bounded(&d, x, ref, ref_trace, norm, 2, codes_y, &codes_trace);
    for (size_t a = 0; a < sizeof threads / sizeof *threads; a++)
        for (size_t b = 0; b < sizeof steps / sizeof *steps; b++) {
            if (a == 0 && b == 0)
                continue;
            GSVD_CHECK_RC(pass(&d, threads[a], steps[b], x, y2, &trace2), GSVD_OK);
            GSVD_CHECK(memcmp(y, y2, (size_t)N * C * sizeof *y) == 0);
            GSVD_CHECK(memcmp(&trace, &trace2, sizeof trace) == 0);
        }
    drop(&d);
    free(x);
    free(y);
    free(y2);
    free(ref);
    free(zr);
}

int main(void)
{
    for (int fmt = 1; fmt <= 3; fmt++)
        test_format(fmt);
    return gsvd_test_report("test_backend_cpu");
}
