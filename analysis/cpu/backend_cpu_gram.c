/* analysis/cpu/backend_cpu_gram.c - the CPU backend's Gram for the exact method: rows are
 * standardised into fixed groups (variant index / group rows), and each group's Z^T Z is added
 * tile by tile into the float64 Gram (float32 ssyrk/sgemm, AMX bf16 or float64 tiles, exactly
 * summed when the analysis gave a bound), so the result does not depend on the thread count,
 * the chunking or the split of the rows between processes. */
#include "gsvd_config.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include <cblas.h>

#include "analysis/cpu/backend_cpu_internal.h"
#include "analysis/cpu/blas_room.h"
#include "analysis/pca/pca_device.h"
#include "common/checked.h"
#include "common/parallel.h"

/* The Gram's state (struct backend_cpu.gram): the settings create chose, the float64 Gram and
 * its exact low parts, the kernel's packs and scratch, and the group being filled. */
struct cpu_gram {
    int kernel;               /* gsvd_backend_params.gram_kernel as asked (enum gsvd_gram_kernel) */
    int f64;                  /* gsvd_backend_params.gram_f64 */
    int fast;                 /* gram_fast(1) said yes: auto takes the i8 kernel */
    double err;               /* the last Gram's eigenvalue error bound (0: exact kernel) */
    size_t n;                 /* samples: the Gram is n x n */
    size_t group;             /* rows per group (depends on n only) */
    uint64_t next_index;      /* rows without an index: the next row's number */
    double *sumsq;            /* where the exact trace goes (from gram_block), or NULL */
    struct gsvd_xgrid trgrid; /* grid of the trace */
    double tr_hi, tr_lo;      /* the trace of this Gram */
    int tr_over;              /* a row's sum of squares exceeded the bound */
    float *gblk;              /* n x n float32 Gram of one block (n <= GRAM_F32_MAX_N) */
    gsvd_amx_pack *amx;       /* the group in bf16 for the AMX tiles, or NULL (f32 / f64) */
    float *ctile;             /* AMX: a GRAM_TILE^2 float32 scratch per thread */
    gsvd_i8_pack *i8;         /* the group for the int8 tiles, or NULL */
    /* i8: two group buffers, one filled while a job thread multiplies the other (with more
     * than one thread); ib[ib_fill] is filled */
    struct i8_buf {
        uint8_t *codes;         /* group x n call codes (0..2 dosage, 3 missing) */
        float *cen, *scl, *mis; /* each group row's centre, scale and missing value */
    } ib[2];
    int ib_fill, job_buf;      /* the buffer filled; the one the pack reads */
    struct gsvd_thread job_th; /* the job's thread, while job_on */
    int job_on, job_rc;        /* a job runs; its result */
    size_t job_rows;           /* rows of its group (in ib[1 - ib_fill]) */
    int32_t *i8acc;            /* i8: GSVD_I8_ACC int32 per thread */
    double *dtile;             /* i8: a GRAM_TILE^2 float64 tile per thread */
    double *g;                 /* n x n float64 Gram accumulator (upper triangle filled) */
    double *glo;               /* n x n low parts of the exact Gram sums (when bounded) */
    double *gtile;             /* float64 Gram: a GRAM_TILE^2 scratch per thread (when bounded) */
    struct gsvd_xgrid ggrid;   /* grid of the Gram entries */
    uint64_t gid;              /* group number of the rows being filled */
    size_t filled;             /* rows of the current group standardised into b->z */
};

int gsvd_cpu_gram_new(int kernel, int f64, struct cpu_gram **out)
{
    *out = gsvd_calloc(1, sizeof **out);
    if (!*out)
        return GSVD_ENOMEM;
    (*out)->kernel = kernel;
    (*out)->f64 = f64;
    return GSVD_OK;
}

/* A row's sum of squares rs into *sumsq, or exactly into the Gram's trace when the backend has
 * a bound. */
static inline void add_row_sumsq(const struct backend_cpu *b, struct cpu_gram *gr, double rs,
                                 double *sumsq)
{
    if (b->bounded) {
        gr->tr_over |= !(rs <= gr->trgrid.bound);
        gsvd_xsum_add(&gr->tr_hi, &gr->tr_lo, rs, &gr->trgrid);
    } else {
        *sumsq += rs;
    }
}

