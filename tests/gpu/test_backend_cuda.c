/* tests/gpu/test_backend_cuda.c - the CUDA backend against the CPU backend on the same inputs.
 * Exits 77 (ctest: skipped) when no usable device is found.
 *  - every op on int8, 2-bit and float64 blocks, split into uneven blocks that cross the
 *    backend's row groups: pass (Y = Z^T Z X, a new X each time) and Gram to 1e-5 of the
 *    largest entry, the traces bit-identical, project to 1e-6;
 *  - eigh on the host path (small order) and the cuSOLVER path (order >= 512);
 *  - Philox words generated on the device equal the host's;
 *  - pdist ops: bit-plane counts of a band (offset rows, two segments, both counting forms)
 *    bit-identical to the kernel bodies run serially on the host; float64 sums bit-identical
 *    (minkowski within 1e-14); a second band reuses the accumulators;
 *  - whole PCA runs on the store named by argv[1] (exact with loadings, and randomized, whose
 *    later passes read the 2-bit cache): singular values to 1e-5 relative, 1 - MEV between the
 *    sample subspaces below 1e-5, traces identical.
 * Usage: test_backend_cuda STORE.vcz [PART...]   PART: ops, eigh, pdist, pca (default: all);
 * scripts/gpu-check.sh runs parts under compute-sanitizer (memcheck: ops pdist; racecheck:
 * the pdist tile kernel). */
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "analysis/backend.h"
#include "analysis/backend_internal.h"
#include "analysis/scan/genotype.h"
#include "analysis/pca/pca.h"
#include "analysis/pca/pca_device.h"
#include "analysis/pdist/pdist_device.h"
#include "common/rng.h"
#include "gpu/backend_cuda.h"
#include "gpu/cuda_host.h"
#include "gpu/kernels.h"
#include "gsvd_test.h"
#include "pdist_serial.h"
#include "zarr/store.h"
#include "zarr/tree.h"

const struct gsvd_backend_ops *const gsvd_backend_registry[] = {&gsvd_backend_cuda_ops,
                                                                &gsvd_backend_cpu_ops, NULL};

#define N 300
#define ROWS 9000 /* more than one row group of the CUDA backend at N = 300 */
#define BLOCK 1000

static double rel_err(const double *a, const double *b, size_t count)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < count; i++) {
        num = fmax(num, fabs(a[i] - b[i]));
        den = fmax(den, fabs(b[i]));
    }
    return den > 0 ? num / den : num;
}

struct data {
    int8_t *i8;
    uint8_t *p2;
    double *f64;
    float center[ROWS], scale[ROWS], missing[ROWS];
};

static void make_data(struct data *d)
{
    size_t rb = (N + 3) / 4;
    d->i8 = malloc((size_t)ROWS * N);
    d->p2 = calloc((size_t)ROWS * rb, 1);
    d->f64 = malloc((size_t)ROWS * N * sizeof *d->f64);
    for (size_t r = 0; r < ROWS; r++) {
        double p = 0.05 + 0.9 * gsvd_rng_unit(gsvd_rng_words(1, 1, r, 0).v[0], 1);
        d->center[r] = (float)(2 * p);
        d->scale[r] = (float)(1 / sqrt(p * (1 - p)));
        d->missing[r] = 0;
        for (size_t i = 0; i < N; i++) {
            struct gsvd_rng4 w = gsvd_rng_words(1, 2, r, i);
            double u1 = gsvd_rng_unit(w.v[0], 0), u2 = gsvd_rng_unit(w.v[1], 0);
            int v = (u1 < p) + (u2 < p);
            if (w.v[2] % 50 == 0)
                v = -1;
            d->i8[r * N + i] = (int8_t)v;
            d->p2[r * rb + i / 4] |= (uint8_t)((v < 0 ? 3u : (unsigned)v) << (2 * (i % 4)));
            d->f64[r * N + i] = v < 0 ? NAN : v + 0.01 * (double)(w.v[3] % 7);
        }
    }
}

static struct gsvd_gblock part(const struct data *d, int fmt, size_t r0, size_t rows)
{
    struct gsvd_gblock b = {.n_rows = rows,
                            .n_cols = N,
                            .center = d->center + r0,
                            .scale = d->scale + r0,
                            .missing = d->missing + r0};
    if (fmt == 0)
        b.i8 = d->i8 + r0 * N;
    else if (fmt == 1)
        b.p2 = d->p2 + r0 * ((N + 3) / 4);
    else
        b.f64 = d->f64 + r0 * N;
    return b;
}

