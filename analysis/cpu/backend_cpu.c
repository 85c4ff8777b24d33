/* analysis/cpu/backend_cpu.c - the CPU backend: OpenBLAS for the block products, LAPACKE for the
 * small dense problems.  Blocks are standardised into float32 (a per-row lookup table for
 * integer dosages), multiplied with sgemm/ssyrk, and each block's result is added into float64
 * accumulators, so rounding does not grow with the number of variants.  The BLAS thread count
 * is set at create and restored at destroy.  The Gram (exact method) is in
 * backend_cpu_gram.c. */
#include "gsvd_config.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "analysis/cpu/backend_cpu_internal.h"
#include "analysis/cpu/blas_room.h"
#include "analysis/cpu/cpu_rows.h"
#include "analysis/scan/dosage.h"
#include "analysis/scan/gblock_std.h"
#include "analysis/cpu/kernels/gram_amx.h"
#include "analysis/cpu/kernels/pass_avx2.h"
#include "analysis/pca/pca_device.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/cpu.h"
#include "common/err.h"
#include "common/log.h"
#include "common/parallel.h"
#include "common/xsum.h"

/* One pass group's scratch, used by one thread at a time. */
struct pass_slot {
    float *z;          /* sub x n standardised rows */
    float *t;          /* sub x c, Z_sub X */
    float *yg;         /* n x c, the group's Z^T Z X */
    gsvd_i8w *i8w;     /* the i8 pass kernel's scratch, or NULL */
    gsvd_avx2w *avx2w; /* the AVX2 pass engine's scratch, or NULL */
};

/* The passes' state (struct backend_cpu.pass): the settings create chose, this pass's X and
 * accumulators, and the staging of row groups (see "passes" below). */
struct cpu_pass {
    int i8;            /* 2-bit pass groups on the int8 tiles (pass_kernel i8, or auto here) */
    int avx2;          /* 2-bit pass groups on the AVX2 float32 engine (f32 or auto here) */
    char why[160];     /* why not i8 (and, for f32, why not the AVX2 engine) */
    int said;          /* -v named the pass kernel */
    gsvd_i8x *i8x;     /* X's digits for this pass (i8), or NULL */
    gsvd_avx2x *avx2x; /* X transposed for this pass (avx2), or NULL */
    size_t n, c;       /* current pass: samples, columns of X */
    float *x;          /* n x c, X in float32 */
    double *y;         /* n x c accumulator */
    double *ylo;       /* n x c low parts of the exact sums (when bounded) */
    struct gsvd_xgrid *ygrid; /* c: grid of Y's column j */
    struct gsvd_xgrid trgrid; /* grid of the trace */
    double tr_hi, tr_lo;      /* the trace of this pass */
    uint64_t next_index;      /* rows without an index: the next row's number */
    size_t group, sub;        /* rows per group (by the staged format) and per sub-tile */
    size_t group_max;         /* rows per group of the 2-bit codes, the most of any format */
    size_t par;               /* groups per batch (threads) */
    struct pass_slot *slots;  /* par */
    int fmt;                  /* the blocks' format: 1 p2, 2 i8, 3 f64, 0 none yet */
    int st_fmt;               /* staged format: 1 also for int8 dosages 0 .. 2 (packed) */
    uint8_t *stage;           /* par x group compact rows */
    size_t st_row_bytes, st_rows, st_cap_bytes;
    float *st_center, *st_scale, *st_miss; /* per staged row */
    double *st_rs;                         /* per staged row: sum of squares */
    size_t *st_gstart;                     /* par + 1: first staged row of each group */
    size_t st_groups;                      /* groups staged (the last one may still grow) */
    uint64_t st_gid;                       /* group number of the last staged group */
    double *sumsq;                         /* where the trace goes (from pass_block), or NULL */
};

static void pass_free(struct cpu_pass *ps);

static void pass_destroy(struct cpu_pass *ps)
{
    if (!ps)
        return;
    pass_free(ps);
    gsvd_free(ps->x);
    gsvd_free(ps->y);
    gsvd_free(ps->ylo);
    gsvd_free(ps->ygrid);
    gsvd_free(ps);
}

