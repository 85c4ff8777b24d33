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

/* Rows per Gram group and per pass group: gsvd_backend_gram_group_rows and
 * gsvd_backend_pass_group_rows (analysis/backend.h), powers of two that depend on the sample
 * count alone, so the grouping (and every rounding) is the same for any chunking and any split
 * of the rows between processes. */
static size_t group_rows(size_t n)
{
    return gsvd_backend_gram_group_rows(n);
}

/* Make room for a group of rows: standardised in z, or as call codes for the i8 kernel. */
static int reserve_group(struct backend_cpu *b, size_t n)
{
    size_t cells, workers = gsvd_parallel_workers(b->n_threads);
    b->group = group_rows(n);
    if (gsvd_mul_size(b->group, n, &cells) < 0)
        return GSVD_EINVAL;
    if (!b->i8)
        return gsvd_reserve_large(&b->z, &b->z_cap, cells, sizeof *b->z);
    for (int k = 0; k < 2; k++) {
        struct i8_buf *ib = &b->ib[k];
        ib->codes = gsvd_alloc_large(cells); /* rows read in class order: few TLB entries */
        ib->cen = gsvd_malloc(b->group * sizeof *ib->cen);
        ib->scl = gsvd_malloc(b->group * sizeof *ib->scl);
        ib->mis = gsvd_malloc(b->group * sizeof *ib->mis);
        if (!ib->codes || !ib->cen || !ib->scl || !ib->mis)
            return GSVD_ENOMEM;
    }
    b->ib_fill = 0;
    b->i8acc = gsvd_calloc(workers * 2 * GRAM_TILE * GRAM_TILE, sizeof *b->i8acc);
    b->dtile = gsvd_malloc(workers * GRAM_TILE * GRAM_TILE * sizeof *b->dtile);
    return b->i8acc && b->dtile ? GSVD_OK : GSVD_ENOMEM;
}

/* Rows [r, r + take) of the block into the group at row b->filled: standardised, or as call
 * codes with their centre, scale and missing value (i8). */
