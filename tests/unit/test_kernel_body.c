/* tests/unit/test_kernel_body.c - the CUDA kernels' per-thread bodies (gpu/kernel_body.h) run
 * by a serial launcher on the CPU, against the CPU backend on the same blocks:
 *  - standardised values Z of int8, 2-bit and float64 blocks equal the CPU backend's exactly
 *    (read back through project() with unit vectors, which only loses the sign of zero);
 *  - row sums of squares (histograms + ordered sum) are bit-identical to the CPU backend's trace;
 *  - histogram counts do not depend on the order the threads run in (forward and reverse);
 *  - no body writes outside its rows (guard cells);
 *  - the pass (Z^T Z X) and Gram (Z^T Z) built from the bodies' Z and the accumulate/widen/
 *    symmetrise bodies agree with the CPU backend to float32 rounding; symmetrise split into
 *    launches of a few columns (as above GSVD_KB_GRID_Y_MAX) gives the same bytes;
 *  - Philox words match common/rng.h for every counter;
 *  - the exact-sum bodies (acc_xsum, sum_xsum) give the host's common/xsum.h values bit for
 *    bit, for groups added in any order and split between "ranks" whose parts are summed.
 * No GPU is needed: this is the half of the GPU test that runs everywhere. */
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/backend.h"
#include "analysis/backend_internal.h"
#include "analysis/pca/pca_device.h"
#include "common/rng.h"
#include "common/xsum.h"
#include "gpu/kernel_body.h"
#include "gsvd_test.h"

const struct gsvd_backend_ops *const gsvd_backend_registry[] = {&gsvd_backend_cpu_ops, NULL};

#define N 4133 /* > GSVD_KB_THREADS * GSVD_KB_STD_PER_THREAD: two blocks along x; not % 4 */
#define ROWS 7
#define GUARD 64
#define SENTINEL 12345.0f

enum fmt { FMT_I8, FMT_P2, FMT_F64 };

struct fixture {
    int8_t i8[ROWS * N];
    uint8_t p2[ROWS * ((N + 3) / 4)];
    double f64[ROWS * N];
    float center[ROWS], scale[ROWS], missing[ROWS];
};

static uint32_t word(uint64_t r, uint64_t c, int w)
{
    return gsvd_rng_words(7, 99, r, c).v[w];
}

static void make_fixture(struct fixture *f)
{
    memset(f->p2, 0, sizeof f->p2);
    for (size_t r = 0; r < ROWS; r++) {
        f->center[r] = 0.3f + 0.2f * (float)r;
        f->scale[r] = 1.0f / (0.4f + 0.1f * (float)r);
        f->missing[r] = r % 2 ? 0.0f : -0.125f * (float)r;
        for (size_t i = 0; i < N; i++) {
            uint32_t u = word(r, i, 0) % 100;
            /* mostly 0/1/2 and missing; a few 3, 5 and -3 reach the atomic bins */
            int v = u < 30   ? 0
                    : u < 60 ? 1
                    : u < 85 ? 2
                    : u < 95 ? -1
                    : u < 97 ? 3
                    : u < 99 ? 5
                             : -3;
            unsigned code = v >= 0 && v <= 2 ? (unsigned)v : 3;
            f->i8[r * N + i] = (int8_t)v;
            f->p2[r * ((N + 3) / 4) + i / 4] |= (uint8_t)(code << (2 * (i % 4)));
            f->f64[r * N + i] = v < 0 ? NAN : v + (double)(word(r, i, 1) % 1000) / 1000.0;
        }
    }
}

static struct gsvd_gblock block_of(const struct fixture *f, enum fmt fm, size_t r0, size_t rows)
{
    struct gsvd_gblock b = {.n_rows = rows,
                            .n_cols = N,
                            .center = f->center + r0,
                            .scale = f->scale + r0,
                            .missing = f->missing + r0};
    if (fm == FMT_I8)
        b.i8 = f->i8 + r0 * N;
    else if (fm == FMT_P2)
        b.p2 = f->p2 + r0 * ((N + 3) / 4);
    else
        b.f64 = f->f64 + r0 * N;
    return b;
}