static int cpu_probe(char *why, size_t why_len)
{
    (void)why;
    (void)why_len;
    return 1; /* always usable, lowest priority */
}

static void cpu_destroy(gsvd_backend *be)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    if (!b)
        return;
    gsvd_blas_set_threads(b->saved_threads);
    pass_destroy(b->pass);
    gsvd_cpu_gram_free(b->gram);
    gsvd_free(b->z);
    gsvd_free(b->zd);
    gsvd_free(b);
}

/* Whether float32 passes run on the AVX2 engine (analysis/cpu/kernels/pass_avx2.h) rather than
 * OpenBLAS: where the CPU has AVX2 and FMA but no AVX-512, or AVX-512 run as two 256-bit halves
 * (AMD Zen 4: the engine's decoding in registers wins there, 20-25% a pass at P2 and P3); on
 * other AVX-512 CPUs OpenBLAS's AVX-512 kernels are the float32 engine.  1, or 0 with the
 * reason in why. */
static int avx2_pass_usable(char *why, size_t why_len)
{
    if (!gsvd_cpu_avx2(why, why_len))
        return 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (gsvd_cpu_allows(GSVD_CPU_AVX512) && __builtin_cpu_supports("avx512f") &&
        !gsvd_cpu_zmm_halved()) {
        if (why && why_len)
            snprintf(why, why_len, "the CPU has AVX-512: OpenBLAS's kernels");
        return 0;
    }
#endif
    return 1;
}

void gsvd_backend_cpu_kernels(char *buf, size_t len)
{
    int engine = gsvd_i8_engine_pick(NULL, 0);
    if (!buf || !len)
        return;
    snprintf(buf, len, "gram i8%s%s, gram amx: %s, pass i8: %s, pass f32 on %s",
             engine ? " on " : ": no", engine ? gsvd_i8_engine_name(engine) : "",
             gsvd_amx_usable(NULL, 0) ? "yes" : "no", gsvd_amx_int8_usable(NULL, 0) ? "yes" : "no",
             avx2_pass_usable(NULL, 0) ? "AVX2" : "OpenBLAS");
}

static int cpu_create(const struct gsvd_backend_params *p, gsvd_backend **out)
{
    struct backend_cpu *b = gsvd_calloc(1, sizeof *b);
    int gram_kernel = p ? p->gram_kernel : GSVD_GRAM_AUTO, rc = GSVD_OK;
    struct cpu_pass *ps;

    *out = NULL;
    if (!b)
        return GSVD_ENOMEM;
    /* one BLAS thread: a multi-threaded sgemm may split the reduction differently for other
     * thread counts, and results must not depend on --threads; parallel work is the decoding
     * and our own fixed tiling of the Gram */
    b->n_threads = p && p->n_threads ? p->n_threads : 1;
    if (gram_kernel == GSVD_GRAM_AMX || gram_kernel == GSVD_GRAM_I8) {
        char why[128];
        int i8 = gram_kernel == GSVD_GRAM_I8;
        if (!(i8 ? gsvd_i8_engine_pick(why, sizeof why) : gsvd_amx_usable(why, sizeof why))) {
            gsvd_log_error("the %s Gram kernel cannot run here: %s", i8 ? "i8" : "AMX", why);
            rc = GSVD_EUNSUPPORTED;
            goto out;
        }
    }
    if (p && p->pass_kernel == GSVD_PASS_I8) {
        char why[128];
        if (!gsvd_amx_int8_usable(why, sizeof why)) {
            gsvd_log_error("the i8 pass kernel cannot run here: %s", why);
            rc = GSVD_EUNSUPPORTED;
            goto out;
        }
    }
    GSVD_TRY(gsvd_cpu_gram_new(gram_kernel, p && p->gram_f64, &b->gram));
    ps = b->pass = gsvd_calloc(1, sizeof *b->pass);
    if (!ps) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (p && p->pass_kernel == GSVD_PASS_I8)
        ps->i8 = 1;
    else if (!p || p->pass_kernel == GSVD_PASS_AUTO)
        ps->i8 = gsvd_amx_int8_usable(ps->why, sizeof ps->why);
    else
        snprintf(ps->why, sizeof ps->why, "asked for f32");
    if (!ps->i8) { /* float32 products: the AVX2 engine where it is the CPU's best */
        char why[96];
        size_t at = strlen(ps->why);
        ps->avx2 = avx2_pass_usable(why, sizeof why);
        if (!ps->avx2)
            snprintf(ps->why + at, sizeof ps->why - at, "; AVX2 engine: %s", why);
    }
    b->saved_threads = gsvd_blas_get_threads();
    gsvd_blas_set_threads(1);
    *out = &b->base;
    b = NULL;
out:
    if (b) {
        gsvd_cpu_gram_free(b->gram);
        gsvd_free(b->pass);
        gsvd_free(b);
    }
    return rc;
}

