/* analysis/pdist/pdist_gram.c - the Gram kernel for complete data: G = X X^T over the band (dgemm,
 * float64, upper-triangle tiles only), with each item's sum and sum of squares, gives
 * euclidean / sqeuclidean (|x|^2 + |y|^2 - 2 x.y, clamped at 0), cosine and correlation.
 * A missing value hands over to the next kernel.  Tiles are a fixed grid of TILE x TILE over
 * the band, each computed by one single-threaded dgemm call, so the result does not depend on
 * the thread count. */
#include "gsvd_config.h"

#include <math.h>
#include <string.h>

#include <cblas.h>

#include "analysis/cpu/blas_room.h"
#include "analysis/pdist/pdist_internal.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/parallel.h"

enum { TILE = 256 };

struct gram {
    struct pd_env env;
    size_t n, row0, nb, nc;
    double *g; /* nb x nc */
    size_t g_cap;
    double *sx, *sxx; /* per item, this pass */
    uint64_t m_seen;  /* features added this pass */
    double *buf;      /* variant-major float64 copy of an int8 stripe */
    size_t buf_cap;
    int saved_threads;
    /* the stripe being added */
    const double *x;
    size_t ld, nf;
    int item_major;
    size_t n_rt, n_ct, n_jobs;
};

static uint64_t gram_fixed_bytes(const struct pd_env *env)
{
    return (uint64_t)env->n * 2 * sizeof(double);
}

static int gram_create(const struct pd_env *env, void **out)
{
    struct gram *g = gsvd_calloc(1, sizeof *g);
    *out = g;
    if (!g)
        return GSVD_ENOMEM;
    g->env = *env;
    g->n = env->n;
    g->sx = gsvd_calloc(g->n ? g->n : 1, sizeof *g->sx);
    g->sxx = gsvd_calloc(g->n ? g->n : 1, sizeof *g->sxx);
    if (!g->sx || !g->sxx)
        return GSVD_ENOMEM;
    /* single-threaded BLAS: the tiles are our parallelism, and results must not depend on it */
    g->saved_threads = gsvd_blas_get_threads();
    gsvd_blas_set_threads(1);
    return GSVD_OK;
}

static void gram_destroy(void *st)
{
    struct gram *g = st;
    if (!g)
        return;
    if (g->saved_threads > 0)
        gsvd_blas_set_threads(g->saved_threads);
    gsvd_free(g->g);
    gsvd_free(g->sx);
    gsvd_free(g->sxx);
    gsvd_free(g->buf);
    gsvd_free(g);
}

static int gram_band_begin(void *st, size_t row0, size_t n_rows)
{
    struct gram *g = st;
    void *acc = g->g;
    int rc;

    g->row0 = row0;
    g->nb = n_rows;
    g->nc = g->n - row0;
    memset(g->sx, 0, g->n * sizeof *g->sx);
    memset(g->sxx, 0, g->n * sizeof *g->sxx);
    g->m_seen = 0;
    rc = gsvd_pd_band_acc(&acc, &g->g_cap, n_rows, g->nc, 1, sizeof *g->g);
    g->g = acc;
    return rc;
}

/* Tile job j of the band (which worker takes it does not change its result). */
static int tile_job(void *ctx, size_t worker, size_t j)
{
    struct gram *g = ctx;
    (void)worker;
    size_t rt = j / g->n_ct, ct = j % g->n_ct;
    if (ct < rt)
        return GSVD_OK; /* below the diagonal */
    size_t r0 = rt * TILE, c0 = ct * TILE;
    size_t nr = g->nb - r0 < TILE ? g->nb - r0 : TILE;
    size_t ncol = g->nc - c0 < TILE ? g->nc - c0 : TILE;
    double *out = g->g + r0 * g->nc + c0;
    const double *a = g->x, *b = g->x;
    if (g->item_major) {
        a += (g->row0 + r0) * g->ld;
        b += (g->row0 + c0) * g->ld;
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nr, (int)ncol, (int)g->nf, 1.0, a,
                    (int)g->ld, b, (int)g->ld, 1.0, out, (int)g->nc);
    } else {
        a += g->row0 + r0;
        b += g->row0 + c0;
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)nr, (int)ncol, (int)g->nf, 1.0, a,
                    (int)g->ld, b, (int)g->ld, 1.0, out, (int)g->nc);
    }
    return GSVD_OK;
}

static int gram_add(void *st, const struct pd_stripe *s)
{
    struct gram *g = st;
    size_t n = g->n, nf = s->n_feat;

    if (nf == 0)
        return GSVD_OK;
    if (nf > INT32_MAX || n > INT32_MAX)
        return PD_HANDOVER; /* beyond the BLAS interface's int */
    if (s->f64 && (s->feat_stride == 1 || s->item_stride == 1)) {
        g->x = s->f64;
        g->item_major = s->feat_stride == 1;
        g->ld = g->item_major ? s->item_stride : s->feat_stride;
    } else {
        int rc = gsvd_pd_stripe_f64(s, n, 0, &g->buf, &g->buf_cap);
        if (rc < 0)
            return rc;
        g->x = g->buf;
        g->item_major = 0;
        g->ld = n;
    }
    g->nf = nf;
    /* per-item sums over the whole stripe; a missing value ends this kernel's turn */
    for (size_t i = 0; i < n; i++) {
        double sx = 0, sxx = 0;
        for (size_t f = 0; f < nf; f++) {
            double v = g->item_major ? g->x[i * g->ld + f] : g->x[f * g->ld + i];
            if (isnan(v))
                return PD_HANDOVER;
            sx += v;
            sxx += v * v;
        }
        g->sx[i] += sx;
        g->sxx[i] += sxx;
    }
    g->m_seen += nf;
    if (g->nb == 0)
        return GSVD_OK;
    g->n_rt = (g->nb + TILE - 1) / TILE;
    g->n_ct = (g->nc + TILE - 1) / TILE;
    g->n_jobs = g->n_rt * g->n_ct;
    return gsvd_blas_parallel_tasks(g->env.n_threads, g->n_jobs, tile_job, g);
}

static int gram_band_end(void *st)
{
    (void)st;
    return GSVD_OK;
}

static void gram_pair_sums(void *st, size_t r, size_t c, struct gsvd_pd_sums *out)
{
    struct gram *g = st;
    size_t i = g->row0 + r, j = g->row0 + c;
    double dot = g->g[r * g->nc + c];

    out->n = (double)g->m_seen;
    out->a = g->sx[i];
    out->b = g->sx[j];
    out->c = dot;
    out->d = g->sxx[i];
    out->e = g->sxx[j];
    if (g->env.p->metric == GSVD_PDIST_EUCLIDEAN || g->env.p->metric == GSVD_PDIST_SQEUCLIDEAN) {
        double sq = g->sxx[i] + g->sxx[j] - 2 * dot;
        out->a = sq > 0 ? sq : 0;
    }
}

const struct pd_kernel_ops gsvd_pd_gram_ops = {
    .name = "gram",
    .pair_bytes = sizeof(double),
    .fixed_bytes = gram_fixed_bytes,
    .create = gram_create,
    .destroy = gram_destroy,
    .band_begin = gram_band_begin,
    .add = gram_add,
    .band_end = gram_band_end,
    .replay = NULL,
    .pair_sums = gram_pair_sums,
};
