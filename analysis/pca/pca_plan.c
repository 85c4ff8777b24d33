/* analysis/pca/pca_plan.c - the methods' and stop rules' names, and gsvd_pca_plan: what a run
 * holds (basis, pass buffers, decode pipeline, cache; exact's Gram matrices and Gram kernel
 * buffers) fitted into --memory.  See pca.h. */
#include "gsvd_config.h"
#include "analysis/pca/pca.h"

#include <math.h>
#include <stdio.h>

#include "analysis/cpu/kernels/pass_avx2.h"
#include "analysis/cpu/kernels/pass_i8.h"
#include "common/err.h"
#include "common/log.h"

const char *gsvd_pca_method_name(enum gsvd_pca_method m)
{
    switch (m) {
    case GSVD_PCA_RANDOMIZED:
        return "randomized";
    case GSVD_PCA_KRYLOV:
        return "krylov";
    case GSVD_PCA_SUBSPACE:
        return "subspace";
    case GSVD_PCA_EXACT:
        return "exact";
    case GSVD_PCA_AUTO:
        return "auto";
    }
    return "unknown";
}

const char *gsvd_pca_accuracy_name(enum gsvd_pca_accuracy a)
{
    return a == GSVD_PCA_ACCURACY_BULK ? "bulk" : "fast";
}

enum gsvd_pca_method gsvd_pca_method_for(const struct gsvd_pca_params *p, size_t n)
{
    if (p->method != GSVD_PCA_AUTO)
        return p->method;
    if (n <= GSVD_PCA_AUTO_EXACT_N || p->tw) /* Tracy-Widom needs the Gram (tracy_widom.h) */
        return GSVD_PCA_EXACT;
    return p->accuracy == GSVD_PCA_ACCURACY_BULK ? GSVD_PCA_KRYLOV : GSVD_PCA_RANDOMIZED;
}

enum gsvd_pca_stop gsvd_pca_stop_for(const struct gsvd_pca_params *p)
{
    return p->accuracy == GSVD_PCA_ACCURACY_BULK ? GSVD_PCA_STOP_ESTIMATE : p->stop;
}

const char *gsvd_pca_stop_name(enum gsvd_pca_stop r)
{
    switch (r) {
    case GSVD_PCA_STOP_BOUND:
        return "bound";
    case GSVD_PCA_STOP_SUBSPACE:
        return "subspace";
    case GSVD_PCA_STOP_ESTIMATE:
        return "estimate";
    }
    return "unknown";
}

/* Bytes the CPU's Gram kernel holds besides the float64 Gram and its exact-sum part, for a
 * group of `rows` rows of n samples: f32 and f64 the group as float32 and the float32 N x N
 * block (f64: the group again as float64); amx the group and its bf16 hi/lo parts in two
 * layouts; i8 two groups of codes and three tile copies.  auto on a large product (big) may
 * take i8 or stay f32 (gsvd_backend_gram_fast): the larger. */
static double gram_kernel_bytes(const struct gsvd_backend_params *bp, enum gsvd_pca_method m,
                                double n, double rows, int big)
{
    double f32 =
        4.0 * rows * n + (n <= GSVD_GRAM_F32_MAX_N && !bp->gram_f64 ? 4.0 * n * n : 8.0 * rows * n);
    switch (bp->gram_kernel) {
    case GSVD_GRAM_I8:
        return 5.0 * rows * n;
    case GSVD_GRAM_AMX:
        return 12.0 * rows * n;
    case GSVD_GRAM_F32:
        return f32;
    default:
        return m == GSVD_PCA_AUTO && big ? fmax(f32, 5.0 * rows * n) : f32;
    }
}

/* --memory as a person reads it in a message: "512 KiB", "300 MiB", "2 GiB". */
static const char *memory_text(char buf[32], uint64_t bytes)
{
    static const char *unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, 32, "%.4g %s", v, unit[u]);
    return buf;
}