/* ---- passes: fixed row groups, one thread per group, reduced in group order ----------------
 * Rows are copied in their compact form (2-bit, int8 or float64; int8 dosages 0 .. 2 packed to
 * 2-bit) into a staging batch of up to `par` groups.  A full batch is handed to gsvd_parallel:
 * share g standardises group g in sub-tiles of `sub` rows into its own float32 scratch while
 * the sub-tile is hot in cache and runs both products on it (T = Z_sub X, Yg += Z_sub^T T), so
 * Z is never written to memory whole (the AVX2 and int8 engines decode the 2-bit codes
 * themselves).  Then the calling thread adds Yg into the float64 Y and the row sums of
 * squares into *sumsq, group by group and row by row.  Group and sub-tile sizes depend on n
 * (and the group size on whether the rows are 2-bit codes: analysis/scan/gblock.h) alone, so
 * the result is the same for any thread count and any block boundaries. */

/* Rows per sub-tile: about 5 MiB of float32, 8 .. 256 rows.  At 20,000 samples 64 rows beat
 * 32 (an L2's worth) by ~4% in interleaved runs (ninth session; 16 and 128 were slower): each
 * sub-tile's sgemm packs all of X, and the larger tile amortises that. */
static size_t pass_sub_rows(size_t n)
{
    size_t r = ((size_t)5 << 20) / (4 * (n ? n : 1));
    r = r < 8 ? 8 : r > 256 ? 256 : r;
    return r;
}

/* Bytes of one staged row of n samples in staged format fmt. */
static size_t row_bytes(int fmt, size_t n)
{
    return fmt == 1 ? gsvd_std_p2_row_bytes(n) : fmt == 2 ? n : n * 8;
}

static int fmt_of(const struct gsvd_gblock *g)
{
    return g->p2 ? 1 : g->i8 ? 2 : 3;
}

static void pass_free(struct cpu_pass *ps)
{
    gsvd_free(ps->stage);
    gsvd_free(ps->st_center);
    gsvd_free(ps->st_scale);
    gsvd_free(ps->st_miss);
    gsvd_free(ps->st_rs);
    gsvd_free(ps->st_gstart);
    for (size_t i = 0; ps->slots && i < ps->par; i++) {
        gsvd_free(ps->slots[i].z);
        gsvd_free(ps->slots[i].t);
        gsvd_free(ps->slots[i].yg);
        gsvd_i8w_free(ps->slots[i].i8w);
        gsvd_avx2w_free(ps->slots[i].avx2w);
    }
    gsvd_free(ps->slots);
    gsvd_i8x_free(ps->i8x);
    gsvd_avx2x_free(ps->avx2x);
    ps->i8x = NULL;
    ps->avx2x = NULL;
    ps->stage = NULL;
    ps->st_center = ps->st_scale = ps->st_miss = NULL;
    ps->st_rs = NULL;
    ps->st_gstart = NULL;
    ps->slots = NULL;
    ps->par = ps->st_rows = ps->st_cap_bytes = ps->st_groups = 0;
}

/* The grids of this pass's exact sums: |Y_ij| <= sum_r max|z_r| ||z_r|| ||x_j|| (Cauchy-Schwarz
 * on T = Z X, then Z^T T), doubled for the rounding of the float32 products. */
