/* analysis/backend_cpu.c - the CPU backend: OpenBLAS for the block products, LAPACKE for the
 * small dense problems.  Blocks are standardised into float32 (a per-row lookup table for
 * integer dosages), multiplied with sgemm/ssyrk, and each block's result is added into float64
 * accumulators, so rounding does not grow with the number of variants.  The BLAS thread count
 * is set at create and restored at destroy. */
#include "gsvd_config.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "analysis/backend_internal.h"
#include "analysis/gblock_std.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"

#define GRAM_F32_MAX_N 16384 /* above this the Gram is accumulated with dsyrk, no f32 copy */

struct backend_cpu {
    struct gsvd_backend base;
    int saved_threads; /* BLAS threads before create */
    size_t n, c;       /* current pass: samples, columns of X */
    float *x;          /* n x c, X in float32 */
    double *y;         /* n x c accumulator */
    float *yblk;       /* n x c, one block's Z^T T */
    float *z;          /* standardised block, rows x n */
    size_t z_cap;      /* floats allocated in z */
    float *t;          /* rows x c, Z X */
    size_t t_cap;
    double *zd; /* float64 block for dsyrk / project */
    size_t zd_cap;
    float *gblk;      /* n x n float32 Gram of one block (n <= GRAM_F32_MAX_N) */
    double *g;        /* n x n float64 Gram accumulator (upper triangle filled) */
    size_t group;     /* rows per group (depends on n only) */
    size_t filled;    /* rows of the current group standardised into z */
    size_t n_threads; /* threads for the Gram tiles */
};

/* Rows per product group: about 16 MiB of float32, at least 64 and at most 4096 rows.  It
 * depends on the sample count alone, so the grouping (and every rounding) is the same for any
 * chunking of the same data. */
static size_t group_rows(size_t n)
{
    size_t g = ((size_t)16 << 20) / (4 * (n ? n : 1));
    return g < 64 ? 64 : g > 4096 ? 4096 : g;
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
    openblas_set_num_threads(b->saved_threads);
    gsvd_free(b->x);
    gsvd_free(b->y);
    gsvd_free(b->yblk);
    gsvd_free(b->z);
    gsvd_free(b->t);
    gsvd_free(b->zd);
    gsvd_free(b->gblk);
    gsvd_free(b->g);
    gsvd_free(b);
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
    b->saved_threads = openblas_get_num_threads();
    openblas_set_num_threads(1);
    *out = &b->base;
    return GSVD_OK;
}

/* Grow a float buffer to at least n elements. */
static int reserve_f(float **p, size_t *cap, size_t n)
{
    if (n <= *cap)
        return GSVD_OK;
    float *q = gsvd_realloc(*p, n * sizeof *q);
    if (!q)
        return GSVD_ENOMEM;
    *p = q;
    *cap = n;
    return GSVD_OK;
}

/* Standardise rows [r0, r0 + rows) of the block into z (rows x n float32); each row's sum of
 * squares is added to *sumsq in row order.  Values and sums come from analysis/gblock_std.h,
 * the definitions the CUDA kernels run too. */
static void standardise_rows(const struct gsvd_gblock *g, size_t r0, size_t rows, float *zout,
                             double *sumsq)
{
    size_t n = g->n_cols;
    for (size_t r = r0; r < r0 + rows; r++) {
        float *z = zout + (r - r0) * n;
        float c0 = g->center[r], s0 = g->scale[r], m0 = g->missing ? g->missing[r] : 0.0f;
        uint32_t hist[GSVD_STD_BINS] = {0};
        double rs = 0;
        if (g->i8) {
            /* dosages are small integers: a lookup table indexed by the byte (-1 = missing);
             * the sum of squares comes from a histogram of the values */
            float lut[GSVD_STD_BINS];
            const int8_t *row = g->i8 + r * n;
            for (unsigned b = 0; b < GSVD_STD_BINS; b++)
                lut[b] = gsvd_std_bin_value(b, c0, s0, m0);
            if (sumsq) {
                for (size_t i = 0; i < n; i++) {
                    uint8_t v = (uint8_t)row[i];
                    z[i] = lut[v];
                    hist[v]++;
                }
                rs = gsvd_std_sumsq_hist(hist, c0, s0, m0);
            } else {
                for (size_t i = 0; i < n; i++)
                    z[i] = lut[(uint8_t)row[i]];
            }
        } else if (g->p2) {
            /* 2-bit codes: four values per byte; the sum of squares from code counts */
            float lut[4];
            const uint8_t *row = g->p2 + r * gsvd_std_p2_row_bytes(n);
            size_t full = n / 4;
            for (unsigned c = 0; c < 4; c++)
                lut[c] = gsvd_std_p2(c, c0, s0, m0);
            for (size_t q = 0; q < full; q++) {
                uint8_t byte = row[q];
                z[4 * q] = lut[byte & 3];
                z[4 * q + 1] = lut[(byte >> 2) & 3];
                z[4 * q + 2] = lut[(byte >> 4) & 3];
                z[4 * q + 3] = lut[byte >> 6];
            }
            for (size_t i = 4 * full; i < n; i++)
                z[i] = lut[gsvd_std_p2_code(row, i)];
            if (sumsq) {
                uint32_t cnt[4] = {0};
                for (size_t i = 0; i < n; i++)
                    cnt[gsvd_std_p2_code(row, i)]++;
                for (unsigned c = 0; c < 4; c++)
                    hist[gsvd_std_p2_bin(c)] = cnt[c];
                rs = gsvd_std_sumsq_hist(hist, c0, s0, m0);
            }
        } else {
            const double *row = g->f64 + r * n;
            for (size_t i = 0; i < n; i++)
                z[i] = gsvd_std_f64(row[i], c0, s0, m0);
            if (sumsq)
                rs = gsvd_std_sumsq_f32(z, n);
        }
        if (sumsq)
            *sumsq += rs;
    }
}

