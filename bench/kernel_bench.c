/* bench/kernel_bench.c - the CPU kernels measured in isolation, one core, fixed inputs: each
 * run is repeated and the least thread CPU time is kept (on a shared machine the CPU time of
 * the fastest repetition is the kernel's own cost; wall time is not).
 *   pass [ROWS N C REPS]  one pass group, Yg = Z^T (Z X), on 2-bit codes (1% missing) with
 *                         every engine this CPU runs: "f32-openblas" (rows standardised into
 *                         float32 sub-tiles and two sgemm, as the CPU backend does without an
 *                         engine; OpenBLAS's kernels as it picks them, or OPENBLAS_CORETYPE),
 *                         "f32-avx2" (analysis/cpu/kernels/pass_avx2.h) and "i8-amx"
 *                         (pass_i8.h); default 512 20000 20 5 (a P2 group)
 *   gram [ROWS N REPS]    one Gram group's upper tiles of Z'Z: "f32-openblas" (ssyrk of the
 *                         float32 rows) and the int8 Gram's engines (gram_i8.h: pack and
 *                         tiles); default 4096 2048 3
 * The FMA peak these rates compare with: bench/gemm_limit.c fma and fma256 (the rate of each
 * core, and of all of them at once).
 * Engines are chosen as gensvd chooses them, capped by GENSVD_CPU_LEVEL (common/cpu.h).
 * Prints one line per engine: seconds of the least repetition, the multiply-adds per second
 * (GMAC/s) and, for the products, the largest relative difference of its result from the
 * first engine's (a check, not an oracle: the unit tests have the oracles).
 * Built with the tests (tests/CMakeLists.txt); bench/README.md records the figures. */
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>

#include "analysis/cpu/cpu_rows.h"
#include "analysis/cpu/kernels/gram_i8.h"
#include "analysis/cpu/kernels/pass_avx2.h"
#include "analysis/cpu/kernels/pass_i8.h"
#include "analysis/cpu/kernels/gram_amx.h"
#include "analysis/scan/gblock_std.h"
#include "common/alloc.h"
#include "common/cpu.h"
#include "common/err.h"
#include "gsvd_test.h"

static uint64_t rng = 0x243f6a8885a308d3ULL;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A group of 2-bit rows: binomial(2, f) calls, 1% missing, mean centre, Patterson's scale. */
struct grp {
    size_t rows, n;
    uint8_t *p2, *codes; /* packed rows; the same calls one byte each (the Gram's input) */
    float *center, *scale, *missing;
};

static void grp_make(struct grp *g, size_t rows, size_t n)
{
    size_t rb = gsvd_std_p2_row_bytes(n);
    g->rows = rows, g->n = n;
    g->p2 = gsvd_calloc(rows * rb + 16, 1);
    g->codes = gsvd_malloc(rows * n + 64);
    g->center = gsvd_malloc(rows * sizeof(float));
    g->scale = gsvd_malloc(rows * sizeof(float));
    g->missing = gsvd_calloc(rows, sizeof(float));
    for (size_t r = 0; r < rows; r++) {
        double f = 0.05 + 0.45 * gsvd_test_uniform(&rng), sum = 0, cnt = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned q = 3;
            if (gsvd_test_uniform(&rng) >= 0.01) {
                q = (gsvd_test_uniform(&rng) < f) + (gsvd_test_uniform(&rng) < f);
                sum += q, cnt++;
            }
            g->p2[r * rb + i / 4] |= (uint8_t)(q << (2 * (i % 4)));
            g->codes[r * n + i] = (uint8_t)q;
        }
        double mu = cnt ? sum / cnt : 1, p = mu / 2;
        g->center[r] = (float)mu;
        g->scale[r] = (float)(1 / sqrt(2 * p * (1 - p) + 1e-3));
    }
}

static void grp_free(struct grp *g)
{
    gsvd_free(g->p2);
    gsvd_free(g->codes);
    gsvd_free(g->center);
    gsvd_free(g->scale);
    gsvd_free(g->missing);
}

static struct gsvd_gblock grp_block(const struct grp *g)
{
    return (struct gsvd_gblock){.n_rows = g->rows,
                                .n_cols = g->n,
                                .p2 = g->p2,
                                .center = g->center,
                                .scale = g->scale,
                                .missing = g->missing};
}

static void report(const char *what, const char *engine, double secs, double macs, const float *y,
                   const float *ref, size_t len)
{
    double worst = 0, scale = 0;
    for (size_t i = 0; ref && i < len; i++)
        scale = fmax(scale, fabs((double)ref[i]));
    for (size_t i = 0; ref && i < len; i++)
        worst = fmax(worst, fabs((double)y[i] - (double)ref[i]) / (scale > 0 ? scale : 1));
    printf("%s %-13s %.4f s  %7.2f GMAC/s", what, engine, secs, macs / secs / 1e9);
    if (ref)
        printf("  max |diff| / max |ref| %.2e", worst);
    printf("\n");
}