static void pass_grids(struct cpu_pass *ps, const struct gsvd_zbound *z)
{
    double rows = (double)z->rows, per_row = z->max_abs * sqrt(z->row_sumsq);
    for (size_t j = 0; j < ps->c; j++) {
        double xx = 0;
        for (size_t i = 0; i < ps->n; i++)
            xx += (double)ps->x[i * ps->c + j] * (double)ps->x[i * ps->c + j];
        ps->ygrid[j] = gsvd_xsum_grid(2.0 * rows * per_row * sqrt(xx) * (1 + 1e-6));
    }
    ps->trgrid = gsvd_xsum_grid(2.0 * rows * z->row_sumsq);
    ps->tr_hi = ps->tr_lo = 0;
}

/* The engine's X for this pass (the i8 kernel's digits, the AVX2 engine's X^T) and each
 * slot's scratch (ps->i8 or ps->avx2 only). */
static int pass_engine_begin(struct cpu_pass *ps)
{
    int rc = GSVD_OK;
    if (ps->i8) {
        if (!ps->i8x)
            GSVD_TRY(gsvd_i8x_new(&ps->i8x));
        GSVD_TRY(gsvd_i8x_set(ps->i8x, ps->n, ps->c, ps->x));
        for (size_t i = 0; i < ps->par; i++) {
            if (!ps->slots[i].i8w)
                GSVD_TRY(gsvd_i8w_new(&ps->slots[i].i8w));
            GSVD_TRY(gsvd_i8w_reserve(ps->slots[i].i8w, ps->i8x, ps->group_max));
        }
    } else if (ps->avx2) {
        if (!ps->avx2x)
            GSVD_TRY(gsvd_avx2x_new(&ps->avx2x));
        GSVD_TRY(gsvd_avx2x_set(ps->avx2x, ps->n, ps->c, ps->x));
        for (size_t i = 0; i < ps->par; i++) {
            if (!ps->slots[i].avx2w)
                GSVD_TRY(gsvd_avx2w_new(&ps->slots[i].avx2w));
            GSVD_TRY(gsvd_avx2w_reserve(ps->slots[i].avx2w, ps->avx2x, ps->group_max));
        }
    }
out:
    if (rc < 0)
        pass_free(ps);
    return rc;
}

static int cpu_pass_begin(gsvd_backend *be, size_t n, size_t c, const double *x)
{
    struct backend_cpu *bk = (struct backend_cpu *)be;
    struct cpu_pass *ps = bk->pass;
    size_t nc, rows;

    if (gsvd_mul_size(n, c, &nc) < 0)
        return GSVD_EINVAL;
    ps->fmt = 0;
    ps->st_rows = 0;
    ps->st_groups = 0;
    ps->next_index = 0;
    ps->sumsq = NULL;
    if (ps->slots && ps->n == n && ps->c == c) {
        /* the same shape as the last pass (every pass after the first): reuse the buffers */
        memset(ps->y, 0, nc * sizeof *ps->y);
        memset(ps->ylo, 0, nc * sizeof *ps->ylo);
        for (size_t i = 0; i < nc; i++)
            ps->x[i] = (float)x[i];
        if (bk->bounded)
            pass_grids(ps, &bk->zb);
        return pass_engine_begin(ps);
    }
    pass_free(ps);
    gsvd_free(ps->x);
    gsvd_free(ps->y);
    gsvd_free(ps->ylo);
    gsvd_free(ps->ygrid);
    ps->x = gsvd_malloc(nc * sizeof *ps->x);
    ps->y = gsvd_calloc(nc, sizeof *ps->y);
    ps->ylo = gsvd_calloc(nc, sizeof *ps->ylo);
    ps->ygrid = gsvd_malloc((c ? c : 1) * sizeof *ps->ygrid);
    if (!ps->x || !ps->y || !ps->ylo || !ps->ygrid)
        return GSVD_ENOMEM;
    for (size_t i = 0; i < nc; i++)
        ps->x[i] = (float)x[i];
    ps->n = n;
    ps->c = c;
    if (bk->bounded)
        pass_grids(ps, &bk->zb);
    ps->group = ps->group_max = gsvd_backend_pass_group_rows(n, 1);
    ps->sub = pass_sub_rows(n);
    ps->par = bk->n_threads < 1 ? 1 : bk->n_threads > 64 ? 64 : bk->n_threads;
    rows = ps->par * ps->group_max;
    ps->slots = gsvd_calloc(ps->par, sizeof *ps->slots);
    ps->st_center = gsvd_malloc(rows * sizeof *ps->st_center);
    ps->st_scale = gsvd_malloc(rows * sizeof *ps->st_scale);
    ps->st_miss = gsvd_malloc(rows * sizeof *ps->st_miss);
    ps->st_rs = gsvd_malloc(rows * sizeof *ps->st_rs);
    ps->st_gstart = gsvd_malloc((ps->par + 1) * sizeof *ps->st_gstart);
    if (!ps->slots || !ps->st_center || !ps->st_scale || !ps->st_miss || !ps->st_rs ||
        !ps->st_gstart) {
        pass_free(ps);
        return GSVD_ENOMEM;
    }
    for (size_t i = 0; i < ps->par; i++) {
        ps->slots[i].z = gsvd_malloc(ps->sub * n * sizeof(float));
        ps->slots[i].t = gsvd_malloc(ps->sub * c * sizeof(float));
        ps->slots[i].yg = gsvd_malloc(nc * sizeof(float));
        if (!ps->slots[i].z || !ps->slots[i].t || !ps->slots[i].yg) {
            pass_free(ps);
            return GSVD_ENOMEM;
        }
    }
    return pass_engine_begin(ps);
}

