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
#include "analysis/pca/pca_device.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/parallel.h"
#include "common/xsum.h"

static void pass_free(struct backend_cpu *b);

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
    pass_free(b);
    gsvd_free(b->x);
    gsvd_free(b->y);
    gsvd_free(b->ylo);
    gsvd_free(b->ygrid);
    gsvd_free(b->z);
    gsvd_free(b->zd);
    gsvd_cpu_gram_free(b);
    gsvd_free(b);
}

void gsvd_backend_cpu_kernels(char *buf, size_t len)
{
    int engine = gsvd_i8_engine_pick(NULL, 0);
    if (!buf || !len)
        return;
    snprintf(buf, len, "gram i8%s%s, gram amx: %s, pass i8: %s", engine ? " on " : ": no",
             engine ? gsvd_i8_engine_name(engine) : "", gsvd_amx_usable(NULL, 0) ? "yes" : "no",
             gsvd_amx_int8_usable(NULL, 0) ? "yes" : "no");
}

static int cpu_create(const struct gsvd_backend_params *p, gsvd_backend **out)
{
    struct backend_cpu *b = gsvd_calloc(1, sizeof *b);
    *out = NULL;
    if (!b)
        return GSVD_ENOMEM;
    /* one BLAS thread: a multi-threaded sgemm may split the reduction differently for other
     * thread counts, and results must not depend on --threads; parallel work is the decoding
     * and our own fixed tiling of the Gram */
    b->n_threads = p && p->n_threads ? p->n_threads : 1;
    b->gram_f64 = p && p->gram_f64;
    b->gram_kernel = p ? p->gram_kernel : GSVD_GRAM_AUTO;
    if (b->gram_kernel == GSVD_GRAM_AMX || b->gram_kernel == GSVD_GRAM_I8) {
        char why[128];
        int i8 = b->gram_kernel == GSVD_GRAM_I8;
        if (!(i8 ? gsvd_i8_engine_pick(why, sizeof why) : gsvd_amx_usable(why, sizeof why))) {
            gsvd_log_error("the %s Gram kernel cannot run here: %s", i8 ? "i8" : "AMX", why);
            gsvd_free(b);
            return GSVD_EUNSUPPORTED;
        }
    }
    if (p && p->pass_kernel == GSVD_PASS_I8) {
        char why[128];
        if (!gsvd_amx_int8_usable(why, sizeof why)) {
            gsvd_log_error("the i8 pass kernel cannot run here: %s", why);
            gsvd_free(b);
            return GSVD_EUNSUPPORTED;
        }
        b->pass_i8 = 1;
    } else if (!p || p->pass_kernel == GSVD_PASS_AUTO) {
        b->pass_i8 = gsvd_amx_int8_usable(b->pass_why, sizeof b->pass_why);
    } else {
        snprintf(b->pass_why, sizeof b->pass_why, "asked for f32");
    }
    b->saved_threads = gsvd_blas_get_threads();
    gsvd_blas_set_threads(1);
    *out = &b->base;
    return GSVD_OK;
}

/* ---- passes: fixed row groups, one thread per group, reduced in group order ----------------
 * Rows are copied in their compact form (2-bit, int8 or float64) into a staging batch of up to
 * `par` groups.  A full batch is handed to gsvd_parallel: share g standardises group g in
 * sub-tiles of `sub` rows into its own float32 scratch while the sub-tile is hot in cache and
 * runs both products on it (T = Z_sub X, Yg += Z_sub^T T), so Z is never written to memory
 * whole.  Then the calling thread adds Yg into the float64 Y and the row sums of squares into
 * *sumsq, group by group and row by row.  Group and sub-tile sizes depend on n alone, so the
 * result is the same for any thread count and any block boundaries. */

static size_t pass_group_rows(size_t n)
{
    return gsvd_backend_pass_group_rows(n);
}

/* Rows per sub-tile: about 5 MiB of float32, 8 .. 256 rows.  At 20,000 samples 64 rows beat
 * 32 (an L2's worth) by ~4% in interleaved runs (ninth session; 16 and 128 were slower): each
 * sub-tile's sgemm packs all of X, and the larger tile amortises that. */
static size_t pass_sub_rows(size_t n)
{
    size_t r = ((size_t)5 << 20) / (4 * (n ? n : 1));
    r = r < 8 ? 8 : r > 256 ? 256 : r;
    return r;
}

