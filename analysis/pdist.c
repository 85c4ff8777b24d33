/* analysis/pdist.c - pairwise distances, accumulated block by block.
 * Each block is turned sample-major (N x rows, NaN for missing) and, for every pair, the sums
 * the metric needs are added over the sites called in both.  Pairs are split among threads by
 * row of the pair matrix, each pair owned by one thread, so sums are added in the same order
 * whatever the thread count. */
#include "gsvd_config.h"
#include "analysis/pdist.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"

static const char *const metric_names[GSVD_PDIST_N_METRICS] = {
    "euclidean",   "sqeuclidean", "cityblock", "minkowski",  "chebyshev", "cosine",
    "correlation", "hamming",     "jaccard",   "braycurtis", "canberra",  "ibs",
};

int gsvd_pdist_metric_parse(const char *name, enum gsvd_pdist_metric *out)
{
    for (int i = 0; i < GSVD_PDIST_N_METRICS; i++)
        if (strcmp(name, metric_names[i]) == 0) {
            *out = (enum gsvd_pdist_metric)i;
            return 0;
        }
    return -1;
}

const char *gsvd_pdist_metric_name(enum gsvd_pdist_metric m)
{
    return (unsigned)m < GSVD_PDIST_N_METRICS ? metric_names[m] : "unknown";
}

const char *gsvd_pdist_metric_list(void)
{
    return "euclidean, sqeuclidean, cityblock, minkowski, chebyshev, cosine, correlation, "
           "hamming, jaccard, braycurtis, canberra, ibs";
}

void gsvd_pdist_result_free(struct gsvd_pdist_result *r)
{
    if (!r)
        return;
    gsvd_free(r->dist);
    gsvd_free(r->n_sites);
    gsvd_free(r);
}

/* Per-pair sums; which ones are used depends on the metric (see finish()). */
enum { S_N, S_A, S_B, S_C, S_D, S_E, N_SUMS };

struct pd_ctx {
    const struct gsvd_pdist_params *p;
    size_t n;
    double *sums; /* n_pairs x N_SUMS, pair (i < j) at tri(i, j) */
    double *t;    /* sample-major block: n x rows */
    size_t t_cap, rows;
    uint64_t n_missing;
    uint64_t *called; /* per sample: called sites */
    size_t n_threads;
};

static size_t tri(size_t n, size_t i, size_t j) /* i < j */
{
    return i * n - i * (i + 1) / 2 + (j - i - 1);
}