/* Standardise rows [r0, r0 + rows) of the block into z (rows x n float32); each row's sum of
 * squares is added to *sumsq in row order, or exactly to the Gram's trace when the backend has
 * a bound.  Values and sums come from analysis/scan/gblock_std.h, the definitions the CUDA
 * kernels run too. */
static void standardise_rows(const struct backend_cpu *b, struct cpu_gram *gr,
                             const struct gsvd_gblock *g, size_t r0, size_t rows, float *zout,
                             double *sumsq)
{
    size_t n = g->n_cols;
    for (size_t r = r0; r < r0 + rows; r++) {
        double rs = 0;
        gsvd_cpu_expand_row(g, r, zout + (r - r0) * n, sumsq ? &rs : NULL);
        if (sumsq)
            add_row_sumsq(b, gr, rs, sumsq);
    }
}

/* Rows per Gram group and per pass group: gsvd_backend_gram_group_rows and
 * gsvd_backend_pass_group_rows (analysis/scan/gblock.h), powers of two that depend on the
 * sample count alone (a pass's also on whether its rows are 2-bit codes), so the grouping (and
 * every rounding) is the same for any chunking and any split of the rows between processes. */
static size_t group_rows(size_t n)
{
    return gsvd_backend_gram_group_rows(n);
}

/* Make room for a group of rows: standardised in z, or as call codes for the i8 kernel. */
static int reserve_group(struct backend_cpu *b, size_t n)
{
    struct cpu_gram *gr = b->gram;
    size_t cells, workers = gsvd_parallel_workers(b->n_threads);
    gr->group = group_rows(n);
    if (gsvd_mul_size(gr->group, n, &cells) < 0)
        return GSVD_EINVAL;
    if (!gr->i8)
        return gsvd_reserve_large(&b->z, &b->z_cap, cells, sizeof *b->z);
    for (int k = 0; k < 2; k++) {
        struct i8_buf *ib = &gr->ib[k];
        ib->codes = gsvd_alloc_large(cells); /* rows read in class order: few TLB entries */
        ib->cen = gsvd_malloc(gr->group * sizeof *ib->cen);
        ib->scl = gsvd_malloc(gr->group * sizeof *ib->scl);
        ib->mis = gsvd_malloc(gr->group * sizeof *ib->mis);
        if (!ib->codes || !ib->cen || !ib->scl || !ib->mis)
            return GSVD_ENOMEM;
    }
    gr->ib_fill = 0;
    gr->i8acc = gsvd_calloc(workers * GSVD_I8_ACC, sizeof *gr->i8acc);
    gr->dtile = gsvd_malloc(workers * GRAM_TILE * GRAM_TILE * sizeof *gr->dtile);
    return gr->i8acc && gr->dtile ? GSVD_OK : GSVD_ENOMEM;
}

/* Rows [r, r + take) of the block into the group at row gr->filled: standardised, or as call
 * codes with their centre, scale and missing value (i8). */
static void put_rows(struct backend_cpu *b, const struct gsvd_gblock *g, size_t r, size_t take,
                     double *sumsq)
{
    struct cpu_gram *gr = b->gram;
    size_t n = gr->n;
    if (!gr->i8) {
        standardise_rows(b, gr, g, r, take, b->z + gr->filled * n, sumsq);
        return;
    }
    struct i8_buf *ib = &gr->ib[gr->ib_fill];
    for (size_t t = 0; t < take; t++) {
        size_t at = gr->filled + t;
        double rs = 0;
        gsvd_cpu_row_codes(g, r + t, ib->codes + at * n, sumsq ? &rs : NULL);
        if (sumsq)
            add_row_sumsq(b, gr, rs, sumsq);
        ib->cen[at] = g->center[r + t];
        ib->scl[at] = g->scale[r + t];
        ib->mis[at] = g->missing ? g->missing[r + t] : 0.0f;
    }
}

/* Float rows reached the i8 kernel, which gram_begin allows only with a bound (integers). */
static int bad_i8_input(void)
{
    gsvd_log_error("float genotype rows reached the int8 Gram kernel (internal error)");
    return GSVD_EINTERNAL;
}