/* Bytes of one staged row in the format of g. */
static size_t row_bytes(const struct gsvd_gblock *g)
{
    return g->p2 ? gsvd_std_p2_row_bytes(g->n_cols) : g->i8 ? g->n_cols : g->n_cols * 8;
}

static int fmt_of(const struct gsvd_gblock *g)
{
    return g->p2 ? 1 : g->i8 ? 2 : 3;
}

static void pass_free(struct backend_cpu *b)
{
    gsvd_free(b->stage);
    gsvd_free(b->st_center);
    gsvd_free(b->st_scale);
    gsvd_free(b->st_miss);
    gsvd_free(b->st_rs);
    gsvd_free(b->st_gstart);
    for (size_t i = 0; b->slots && i < b->par; i++) {
        gsvd_free(b->slots[i].z);
        gsvd_free(b->slots[i].t);
        gsvd_free(b->slots[i].yg);
        gsvd_i8w_free(b->slots[i].i8w);
        gsvd_free(b->slots[i].p2);
    }
    gsvd_free(b->slots);
    gsvd_i8x_free(b->i8x);
    b->i8x = NULL;
    b->stage = NULL;
    b->st_center = b->st_scale = b->st_miss = NULL;
    b->st_rs = NULL;
    b->st_gstart = NULL;
    b->slots = NULL;
    b->par = b->st_rows = b->st_cap_bytes = b->st_groups = 0;
}

/* The grids of this pass's exact sums: |Y_ij| <= sum_r max|z_r| ||z_r|| ||x_j|| (Cauchy-Schwarz
 * on T = Z X, then Z^T T), doubled for the rounding of the float32 products. */
static void pass_grids(struct backend_cpu *b)
{
    const struct gsvd_zbound *z = &b->zb;
    double rows = (double)z->rows, per_row = z->max_abs * sqrt(z->row_sumsq);
    for (size_t j = 0; j < b->c; j++) {
        double xx = 0;
        for (size_t i = 0; i < b->n; i++)
            xx += (double)b->x[i * b->c + j] * (double)b->x[i * b->c + j];
        b->ygrid[j] = gsvd_xsum_grid(2.0 * rows * per_row * sqrt(xx) * (1 + 1e-6));
    }
    b->trgrid = gsvd_xsum_grid(2.0 * rows * z->row_sumsq);
    b->tr_hi = b->tr_lo = 0;
}

/* The i8 kernel's X digits for this pass and each slot's scratch (pass_i8 only). */
static int pass_i8_begin(struct backend_cpu *b)
{
    int rc = GSVD_OK;
    if (!b->pass_i8)
        return GSVD_OK;
    if (!b->i8x)
        GSVD_TRY(gsvd_i8x_new(&b->i8x));
    GSVD_TRY(gsvd_i8x_set(b->i8x, b->n, b->c, b->x));
    for (size_t i = 0; i < b->par; i++) {
        if (!b->slots[i].i8w)
            GSVD_TRY(gsvd_i8w_new(&b->slots[i].i8w));
        GSVD_TRY(gsvd_i8w_reserve(b->slots[i].i8w, b->i8x, b->group));
    }
out:
    if (rc < 0)
        pass_free(b);
    return rc;
}