/* Add one block's contribution to the pairs (i, j) for i in [i0, n) step `step`. */
static void add_pairs(struct pd_ctx *c, size_t i0, size_t step)
{
    size_t n = c->n, rows = c->rows;
    enum gsvd_pdist_metric m = c->p->metric;
    double pw = c->p->p;

    for (size_t i = i0; i < n; i += step) {
        const double *x = c->t + i * rows;
        for (size_t j = i + 1; j < n; j++) {
            const double *y = c->t + j * rows;
            double *s = c->sums + tri(n, i, j) * N_SUMS;
            double cnt = 0, a = 0, b = 0, cc = 0, d = 0, e = 0;
            for (size_t r = 0; r < rows; r++) {
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
            s[S_N] += cnt;
            if (m == GSVD_PDIST_CHEBYSHEV)
                s[S_A] = a > s[S_A] ? a : s[S_A];
            else
                s[S_A] += a;
            s[S_B] += b;
            s[S_C] += cc;
            s[S_D] += d;
            s[S_E] += e;
        }
    }
}

struct pair_job {
    struct pd_ctx *c;
    size_t i0;
};

static void *pair_worker(void *arg)
{
    struct pair_job *job = arg;
    add_pairs(job->c, job->i0, job->c->n_threads);
    return NULL;
}

/* The pair loop over c->t (n x c->rows), rows of the pair matrix interleaved over threads. */
static void run_pairs(struct pd_ctx *c)
{
    pthread_t th[64];
    struct pair_job jobs[64];
    size_t started = 0;

    for (size_t k = 1; k < c->n_threads && k < GSVD_ARRAY_LEN(th); k++) {
        jobs[k] = (struct pair_job){c, k};
        if (pthread_create(&th[k], NULL, pair_worker, &jobs[k]) != 0)
            break;
        started = k;
    }
    /* shares of threads that did not start run here, as do share 0 */
    for (size_t k = started + 1; k < c->n_threads; k++)
        add_pairs(c, k, c->n_threads);
    add_pairs(c, 0, c->n_threads);
    for (size_t k = 1; k <= started; k++)
        pthread_join(th[k], NULL);
}

static int block_cb(void *vctx, const struct gsvd_gblock *blk, const struct gsvd_geno_info *info)
{
    struct pd_ctx *c = vctx;
    size_t rows = blk->n_rows, n = c->n, cells;
    (void)info;

    if (rows == 0)
        return GSVD_OK;
    if (gsvd_mul_size(rows, n, &cells) < 0)
        return GSVD_EINVAL;
    if (cells > c->t_cap) {
        double *t = gsvd_realloc(c->t, cells * sizeof *t);
        if (!t)
            return GSVD_ENOMEM;
        c->t = t;
        c->t_cap = cells;
    }
    /* sample-major copy; raw dosages (the reader ran without centring or scaling) */
    for (size_t r = 0; r < rows; r++)
        for (size_t i = 0; i < n; i++) {
            double v;
            if (blk->i8) {
                int g = blk->i8[r * n + i];
                v = g < 0 ? NAN : (double)g;
            } else {
                v = blk->f64[r * n + i];
            }
            c->n_missing += isnan(v);
            c->called[i] += !isnan(v);
            c->t[i * rows + r] = v;
        }
    c->rows = rows;
    run_pairs(c);
    return GSVD_OK;
}

/* Distance of one pair from its sums. */
static double finish(const struct gsvd_pdist_params *p, const double *s, uint64_t m, size_t ploidy)
{
    double n = s[S_N], a = s[S_A], scale = 1;

    if (n == 0)
        return NAN;
    if (p->missing == GSVD_PDIST_SCALE)
        scale = (double)m / n;
    switch (p->metric) {
    case GSVD_PDIST_EUCLIDEAN:
        return sqrt(a * scale);
    case GSVD_PDIST_SQEUCLIDEAN:
    case GSVD_PDIST_CITYBLOCK:
        return a * scale;
    case GSVD_PDIST_MINKOWSKI:
        return pow(a * scale, 1.0 / p->p);
    case GSVD_PDIST_CHEBYSHEV:
        return a;
    case GSVD_PDIST_HAMMING:
        return a / n;
    case GSVD_PDIST_IBS:
        return a / ((double)ploidy * n);
    case GSVD_PDIST_JACCARD:
        return s[S_B] > 0 ? a / s[S_B] : 0;
    case GSVD_PDIST_BRAYCURTIS:
        return a / s[S_B];
    case GSVD_PDIST_CANBERRA:
        return a;
    case GSVD_PDIST_COSINE:
        return 1 - s[S_C] / sqrt(s[S_D] * s[S_E]);
    case GSVD_PDIST_CORRELATION: {
        double sxy = s[S_C] - s[S_A] * s[S_B] / n;
        double sxx = s[S_D] - s[S_A] * s[S_A] / n, syy = s[S_E] - s[S_B] * s[S_B] / n;
        return 1 - sxy / sqrt(sxx * syy);
    }
    default:
        return NAN;
    }
}

/* Allocate the sums and the result for n items. */
static int pd_setup(struct pd_ctx *c, const struct gsvd_pdist_params *p, size_t n, uint64_t m,
                    struct gsvd_pdist_result **rp)
{
    size_t n_pairs = n * (n - 1) / 2, nn;
    struct gsvd_pdist_result *r;

    *rp = NULL;
    memset(c, 0, sizeof *c);
    c->p = p;
    if (p->metric == GSVD_PDIST_MINKOWSKI && !(p->p > 0 && isfinite(p->p))) {
        gsvd_log_error("minkowski needs p > 0 (got %g)", p->p);
        return GSVD_EINVAL;
    }
    if (gsvd_mul_size(n, n, &nn) < 0 || nn > SIZE_MAX / sizeof(double) / N_SUMS) {
        gsvd_log_error("%zu items: the distance matrix does not fit in memory", n);
        return GSVD_ENOMEM;
    }
    c->n = n;
    c->n_threads = p->n_threads ? p->n_threads : 1;
    c->sums = gsvd_calloc(n_pairs ? n_pairs * N_SUMS : 1, sizeof *c->sums);
    c->called = gsvd_calloc(n ? n : 1, sizeof *c->called);
    r = *rp = gsvd_calloc(1, sizeof *r);
    if (!c->sums || !c->called || !r)
        return GSVD_ENOMEM;
    r->n = n;
    r->m = m;
    r->dist = gsvd_calloc(nn ? nn : 1, sizeof *r->dist);
    r->n_sites = gsvd_calloc(nn ? nn : 1, sizeof *r->n_sites);
    return r->dist && r->n_sites ? GSVD_OK : GSVD_ENOMEM;
}

/* Distances from the sums; the diagonal is 0 with the item's own called sites. */
static void pd_finish(struct pd_ctx *c, struct gsvd_pdist_result *r, size_t ploidy)
{
    size_t n = c->n;
    r->n_missing = c->n_missing;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 1; j < n; j++) {
            const double *s = c->sums + tri(n, i, j) * N_SUMS;
            double d = finish(c->p, s, r->m, ploidy);
            r->dist[i * n + j] = r->dist[j * n + i] = d;
            r->n_sites[i * n + j] = r->n_sites[j * n + i] =
                s[S_N] > UINT32_MAX ? UINT32_MAX : (uint32_t)s[S_N];
        }
        r->n_sites[i * n + i] = (uint32_t)(c->called[i] > UINT32_MAX ? UINT32_MAX : c->called[i]);
    }
}