/* ---- serial launchers: every (block, thread) of the grid, in forward or reverse order ------ */

static void launch_std(const struct gsvd_kb_std_args *a, int reverse)
{
    uint32_t gx = (uint32_t)gsvd_kb_std_grid_x(a->n), gy = (uint32_t)a->rows;
    for (uint32_t k = 0; k < gx * gy * GSVD_KB_THREADS; k++) {
        uint32_t t = reverse ? gx * gy * GSVD_KB_THREADS - 1 - k : k;
        gsvd_kb_std(a, t / GSVD_KB_THREADS % gx, t / GSVD_KB_THREADS / gx, t % GSVD_KB_THREADS);
    }
}

static void launch_rowsq(const struct gsvd_kb_rowsq_args *a)
{
    for (uint32_t bx = 0; bx < gsvd_kb_blocks(a->rows); bx++)
        for (uint32_t tx = 0; tx < GSVD_KB_THREADS; tx++)
            gsvd_kb_rowsq(a, bx, tx);
}

static void launch_sum(const double *rs, size_t rows, double *acc)
{
    for (uint32_t tx = 0; tx < GSVD_KB_THREADS; tx++) /* one block; only thread 0 works */
        gsvd_kb_sum_ordered(rs, rows, acc, 0, tx);
}

static void launch_acc(double *dst, const float *src, size_t count)
{
    for (uint32_t bx = 0; bx < gsvd_kb_blocks(count); bx++)
        for (uint32_t tx = 0; tx < GSVD_KB_THREADS; tx++)
            gsvd_kb_acc_f32(dst, src, count, bx, tx);
}

static void launch_widen(double *dst, const float *src, size_t count)
{
    for (uint32_t bx = 0; bx < gsvd_kb_blocks(count); bx++)
        for (uint32_t tx = 0; tx < GSVD_KB_THREADS; tx++)
            gsvd_kb_widen(dst, src, count, bx, tx);
}

/* as gpu/kernels.cu launches it: launches of at most `max_cols` columns (GSVD_KB_GRID_Y_MAX
 * there; fewer here, so that a small matrix takes several launches) */
static void launch_symmetrise(double *g, size_t n, size_t max_cols)
{
    for (size_t col0 = 0; col0 < n; col0 += max_cols) {
        size_t ny = n - col0 < max_cols ? n - col0 : max_cols;
        for (uint32_t by = 0; by < ny; by++)
            for (uint32_t bx = 0; bx < gsvd_kb_blocks(n); bx++)
                for (uint32_t tx = 0; tx < GSVD_KB_THREADS; tx++)
                    gsvd_kb_symmetrise(g, n, col0, bx, by, tx);
    }
}

/* ---- the device's standardise + sums, emulated -------------------------------------------- */

/* Z (rows x N, with GUARD sentinel cells after) and the ordered sum of squares of the rows. */
static double device_standardise(const struct gsvd_gblock *b, float *z, uint32_t *hist, int reverse)
{
    struct gsvd_kb_std_args a = {.i8 = b->i8,
                                 .p2 = b->p2,
                                 .f64 = b->f64,
                                 .center = b->center,
                                 .scale = b->scale,
                                 .missing = b->missing,
                                 .n = N,
                                 .rows = b->n_rows,
                                 .z = z,
                                 .hist = b->f64 ? NULL : hist};
    struct gsvd_kb_rowsq_args q = {.hist = a.hist,
                                   .z = z,
                                   .center = b->center,
                                   .scale = b->scale,
                                   .missing = b->missing,
                                   .n = N,
                                   .rows = b->n_rows};
    double rs[ROWS + GUARD], acc = 0;

    for (size_t i = 0; i < ROWS * N + GUARD; i++)
        z[i] = SENTINEL;
    memset(hist, 0, (ROWS + 1) * GSVD_STD_BINS * sizeof *hist);
    for (size_t i = 0; i < ROWS + GUARD; i++)
        rs[i] = -1;
    launch_std(&a, reverse);
    q.rs = rs;
    launch_rowsq(&q);
    for (size_t i = b->n_rows; i < ROWS + GUARD; i++)
        GSVD_CHECK(rs[i] == -1);
    launch_sum(rs, b->n_rows, &acc);
    return acc;
}