/* Make room for a group of rows in z. */
static int reserve_group(struct backend_cpu *b, size_t n)
{
    size_t cells;
    b->group = group_rows(n);
    if (gsvd_mul_size(b->group, n, &cells) < 0)
        return GSVD_EINVAL;
    return reserve_f(&b->z, &b->z_cap, cells);
}

/* Feed a block's rows into groups; `flush` runs on every full group of b->filled rows. */
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
        size_t take = g->n_rows - r, room = b->group - b->filled;
        if (take > room)
            take = room;
        standardise_rows(g, r, take, b->z + b->filled * b->n, sumsq);
        b->filled += take;
        r += take;
        if (b->filled == b->group)
            GSVD_TRY(flush(b));
    }
out:
    return rc;
}

static int cpu_pass_begin(gsvd_backend *be, size_t n, size_t c, const double *x)
{
    struct backend_cpu *bk = (struct backend_cpu *)be;
    size_t nc;

    if (gsvd_mul_size(n, c, &nc) < 0)
        return GSVD_EINVAL;
    gsvd_free(bk->x);
    gsvd_free(bk->y);
    gsvd_free(bk->yblk);
    bk->x = gsvd_malloc(nc * sizeof *bk->x);
    bk->y = gsvd_calloc(nc, sizeof *bk->y);
    bk->yblk = gsvd_malloc(nc * sizeof *bk->yblk);
    if (!bk->x || !bk->y || !bk->yblk)
        return GSVD_ENOMEM;
    for (size_t i = 0; i < nc; i++)
        bk->x[i] = (float)x[i];
    bk->n = n;
    bk->c = c;
    bk->filled = 0;
    return reserve_group(bk, n);
}

/* T = Z X for the group (rows x c), Yblk = Z^T T (n x c), then Y += Yblk in float64. */
static int flush_pass(struct backend_cpu *b)
{
    size_t rows = b->filled, n = b->n, c = b->c;
    int rc = reserve_f(&b->t, &b->t_cap, rows * c);

    if (rc < 0 || rows == 0)
        return rc;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)c, (int)n, 1.0f, b->z,
                (int)n, b->x, (int)c, 0.0f, b->t, (int)c);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n, (int)c, (int)rows, 1.0f, b->z,
                (int)n, b->t, (int)c, 0.0f, b->yblk, (int)c);
    for (size_t i = 0; i < n * c; i++)
        b->y[i] += b->yblk[i];
    b->filled = 0;
    return GSVD_OK;
}

static int cpu_pass_block(gsvd_backend *be, const struct gsvd_gblock *g, double *sumsq)
{
    return feed((struct backend_cpu *)be, g, sumsq, flush_pass);
}

static int cpu_pass_end(gsvd_backend *be, double *y)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    int rc = flush_pass(b);
    if (rc == GSVD_OK)
        memcpy(y, b->y, b->n * b->c * sizeof *y);
    return rc;
}

static int reserve_d(double **p, size_t *cap, size_t n)
{
    if (n <= *cap)
        return GSVD_OK;
    double *q = gsvd_realloc(*p, n * sizeof *q);
    if (!q)
        return GSVD_ENOMEM;
    *p = q;
    *cap = n;
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
    GSVD_TRY(reserve_f(&b->z, &b->z_cap, rows * n));
    standardise_rows(g, 0, rows, b->z, NULL);
    GSVD_TRY(reserve_d(&b->zd, &b->zd_cap, rows * n));
    for (size_t i = 0; i < rows * n; i++)
        b->zd[i] = b->z[i];
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)c, (int)n, 1.0, b->zd,
                (int)n, u, (int)c, 0.0, out, (int)c);
out:
    return rc;
}

static int cpu_gram_begin(gsvd_backend *be, size_t n)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    size_t nn;

    if (gsvd_mul_size(n, n, &nn) < 0)
        return GSVD_EINVAL;
    gsvd_free(b->g);
    gsvd_free(b->gblk);
    b->gblk = NULL;
    b->g = gsvd_calloc(nn, sizeof *b->g);
    if (!b->g)
        return GSVD_ENOMEM;
    if (n <= GRAM_F32_MAX_N) {
        b->gblk = gsvd_malloc(nn * sizeof *b->gblk);
        if (!b->gblk)
            return GSVD_ENOMEM;
    }
    b->n = n;
    b->filled = 0;
    return reserve_group(b, n);
}