/* pass, Gram and project of one format on one backend */
static void run_ops(gsvd_backend *be, const struct data *d, int fmt, const double *x, size_t c,
                    double *y, double *g, double *proj, double *tr_pass, double *tr_gram)
{
    *tr_pass = *tr_gram = 0;
    GSVD_CHECK_RC(gsvd_backend_pass_begin(be, N, c, x), 0);
    for (size_t r0 = 0; r0 < ROWS; r0 += BLOCK + 7) {
        size_t rows = ROWS - r0 < BLOCK + 7 ? ROWS - r0 : BLOCK + 7;
        struct gsvd_gblock b = part(d, fmt, r0, rows);
        GSVD_CHECK_RC(gsvd_backend_pass_block(be, &b, tr_pass), 0);
    }
    GSVD_CHECK_RC(gsvd_backend_pass_end(be, y), 0);
    GSVD_CHECK_RC(gsvd_backend_gram_begin(be, N), 0);
    for (size_t r0 = 0; r0 < ROWS; r0 += BLOCK - 3) {
        size_t rows = ROWS - r0 < BLOCK - 3 ? ROWS - r0 : BLOCK - 3;
        struct gsvd_gblock b = part(d, fmt, r0, rows);
        GSVD_CHECK_RC(gsvd_backend_gram_block(be, &b, tr_gram), 0);
    }
    GSVD_CHECK_RC(gsvd_backend_gram_end(be, g), 0);
    {
        struct gsvd_gblock b = part(d, fmt, 0, ROWS);
        GSVD_CHECK_RC(gsvd_backend_project(be, &b, c, x, proj), 0);
    }
}

static void test_ops(gsvd_backend *cpu, gsvd_backend *gpu)
{
    static struct data d;
    size_t c = 12;
    double *x = malloc(N * c * sizeof *x), *y[2], *g[2], *pr[2], tp[2], tg[2];

    make_data(&d);
    for (int k = 0; k < 2; k++) {
        y[k] = malloc(N * c * sizeof *y[k]);
        g[k] = malloc(N * N * sizeof *g[k]);
        pr[k] = malloc((size_t)ROWS * c * sizeof *pr[k]);
    }
    for (int fmt = 0; fmt < 3; fmt++) {
        /* a new X for each pass: a pass that read the previous pass's X (an upload not ordered
         * before its products) would be far from the CPU's */
        for (size_t i = 0; i < N * c; i++)
            x[i] = gsvd_rng_normal(9 + (uint64_t)fmt, GSVD_RNG_PCA_OMEGA, i / c, i % c);
        run_ops(cpu, &d, fmt, x, c, y[0], g[0], pr[0], &tp[0], &tg[0]);
        run_ops(gpu, &d, fmt, x, c, y[1], g[1], pr[1], &tp[1], &tg[1]);
        printf("format %d: pass %.2e, Gram %.2e, project %.2e; traces %.17g %.17g\n", fmt,
               rel_err(y[1], y[0], N * c), rel_err(g[1], g[0], N * N),
               rel_err(pr[1], pr[0], (size_t)ROWS * c), tp[0], tp[1]);
        GSVD_CHECK(rel_err(y[1], y[0], N * c) < 1e-5);
        GSVD_CHECK(rel_err(g[1], g[0], N * N) < 1e-5);
        GSVD_CHECK(rel_err(pr[1], pr[0], (size_t)ROWS * c) < 1e-6);
        GSVD_CHECK(tp[0] == tp[1]);
        GSVD_CHECK(tg[0] == tg[1]);
        GSVD_CHECK(tp[0] == tg[0]);
    }
    for (int k = 0; k < 2; k++) {
        free(y[k]);
        free(g[k]);
        free(pr[k]);
    }
    free(x);
    free(d.i8);
    free(d.p2);
    free(d.f64);
}