/* The staged rows [r0, r0 + rows) as a block. */
static struct gsvd_gblock staged(const struct cpu_pass *ps, size_t r0, size_t rows)
{
    const uint8_t *base = ps->stage + r0 * ps->st_row_bytes;
    return (struct gsvd_gblock){.n_rows = rows,
                                .n_cols = ps->n,
                                .p2 = ps->st_fmt == 1 ? base : NULL,
                                .i8 = ps->st_fmt == 2 ? (const int8_t *)base : NULL,
                                .f64 = ps->st_fmt == 3 ? (const double *)(const void *)base : NULL,
                                .center = ps->st_center + r0,
                                .scale = ps->st_scale + r0,
                                .missing = ps->st_miss + r0};
}

/* Share g of a batch: group g's rows, sub-tile by sub-tile, into slot g's Yg. */
static int pass_group(void *ctx, size_t g)
{
    struct backend_cpu *b = ctx;
    struct cpu_pass *ps = b->pass;
    struct pass_slot *sl = &ps->slots[g];
    size_t r0 = ps->st_gstart[g], rows = ps->st_gstart[g + 1] - r0, n = ps->n, c = ps->c;

    if ((ps->i8 || ps->avx2) && ps->st_fmt == 1) {
        /* the int8 tiles or the AVX2 engine on the 2-bit codes */
        struct gsvd_gblock blk = staged(ps, r0, rows);
        if (ps->i8)
            gsvd_i8_pass_group(ps->i8x, sl->i8w, &blk, sl->yg);
        else
            gsvd_avx2_pass_group(ps->avx2x, sl->avx2w, &blk, sl->yg);
        if (ps->sumsq)
            for (size_t r = 0; r < rows; r++)
                ps->st_rs[r0 + r] = gsvd_cpu_row_sumsq(&blk, r);
        return GSVD_OK;
    }
    for (size_t s0 = 0; s0 < rows; s0 += ps->sub) {
        size_t m = rows - s0 < ps->sub ? rows - s0 : ps->sub;
        struct gsvd_gblock blk = staged(ps, r0 + s0, m);
        for (size_t r = 0; r < m; r++)
            gsvd_cpu_expand_row(&blk, r, sl->z + r * n, ps->sumsq ? &ps->st_rs[r0 + s0 + r] : NULL);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)c, (int)n, 1.0f, sl->z,
                    (int)n, ps->x, (int)c, 0.0f, sl->t, (int)c);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n, (int)c, (int)m, 1.0f, sl->z,
                    (int)n, sl->t, (int)c, s0 ? 1.0f : 0.0f, sl->yg, (int)c);
    }
    return GSVD_OK;
}