/* G += Z^T Z for the group, in fixed 256-column tiles of the upper triangle: float32
 * ssyrk/sgemm per tile added into float64 (or dsyrk/dgemm straight into G for large n).  Every
 * tile is computed by the same BLAS calls whatever thread takes it, so the result does not
 * depend on the thread count. */
#define GRAM_TILE 256

struct gram_job {
    struct backend_cpu *b;
    size_t rows, nt;    /* group rows, tiles per side */
    atomic_size_t next; /* next tile task */
};

static void gram_tile(struct backend_cpu *b, size_t rows, size_t ti, size_t tj)
{
    size_t n = b->n, i0 = ti * GRAM_TILE, j0 = tj * GRAM_TILE;
    size_t wi = n - i0 < GRAM_TILE ? n - i0 : GRAM_TILE,
           wj = n - j0 < GRAM_TILE ? n - j0 : GRAM_TILE;

    if (b->gblk) {
        float *c = b->gblk + i0 * n + j0;
        if (ti == tj)
            cblas_ssyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)wi, (int)rows, 1.0f, b->z + i0,
                        (int)n, 0.0f, c, (int)n);
        else
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)wi, (int)wj, (int)rows, 1.0f,
                        b->z + i0, (int)n, b->z + j0, (int)n, 0.0f, c, (int)n);
        for (size_t i = i0; i < i0 + wi; i++)
            for (size_t j = ti == tj ? i : j0; j < j0 + wj; j++)
                b->g[i * n + j] += b->gblk[i * n + j];
    } else {
        double *c = b->g + i0 * n + j0;
        if (ti == tj)
            cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)wi, (int)rows, 1.0, b->zd + i0,
                        (int)n, 1.0, c, (int)n);
        else
            cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)wi, (int)wj, (int)rows, 1.0,
                        b->zd + i0, (int)n, b->zd + j0, (int)n, 1.0, c, (int)n);
    }
}

static void *gram_worker(void *arg)
{
    struct gram_job *job = arg;
    size_t n_tasks = job->nt * (job->nt + 1) / 2;
    for (;;) {
        size_t t = atomic_fetch_add(&job->next, 1), ti = 0;
        if (t >= n_tasks)
            break;
        /* task t -> tile (ti, tj) of the upper triangle, row by row */
        while (t >= job->nt - ti) {
            t -= job->nt - ti;
            ti++;
        }
        gram_tile(job->b, job->rows, ti, ti + t);
    }
    return NULL;
}

static int flush_gram(struct backend_cpu *b)
{
    size_t rows = b->filled, n = b->n, n_helpers;
    struct gram_job job;
    pthread_t helpers[63];
    int rc = GSVD_OK;

    if (rows == 0)
        return GSVD_OK;
    if (!b->gblk) {
        GSVD_TRY(reserve_d(&b->zd, &b->zd_cap, rows * n));
        for (size_t i = 0; i < rows * n; i++)
            b->zd[i] = b->z[i];
    }
    job.b = b;
    job.rows = rows;
    job.nt = (n + GRAM_TILE - 1) / GRAM_TILE;
    atomic_init(&job.next, 0);
    n_helpers = b->n_threads > 1 ? b->n_threads - 1 : 0;
    if (n_helpers > GSVD_ARRAY_LEN(helpers))
        n_helpers = GSVD_ARRAY_LEN(helpers);
    for (size_t i = 0; i < n_helpers; i++)
        if (pthread_create(&helpers[i], NULL, gram_worker, &job) != 0) {
            n_helpers = i; /* fewer helpers: the calling thread does the rest */
            break;
        }
    gram_worker(&job);
    for (size_t i = 0; i < n_helpers; i++)
        pthread_join(helpers[i], NULL);
    b->filled = 0;
out:
    return rc;
}

static int cpu_gram_block(gsvd_backend *be, const struct gsvd_gblock *g, double *sumsq)
{
    return feed((struct backend_cpu *)be, g, sumsq, flush_gram);
}

static int cpu_gram_end(gsvd_backend *be, double *gout)
{
    struct backend_cpu *b = (struct backend_cpu *)be;
    size_t n = b->n;
    int rc = flush_gram(b);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            gout[i * n + j] = gout[j * n + i] = b->g[i * n + j];
    return GSVD_OK;
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

const struct gsvd_backend_ops gsvd_backend_cpu_ops = {
    .version = GSVD_BACKEND_OPS_VERSION,
    .name = "cpu",
    .probe = cpu_probe,
    .create = cpu_create,
    .destroy = cpu_destroy,
    .pass_begin = cpu_pass_begin,
    .pass_block = cpu_pass_block,
    .pass_end = cpu_pass_end,
    .project = cpu_project,
    .gram_begin = cpu_gram_begin,
    .gram_block = cpu_gram_block,
    .gram_end = cpu_gram_end,
    .eigh = cpu_eigh,
};