/* eigenpairs of a random symmetric matrix of order n on both backends */
static void test_eigh(gsvd_backend *cpu, gsvd_backend *gpu, size_t n)
{
    double *a0 = malloc(n * n * sizeof *a0), *a1 = malloc(n * n * sizeof *a1);
    double *w0 = malloc(n * sizeof *w0), *w1 = malloc(n * sizeof *w1), worst = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++)
            a0[i * n + j] = a0[j * n + i] = gsvd_rng_normal(5, 7, i, j) + (i == j ? (double)i : 0);
    memcpy(a1, a0, n * n * sizeof *a0);
    GSVD_CHECK_RC(gsvd_backend_eigh(cpu, n, a0, w0), 0);
    GSVD_CHECK_RC(gsvd_backend_eigh(gpu, n, a1, w1), 0);
    GSVD_CHECK(rel_err(w1, w0, n) < 1e-10);
    for (size_t q = 0; q < n; q++) { /* eigenvector q is column q (row-major) */
        double dotp = 0;
        for (size_t i = 0; i < n; i++)
            dotp += a0[i * n + q] * a1[i * n + q];
        worst = fmax(worst, 1 - fabs(dotp));
    }
    printf("eigh n %zu: eigenvalues %.2e, worst 1 - |cos| %.2e\n", n, rel_err(w1, w0, n), worst);
    GSVD_CHECK(worst < 1e-8);
    free(a0);
    free(a1);
    free(w0);
    free(w1);
}

static void test_rng(void)
{
    enum { COUNT = 100000, COLS = 20 };
    uint32_t *dev = NULL, *host = malloc(4 * COUNT * sizeof *host);
    int same = 1;
    GSVD_CHECK(cudaMalloc((void **)&dev, 4 * COUNT * sizeof *dev) == cudaSuccess);
    GSVD_CHECK_RC(gsvd_cuda_rng_words(0, 42, GSVD_RNG_PCA_OMEGA, 3, COLS, COUNT, dev), 0);
    GSVD_CHECK(cudaMemcpy(host, dev, 4 * COUNT * sizeof *dev, cudaMemcpyDeviceToHost) ==
               cudaSuccess);
    for (size_t t = 0; t < COUNT; t++) {
        struct gsvd_rng4 w = gsvd_rng_words(42, GSVD_RNG_PCA_OMEGA, 3 + t / COLS, t % COLS);
        same &= memcmp(w.v, host + 4 * t, sizeof w.v) == 0;
    }
    GSVD_CHECK(same);
    cudaFree(dev);
    free(host);
}

static struct gsvd_pca_result *run_pca(gsvd_tree *t, gsvd_backend *be,
                                       const struct gsvd_pca_params *pp)
{
    struct gsvd_geno_params gp = GSVD_GENO_PARAMS_DEFAULT;
    gsvd_geno *g = NULL;
    struct gsvd_pca_result *r = NULL;
    gp.n_threads = 2;
    gp.cache_bytes = (uint64_t)1 << 30;
    GSVD_CHECK_RC(gsvd_geno_open(t, "", &gp, &g), 0);
    if (g)
        GSVD_CHECK_RC(gsvd_pca_run(g, be, pp, &r), 0);
    gsvd_geno_close(g);
    return r;
}

static void compare_pca(gsvd_tree *t, gsvd_backend *cpu, gsvd_backend *gpu,
                        enum gsvd_pca_method method)
{
    struct gsvd_pca_params pp = GSVD_PCA_PARAMS_DEFAULT;
    struct gsvd_pca_result *a, *b;
    pp.n_components = 6;
    pp.method = method;
    pp.loadings = method == GSVD_PCA_EXACT;
    a = run_pca(t, cpu, &pp);
    b = run_pca(t, gpu, &pp);
    if (a && b) {
        size_t n = a->n, k = a->k;
        double mev = 0, srel = 0;
        for (size_t q = 0; q < k; q++) {
            double s2 = 0;
            for (size_t j = 0; j < k; j++) {
                double dotp = 0;
                for (size_t i = 0; i < n; i++)
                    dotp += a->u[i * k + j] * b->u[i * k + q];
                s2 += dotp * dotp;
            }
            mev += sqrt(s2);
            srel = fmax(srel, fabs(a->s[q] - b->s[q]) / a->s[q]);
        }
        mev = 1 - mev / (double)k;
        printf("pca %s: %zu x %zu, singular values %.2e, 1 - MEV %.2e, passes %zu / %zu\n",
               gsvd_pca_method_name(method), n, (size_t)a->m_used, srel, mev, a->iterations,
               b->iterations);
        GSVD_CHECK(srel < 1e-5);
        GSVD_CHECK(mev < 1e-5);
        GSVD_CHECK(a->trace == b->trace);
        if (a->v && b->v) {
            double worst = 0;
            for (size_t q = 0; q < k; q++) {
                double dotp = 0;
                for (uint64_t v = 0; v < a->m_range; v++)
                    if (a->var_included[v])
                        dotp += a->v[v * k + q] * b->v[v * k + q];
                worst = fmax(worst, 1 - fabs(dotp));
            }
            printf("pca %s: loadings worst 1 - |cos| %.2e\n", gsvd_pca_method_name(method), worst);
            GSVD_CHECK(worst < 1e-5);
        }
    }
    gsvd_pca_result_free(a);
    gsvd_pca_result_free(b);
}