static int cpu_pass_begin(gsvd_backend *be, size_t n, size_t c, const double *x)
{
    struct backend_cpu *bk = (struct backend_cpu *)be;
    size_t nc, rows;

    if (gsvd_mul_size(n, c, &nc) < 0)
        return GSVD_EINVAL;
    bk->fmt = 0;
    bk->st_rows = 0;
    bk->st_groups = 0;
    bk->next_index = 0;
    bk->pass_sumsq = NULL;
    if (bk->slots && bk->n == n && bk->c == c) {
        /* the same shape as the last pass (every pass after the first): reuse the buffers */
        bk->group = pass_group_rows(n); /* (the Gram shares the field) */
        memset(bk->y, 0, nc * sizeof *bk->y);
        memset(bk->ylo, 0, nc * sizeof *bk->ylo);
        for (size_t i = 0; i < nc; i++)
            bk->x[i] = (float)x[i];
        if (bk->bounded)
            pass_grids(bk);
        return pass_i8_begin(bk);
    }
    pass_free(bk);
    gsvd_free(bk->x);
    gsvd_free(bk->y);
    gsvd_free(bk->ylo);
    gsvd_free(bk->ygrid);
    bk->x = gsvd_malloc(nc * sizeof *bk->x);
    bk->y = gsvd_calloc(nc, sizeof *bk->y);
    bk->ylo = gsvd_calloc(nc, sizeof *bk->ylo);
    bk->ygrid = gsvd_malloc((c ? c : 1) * sizeof *bk->ygrid);
    if (!bk->x || !bk->y || !bk->ylo || !bk->ygrid)
        return GSVD_ENOMEM;
    for (size_t i = 0; i < nc; i++)
        bk->x[i] = (float)x[i];
    bk->n = n;
    bk->c = c;
    if (bk->bounded)
        pass_grids(bk);
    bk->group = pass_group_rows(n);
    bk->sub = pass_sub_rows(n);
    bk->par = bk->n_threads < 1 ? 1 : bk->n_threads > 64 ? 64 : bk->n_threads;
    rows = bk->par * bk->group;
    bk->slots = gsvd_calloc(bk->par, sizeof *bk->slots);
    bk->st_center = gsvd_malloc(rows * sizeof *bk->st_center);
    bk->st_scale = gsvd_malloc(rows * sizeof *bk->st_scale);
    bk->st_miss = gsvd_malloc(rows * sizeof *bk->st_miss);
    bk->st_rs = gsvd_malloc(rows * sizeof *bk->st_rs);
    bk->st_gstart = gsvd_malloc((bk->par + 1) * sizeof *bk->st_gstart);
    if (!bk->slots || !bk->st_center || !bk->st_scale || !bk->st_miss || !bk->st_rs ||
        !bk->st_gstart) {
        pass_free(bk);
        return GSVD_ENOMEM;
    }
    for (size_t i = 0; i < bk->par; i++) {
        bk->slots[i].z = gsvd_malloc(bk->sub * n * sizeof(float));
        bk->slots[i].t = gsvd_malloc(bk->sub * c * sizeof(float));
        bk->slots[i].yg = gsvd_malloc(nc * sizeof(float));
        if (!bk->slots[i].z || !bk->slots[i].t || !bk->slots[i].yg) {
            pass_free(bk);
            return GSVD_ENOMEM;
        }
    }
    return pass_i8_begin(bk);
}

/* The staged rows [r0, r0 + rows) as a block. */
static struct gsvd_gblock staged(const struct backend_cpu *b, size_t r0, size_t rows)
{
    const uint8_t *base = b->stage + r0 * b->st_row_bytes;
    return (struct gsvd_gblock){.n_rows = rows,
                                .n_cols = b->n,
                                .p2 = b->fmt == 1 ? base : NULL,
                                .i8 = b->fmt == 2 ? (const int8_t *)base : NULL,
                                .f64 = b->fmt == 3 ? (const double *)(const void *)base : NULL,
                                .center = b->st_center + r0,
                                .scale = b->st_scale + r0,
                                .missing = b->st_miss + r0};
}

/* Share g of a batch: group g's rows, sub-tile by sub-tile, into slot g's Yg. */
static int pass_group(void *ctx, size_t g)
{
    struct backend_cpu *b = ctx;
    struct pass_slot *sl = &b->slots[g];
    size_t r0 = b->st_gstart[g], rows = b->st_gstart[g + 1] - r0, n = b->n, c = b->c;

    if (b->pass_i8 && (b->fmt == 1 || (b->fmt == 2 && cpu_dosages_0_2(b)))) {
        /* the int8 tiles on the 2-bit codes; int8 dosage rows (no cache) are packed first, so
         * that a run gives the same bytes with and without the cache */
        struct gsvd_gblock blk = staged(b, r0, rows), codes = blk;
        if (b->fmt == 2) {
            size_t rb = gsvd_std_p2_row_bytes(n);
            if (gsvd_reserve_large(&sl->p2, &sl->p2_cap, rows, rb) < 0)
                return GSVD_ENOMEM;
            for (size_t r = 0; r < rows; r++)
                gsvd_dosage_pack_p2(blk.i8 + r * n, n, sl->p2 + r * rb);
            codes.i8 = NULL;
            codes.p2 = sl->p2;
        }
        gsvd_i8_pass_group(b->i8x, sl->i8w, &codes, sl->yg);
        if (b->pass_sumsq)
            for (size_t r = 0; r < rows; r++)
                b->st_rs[r0 + r] = gsvd_cpu_row_sumsq(&blk, r);
        return GSVD_OK;
    }
    for (size_t s0 = 0; s0 < rows; s0 += b->sub) {
        size_t m = rows - s0 < b->sub ? rows - s0 : b->sub;
        struct gsvd_gblock blk = staged(b, r0 + s0, m);
        for (size_t r = 0; r < m; r++)
            gsvd_cpu_expand_row(&blk, r, sl->z + r * n,
                                b->pass_sumsq ? &b->st_rs[r0 + s0 + r] : NULL);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)c, (int)n, 1.0f, sl->z,
                    (int)n, b->x, (int)c, 0.0f, sl->t, (int)c);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n, (int)c, (int)m, 1.0f, sl->z,
                    (int)n, sl->t, (int)c, s0 ? 1.0f : 0.0f, sl->yg, (int)c);
    }
    return GSVD_OK;
}