/* Exact sums: share t adds every group's Yg into rows [t n / T, (t + 1) n / T) of (y, ylo). */
struct ysum_job {
    struct cpu_pass *ps;
    size_t n_groups, n_shares;
    int over; /* set when a value exceeds its grid's bound */
};

static int ysum_share(void *ctx, size_t t)
{
    struct ysum_job *job = ctx;
    struct cpu_pass *ps = job->ps;
    size_t c = ps->c, i0 = t * ps->n / job->n_shares, i1 = (t + 1) * ps->n / job->n_shares;
    int over = 0;

    /* entry by entry, every group of the batch: hi and lo stay in registers (the batch has at
     * most 64 groups, far below the 2^12 additions a lo may take between carries) */
    for (size_t i = i0; i < i1; i++)
        for (size_t j = 0; j < c; j++) {
            const struct gsvd_xgrid *g = &ps->ygrid[j];
            double hi = ps->y[i * c + j], lo = ps->ylo[i * c + j];
            for (size_t k = 0; k < job->n_groups; k++) {
                double v = ps->slots[k].yg[i * c + j];
                over |= !(fabs(v) <= g->bound);
                gsvd_xsum_add_nocarry(&hi, &lo, v, g);
            }
            gsvd_xsum_carry(&hi, &lo, g);
            ps->y[i * c + j] = hi;
            ps->ylo[i * c + j] = lo;
        }
    if (over)
        job->over = 1; /* (a benign race: every writer stores 1) */
    return GSVD_OK;
}

/* Run the staged batch: groups in parallel, then their sums into Y and the trace. */
static int pass_flush(struct backend_cpu *b)
{
    struct cpu_pass *ps = b->pass;
    double *sumsq = ps->sumsq;
    size_t n_groups = ps->st_groups, nc = ps->n * ps->c;
    int rc;

    if (ps->st_rows == 0)
        return GSVD_OK;
    ps->st_gstart[n_groups] = ps->st_rows;
    rc = gsvd_blas_parallel(n_groups, pass_group, b);
    if (rc < 0)
        return rc;
    if (b->bounded) {
        struct ysum_job job = {.ps = ps, .n_groups = n_groups};
        job.n_shares = b->n_threads < 1 ? 1 : b->n_threads;
        if (job.n_shares > ps->n)
            job.n_shares = ps->n ? ps->n : 1;
        GSVD_TRY(gsvd_parallel(job.n_shares, ysum_share, &job));
        if (job.over)
            return bound_exceeded("a pass product");
        if (sumsq)
            for (size_t r = 0; r < ps->st_rows; r++) {
                if (!(ps->st_rs[r] <= ps->trgrid.bound))
                    return bound_exceeded("a row's sum of squares");
                gsvd_xsum_add(&ps->tr_hi, &ps->tr_lo, ps->st_rs[r], &ps->trgrid);
            }
    } else {
        /* no bound (float input): float64 sums in group and row order */
        for (size_t g = 0; g < n_groups; g++) {
            const float *yg = ps->slots[g].yg;
            for (size_t i = 0; i < nc; i++)
                ps->y[i] += yg[i];
        }
        if (sumsq)
            for (size_t r = 0; r < ps->st_rows; r++)
                *sumsq += ps->st_rs[r];
    }
    ps->st_rows = 0;
    ps->st_groups = 0;
out:
    return rc;
}

/* Copy rows [r, r + take) of g to the end of the staging area (int8 dosages 0 .. 2 packed to
 * 2-bit codes: the same values as the cache's, so a run gives the same bytes with and without
 * it). */
static void stage_rows(struct cpu_pass *ps, const struct gsvd_gblock *g, size_t r, size_t take)
{
    size_t rb = ps->st_row_bytes, n = ps->n;
    uint8_t *dst = ps->stage + ps->st_rows * rb;
    const uint8_t *src = g->p2   ? g->p2
                         : g->i8 ? (const uint8_t *)g->i8
                                 : (const uint8_t *)(const void *)g->f64;
    if (g->i8 && ps->st_fmt == 1)
        for (size_t q = 0; q < take; q++)
            gsvd_dosage_pack_p2(g->i8 + (r + q) * n, n, dst + q * rb);
    else
        memcpy(dst, src + r * rb, take * rb);
    memcpy(ps->st_center + ps->st_rows, g->center + r, take * sizeof *g->center);
    memcpy(ps->st_scale + ps->st_rows, g->scale + r, take * sizeof *g->scale);
    if (g->missing)
        memcpy(ps->st_miss + ps->st_rows, g->missing + r, take * sizeof *g->missing);
    else
        memset(ps->st_miss + ps->st_rows, 0, take * sizeof *ps->st_miss);
    ps->st_rows += take;
}