/* Z of the CPU backend, read exactly: project() onto unit vectors, 61 samples at a time. */
static void cpu_z(gsvd_backend *cpu, const struct gsvd_gblock *b, float *z)
{
    enum { C = 61 };
    double *u = calloc((size_t)N * C, sizeof *u), *out = malloc(ROWS * C * sizeof *out);
    for (size_t j0 = 0; j0 < N; j0 += C) {
        size_t c = N - j0 < C ? N - j0 : C;
        memset(u, 0, (size_t)N * C * sizeof *u);
        for (size_t q = 0; q < c; q++)
            u[(j0 + q) * c + q] = 1.0;
        GSVD_CHECK_RC(gsvd_backend_project(cpu, b, c, u, out), 0);
        for (size_t r = 0; r < b->n_rows; r++)
            for (size_t q = 0; q < c; q++)
                z[r * N + j0 + q] = (float)out[r * c + q];
    }
    free(u);
    free(out);
}

static double rel_err(const double *a, const double *b, size_t count)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < count; i++) {
        num = fmax(num, fabs(a[i] - b[i]));
        den = fmax(den, fabs(b[i]));
    }
    return den > 0 ? num / den : num;
}

static void test_format(gsvd_backend *cpu, const struct fixture *f, enum fmt fm)
{
    static float z[ROWS * N + GUARD], z2[ROWS * N + GUARD], zc[ROWS * N];
    static uint32_t hist[(ROWS + 1) * GSVD_STD_BINS], hist2[(ROWS + 1) * GSVD_STD_BINS];
    struct gsvd_gblock b = block_of(f, fm, 0, ROWS);
    double s_dev, s_rev, s_cpu = 0, *x, *y, *ydev, *g, *gdev, *zd;
    size_t c = 3;
    int same = 1;

    /* values: bit-identical to the CPU backend, nothing written past the rows */
    s_dev = device_standardise(&b, z, hist, 0);
    cpu_z(cpu, &b, zc);
    for (size_t i = 0; i < ROWS * N; i++) { /* == : project() turns -0 into +0 */
        if (same && z[i] != zc[i])
            fprintf(stderr, "format %d: z[%zu] kernels %.9g, cpu %.9g\n", (int)fm, i, z[i], zc[i]);
        same &= z[i] == zc[i];
    }
    GSVD_CHECK(same);
    for (size_t i = ROWS * N; i < ROWS * N + GUARD; i++)
        GSVD_CHECK(z[i] == SENTINEL);
    for (size_t i = ROWS * GSVD_STD_BINS; i < (ROWS + 1) * GSVD_STD_BINS; i++)
        GSVD_CHECK(hist[i] == 0);
    if (fm != FMT_F64) {
        uint64_t total = 0;
        for (size_t i = 0; i < ROWS * GSVD_STD_BINS; i++)
            total += hist[i];
        GSVD_CHECK(total == (uint64_t)ROWS * N);
    }

    /* thread order does not matter: reverse launch, same Z, counts and sum */
    memcpy(hist2, hist, sizeof hist);
    memcpy(z2, z, sizeof z);
    s_rev = device_standardise(&b, z, hist, 1);
    GSVD_CHECK(memcmp(z, z2, sizeof z) == 0);
    GSVD_CHECK(memcmp(hist, hist2, sizeof hist) == 0);
    GSVD_CHECK(memcmp(&s_dev, &s_rev, sizeof s_dev) == 0);

    /* the pass: trace bit-identical, Y = Z^T Z X to float32 rounding */
    x = malloc((size_t)N * c * sizeof *x);
    y = malloc((size_t)N * c * sizeof *y);
    ydev = calloc((size_t)N * c, sizeof *ydev);
    for (size_t i = 0; i < N * c; i++)
        x[i] = gsvd_rng_normal(3, GSVD_RNG_PCA_OMEGA, i / c, i % c);
    GSVD_CHECK_RC(gsvd_backend_pass_begin(cpu, N, c, x), 0);
    for (size_t r0 = 0; r0 < ROWS; r0 += 3) { /* blocks of 3, 3, 1 rows */
        struct gsvd_gblock part = block_of(f, fm, r0, ROWS - r0 < 3 ? ROWS - r0 : 3);
        GSVD_CHECK_RC(gsvd_backend_pass_block(cpu, &part, &s_cpu), 0);
    }
    GSVD_CHECK_RC(gsvd_backend_pass_end(cpu, y), 0);
    GSVD_CHECK(memcmp(&s_cpu, &s_dev, sizeof s_dev) == 0);
    if (memcmp(&s_cpu, &s_dev, sizeof s_dev) != 0)
        fprintf(stderr, "format %d: trace cpu %.17g, kernels %.17g\n", (int)fm, s_cpu, s_dev);
    {
        /* T = Z X and Yblk = Z^T T (float32 results, as sgemm gives), then the accumulate
         * body; the products are exact here, so what is tested is indexing */
        double *t = calloc(ROWS * c, sizeof *t);
        float *yblk = calloc((size_t)N * c, sizeof *yblk);
        for (size_t r = 0; r < ROWS; r++)
            for (size_t q = 0; q < c; q++) {
                double s = 0;
                for (size_t i = 0; i < N; i++)
                    s += (double)z[r * N + i] * (double)(float)x[i * c + q];
                t[r * c + q] = (float)s;
            }
        for (size_t i = 0; i < N; i++)
            for (size_t q = 0; q < c; q++) {
                double s = 0;
                for (size_t r = 0; r < ROWS; r++)
                    s += (double)z[r * N + i] * t[r * c + q];
                yblk[i * c + q] = (float)s;
            }
        launch_acc(ydev, yblk, (size_t)N * c);
        launch_acc(ydev, yblk, (size_t)N * c); /* twice: accumulates */
        for (size_t i = 0; i < N * c; i++)
            ydev[i] *= 0.5;
        GSVD_CHECK(rel_err(ydev, y, (size_t)N * c) < 1e-4);
        free(t);
        free(yblk);
    }

    /* the Gram over the first 300 samples' worth of a smaller block: widen + syrk (lower,
     * column-major) + symmetrise, against the CPU backend's Gram */
    {
        enum { M = 300 };
        static int8_t gi8[ROWS * M];
        static float gz[ROWS * M];
        static double gsplit[M * M];
        struct gsvd_gblock gb = {.n_rows = ROWS,
                                 .n_cols = M,
                                 .i8 = gi8,
                                 .center = f->center,
                                 .scale = f->scale,
                                 .missing = f->missing};
        struct gsvd_kb_std_args a = {.i8 = gi8,
                                     .center = f->center,
                                     .scale = f->scale,
                                     .missing = f->missing,
                                     .n = M,
                                     .rows = ROWS,
                                     .z = gz};
        double s_g = 0;
        for (size_t r = 0; r < ROWS; r++)
            memcpy(gi8 + r * M, f->i8 + r * N, M);
        g = malloc((size_t)M * M * sizeof *g);
        gdev = calloc((size_t)M * M, sizeof *gdev);
        zd = malloc((size_t)ROWS * M * sizeof *zd);
        GSVD_CHECK_RC(gsvd_backend_gram_begin(cpu, M), 0);
        GSVD_CHECK_RC(gsvd_backend_gram_block(cpu, &gb, &s_g), 0);
        GSVD_CHECK_RC(gsvd_backend_gram_end(cpu, g), 0);
        launch_std(&a, 0);
        launch_widen(zd, gz, (size_t)ROWS * M);
        for (size_t j = 0; j < M; j++) /* lower triangle, column-major: i >= j */
            for (size_t i = j; i < M; i++) {
                double s = 0;
                for (size_t r = 0; r < ROWS; r++)
                    s += zd[r * M + i] * zd[r * M + j];
                gdev[j * M + i] = s;
            }
        memcpy(gsplit, gdev, sizeof gsplit);
        launch_symmetrise(gdev, M, GSVD_KB_GRID_Y_MAX);
        GSVD_CHECK(rel_err(gdev, g, (size_t)M * M) < 1e-6);
        launch_symmetrise(gsplit, M, 7); /* 43 launches of 7 columns: the same bytes */
        GSVD_CHECK(memcmp(gsplit, gdev, sizeof gsplit) == 0);
        free(g);
        free(gdev);
        free(zd);
    }
    free(x);
    free(y);
    free(ydev);
}