/* ---- pdist ops ---------------------------------------------------------------------------- */

static uint64_t pd_word(uint64_t i, uint64_t w)
{
    struct gsvd_rng4 r = gsvd_rng_words(5, 17, i, w);
    return (uint64_t)r.v[0] << 32 | r.v[1];
}

/* king: the KING counts (the third plane is then P; any bits do for the comparison) */
static void test_pdist_counts(gsvd_backend *gpu, int l1, int king)
{
    const size_t n = 700, W = 64, nw = 40, row0 = 100, nb = 250, nc = n - row0;
    const size_t per = gsvd_pdk_counts_per_pair(king);
    uint64_t *planes = calloc(2 * n * 3 * W, sizeof *planes);
    uint32_t *dev = calloc(nb * nc * per, sizeof *dev), *host = calloc(nb * nc * per, sizeof *host);
    struct gsvd_pd_dev_band band = {
        .kind = GSVD_PD_DEV_COUNTS, .nb = nb, .nc = nc, .W = W, .l1 = l1, .king = king};

    GSVD_CHECK(planes && dev && host);
    if (!planes || !dev || !host)
        goto out;
    for (size_t seg = 0; seg < 2; seg++)
        for (size_t i = 0; i < n; i++)
            for (size_t w = 0; w < nw; w++) {
                uint64_t *p = planes + (seg * n + i) * 3 * W;
                uint64_t c = pd_word(seg * n + i, w) | pd_word(i, w + 999); /* ~75% called */
                uint64_t a = pd_word(i + 7 * n, w + seg) & c, b = pd_word(i, w + 3 * W) & a;
                p[w] = c;
                p[W + w] = a;
                p[2 * W + w] = b;
            }
    GSVD_CHECK_RC(gsvd_backend_pd_begin(gpu, &band), 0);
    for (size_t seg = 0; seg < 2; seg++) {
        struct gsvd_pdk_counts_args a = {.planes = planes + (seg * n + row0) * 3 * W,
                                         .W = W,
                                         .nw = nw,
                                         .nb = nb,
                                         .nc = nc,
                                         .l1 = l1,
                                         .king = king,
                                         .cnt = host};
        GSVD_CHECK_RC(gsvd_backend_pd_planes(gpu, a.planes, nw), 0);
        gsvd_serial_pd_counts(&a, gsvd_pdk_tiles(nb), 0);
    }
    GSVD_CHECK_RC(gsvd_backend_pd_end(gpu, dev), 0);
    GSVD_CHECK(memcmp(dev, host, nb * nc * per * sizeof *dev) == 0);
out:
    free(planes);
    free(dev);
    free(host);
}