/* Feed a block's rows into groups (variant index / gr->group, as the passes do); `flush` runs
 * on every complete group of gr->filled rows. */
static int feed(struct backend_cpu *b, const struct gsvd_gblock *g, double *sumsq,
                int (*flush)(struct backend_cpu *b))
{
    struct cpu_gram *gr = b->gram;
    size_t r = 0;
    int rc = GSVD_OK;

    if (g->n_cols != gr->n) {
        gsvd_log_error("internal error: a block of %zu samples in a Gram of %zu", g->n_cols, gr->n);
        return GSVD_EINTERNAL;
    }
    while (r < g->n_rows) {
        uint64_t gid;
        size_t take = group_run(gr->next_index, g, r, gr->group, &gid);
        if (gr->filled && gid != gr->gid)
            GSVD_TRY(flush(b));
        gr->gid = gid;
        if (gr->filled + take > gr->group)
            return bad_index();
        if (gr->i8 && g->f64)
            return bad_i8_input();
        put_rows(b, g, r, take, sumsq);
        gr->filled += take;
        r += take;
    }
    gr->next_index += g->n_rows;
out:
    return rc;
}

double gsvd_cpu_gram_fast(gsvd_backend *be, int on)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    struct cpu_gram *gr = b->gram;
    char why[128];

    gr->fast = 0;
    if (!on)
        return 0;
    if (gr->kernel == GSVD_GRAM_I8)
        return cpu_dosages_0_2(b) ? GSVD_I8_WEIGHT_ERR : 0;
    if (gr->kernel != GSVD_GRAM_AUTO || gr->f64)
        return 0;
    if (!cpu_dosages_0_2(b)) {
        gsvd_log_debug("Gram kernel: not i8 (needs integer dosages 0..2)");
        return 0;
    }
    int engine = gsvd_i8_engine_pick(why, sizeof why);
    if (!engine) {
        gsvd_log_debug("Gram kernel: not i8 (%s)", why);
        return 0;
    }
    if (!gsvd_i8_engine_fast(engine)) { /* the same bytes, but not faster than float32 */
        gsvd_log_debug("Gram kernel: not i8 (its %s engine is not faster than float32 here)",
                       gsvd_i8_engine_name(engine));
        return 0;
    }
    gr->fast = 1;
    return GSVD_I8_WEIGHT_ERR;
}

double gsvd_cpu_gram_error(gsvd_backend *be)
{
    return ((struct backend_cpu *)be)->gram->err;
}

/* Which tiles this Gram runs on (enum gsvd_gram_kernel, auto resolved: f32 also stands for
 * the float64 tiles); says which at -v.  auto keeps float32 ssyrk unless the caller allowed the
 * i8 kernel (gram_fast): the bf16 hi/lo tiles are ~1.3x faster on a Sapphire Rapids core but
 * their singular values are 1-2e-6 off float64, not 1e-7 (docs/dev/decisions.md 2026-11-25). */
static int pick_kernel(const struct backend_cpu *b, size_t n)
{
    const struct cpu_gram *gr = b->gram;
    char why[128];

    if (gr->kernel == GSVD_GRAM_I8 || (gr->kernel == GSVD_GRAM_AUTO && gr->fast)) {
        if (!cpu_dosages_0_2(b)) {
            gsvd_log_error("--gram-kernel i8 needs integer dosages 0..2 (ploidy 1 or 2)");
            return GSVD_EUNSUPPORTED;
        }
        gsvd_log_info("Gram kernel: i8 (int8 products on the dosages, weights to 2^-14: %s)",
                      gsvd_i8_engine_name(gsvd_i8_engine_pick(NULL, 0)));
        return GSVD_GRAM_I8;
    }
    if (gr->kernel == GSVD_GRAM_AMX) { /* usable: checked at create */
        gsvd_log_info("Gram kernel: amx (bf16 hi/lo tiles)");
        return GSVD_GRAM_AMX;
    }
    if (gr->kernel == GSVD_GRAM_AUTO && !gr->f64 && n <= GRAM_F32_MAX_N)
        gsvd_log_debug("Gram kernel: auto is f32; --gram-kernel amx %s",
                       gsvd_amx_usable(why, sizeof why) ? "would run here" : why);
    return GSVD_GRAM_F32;
}