static void put_rows(struct backend_cpu *b, const struct gsvd_gblock *g, size_t r, size_t take,
                     double *sumsq)
{
    size_t n = b->n;
    if (!b->i8) {
        standardise_rows(b, g, r, take, b->z + b->filled * n, sumsq);
        return;
    }
    struct i8_buf *ib = &b->ib[b->ib_fill];
    for (size_t t = 0; t < take; t++) {
        size_t at = b->filled + t;
        double rs = 0;
        gsvd_cpu_row_codes(g, r + t, ib->codes + at * n, sumsq ? &rs : NULL);
        if (sumsq)
            add_row_sumsq(b, rs, sumsq);
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

/* Feed a block's rows into groups (variant index / b->group, as the passes do); `flush` runs
 * on every complete group of b->filled rows. */
static int feed(struct backend_cpu *b, const struct gsvd_gblock *g, double *sumsq,
                int (*flush)(struct backend_cpu *b))
{
    size_t r = 0;
    int rc = GSVD_OK;

    if (g->n_cols != b->n) {
        gsvd_log_error("block has %zu samples, the pass has %zu", g->n_cols, b->n);
        return GSVD_EINTERNAL;
    }
    while (r < g->n_rows) {
        uint64_t gid;
        size_t take = group_run(b, g, r, b->group, &gid);
        if (b->filled && gid != b->gram_gid)
            GSVD_TRY(flush(b));
        b->gram_gid = gid;
        if (b->filled + take > b->group)
            return bad_index();
        if (b->i8 && g->f64)
            return bad_i8_input();
        put_rows(b, g, r, take, sumsq);
        b->filled += take;
        r += take;
    }
    b->next_index += g->n_rows;
out:
    return rc;
}

double gsvd_cpu_gram_fast(gsvd_backend *be, int on)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    char why[128];

    b->gram_fast = 0;
    if (!on)
        return 0;
    if (b->gram_kernel == GSVD_GRAM_I8)
        return cpu_dosages_0_2(b) ? GSVD_I8_WEIGHT_ERR : 0;
    if (b->gram_kernel != GSVD_GRAM_AUTO || b->gram_f64)
        return 0;
    if (!cpu_dosages_0_2(b)) {
        gsvd_log_debug("Gram kernel: not i8 (needs integer dosages 0..2)");
        return 0;
    }
    if (!gsvd_i8_engine_pick(why, sizeof why)) {
        gsvd_log_debug("Gram kernel: not i8 (%s)", why);
        return 0;
    }
    b->gram_fast = 1;
    return GSVD_I8_WEIGHT_ERR;
}

double gsvd_cpu_gram_error(gsvd_backend *be)
{
    return ((struct backend_cpu *)be)->gram_err;
}

/* Which tiles this Gram runs on (enum gsvd_gram_kernel, auto resolved: f32 also stands for
 * the float64 tiles); says which at -v.  auto keeps float32 ssyrk unless the caller allowed the
 * i8 kernel (gram_fast): the bf16 hi/lo tiles are ~1.3x faster on a Sapphire Rapids core but
 * their singular values are 1-2e-6 off float64, not 1e-7 (docs/dev/decisions.md 2026-11-25). */
static int pick_kernel(const struct backend_cpu *b, size_t n)
{
    char why[128];

    if (b->gram_kernel == GSVD_GRAM_I8 || (b->gram_kernel == GSVD_GRAM_AUTO && b->gram_fast)) {
        if (!cpu_dosages_0_2(b)) {
            gsvd_log_error("--gram-kernel i8 needs integer dosages 0..2 (ploidy 1 or 2)");
            return GSVD_EUNSUPPORTED;
        }
        gsvd_log_info("Gram kernel: i8 (int8 products on the dosages, weights to 2^-14: %s)",
                      gsvd_i8_engine_name(gsvd_i8_engine_pick(NULL, 0)));
        return GSVD_GRAM_I8;
    }
    if (b->gram_kernel == GSVD_GRAM_AMX) { /* usable: checked at create */
        gsvd_log_info("Gram kernel: amx (bf16 hi/lo tiles)");
        return GSVD_GRAM_AMX;
    }
    if (b->gram_kernel == GSVD_GRAM_AUTO && !b->gram_f64 && n <= GRAM_F32_MAX_N)
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

static int i8_wait(struct backend_cpu *b);

void gsvd_cpu_gram_free(struct backend_cpu *b)
{
    (void)i8_wait(b); /* a job still running (a failed scan): its buffers go below */
    gsvd_free(b->g);
    gsvd_free(b->glo);
    gsvd_free(b->gblk);
    gsvd_free(b->gtile);
    gsvd_amx_pack_free(b->amx);
    gsvd_free(b->ctile);
    gsvd_i8_pack_free(b->i8);
    for (int k = 0; k < 2; k++) {
        gsvd_free(b->ib[k].codes);
        gsvd_free(b->ib[k].cen);
        gsvd_free(b->ib[k].scl);
        gsvd_free(b->ib[k].mis);
        b->ib[k] = (struct i8_buf){0};
    }
    gsvd_free(b->i8acc);
    gsvd_free(b->dtile);
    b->g = b->glo = b->gtile = b->dtile = NULL;
    b->gblk = b->ctile = NULL;
    b->amx = NULL;
    b->i8 = NULL;
    b->i8acc = NULL;
}

int gsvd_cpu_gram_begin(gsvd_backend *be, size_t n)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    size_t nn;
    int rc = GSVD_OK, kernel;

    if (gsvd_mul_size(n, n, &nn) < 0)
        return GSVD_EINVAL;
    gsvd_cpu_gram_free(b);
    kernel = pick_kernel(b, n);
    if (kernel < 0)
        return kernel;
    b->gram_err = kernel == GSVD_GRAM_I8 ? GSVD_I8_WEIGHT_ERR : 0;
    b->g = zeroed_large(nn);
    if (!b->g)
        return GSVD_ENOMEM;
    if (b->bounded) {
        b->glo = zeroed_large(nn);
        if (!b->glo)
            return GSVD_ENOMEM;
        /* |G_ij| <= sum_r max|z_r|^2, doubled for the rounding of the products */
        b->ggrid = gsvd_xsum_grid(2.0 * (double)b->zb.rows * b->zb.max_abs * b->zb.max_abs);
        b->trgrid = gsvd_xsum_grid(2.0 * (double)b->zb.rows * b->zb.row_sumsq);
        b->tr_hi = b->tr_lo = 0;
        b->tr_over = 0;
    }
    if (kernel == GSVD_GRAM_I8) {
        GSVD_TRY(gsvd_i8_pack_new(&b->i8, gsvd_i8_engine_pick(NULL, 0)));
    } else if (kernel == GSVD_GRAM_AMX) {
        GSVD_TRY(gsvd_amx_pack_new(&b->amx));
        b->ctile = gsvd_malloc(gsvd_parallel_workers(b->n_threads) * GRAM_TILE * GRAM_TILE *
                               sizeof *b->ctile);
        if (!b->ctile)
            return GSVD_ENOMEM;
    } else if (n <= GRAM_F32_MAX_N && !b->gram_f64) {
        gsvd_log_info("Gram kernel: f32 (ssyrk tiles)");
        b->gblk = gsvd_malloc(nn * sizeof *b->gblk);
        if (!b->gblk)
            return GSVD_ENOMEM;
    } else {
        gsvd_log_info("Gram kernel: f64 (dsyrk tiles)");
        if (b->bounded) {
            b->gtile = gsvd_malloc(gsvd_parallel_workers(b->n_threads) * GRAM_TILE * GRAM_TILE *
                                   sizeof *b->gtile);
            if (!b->gtile)
                return GSVD_ENOMEM;
        }
    }
    b->n = n;
    b->filled = 0;
    b->next_index = 0;
    b->pass_sumsq = NULL;
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
    size_t n = b->n;
    int over = 0;
    for (size_t i = 0; i < wi; i++) {
        size_t j = i0 + i > j0 ? i0 + i - j0 : 0, at = (i0 + i) * n + j0 + j;
        if (j >= wj)
            continue;
        if (b->bounded && cf) {
            double v[GRAM_TILE_F32]; /* the float32 row in float64: exact */
            for (size_t q = j; q < wj; q++)
                v[q - j] = cf[i * ldc + q];
            over |= xsum_row_d(b->g + at, b->glo + at, v, wj - j, b->ggrid);
        } else if (b->bounded)
            over |= xsum_row_d(b->g + at, b->glo + at, cd + i * ldc + j, wj - j, b->ggrid);
        else
            for (; j < wj; j++, at++)
                b->g[at] += cf ? (double)cf[i * ldc + j] : cd[i * ldc + j];
    }
    return over;
}

/* Side of the Gram tiles: the float32 tiles are larger (OpenBLAS packs each tile's two panels
 * per call, so a wider tile packs less per product). */
static size_t gram_tile_side(const struct backend_cpu *b)
{
    return b->gblk && !b->amx ? GRAM_TILE_F32 : GRAM_TILE;
}

static int gram_tile(struct backend_cpu *b, const struct gram_job *job, size_t ti, size_t tj,
                     size_t share)
{
    size_t n = b->n, rows = job->rows, ts = gram_tile_side(b), i0 = ti * ts, j0 = tj * ts;
    size_t wi = n - i0 < ts ? n - i0 : ts, wj = n - j0 < ts ? n - j0 : ts;

    if (b->i8) {
        double *c = b->dtile + share * GRAM_TILE * GRAM_TILE;
        gsvd_i8_gram_tile(b->i8, i0, j0, wi, wj, b->i8acc + share * 2 * GRAM_TILE * GRAM_TILE, c);
        return gram_add(b, i0, j0, wi, wj, NULL, c, GRAM_TILE);
    }
    if (b->amx) {
        float *c = b->ctile + share * GRAM_TILE * GRAM_TILE;
        gsvd_amx_gram_tile(b->amx, i0, j0, wi, wj, c);
        return gram_add(b, i0, j0, wi, wj, c, NULL, GRAM_TILE);
    }
    if (b->gblk) {
        float *c = b->gblk + i0 * n + j0;
        if (ti == tj)
            cblas_ssyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)wi, (int)rows, 1.0f, b->z + i0,
                        (int)n, 0.0f, c, (int)n);
        else
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)wi, (int)wj, (int)rows, 1.0f,
                        b->z + i0, (int)n, b->z + j0, (int)n, 0.0f, c, (int)n);
        return gram_add(b, i0, j0, wi, wj, c, NULL, n);
    }
    if (b->gtile) {
        double *c = b->gtile + share * GRAM_TILE * GRAM_TILE;
        if (ti == tj)
            cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)wi, (int)rows, 1.0, b->zd + i0,
                        (int)n, 0.0, c, GRAM_TILE);
        else
            cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)wi, (int)wj, (int)rows, 1.0,
                        b->zd + i0, (int)n, b->zd + j0, (int)n, 0.0, c, GRAM_TILE);
        return gram_add(b, i0, j0, wi, wj, NULL, c, GRAM_TILE);
    }
    double *c = b->g + i0 * n + j0;
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
    (void)worker;
    gsvd_i8_pack_strip(b->i8, b->ib[b->job_buf].codes, t);
    return GSVD_OK;
}