/* Exact sums: share t adds every group's Yg into rows [t n / T, (t + 1) n / T) of (y, ylo). */
struct ysum_job {
    struct backend_cpu *b;
    size_t n_groups, n_shares;
    int over; /* set when a value exceeds its grid's bound */
};

static int ysum_share(void *ctx, size_t t)
{
    struct ysum_job *job = ctx;
    struct backend_cpu *b = job->b;
    size_t c = b->c, i0 = t * b->n / job->n_shares, i1 = (t + 1) * b->n / job->n_shares;
    int over = 0;

    /* entry by entry, every group of the batch: hi and lo stay in registers (the batch has at
     * most 64 groups, far below the 2^12 additions a lo may take between carries) */
    for (size_t i = i0; i < i1; i++)
        for (size_t j = 0; j < c; j++) {
            const struct gsvd_xgrid *g = &b->ygrid[j];
            double hi = b->y[i * c + j], lo = b->ylo[i * c + j];
            for (size_t k = 0; k < job->n_groups; k++) {
                double v = b->slots[k].yg[i * c + j];
                over |= !(fabs(v) <= g->bound);
                gsvd_xsum_add_nocarry(&hi, &lo, v, g);
            }
            gsvd_xsum_carry(&hi, &lo, g);
            b->y[i * c + j] = hi;
            b->ylo[i * c + j] = lo;
        }
    if (over)
        job->over = 1; /* (a benign race: every writer stores 1) */
    return GSVD_OK;
}

/* Run the staged batch: groups in parallel, then their sums into Y and the trace. */
static int pass_flush(struct backend_cpu *b)
{
    double *sumsq = b->pass_sumsq;
    size_t n_groups = b->st_groups, nc = b->n * b->c;
    int rc;

    if (b->st_rows == 0)
        return GSVD_OK;
    b->st_gstart[n_groups] = b->st_rows;
    rc = gsvd_blas_parallel(n_groups, pass_group, b);
    if (rc < 0)
        return rc;
    if (b->bounded) {
        struct ysum_job job = {.b = b, .n_groups = n_groups};
        job.n_shares = b->n_threads < 1 ? 1 : b->n_threads;
        if (job.n_shares > b->n)
            job.n_shares = b->n ? b->n : 1;
        GSVD_TRY(gsvd_parallel(job.n_shares, ysum_share, &job));
        if (job.over)
            return bound_exceeded("a pass product");
        if (sumsq)
            for (size_t r = 0; r < b->st_rows; r++) {
                if (!(b->st_rs[r] <= b->trgrid.bound))
                    return bound_exceeded("a row's sum of squares");
                gsvd_xsum_add(&b->tr_hi, &b->tr_lo, b->st_rs[r], &b->trgrid);
            }
    } else {
        /* no bound (float input): float64 sums in group and row order */
        for (size_t g = 0; g < n_groups; g++) {
            const float *yg = b->slots[g].yg;
            for (size_t i = 0; i < nc; i++)
                b->y[i] += yg[i];
        }
        if (sumsq)
            for (size_t r = 0; r < b->st_rows; r++)
                *sumsq += b->st_rs[r];
    }
    b->st_rows = 0;
    b->st_groups = 0;
out:
    return rc;
}