static void test_rng_words(void)
{
    enum { COUNT = 1000, COLS = 7 };
    static uint32_t out[4 * COUNT];
    int same = 1;
    for (uint32_t bx = 0; bx < gsvd_kb_blocks(COUNT); bx++)
        for (uint32_t tx = 0; tx < GSVD_KB_THREADS; tx++)
            gsvd_kb_rng_words(42, GSVD_RNG_PCA_OMEGA, 5, COLS, COUNT, out, bx, tx);
    for (size_t t = 0; t < COUNT; t++) {
        struct gsvd_rng4 w = gsvd_rng_words(42, GSVD_RNG_PCA_OMEGA, 5 + t / COLS, t % COLS);
        same &= memcmp(w.v, out + 4 * t, sizeof w.v) == 0;
    }
    GSVD_CHECK(same);
}

static void test_std_values(void)
{
    /* the shared definitions on a few hand-checked values */
    GSVD_CHECK(gsvd_std_i8(2, 1.0f, 0.5f, 9.0f) == 0.5f);
    GSVD_CHECK(gsvd_std_i8(-1, 1.0f, 0.5f, 9.0f) == 9.0f);
    GSVD_CHECK(gsvd_std_p2(3, 1.0f, 0.5f, 9.0f) == 9.0f);
    GSVD_CHECK(gsvd_std_p2(0, 1.0f, 0.5f, 9.0f) == -0.5f);
    GSVD_CHECK(gsvd_std_f64(NAN, 1.0f, 0.5f, 9.0f) == 9.0f);
    GSVD_CHECK(gsvd_std_f64(3.0, 1.0f, 0.5f, 9.0f) == 1.0f);
    GSVD_CHECK(gsvd_std_p2_bin(3) == GSVD_STD_BIN_MISSING && gsvd_std_p2_bin(2) == 2);
    GSVD_CHECK(gsvd_std_bin_value(GSVD_STD_BIN_MISSING, 1.0f, 0.5f, 9.0f) == 9.0f);
    GSVD_CHECK(gsvd_std_bin_value(127, 1.0f, 0.5f, 9.0f) == 63.0f);
    GSVD_CHECK(gsvd_std_bin_value(128, 1.0f, 0.5f, 9.0f) == 9.0f); /* -128: missing */
    {
        const uint8_t row[2] = {0xE4, 0x01}; /* codes 0 1 2 3 | 1 */
        GSVD_CHECK(gsvd_std_p2_code(row, 0) == 0 && gsvd_std_p2_code(row, 1) == 1);
        GSVD_CHECK(gsvd_std_p2_code(row, 2) == 2 && gsvd_std_p2_code(row, 3) == 3);
        GSVD_CHECK(gsvd_std_p2_code(row, 4) == 1 && gsvd_std_p2_row_bytes(5) == 2);
    }
}