/* nn zeroed doubles (gsvd_free).  Written rather than calloc'd: the tiles read an entry before
 * they write it, and a first read maps the shared zero page, which every later write then
 * copies with a TLB shootdown on every CPU (a third of a small Gram's time in a VM). */
static double *zeroed_large(size_t nn)
{
    double *p = nn <= SIZE_MAX / sizeof *p ? gsvd_alloc_large(nn * sizeof *p) : NULL;
    if (p)
        memset(p, 0, nn * sizeof *p);
    return p;
}

static int i8_wait(struct cpu_gram *gr);

/* The Gram's buffers (gram_begin, gsvd_cpu_gram_free). */
static void gram_release(struct cpu_gram *gr)
{
    (void)i8_wait(gr); /* a job still running (a failed scan): its buffers go below */
    gsvd_free(gr->g);
    gsvd_free(gr->glo);
    gsvd_free(gr->gblk);
    gsvd_free(gr->gtile);
    gsvd_amx_pack_free(gr->amx);
    gsvd_free(gr->ctile);
    gsvd_i8_pack_free(gr->i8);
    for (int k = 0; k < 2; k++) {
        gsvd_free(gr->ib[k].codes);
        gsvd_free(gr->ib[k].cen);
        gsvd_free(gr->ib[k].scl);
        gsvd_free(gr->ib[k].mis);
        gr->ib[k] = (struct i8_buf){0};
    }
    gsvd_free(gr->i8acc);
    gsvd_free(gr->dtile);
    gr->g = gr->glo = gr->gtile = gr->dtile = NULL;
    gr->gblk = gr->ctile = NULL;
    gr->amx = NULL;
    gr->i8 = NULL;
    gr->i8acc = NULL;
}

void gsvd_cpu_gram_free(struct cpu_gram *gr)
{
    if (!gr)
        return;
    gram_release(gr);
    gsvd_free(gr);
}

int gsvd_cpu_gram_begin(gsvd_backend *be, size_t n)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    struct cpu_gram *gr = b->gram;
    size_t nn;
    int rc = GSVD_OK, kernel;

    if (gsvd_mul_size(n, n, &nn) < 0)
        return GSVD_EINVAL;
    gram_release(gr);
    kernel = pick_kernel(b, n);
    if (kernel < 0)
        return kernel;
    gr->err = kernel == GSVD_GRAM_I8 ? GSVD_I8_WEIGHT_ERR : 0;
    gr->g = zeroed_large(nn);
    if (!gr->g)
        return GSVD_ENOMEM;
    if (b->bounded) {
        gr->glo = zeroed_large(nn);
        if (!gr->glo)
            return GSVD_ENOMEM;
        /* |G_ij| <= sum_r max|z_r|^2, doubled for the rounding of the products */
        gr->ggrid = gsvd_xsum_grid(2.0 * (double)b->zb.rows * b->zb.max_abs * b->zb.max_abs);
        gr->trgrid = gsvd_xsum_grid(2.0 * (double)b->zb.rows * b->zb.row_sumsq);
        gr->tr_hi = gr->tr_lo = 0;
        gr->tr_over = 0;
    }
    if (kernel == GSVD_GRAM_I8) {
        GSVD_TRY(gsvd_i8_pack_new(&gr->i8, gsvd_i8_engine_pick(NULL, 0)));
    } else if (kernel == GSVD_GRAM_AMX) {
        GSVD_TRY(gsvd_amx_pack_new(&gr->amx));
        gr->ctile = gsvd_malloc(gsvd_parallel_workers(b->n_threads) * GRAM_TILE * GRAM_TILE *
                                sizeof *gr->ctile);
        if (!gr->ctile)
            return GSVD_ENOMEM;
    } else if (n <= GRAM_F32_MAX_N && !gr->f64) {
        gsvd_log_info("Gram kernel: f32 (ssyrk tiles)");
        gr->gblk = gsvd_malloc(nn * sizeof *gr->gblk);
        if (!gr->gblk)
            return GSVD_ENOMEM;
    } else {
        gsvd_log_info("Gram kernel: f64 (dsyrk tiles)");
        if (b->bounded) {
            gr->gtile = gsvd_malloc(gsvd_parallel_workers(b->n_threads) * GRAM_TILE * GRAM_TILE *
                                    sizeof *gr->gtile);
            if (!gr->gtile)
                return GSVD_ENOMEM;
        }
    }
    gr->n = n;
    gr->filled = 0;
    gr->next_index = 0;
    gr->sumsq = NULL;
    rc = reserve_group(b, n);