/* The float32 path without an engine: sub-tiles of `sub` rows standardised and two sgemm. */
static void pass_openblas(const struct grp *g, size_t c, const float *x, float *z, float *t,
                          float *yg)
{
    struct gsvd_gblock blk = grp_block(g);
    size_t n = g->n, sub = ((size_t)5 << 20) / (4 * n);
    sub = sub < 8 ? 8 : sub > 256 ? 256 : sub;
    for (size_t s0 = 0; s0 < g->rows; s0 += sub) {
        size_t m = g->rows - s0 < sub ? g->rows - s0 : sub;
        for (size_t r = 0; r < m; r++)
            gsvd_cpu_expand_row(&blk, s0 + r, z + r * n, NULL);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)c, (int)n, 1.0f, z,
                    (int)n, x, (int)c, 0.0f, t, (int)c);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n, (int)c, (int)m, 1.0f, z,
                    (int)n, t, (int)c, s0 ? 1.0f : 0.0f, yg, (int)c);
    }
}

static int bench_pass(size_t rows, size_t n, size_t c, int reps)
{
    struct grp g;
    struct gsvd_gblock blk;
    size_t sub = 256;
    float *x = gsvd_malloc(n * c * sizeof *x), *ref = gsvd_malloc(n * c * sizeof *ref);
    float *yg = gsvd_malloc(n * c * sizeof *yg), *z = gsvd_malloc(sub * n * sizeof *z);
    float *t = gsvd_malloc(sub * c * sizeof *t);
    double macs = 2.0 * (double)rows * (double)n * (double)c, best;
    char why[160];

    grp_make(&g, rows, n);
    blk = grp_block(&g);
    for (size_t i = 0; i < n * c; i++)
        x[i] = (float)(gsvd_test_uniform(&rng) - 0.5);
    printf("pass group: %zu rows x %zu samples, %zu columns, 1%% missing; least of %d\n", rows, n,
           c, reps);
    best = 1e30;
    for (int k = 0; k < reps; k++) {
        double t0 = cpu_now();
        pass_openblas(&g, c, x, z, t, ref);
        best = fmin(best, cpu_now() - t0);
    }
    report("pass", "f32-openblas", best, macs, ref, NULL, 0);
    if (gsvd_cpu_avx2(why, sizeof why)) {
        gsvd_avx2x *ax = NULL;
        gsvd_avx2w *aw = NULL;
        if (gsvd_avx2x_new(&ax) < 0 || gsvd_avx2w_new(&aw) < 0 || gsvd_avx2x_set(ax, n, c, x) < 0 ||
            gsvd_avx2w_reserve(aw, ax, rows) < 0)
            return 1;
        best = 1e30;
        for (int k = 0; k < reps; k++) {
            double t0 = cpu_now();
            gsvd_avx2_pass_group(ax, aw, &blk, yg);
            best = fmin(best, cpu_now() - t0);
        }
        report("pass", "f32-avx2", best, macs, yg, ref, n * c);
        gsvd_avx2x_free(ax);
        gsvd_avx2w_free(aw);
    } else {
        printf("pass f32-avx2: %s\n", why);
    }
    if (gsvd_amx_int8_usable(why, sizeof why) && rows <= GSVD_I8P_MAX_ROWS) {
        gsvd_i8x *ix = NULL;
        gsvd_i8w *iw = NULL;
        if (gsvd_i8x_new(&ix) < 0 || gsvd_i8w_new(&iw) < 0 || gsvd_i8x_set(ix, n, c, x) < 0 ||
            gsvd_i8w_reserve(iw, ix, rows) < 0)
            return 1;
        best = 1e30;
        for (int k = 0; k < reps; k++) {
            double t0 = cpu_now();
            gsvd_i8_pass_group(ix, iw, &blk, yg);
            best = fmin(best, cpu_now() - t0);
        }
        report("pass", "i8-amx", best, macs, yg, ref, n * c);
        gsvd_i8x_free(ix);
        gsvd_i8w_free(iw);
    } else {
        printf("pass i8-amx: %s\n", why);
    }
    grp_free(&g);
    gsvd_free(x), gsvd_free(ref), gsvd_free(yg), gsvd_free(z), gsvd_free(t);
    return 0;
}

/* The upper tiles of one group's Gram with an int8 engine: pack, then every tile; the float64
 * result in gout (n x n, upper tiles). */