int gsvd_pca_plan(gsvd_geno *g, uint64_t memory, const struct gsvd_backend_params *bp,
                  struct gsvd_pca_params *p, uint64_t *cache_bytes)
{
    double n = (double)gsvd_geno_n_samples(g), l = (double)(p->n_components + p->oversampling);
    char mem[32];
    double mib = 1048576.0, window = (double)(p->window < 2 ? 2 : p->window);
    double threads = (double)(bp->n_threads ? bp->n_threads : 1);
    /* basis: K, Y and a scratch of n x l x window float64; per pass: X, Y rows (float64) and
     * each thread's n x l float32 partial product and float32 sub-tile (~5 MiB); the pass
     * engine's X and workspaces (analysis/cpu/kernels/pass_i8.h unless f32 is asked for,
     * pass_avx2.h) */
    double per_block = 3.0 * 8.0 * l * n;
    double pass = 2.0 * 8.0 * l * n + threads * (4.0 * l * n + 5.0 * mib + 8.0 * 1024 * n / 4);
    /* the int8 tiles' X digits and workspaces, or the AVX2 engine's X^T and workspaces (the
     * larger, whichever of them this CPU runs) */
    size_t group = gsvd_backend_pass_group_rows((size_t)n, 1);
    double engine = gsvd_avx2p_bytes((size_t)n, (size_t)l, group, (size_t)threads);
    if (bp->pass_kernel != GSVD_PASS_F32)
        engine = fmax(engine, gsvd_i8p_bytes((size_t)n, (size_t)l, group, (size_t)threads));
    pass += engine;
    double scan = (double)gsvd_geno_scan_bytes(g);
    enum gsvd_pca_method method = gsvd_pca_method_for(p, (size_t)n);
    int iterative = method != GSVD_PCA_EXACT;
    /* basis blocks: randomized restarts at `window`; krylov keeps one per pass (and the start);
     * subspace holds one; none holds more columns than samples (gsvd_pca_run's cap) */
    int fixed_basis = method == GSVD_PCA_KRYLOV || method == GSVD_PCA_SUBSPACE;
    if (method == GSVD_PCA_KRYLOV)
        window = (double)((p->power_iter ? p->power_iter : p->max_iter) + 1);
    else if (method == GSVD_PCA_SUBSPACE)
        window = 1;
    if (window * l > n)
        window = ceil(n / l);

    if (!iterative) {
        /* the backend's float64 Gram and exact-sum parts, the Gram kernel's buffers, and the
         * caller's copy of the Gram (distributed: the exact-sum part too), held together
         * when the scan ends (analysis/pca/pca_exact.c) */
        int big = (double)gsvd_geno_n_variants(g) * n * n >= GSVD_PCA_FAST_GRAM_WORK;
        double rows = (double)gsvd_backend_gram_group_rows((size_t)n);
        double gram =
            (p->comm ? 4.0 : 3.0) * 8.0 * n * n + gram_kernel_bytes(bp, p->method, n, rows, big);
        if (memory && gram + scan > (double)memory) {
            gsvd_log_error("--memory %s is below what the exact method needs (%.0f MiB for "
                           "%.0f samples: the N x N Gram matrices and the Gram kernel's buffers)",
                           memory_text(mem, memory), (gram + scan) / mib, n);
            return GSVD_EINVAL;
        }
        if (memory)
            *cache_bytes = 0; /* one pass: nothing to cache (loadings re-read the store) */
        gsvd_log_info("plan: exact, Gram %.0f MiB, decode pipeline %.0f MiB", gram / mib,
                      scan / mib);
        return GSVD_OK;
    }
    if (memory) {
        double fixed = pass + scan, blocks = ((double)memory - fixed) / per_block;
        if (fixed_basis && blocks < window) {
            gsvd_log_error("--memory %s is below the %.0f MiB --method %s needs for %.0f "
                           "samples (basis of %.0f blocks of %.0f columns, pass buffers, decode "
                           "pipeline)%s",
                           memory_text(mem, memory), (fixed + window * per_block) / mib,
                           p->method == GSVD_PCA_KRYLOV ? "krylov" : "subspace", n, window, l,
                           p->method == GSVD_PCA_KRYLOV ? "; fewer --max-iter or randomized's "
                                                          "restarted basis fit in less"
                                                        : "");
            return GSVD_EINVAL;
        }
        if (blocks < 2 && !fixed_basis) {
            gsvd_log_error("--memory %s is below the minimum of %.0f MiB for %.0f samples "
                           "(basis of two blocks of %.0f columns, pass buffers, decode pipeline)",
                           memory_text(mem, memory), (fixed + 2 * per_block) / mib, n, l);
            return GSVD_EINVAL;
        }
        if (blocks < window && !fixed_basis) {
            window = floor(blocks);
            p->window = (size_t)window;
        }
        double left = (double)memory - fixed - window * per_block;
        if (left < (double)*cache_bytes)
            *cache_bytes = left > 0 ? (uint64_t)left : 0;
    }
    gsvd_log_info("plan: %.0f samples, block %.0f columns, %s %.0f (basis %.0f MiB), pass "
                  "buffers %.0f MiB (%.0f threads), decode pipeline %.0f MiB, cache up to %.0f MiB "
                  "in memory%s",
                  n, l, fixed_basis ? "basis blocks" : "window", window, window * per_block / mib,
                  pass / mib, threads, scan / mib, (double)*cache_bytes / mib,
                  *cache_bytes ? ", the rest spilled" : "");
    return GSVD_OK;
}