out:
    return rc;
}

/* G += Z^T Z for the group, in fixed tiles of the upper triangle (256 wide, float32 512): int8
 * or bf16 AMX tiles or float32 ssyrk/sgemm per tile added into float64 (or dsyrk/dgemm for large n:
 * straight into G, or into a scratch tile added exactly when there is a bound).  Every tile is
 * computed by the same BLAS calls whatever thread takes it, so the result does not depend on the
 * thread count. */

struct gram_job {
    struct backend_cpu *b;
    size_t rows, nt; /* group rows, tiles per side */
    atomic_int over; /* a value exceeded the grid's bound */
};

/* w values v of one tile row into (hi, lo) exactly on grid g (gsvd_xsum_add, written so the
 * compiler vectorises it); returns 1 if a value exceeded the grid's bound. */
GSVD_CLONES static int xsum_row_d(double *restrict hi, double *restrict lo,
                                  const double *restrict v, size_t w, struct gsvd_xgrid g)
{
    int over = 0;
    for (size_t j = 0; j < w; j++) {
        double x = v[j], h = gsvd_xsum_round(x, g.c_hi), l, t;
        over |= !(fabs(x) <= g.bound);
        l = lo[j] + gsvd_xsum_round(x - h, g.c_lo);
        t = gsvd_xsum_round(l, g.c_hi);
        hi[j] = hi[j] + h + t;
        lo[j] = l - t;
    }
    return over;
}

/* Add the upper-triangle entries (global column >= row) of tile values c (row stride ldc) into
 * G at (i0, j0), exactly when there is a bound.  Returns 1 if a value exceeded the bound. */
static int gram_add(struct backend_cpu *b, size_t i0, size_t j0, size_t wi, size_t wj,
                    const float *cf, const double *cd, size_t ldc)
{
    struct cpu_gram *gr = b->gram;
    size_t n = gr->n;
    int over = 0;
    for (size_t i = 0; i < wi; i++) {
        size_t j = i0 + i > j0 ? i0 + i - j0 : 0, at = (i0 + i) * n + j0 + j;
        if (j >= wj)
            continue;
        if (b->bounded && cf) {
            double v[GRAM_TILE_F32]; /* the float32 row in float64: exact */
            for (size_t q = j; q < wj; q++)
                v[q - j] = cf[i * ldc + q];
            over |= xsum_row_d(gr->g + at, gr->glo + at, v, wj - j, gr->ggrid);
        } else if (b->bounded)
            over |= xsum_row_d(gr->g + at, gr->glo + at, cd + i * ldc + j, wj - j, gr->ggrid);
        else
            for (; j < wj; j++, at++)
                gr->g[at] += cf ? (double)cf[i * ldc + j] : cd[i * ldc + j];
    }
    return over;
}

/* Side of the Gram tiles: the float32 tiles are larger (OpenBLAS packs each tile's two panels
 * per call, so a wider tile packs less per product). */
static size_t gram_tile_side(const struct cpu_gram *gr)
{
    return gr->gblk && !gr->amx ? GRAM_TILE_F32 : GRAM_TILE;
}