static int gram_i8_run(int engine, const struct grp *g, double *gout, double *pack_s,
                       double *tile_s)
{
    size_t n = g->n, ts = GSVD_I8_TILE;
    gsvd_i8_pack *p = NULL;
    int32_t *acc = gsvd_calloc(GSVD_I8_ACC, sizeof *acc);
    double *c = gsvd_malloc(ts * ts * sizeof *c), werr, t0;

    if (!acc || !c || gsvd_i8_pack_new(&p, engine) < 0 ||
        gsvd_i8_pack_plan(p, g->rows, n, g->codes, g->center, g->scale, g->missing, &werr) < 0)
        return 1;
    t0 = cpu_now();
    for (size_t s = 0; s < gsvd_i8_pack_strips(p); s++)
        gsvd_i8_pack_strip(p, s);
    *pack_s = cpu_now() - t0;
    t0 = cpu_now();
    for (size_t i0 = 0; i0 < n; i0 += ts)
        for (size_t j0 = i0; j0 < n; j0 += ts) {
            size_t wi = n - i0 < ts ? n - i0 : ts, wj = n - j0 < ts ? n - j0 : ts;
            gsvd_i8_gram_tile(p, i0, j0, wi, wj, acc, c);
            for (size_t i = 0; i < wi; i++)
                for (size_t j = 0; j < wj; j++)
                    gout[(i0 + i) * n + j0 + j] = c[i * ts + j];
        }
    *tile_s = cpu_now() - t0;
    gsvd_i8_pack_free(p);
    gsvd_free(acc);
    gsvd_free(c);
    return 0;
}

static int bench_gram(size_t rows, size_t n, int reps)
{
    struct grp g;
    struct gsvd_gblock blk;
    float *z = gsvd_malloc(rows * n * sizeof *z), *gs = gsvd_calloc(n * n, sizeof *gs);
    float *ref = gsvd_calloc(n * n, sizeof *ref), *gf = gsvd_calloc(n * n, sizeof *gf);
    double *gd = gsvd_calloc(n * n, sizeof *gd), best = 1e30;
    double macs = (double)rows * (double)n * (double)(n + 1) / 2;
    static const int engines[] = {GSVD_I8_AMX, GSVD_I8_VNNI, GSVD_I8_AVX2};

    grp_make(&g, rows, n);
    blk = grp_block(&g);
    printf("gram group: %zu rows x %zu samples, 1%% missing; least of %d\n", rows, n, reps);
    for (int k = 0; k < reps; k++) {
        double t0 = cpu_now();
        for (size_t r = 0; r < rows; r++)
            gsvd_cpu_expand_row(&blk, r, z + r * n, NULL);
        cblas_ssyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)n, (int)rows, 1.0f, z, (int)n, 0.0f,
                    gs, (int)n);
        best = fmin(best, cpu_now() - t0);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            ref[i * n + j] = gs[i * n + j];
    report("gram", "f32-openblas", best, macs, ref, NULL, 0);
    for (size_t e = 0; e < sizeof engines / sizeof *engines; e++) {
        char why[160], name[32];
        double pk = 1e30, tl = 1e30;
        if (!gsvd_i8_engine_usable(engines[e], why, sizeof why)) {
            printf("gram i8 %s: %s\n", gsvd_i8_engine_name(engines[e]), why);
            continue;
        }
        for (int k = 0; k < reps; k++) {
            double a, b;
            if (gram_i8_run(engines[e], &g, gd, &a, &b) != 0)
                return 1;
            pk = fmin(pk, a);
            tl = fmin(tl, b);
        }
        for (size_t i = 0; i < n; i++)
            for (size_t j = i; j < n; j++)
                gf[i * n + j] = (float)gd[i * n + j];
        snprintf(name, sizeof name, "i8 %s", gsvd_i8_engine_name(engines[e]));
        report("gram", name, pk + tl, macs, gf, ref, n * n);
        printf("     (pack %.4f s, tiles %.4f s: %.2f GMAC/s of two int8 products)\n", pk, tl,
               2 * macs / tl / 1e9);
    }
    grp_free(&g);
    gsvd_free(z), gsvd_free(gs), gsvd_free(ref), gsvd_free(gf), gsvd_free(gd);
    return 0;
}

static size_t arg(int argc, char **argv, int i, size_t dflt)
{
    return argc > i ? (size_t)strtoull(argv[i], NULL, 10) : dflt;
}

int main(int argc, char **argv)
{
    openblas_set_num_threads(1);
    if (argc >= 2 && strcmp(argv[1], "pass") == 0)
        return bench_pass(arg(argc, argv, 2, 512), arg(argc, argv, 3, 20000),
                          arg(argc, argv, 4, 20), (int)arg(argc, argv, 5, 5));
    if (argc >= 2 && strcmp(argv[1], "gram") == 0)
        return bench_gram(arg(argc, argv, 2, 4096), arg(argc, argv, 3, 2048),
                          (int)arg(argc, argv, 4, 3));
    fprintf(stderr, "usage: kernel_bench pass [ROWS N C REPS] | gram [ROWS N REPS]\n");
    return 2;
}