static void test_pdist_sums(gsvd_backend *gpu, enum gsvd_pdist_metric m)
{
    const size_t n = 333, nf = 90, row0 = 20, nb = 100, nc = n - row0;
    double *x = malloc(2 * nf * nc * sizeof *x);
    double *dev = calloc(nb * nc * GSVD_PD_N_SUMS, sizeof *dev);
    double *host = calloc(nb * nc * GSVD_PD_N_SUMS, sizeof *host);
    struct gsvd_pd_dev_band band = {
        .kind = GSVD_PD_DEV_SUMS, .nb = nb, .nc = nc, .metric = (int)m, .p = 1.5};

    GSVD_CHECK(x && dev && host);
    if (!x || !dev || !host)
        goto out;
    for (size_t k = 0; k < 2 * nf * nc; k++) {
        uint32_t u = gsvd_rng_words(9, 1, k, 0).v[0];
        x[k] = u % 11 == 0 ? NAN : ((double)(u % 20001) - 10000.0) / 777.0;
    }
    GSVD_CHECK_RC(gsvd_backend_pd_begin(gpu, &band), 0);
    for (size_t piece = 0; piece < 2; piece++) {
        struct gsvd_pdk_sums_args a = {.x = x + piece * nf * nc,
                                       .nf = nf,
                                       .nb = nb,
                                       .nc = nc,
                                       .metric = (int)m,
                                       .p = 1.5,
                                       .sums = host};
        GSVD_CHECK_RC(gsvd_backend_pd_rows(gpu, a.x, nf), 0);
        gsvd_serial_pd_sums(&a, 0);
    }
    GSVD_CHECK_RC(gsvd_backend_pd_end(gpu, dev), 0);
    if (m == GSVD_PDIST_MINKOWSKI)
        GSVD_CHECK(rel_err(dev, host, nb * nc * GSVD_PD_N_SUMS) <= 1e-14);
    else
        GSVD_CHECK(memcmp(dev, host, nb * nc * GSVD_PD_N_SUMS * sizeof *dev) == 0);
out:
    free(x);
    free(dev);
    free(host);
}

/* Is PART among the parts named on the command line (all when none is)? */
static int want(int argc, char **argv, const char *part)
{
    if (argc <= 2)
        return 1;
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], part) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const parts[] = {"ops", "eigh", "pdist", "pca"};
    char why[256] = "";
    gsvd_backend *cpu = NULL, *gpu = NULL;
    gsvd_store *st = NULL;
    gsvd_tree *t = NULL;
    struct gsvd_backend_params bp = {.n_threads = 2};

    for (int i = 2; i < argc; i++) {
        int known = 0;
        for (size_t k = 0; k < sizeof parts / sizeof *parts; k++)
            known |= strcmp(argv[i], parts[k]) == 0;
        if (!known)
            argc = 0; /* usage */
    }
    if (argc < 2) {
        fprintf(stderr, "usage: test_backend_cuda STORE.vcz [ops|eigh|pdist|pca]...\n");
        return 2;
    }
    if (gsvd_backend_cuda_ops.probe(why, sizeof why) <= 0) {
        printf("test_backend_cuda: skipped: %s\n", why);
        return 77;
    }
    GSVD_CHECK_RC(gsvd_cuda_host_set(gsvd_backend_host_table()), 0);
    GSVD_CHECK_RC(gsvd_backend_create(&gsvd_backend_cpu_ops, &bp, &cpu), 0);
    GSVD_CHECK_RC(gsvd_backend_create(&gsvd_backend_cuda_ops, &bp, &gpu), 0);
    if (cpu && gpu && want(argc, argv, "ops")) {
        test_rng();
        test_ops(cpu, gpu);
    }
    if (cpu && gpu && want(argc, argv, "eigh")) {
        test_eigh(cpu, gpu, 40);
        test_eigh(cpu, gpu, 700);
    }
    if (cpu && gpu && want(argc, argv, "pdist")) {
        GSVD_CHECK(gsvd_backend_has_pdist(gpu) && !gsvd_backend_has_pdist(cpu));
        test_pdist_counts(gpu, 0, 0);
        test_pdist_counts(gpu, 1, 0);
        test_pdist_counts(gpu, 0, 1);
        for (int m = 0; m < GSVD_PDIST_N_METRICS; m++)
            test_pdist_sums(gpu, (enum gsvd_pdist_metric)m);
    }
    if (cpu && gpu && want(argc, argv, "pca")) {
        GSVD_CHECK_RC(gsvd_store_open(argv[1], GSVD_STORE_READ, &st), 0);
        if (st)
            GSVD_CHECK_RC(gsvd_tree_open(st, &t), 0);
        if (t) {
            compare_pca(t, cpu, gpu, GSVD_PCA_EXACT);
            compare_pca(t, cpu, gpu, GSVD_PCA_RANDOMIZED);
        }
    }
    gsvd_tree_close(t);
    gsvd_store_close(st);
    gsvd_backend_destroy(gpu);
    gsvd_backend_destroy(cpu);
    return gsvd_test_report("test_backend_cuda");
}