/* Exact sums: G groups of float products (C columns of COUNT / C rows) added by the device
 * bodies in several orders and splits; every result equals the host's xsum of the same terms. */
static void test_xsum_bodies(void)
{
    enum { G = 9, COUNT = 1000, C = 4 };
    static float src[G][COUNT];
    static double hi[COUNT], lo[COUNT], h2[COUNT], l2[COUNT], ref[COUNT], got[COUNT];
    struct gsvd_kb_grid grid[C];
    struct gsvd_xgrid xg[C];
    uint32_t over = 0;
    uint64_t x = 12345;
    double rs[G * 3], acc[2] = {0, 0}, acc2[2] = {0, 0}, tr_hi = 0, tr_lo = 0;

    for (size_t j = 0; j < C; j++) { /* wildly different scales per column */
        xg[j] = gsvd_xsum_grid(ldexp(1.0, 10 * (int)j + 12));
        grid[j] = (struct gsvd_kb_grid){xg[j].c_hi, xg[j].c_lo, xg[j].bound};
    }
    for (size_t g = 0; g < G; g++)
        for (size_t i = 0; i < COUNT; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            double m = (double)(x >> 11) * 0x1p-53 - 0.5;
            src[g][i] = (float)ldexp(m, 10 * (int)(i % C) + (int)(x % 9));
        }
    /* the host's exact sums, group by group */
    for (size_t i = 0; i < COUNT; i++) {
        double a = 0, b = 0;
        for (size_t g = 0; g < G; g++)
            gsvd_xsum_add(&a, &b, src[g][i], &xg[i % C]);
        ref[i] = gsvd_xsum_value(a, b);
    }
    /* the bodies, groups in reverse order */
    memset(hi, 0, sizeof hi);
    memset(lo, 0, sizeof lo);
    for (size_t g = G; g-- > 0;)
        for (uint32_t bx = 0; bx < gsvd_kb_blocks(COUNT); bx++)
            for (uint32_t tx = GSVD_KB_THREADS; tx-- > 0;)
                gsvd_kb_acc_xsum(hi, lo, src[g], COUNT, C, grid, &over, bx, tx);
    for (size_t i = 0; i < COUNT; i++)
        got[i] = gsvd_xsum_value(hi[i], lo[i]);
    GSVD_CHECK(memcmp(got, ref, sizeof got) == 0);
    /* two "ranks" (groups 0..3 and 4..8), parts summed afterwards */
    memset(h2, 0, sizeof h2);
    memset(l2, 0, sizeof l2);
    memset(hi, 0, sizeof hi);
    memset(lo, 0, sizeof lo);
    for (size_t g = 0; g < G; g++)
        for (uint32_t bx = 0; bx < gsvd_kb_blocks(COUNT); bx++)
            for (uint32_t tx = 0; tx < GSVD_KB_THREADS; tx++)
                gsvd_kb_acc_xsum(g < 4 ? hi : h2, g < 4 ? lo : l2, src[g], COUNT, C, grid, &over,
                                 bx, tx);
    for (size_t i = 0; i < COUNT; i++)
        got[i] = gsvd_xsum_value(hi[i] + h2[i], lo[i] + l2[i]);
    GSVD_CHECK(memcmp(got, ref, sizeof got) == 0);
    GSVD_CHECK(over == 0);
    /* a value beyond its bound is counted */
    float big = (float)ldexp(1.0, 60);
    gsvd_kb_acc_xsum(hi, lo, &big, 1, 1, grid, &over, 0, 0);
    GSVD_CHECK(over == 1);
    /* the trace body: the host's sum, also split in two launches */
    for (size_t r = 0; r < G * 3; r++) {
        rs[r] = fabs((double)src[r % G][r]) * 1e3;
        gsvd_xsum_add(&tr_hi, &tr_lo, rs[r], &xg[3]);
    }
    over = 0;
    gsvd_kb_sum_xsum(rs, G * 3, acc, grid[3], &over, 0, 0);
    gsvd_kb_sum_xsum(rs, 10, acc2, grid[3], &over, 0, 0);
    gsvd_kb_sum_xsum(rs + 10, G * 3 - 10, acc2, grid[3], &over, 0, 0);
    double t1 = gsvd_xsum_value(acc[0], acc[1]), t2 = gsvd_xsum_value(acc2[0], acc2[1]),
           t0 = gsvd_xsum_value(tr_hi, tr_lo);
    GSVD_CHECK(memcmp(&t1, &t0, sizeof t0) == 0);
    GSVD_CHECK(memcmp(&t2, &t0, sizeof t0) == 0);
    GSVD_CHECK(over == 0);
}

int main(void)
{
    static struct fixture f;
    gsvd_backend *cpu = NULL;
    struct gsvd_backend_params bp = {.n_threads = 1};

    make_fixture(&f);
    test_std_values();
    test_rng_words();
    test_xsum_bodies();
    GSVD_CHECK_RC(gsvd_backend_create(&gsvd_backend_cpu_ops, &bp, &cpu), 0);
    if (cpu) {
        test_format(cpu, &f, FMT_I8);
        test_format(cpu, &f, FMT_P2);
        test_format(cpu, &f, FMT_F64);
    }
    gsvd_backend_destroy(cpu);
    return gsvd_test_report("test_kernel_body");
}
