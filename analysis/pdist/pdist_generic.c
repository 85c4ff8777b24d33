/* analysis/pdist/pdist_generic.c - the generic kernel: any metric on any values.  Each stripe is
 * made item-major (n x features, NaN missing) and every pair of the band adds its sums over the
 * features called in both, in feature order.  Rows of the band are dealt to threads round
 * robin; each pair belongs to one thread and continues its sums feature by feature, so they
 * depend neither on the thread count nor on how the features arrive (stripes, pieces).
 * With a device (env.dev) each piece is made feature-major for the items of the band and the
 * device adds it with the same per-pair code (gsvd_pd_sums_add); the sums come back at
 * band_end. */
#include "gsvd_config.h"

#include <math.h>
#include <string.h>

#include "analysis/pdist/pdist_internal.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/parallel.h"

enum { N_SUMS = GSVD_PD_N_SUMS };
#define PIECE_BYTES ((size_t)32 << 20)

struct gen {
    struct pd_env env;
    size_t n, row0, nb, nc;
    double *sums; /* nb x nc x N_SUMS (n, a, b, c, d, e) */
    size_t sums_cap;
    double *t; /* item-major copy of a variant-major stripe */
    size_t t_cap;
    /* the stripe being added */
    const double *x;
    size_t ld, nf;
};

static uint64_t piece_bytes(const struct pd_env *env);

static uint64_t gen_fixed_bytes(const struct pd_env *env)
{
    return piece_bytes(env); /* the float64 copy of a piece */
}

static int gen_create(const struct pd_env *env, void **out)
{
    struct gen *g = gsvd_calloc(1, sizeof *g);
    *out = g;
    if (!g)
        return GSVD_ENOMEM;
    g->env = *env;
    g->n = env->n;
    return GSVD_OK;
}

static void gen_destroy(void *st)
{
    struct gen *g = st;
    if (!g)
        return;
    gsvd_free(g->sums);
    gsvd_free(g->t);
    gsvd_free(g);
}

static int gen_band_begin(void *st, size_t row0, size_t n_rows)
{
    struct gen *g = st;
    void *acc = g->sums;
    int rc;

    g->row0 = row0;
    g->nb = n_rows;
    g->nc = g->n - row0;
    rc = gsvd_pd_band_acc(&acc, &g->sums_cap, n_rows, g->nc, N_SUMS, sizeof *g->sums);
    g->sums = acc;
    if (rc == GSVD_OK && g->env.dev) {
        struct gsvd_pd_dev_band band = {.kind = GSVD_PD_DEV_SUMS,
                                        .nb = n_rows,
                                        .nc = g->nc,
                                        .metric = (int)g->env.p->metric,
                                        .p = g->env.p->p};
        rc = gsvd_backend_pd_begin(g->env.dev, &band);
    }
    return rc;
}

/* A pair's sums continued over the piece's features, in order. */
static void add_pair(enum gsvd_pdist_metric m, double pw, const double *x, const double *y,
                     size_t nf, double *s)
{
    struct gsvd_pd_sums t;
    gsvd_pd_sums_load(s, &t);
    for (size_t r = 0; r < nf; r++)
        gsvd_pd_sums_add(m, pw, x[r], y[r], &t);
    gsvd_pd_sums_store(&t, s);
}

static int pairs_worker(void *ctx, size_t t)
{
    struct gen *g = ctx;
    size_t step = g->env.n_threads;
    for (size_t r = t; r < g->nb; r += step) {
        const double *x = g->x + (g->row0 + r) * g->ld;
        for (size_t c = r + 1; c < g->nc; c++)
            add_pair(g->env.p->metric, g->env.p->p, x, g->x + (g->row0 + c) * g->ld, g->nf,
                     g->sums + (r * g->nc + c) * N_SUMS);
    }
    return GSVD_OK;
}

/* Features [f0, f0 + nf) of s as a stripe of their own. */
static struct pd_stripe sub_stripe(const struct pd_stripe *s, size_t f0, size_t nf)
{
    struct pd_stripe p = *s;
    p.n_feat = nf;
    if (p.i8)
        p.i8 += f0 * s->feat_stride;
    else
        p.f64 += f0 * s->feat_stride;
    return p;
}

/* One piece: on the device (items row0.. of a feature-major copy), or on the host. */
static int add_piece(struct gen *g, const struct pd_stripe *s)
{
    size_t n = g->n, nf = s->n_feat;
    int rc;

    if (g->env.dev) {
        struct pd_stripe tail = *s; /* items row0 .. n - 1 */
        if (tail.i8)
            tail.i8 += g->row0 * s->item_stride;
        else
            tail.f64 += g->row0 * s->item_stride;
        if ((rc = gsvd_pd_stripe_f64(&tail, g->nc, 0, &g->t, &g->t_cap)) < 0)
            return rc;
        return gsvd_backend_pd_rows(g->env.dev, g->t, nf);
    }
    if (s->f64 && s->feat_stride == 1) {
        g->x = s->f64; /* item-major already */
        g->ld = s->item_stride;
    } else {
        if ((rc = gsvd_pd_stripe_f64(s, n, 1, &g->t, &g->t_cap)) < 0)
            return rc;
        g->x = g->t;
        g->ld = nf;
    }
    g->nf = nf;
    return gsvd_parallel(g->env.n_threads, pairs_worker, g);
}

/* Bytes of float64 a piece takes at most: PIECE_BYTES, less under a small --memory. */
static uint64_t piece_bytes(const struct pd_env *env)
{
    return env->stripe_bytes < PIECE_BYTES ? env->stripe_bytes : PIECE_BYTES;
}

/* Stripes are converted (and sent to the device) in pieces of at most piece_bytes; every pair
 * continues its sums in feature order, so the pieces do not change the result. */
static int gen_add(void *st, const struct pd_stripe *s)
{
    struct gen *g = st;
    size_t piece = (size_t)(piece_bytes(&g->env) / sizeof(double)) / (g->n ? g->n : 1);
    int rc;

    if (s->n_feat == 0 || g->nb == 0)
        return GSVD_OK;
    if (piece == 0)
        piece = 1;
    for (size_t f0 = 0; f0 < s->n_feat; f0 += piece) {
        size_t k = s->n_feat - f0 < piece ? s->n_feat - f0 : piece;
        struct pd_stripe p = sub_stripe(s, f0, k);
        if ((rc = add_piece(g, &p)) < 0)
            return rc;
    }
    return GSVD_OK;
}

static int gen_band_end(void *st)
{
    struct gen *g = st;
    return g->env.dev ? gsvd_backend_pd_end(g->env.dev, g->sums) : GSVD_OK;
}

static void gen_pair_sums(void *st, size_t r, size_t c, struct gsvd_pd_sums *out)
{
    struct gen *g = st;
    gsvd_pd_sums_load(g->sums + (r * g->nc + c) * N_SUMS, out);
}

const struct pd_kernel_ops gsvd_pd_generic_ops = {
    .name = "generic",
    .pair_bytes = N_SUMS * sizeof(double),
    .fixed_bytes = gen_fixed_bytes,
    .device = 1,
    .create = gen_create,
    .destroy = gen_destroy,
    .band_begin = gen_band_begin,
    .add = gen_add,
    .band_end = gen_band_end,
    .replay = NULL,
    .pair_sums = gen_pair_sums,
};
