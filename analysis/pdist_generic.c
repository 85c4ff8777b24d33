/* analysis/pdist_generic.c - the generic kernel: any metric on any values.  Each stripe is made
 * item-major (n x features, NaN missing) and every pair of the band adds its sums over the
 * features called in both, in feature order.  Rows of the band are dealt to threads round
 * robin; each pair belongs to one thread, so the sums do not depend on the thread count. */
#include "gsvd_config.h"

#include <math.h>
#include <string.h>

#include "analysis/pdist_internal.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/parallel.h"

enum { N_SUMS = 6 };

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

static uint64_t gen_fixed_bytes(const struct pd_env *env)
{
    (void)env;
    return 0;
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
    return rc;
}

/* One pair's sums over the stripe, added to s. */
static void add_pair(enum gsvd_pdist_metric m, double pw, const double *x, const double *y,
                     size_t nf, double *s)
{
    double cnt = 0, a = 0, b = 0, cc = 0, d = 0, e = 0;
    for (size_t r = 0; r < nf; r++) {
        double u = x[r], v = y[r], diff;
        if (isnan(u) || isnan(v))
            continue;
        cnt++;
        diff = fabs(u - v);
        switch (m) {
        case GSVD_PDIST_EUCLIDEAN:
        case GSVD_PDIST_SQEUCLIDEAN:
            a += diff * diff;
            break;
        case GSVD_PDIST_CITYBLOCK:
        case GSVD_PDIST_IBS:
            a += diff;
            break;
        case GSVD_PDIST_MINKOWSKI:
            a += pow(diff, pw);
            break;
        case GSVD_PDIST_CHEBYSHEV:
            a = diff > a ? diff : a;
            break;
        case GSVD_PDIST_HAMMING:
            a += u != v;
            break;
        case GSVD_PDIST_JACCARD:
            a += (u != 0) != (v != 0);
            b += (u != 0) || (v != 0);
            break;
        case GSVD_PDIST_BRAYCURTIS:
            a += diff;
            b += fabs(u + v);
            break;
        case GSVD_PDIST_CANBERRA:
            if (fabs(u) + fabs(v) > 0)
                a += diff / (fabs(u) + fabs(v));
            break;
        case GSVD_PDIST_COSINE:
        case GSVD_PDIST_CORRELATION:
            a += u;
            b += v;
            cc += u * v;
            d += u * u;
            e += v * v;
            break;
        default:
            break;
        }
    }
    s[0] += cnt;
    if (m == GSVD_PDIST_CHEBYSHEV)
        s[1] = a > s[1] ? a : s[1];
    else
        s[1] += a;
    s[2] += b;
    s[3] += cc;
    s[4] += d;
    s[5] += e;
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

static int gen_add(void *st, const struct pd_stripe *s)
{
    struct gen *g = st;
    size_t n = g->n, nf = s->n_feat;

    if (nf == 0 || g->nb == 0)
        return GSVD_OK;
    if (s->f64 && s->feat_stride == 1) {
        g->x = s->f64; /* item-major already */
        g->ld = s->item_stride;
    } else {
        int rc = gsvd_pd_stripe_f64(s, n, 1, &g->t, &g->t_cap);
        if (rc < 0)
            return rc;
        g->x = g->t;
        g->ld = nf;
    }
    g->nf = nf;
    return gsvd_parallel(g->env.n_threads, pairs_worker, g);
}

static int gen_band_end(void *st)
{
    (void)st;
    return GSVD_OK;
}

static void gen_pair_sums(void *st, size_t r, size_t c, struct gsvd_pd_sums *out)
{
    struct gen *g = st;
    const double *s = g->sums + (r * g->nc + c) * N_SUMS;
    out->n = s[0];
    out->a = s[1];
    out->b = s[2];
    out->c = s[3];
    out->d = s[4];
    out->e = s[5];
}

const struct pd_kernel_ops gsvd_pd_generic_ops = {
    .name = "generic",
    .pair_bytes = N_SUMS * sizeof(double),
    .fixed_bytes = gen_fixed_bytes,
    .create = gen_create,
    .destroy = gen_destroy,
    .band_begin = gen_band_begin,
    .add = gen_add,
    .band_end = gen_band_end,
    .replay = NULL,
    .pair_sums = gen_pair_sums,
};