/* The group into the int8 tiles: plan (classes, digits), then the strips in parallel. */
static int i8_pack(struct backend_cpu *b, size_t rows)
{
    size_t n = b->n;
    double werr;
    const struct i8_buf *ib = &b->ib[b->job_buf];
    int rc = gsvd_i8_pack_plan(b->i8, rows, n, ib->cen, ib->scl, ib->mis, &werr);
    if (rc == GSVD_EINVAL) {
        gsvd_log_error("a variant's centre or scale is outside what the int8 Gram kernel takes "
                       "(internal error)");
        return GSVD_EINTERNAL;
    }
    if (rc < 0)
        return rc;
    return gsvd_blas_parallel_tasks(b->n_threads, gsvd_i8_pack_strips(b->i8), i8_pack_task, b);
}

/* Task u: convert rows [32u, 32u + 32) of the group into the AMX pack. */
static int amx_pack_task(void *arg, size_t worker, size_t u)
{
    struct backend_cpu *b = arg;
    (void)worker;
    gsvd_amx_pack_rows(b->amx, b->z, u);
    return GSVD_OK;
}

/* The group's products into G: pack (AMX), convert (float64 tiles), then every tile. */
static int gram_group(struct backend_cpu *b, size_t rows)
{
    size_t n = b->n;
    struct gram_job job;
    int rc = GSVD_OK;

    if (b->i8) {
        GSVD_TRY(i8_pack(b, rows));
    } else if (b->amx) {
        GSVD_TRY(gsvd_amx_pack_reserve(b->amx, rows, n));
        GSVD_TRY(
            gsvd_blas_parallel_tasks(b->n_threads, gsvd_amx_pack_units(b->amx), amx_pack_task, b));
    } else if (!b->gblk) {
        GSVD_TRY(gsvd_reserve_large(&b->zd, &b->zd_cap, rows * n, sizeof *b->zd));
        for (size_t i = 0; i < rows * n; i++)
            b->zd[i] = b->z[i];
    }
    job.b = b;
    job.rows = rows;
    job.nt = (n + gram_tile_side(b) - 1) / gram_tile_side(b);
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
    (void)k;
    b->job_rc = gram_group(b, b->job_rows);
}