static void pd_free(struct pd_ctx *c)
{
    gsvd_free(c->sums);
    gsvd_free(c->called);
    gsvd_free(c->t);
}

int gsvd_pdist_run(gsvd_geno *g, const struct gsvd_pdist_params *p, struct gsvd_pdist_result **out)
{
    struct pd_ctx c;
    struct gsvd_pdist_result *r = NULL;
    int rc;

    *out = NULL;
    rc = pd_setup(&c, p, gsvd_geno_n_samples(g), gsvd_geno_n_variants(g), &r);
    if (rc == GSVD_OK)
        rc = gsvd_geno_scan(g, block_cb, &c);
    if (rc == GSVD_OK) {
        pd_finish(&c, r, gsvd_geno_ploidy(g));
        *out = r;
        r = NULL;
    }
    pd_free(&c);
    gsvd_pdist_result_free(r);
    return rc;
}

int gsvd_pdist_run_matrix(const double *x, size_t n, size_t m, size_t ploidy,
                          const struct gsvd_pdist_params *p, struct gsvd_pdist_result **out)
{
    struct pd_ctx c;
    struct gsvd_pdist_result *r = NULL;
    int rc;

    *out = NULL;
    rc = pd_setup(&c, p, n, m, &r);
    if (rc == GSVD_OK && m > 0) {
        /* the matrix is already sample-major float64: one block of all features */
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < m; j++) {
                int miss = isnan(x[i * m + j]);
                c.n_missing += (uint64_t)miss;
                c.called[i] += (uint64_t)!miss;
            }
        c.t = (double *)(uintptr_t)x; /* read only; not freed (t_cap stays 0) */
        c.rows = m;
        run_pairs(&c);
        c.t = NULL;
    }
    if (rc == GSVD_OK) {
        pd_finish(&c, r, ploidy);
        *out = r;
        r = NULL;
    }
    pd_free(&c);
    gsvd_pdist_result_free(r);
    return rc;
}