/* Copy rows [r, r + take) of g to the end of the staging area. */
static void stage_rows(struct backend_cpu *b, const struct gsvd_gblock *g, size_t r, size_t take)
{
    size_t rb = b->st_row_bytes;
    const uint8_t *src = g->p2   ? g->p2
                         : g->i8 ? (const uint8_t *)g->i8
                                 : (const uint8_t *)(const void *)g->f64;
    memcpy(b->stage + b->st_rows * rb, src + r * rb, take * rb);
    memcpy(b->st_center + b->st_rows, g->center + r, take * sizeof *g->center);
    memcpy(b->st_scale + b->st_rows, g->scale + r, take * sizeof *g->scale);
    if (g->missing)
        memcpy(b->st_miss + b->st_rows, g->missing + r, take * sizeof *g->missing);
    else
        memset(b->st_miss + b->st_rows, 0, take * sizeof *b->st_miss);
    b->st_rows += take;
}

/* Stage the rows of g (compact copies) by group and run every batch that fills up. */
static int cpu_pass_block(gsvd_backend *be, const struct gsvd_gblock *g, double *sumsq)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    size_t r = 0;
    int rc = GSVD_OK;

    if (g->n_cols != b->n) {
        gsvd_log_error("block has %zu samples, the pass has %zu", g->n_cols, b->n);
        return GSVD_EINTERNAL;
    }
    if (sumsq)
        b->pass_sumsq = sumsq;
    if (g->n_rows == 0)
        return GSVD_OK;
    if (b->fmt != fmt_of(g)) {
        /* the first block, or a change of format (not seen from one scan): start over */
        GSVD_TRY(pass_flush(b));
        if ((fmt_of(g) == 1 || fmt_of(g) == 2) && !b->pass_said) {
            b->pass_said = 1;
            if (b->pass_i8 && (fmt_of(g) == 1 || cpu_dosages_0_2(b)))
                gsvd_log_info("pass kernel: i8 (int8 AMX tiles on the 2-bit codes)");
            else if (b->pass_i8)
                gsvd_log_info("pass kernel: f32 (i8: dosages above 2)");
            else
                gsvd_log_info("pass kernel: f32 (i8: %s)", b->pass_why);
        }
        size_t bytes;
        b->fmt = fmt_of(g);
        b->st_row_bytes = row_bytes(g);
        if (gsvd_mul_size(b->par * b->group, b->st_row_bytes, &bytes) < 0)
            return GSVD_EINVAL;
        if (bytes > b->st_cap_bytes) {
            gsvd_free(b->stage);
            b->stage = gsvd_malloc(bytes);
            b->st_cap_bytes = b->stage ? bytes : 0;
            if (!b->stage)
                return GSVD_ENOMEM;
        }
    }
    while (r < g->n_rows) {
        /* a run of rows of one group: at most `group` rows share a group number */
        uint64_t gid;
        size_t take = group_run(b, g, r, b->group, &gid);
        if (b->st_groups == 0 || gid != b->st_gid) {
            if (b->st_groups == b->par)
                GSVD_TRY(pass_flush(b));
            b->st_gstart[b->st_groups++] = b->st_rows;
            b->st_gid = gid;
        }
        if (b->st_rows + take - b->st_gstart[b->st_groups - 1] > b->group)
            return bad_index();
        stage_rows(b, g, r, take);
        r += take;
    }
    b->next_index += g->n_rows;
out:
    return rc;
}

static int cpu_pass_end(gsvd_backend *be, double *y)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    size_t nc = b->n * b->c;
    int rc = pass_flush(b);
    if (rc < 0)
        return rc;
    if (b->bounded) {
        for (size_t i = 0; i < nc; i++)
            y[i] = gsvd_xsum_value(b->y[i], b->ylo[i]);
        if (b->pass_sumsq)
            *b->pass_sumsq = gsvd_xsum_value(b->tr_hi, b->tr_lo);
    } else {
        memcpy(y, b->y, nc * sizeof *y);
    }
    return GSVD_OK;
}

static int cpu_pass_end_parts(gsvd_backend *be, double *y_hi, double *y_lo, double *tr)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    size_t nc = b->n * b->c;
    int rc;
    if (!b->bounded)
        return GSVD_EUNSUPPORTED;
    rc = pass_flush(b);
    if (rc < 0)
        return rc;
    memcpy(y_hi, b->y, nc * sizeof *y_hi);
    memcpy(y_lo, b->ylo, nc * sizeof *y_lo);
    if (tr) {
        tr[0] = b->tr_hi;
        tr[1] = b->tr_lo;
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
    standardise_rows(b, g, 0, rows, b->z, NULL);
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