/* Stage the rows of g (compact copies) by group and run every batch that fills up. */
static int cpu_pass_block(gsvd_backend *be, const struct gsvd_gblock *g, double *sumsq)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    struct cpu_pass *ps = b->pass;
    size_t r = 0;
    int rc = GSVD_OK;

    if (g->n_cols != ps->n) {
        gsvd_log_error("internal error: a block of %zu samples in a pass of %zu", g->n_cols, ps->n);
        return GSVD_EINTERNAL;
    }
    if (sumsq)
        ps->sumsq = sumsq;
    if (g->n_rows == 0)
        return GSVD_OK;
    if (ps->fmt != fmt_of(g)) {
        /* the first block, or a change of format (not seen from one scan): start over; rows
         * of 2-bit codes or int8 dosages 0 .. 2 are staged (and grouped) as codes */
        int fmt = fmt_of(g), codes = fmt == 1 || (fmt == 2 && cpu_dosages_0_2(b));
        GSVD_TRY(pass_flush(b));
        if ((fmt == 1 || fmt == 2) && !ps->said) {
            ps->said = 1;
            if (ps->i8 && codes)
                gsvd_log_info("pass kernel: i8 (int8 AMX tiles on the 2-bit codes)");
            else if (ps->avx2 && codes)
                gsvd_log_info("pass kernel: f32 on AVX2 (FMA on the 2-bit codes; i8: %s)", ps->why);
            else if (ps->i8 || ps->avx2)
                gsvd_log_info("pass kernel: f32 on OpenBLAS (dosages above 2)");
            else
                gsvd_log_info("pass kernel: f32 on OpenBLAS (i8: %s)", ps->why);
        }
        size_t bytes;
        ps->fmt = fmt;
        ps->st_fmt = codes ? 1 : fmt;
        ps->group = gsvd_backend_pass_group_rows(ps->n, codes);
        ps->st_row_bytes = row_bytes(ps->st_fmt, ps->n);
        if (gsvd_mul_size(ps->par * ps->group, ps->st_row_bytes, &bytes) < 0)
            return GSVD_EINVAL;
        if (bytes > ps->st_cap_bytes) {
            gsvd_free(ps->stage);
            ps->stage = gsvd_malloc(bytes);
            ps->st_cap_bytes = ps->stage ? bytes : 0;
            if (!ps->stage)
                return GSVD_ENOMEM;
        }
    }
    while (r < g->n_rows) {
        /* a run of rows of one group: at most `group` rows share a group number */
        uint64_t gid;
        size_t take = group_run(ps->next_index, g, r, ps->group, &gid);
        if (ps->st_groups == 0 || gid != ps->st_gid) {
            if (ps->st_groups == ps->par)
                GSVD_TRY(pass_flush(b));
            ps->st_gstart[ps->st_groups++] = ps->st_rows;
            ps->st_gid = gid;
        }
        if (ps->st_rows + take - ps->st_gstart[ps->st_groups - 1] > ps->group)
            return bad_index();
        stage_rows(ps, g, r, take);
        r += take;
    }
    ps->next_index += g->n_rows;
out:
    return rc;
}

static int cpu_pass_end(gsvd_backend *be, double *y)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    struct cpu_pass *ps = b->pass;
    size_t nc = ps->n * ps->c;
    int rc = pass_flush(b);
    if (rc < 0)
        return rc;
    if (b->bounded) {
        for (size_t i = 0; i < nc; i++)
            y[i] = gsvd_xsum_value(ps->y[i], ps->ylo[i]);
        if (ps->sumsq)
            *ps->sumsq = gsvd_xsum_value(ps->tr_hi, ps->tr_lo);
    } else {
        memcpy(y, ps->y, nc * sizeof *y);
    }
    return GSVD_OK;
}