static int gram_tile(struct backend_cpu *b, const struct gram_job *job, size_t ti, size_t tj,
                     size_t share)
{
    struct cpu_gram *gr = b->gram;
    size_t n = gr->n, rows = job->rows, ts = gram_tile_side(gr), i0 = ti * ts, j0 = tj * ts;
    size_t wi = n - i0 < ts ? n - i0 : ts, wj = n - j0 < ts ? n - j0 : ts;

    if (gr->i8) {
        double *c = gr->dtile + share * GRAM_TILE * GRAM_TILE;
        gsvd_i8_gram_tile(gr->i8, i0, j0, wi, wj, gr->i8acc + share * GSVD_I8_ACC, c);
        return gram_add(b, i0, j0, wi, wj, NULL, c, GRAM_TILE);
    }
    if (gr->amx) {
        float *c = gr->ctile + share * GRAM_TILE * GRAM_TILE;
        gsvd_amx_gram_tile(gr->amx, i0, j0, wi, wj, c);
        return gram_add(b, i0, j0, wi, wj, c, NULL, GRAM_TILE);
    }
    if (gr->gblk) {
        float *c = gr->gblk + i0 * n + j0;
        if (ti == tj)
            cblas_ssyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)wi, (int)rows, 1.0f, b->z + i0,
                        (int)n, 0.0f, c, (int)n);
        else
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)wi, (int)wj, (int)rows, 1.0f,
                        b->z + i0, (int)n, b->z + j0, (int)n, 0.0f, c, (int)n);
        return gram_add(b, i0, j0, wi, wj, c, NULL, n);
    }
    if (gr->gtile) {
        double *c = gr->gtile + share * GRAM_TILE * GRAM_TILE;
        if (ti == tj)
            cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)wi, (int)rows, 1.0, b->zd + i0,
                        (int)n, 0.0, c, GRAM_TILE);
        else
            cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)wi, (int)wj, (int)rows, 1.0,
                        b->zd + i0, (int)n, b->zd + j0, (int)n, 0.0, c, GRAM_TILE);
        return gram_add(b, i0, j0, wi, wj, NULL, c, GRAM_TILE);
    }
    double *c = gr->g + i0 * n + j0;
    if (ti == tj)
        cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)wi, (int)rows, 1.0, b->zd + i0,
                    (int)n, 1.0, c, (int)n);
    else
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)wi, (int)wj, (int)rows, 1.0,
                    b->zd + i0, (int)n, b->zd + j0, (int)n, 1.0, c, (int)n);
    return 0;
}

/* Task t of a group's tiles -> tile (ti, tj) of the upper triangle, row by row; `worker` names
 * the scratch tile (which worker takes a tile does not change its result). */
static int gram_task(void *arg, size_t worker, size_t t)
{
    struct gram_job *job = arg;
    size_t ti = 0;
    while (t >= job->nt - ti) {
        t -= job->nt - ti;
        ti++;
    }
    if (gram_tile(job->b, job, ti, ti + t, worker))
        atomic_store(&job->over, 1);
    return GSVD_OK;
}

/* Task t: strip t of the group's samples into the int8 tiles. */
static int i8_pack_task(void *arg, size_t worker, size_t t)
{
    struct backend_cpu *b = arg;
    struct cpu_gram *gr = b->gram;
    (void)worker;
    gsvd_i8_pack_strip(gr->i8, t);
    return GSVD_OK;
}

/* The group into the int8 tiles: plan (classes, digits), then the strips in parallel. */
static int i8_pack(struct backend_cpu *b, size_t rows)
{
    struct cpu_gram *gr = b->gram;
    size_t n = gr->n;
    double werr;
    const struct i8_buf *ib = &gr->ib[gr->job_buf];
    int rc = gsvd_i8_pack_plan(gr->i8, rows, n, ib->codes, ib->cen, ib->scl, ib->mis, &werr);
    if (rc == GSVD_EINVAL) {
        gsvd_log_error("a variant's centre or scale is outside what the int8 Gram kernel takes "
                       "(internal error)");
        return GSVD_EINTERNAL;
    }
    if (rc < 0)
        return rc;
    return gsvd_blas_parallel_tasks(b->n_threads, gsvd_i8_pack_strips(gr->i8), i8_pack_task, b);
}

/* Task u: convert rows [32u, 32u + 32) of the group into the AMX pack. */
static int amx_pack_task(void *arg, size_t worker, size_t u)
{
    struct backend_cpu *b = arg;
    struct cpu_gram *gr = b->gram;
    (void)worker;
    gsvd_amx_pack_rows(gr->amx, b->z, u);
    return GSVD_OK;
}