/* Wait for the running i8 job; its result. */
static int i8_wait(struct backend_cpu *b)
{
    if (!b->job_on)
        return GSVD_OK;
    gsvd_threads_join(&b->job_th, 1);
    b->job_on = 0;
    return b->job_rc;
}

/* A full group's products.  i8 with more than one thread: on a job thread while the next group
 * fills the other buffer (groups still go into G one after the other, in order, so the result
 * is the same); `last` waits for it. */
static int flush_group(struct backend_cpu *b, int last)
{
    size_t rows = b->filled;
    int rc = i8_wait(b);

    if (rc < 0 || rows == 0)
        return rc;
    if (b->tr_over)
        return bound_exceeded("a row's sum of squares");
    b->filled = 0;
    if (!b->i8)
        return gram_group(b, rows);
    b->job_buf = b->ib_fill;
    if (b->n_threads < 2 || last)
        return gram_group(b, rows);
    b->job_rows = rows;
    b->ib_fill ^= 1;
    if (gsvd_threads_start(&b->job_th, 1, i8_job, b) != 1)
        return gram_group(b, rows); /* no thread: here, the same sums */
    b->job_on = 1;
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
    if (sumsq)
        b->pass_sumsq = sumsq; /* with a bound, the exact trace is written there at gram_end */
    return feed(b, g, sumsq, flush_gram);
}

int gsvd_cpu_gram_end(gsvd_backend *be, double *gout)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    size_t n = b->n;
    int rc = flush_last(b);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            gout[i * n + j] = gout[j * n + i] =
                b->glo ? gsvd_xsum_value(b->g[i * n + j], b->glo[i * n + j]) : b->g[i * n + j];
    if (b->glo && b->pass_sumsq)
        *b->pass_sumsq = gsvd_xsum_value(b->tr_hi, b->tr_lo);
    return GSVD_OK;
}

int gsvd_cpu_gram_end_parts(gsvd_backend *be, double *g_hi, double *g_lo, double *tr)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    size_t n = b->n;
    int rc;
    if (!b->glo)
        return GSVD_EUNSUPPORTED;
    rc = flush_last(b);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            g_hi[i * n + j] = j >= i ? b->g[i * n + j] : 0.0;
            g_lo[i * n + j] = j >= i ? b->glo[i * n + j] : 0.0;
        }
    if (tr) {
        tr[0] = b->tr_hi;
        tr[1] = b->tr_lo;
    }
    return GSVD_OK;
}