static int cpu_pass_end_parts(gsvd_backend *be, double *y_hi, double *y_lo, double *tr)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    struct cpu_pass *ps = b->pass;
    size_t nc = ps->n * ps->c;
    int rc;
    if (!b->bounded)
        return GSVD_EUNSUPPORTED;
    rc = pass_flush(b);
    if (rc < 0)
        return rc;
    memcpy(y_hi, ps->y, nc * sizeof *y_hi);
    memcpy(y_lo, ps->ylo, nc * sizeof *y_lo);
    if (tr) {
        tr[0] = ps->tr_hi;
        tr[1] = ps->tr_lo;
    }
    return GSVD_OK;
}

static int cpu_set_bound(gsvd_backend *be, const struct gsvd_zbound *z)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    b->bounded = z != NULL;
    if (z)
        b->zb = *z;
    return GSVD_OK;
}

static int cpu_project(gsvd_backend *be, const struct gsvd_gblock *g, size_t c, const double *u,
                       double *out)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    size_t rows = g->n_rows, n = g->n_cols;
    int rc = GSVD_OK;

    if (rows == 0)
        return GSVD_OK;
    GSVD_TRY(gsvd_reserve_large(&b->z, &b->z_cap, rows * n, sizeof *b->z));
    for (size_t r = 0; r < rows; r++)
        gsvd_cpu_expand_row(g, r, b->z + r * n, NULL);
    GSVD_TRY(gsvd_reserve_large(&b->zd, &b->zd_cap, rows * n, sizeof *b->zd));
    for (size_t i = 0; i < rows * n; i++)
        b->zd[i] = b->z[i];
    /* row by row (dgemv): a dgemm's result for a row may depend on where the row sits in the
     * block (OpenBLAS's edge kernels), and the loadings must not depend on block boundaries,
     * which move with the chunking and with the split of the variants between processes */
    for (size_t r = 0; r < rows; r++)
        cblas_dgemv(CblasRowMajor, CblasTrans, (int)n, (int)c, 1.0, u, (int)c, b->zd + r * n, 1,
                    0.0, out + r * c, 1);
out:
    return rc;
}

static int cpu_eigh(gsvd_backend *be, size_t n, double *a, double *w)
{
    lapack_int info;
    (void)be;
    if (n == 0)
        return GSVD_OK;
    info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'U', (lapack_int)n, a, (lapack_int)n, w);
    if (info != 0) {
        gsvd_log_error("symmetric eigensolver failed (LAPACKE_dsyevd info %d, n %zu)", (int)info,
                       n);
        return info < 0 ? GSVD_EINTERNAL : GSVD_EDEGENERATE;
    }
    return GSVD_OK;
}

static const struct gsvd_pca_device_ops cpu_pca_ops = {
    .version = GSVD_PCA_DEVICE_VERSION,
    .pass_begin = cpu_pass_begin,
    .pass_block = cpu_pass_block,
    .pass_end = cpu_pass_end,
    .project = cpu_project,
    .gram_begin = gsvd_cpu_gram_begin,
    .gram_block = gsvd_cpu_gram_block,
    .gram_end = gsvd_cpu_gram_end,
    .set_bound = cpu_set_bound,
    .pass_end_parts = cpu_pass_end_parts,
    .gram_end_parts = gsvd_cpu_gram_end_parts,
    .gram_fast = gsvd_cpu_gram_fast,
    .gram_error = gsvd_cpu_gram_error,
};

/* PCA only: pdist counts on the host without a backend. */
static const void *cpu_analysis(const gsvd_backend *be, enum gsvd_analysis_id an)
{
    (void)be;
    return an == GSVD_AN_PCA ? &cpu_pca_ops : NULL;
}

const struct gsvd_backend_ops gsvd_backend_cpu_ops = {
    .version = GSVD_BACKEND_OPS_VERSION,
    .name = "cpu",
    .kind = GSVD_BACKEND_HOST,
    .probe = cpu_probe,
    .create = cpu_create,
    .destroy = cpu_destroy,
    .eigh = cpu_eigh,
    .analysis = cpu_analysis,
};