/* The group's products into G: pack (AMX), convert (float64 tiles), then every tile. */
static int gram_group(struct backend_cpu *b, size_t rows)
{
    struct cpu_gram *gr = b->gram;
    size_t n = gr->n;
    struct gram_job job;
    int rc = GSVD_OK;

    if (gr->i8) {
        GSVD_TRY(i8_pack(b, rows));
    } else if (gr->amx) {
        GSVD_TRY(gsvd_amx_pack_reserve(gr->amx, rows, n));
        GSVD_TRY(
            gsvd_blas_parallel_tasks(b->n_threads, gsvd_amx_pack_units(gr->amx), amx_pack_task, b));
    } else if (!gr->gblk) {
        GSVD_TRY(gsvd_reserve_large(&b->zd, &b->zd_cap, rows * n, sizeof *b->zd));
        for (size_t i = 0; i < rows * n; i++)
            b->zd[i] = b->z[i];
    }
    job.b = b;
    job.rows = rows;
    job.nt = (n + gram_tile_side(gr) - 1) / gram_tile_side(gr);
    atomic_init(&job.over, 0);
    GSVD_TRY(gsvd_blas_parallel_tasks(b->n_threads, job.nt * (job.nt + 1) / 2, gram_task, &job));
    if (atomic_load(&job.over))
        return bound_exceeded("a Gram product");
out:
    return rc;
}

/* The i8 job: the group in the buffer not being filled. */
static void i8_job(void *ctx, size_t k)
{
    struct backend_cpu *b = ctx;
    struct cpu_gram *gr = b->gram;
    (void)k;
    gr->job_rc = gram_group(b, gr->job_rows);
}

/* Wait for the running i8 job; its result. */
static int i8_wait(struct cpu_gram *gr)
{
    if (!gr->job_on)
        return GSVD_OK;
    gsvd_threads_join(&gr->job_th, 1);
    gr->job_on = 0;
    return gr->job_rc;
}

/* A full group's products.  i8 with more than one thread: on a job thread while the next group
 * fills the other buffer (groups still go into G one after the other, in order, so the result
 * is the same); `last` waits for it. */
static int flush_group(struct backend_cpu *b, int last)
{
    struct cpu_gram *gr = b->gram;
    size_t rows = gr->filled;
    int rc = i8_wait(gr);

    if (rc < 0 || rows == 0)
        return rc;
    if (gr->tr_over)
        return bound_exceeded("a row's sum of squares");
    gr->filled = 0;
    if (!gr->i8)
        return gram_group(b, rows);
    gr->job_buf = gr->ib_fill;
    if (b->n_threads < 2 || last)
        return gram_group(b, rows);
    gr->job_rows = rows;
    gr->ib_fill ^= 1;
    if (gsvd_threads_start(&gr->job_th, 1, i8_job, b) != 1)
        return gram_group(b, rows); /* no thread: here, the same sums */
    gr->job_on = 1;
    return GSVD_OK;
}

static int flush_gram(struct backend_cpu *b)
{
    return flush_group(b, 0);
}

/* The last group, and the end of any job. */
static int flush_last(struct backend_cpu *b)
{
    return flush_group(b, 1);
}

int gsvd_cpu_gram_block(gsvd_backend *be, const struct gsvd_gblock *g, double *sumsq)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    struct cpu_gram *gr = b->gram;
    if (sumsq)
        gr->sumsq = sumsq; /* with a bound, the exact trace is written there at gram_end */
    return feed(b, g, sumsq, flush_gram);
}

int gsvd_cpu_gram_end(gsvd_backend *be, double *gout)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    struct cpu_gram *gr = b->gram;
    size_t n = gr->n;
    int rc = flush_last(b);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            gout[i * n + j] = gout[j * n + i] =
                gr->glo ? gsvd_xsum_value(gr->g[i * n + j], gr->glo[i * n + j]) : gr->g[i * n + j];
    if (gr->glo && gr->sumsq)
        *gr->sumsq = gsvd_xsum_value(gr->tr_hi, gr->tr_lo);
    return GSVD_OK;
}

int gsvd_cpu_gram_end_parts(gsvd_backend *be, double *g_hi, double *g_lo, double *tr)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    struct cpu_gram *gr = b->gram;
    size_t n = gr->n;
    int rc;
    if (!gr->glo)
        return GSVD_EUNSUPPORTED;
    rc = flush_last(b);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            g_hi[i * n + j] = j >= i ? gr->g[i * n + j] : 0.0;
            g_lo[i * n + j] = j >= i ? gr->glo[i * n + j] : 0.0;
        }
    if (tr) {
        tr[0] = gr->tr_hi;
        tr[1] = gr->tr_lo;
    }
    return GSVD_OK;
}
