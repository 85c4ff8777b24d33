/* analysis/pca/pca_outlier.c - smartpca's iterative outlier removal around gsvd_pca_run
 * (pca_outlier.h).  The rule was established against smartpca 8.0 by experiment (HapMap3, five
 * rounds, 70 samples): its "sigmage" is (score - mean) / sd with the population sd over the
 * samples of the round, every sample beyond the threshold on any of the PCs goes in the same
 * round, and the PC it names is the first one beyond.  Its outliermode 1 (each sample against
 * the others) follows its source, smartsubs.c's ridoutlier. */
#include "gsvd_config.h"
#include "analysis/pca/pca_outlier.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pca/pca_fit.h"
#include "common/alloc.h"
#include "common/comm.h"
#include "common/err.h"
#include "common/log.h"

void gsvd_pca_outliers_free(struct gsvd_pca_outliers *ol)
{
    if (!ol)
        return;
    gsvd_strlist_free(&ol->ids);
    gsvd_free(ol->round);
    gsvd_free(ol->pc);
    gsvd_free(ol->sigma);
    gsvd_free(ol->by_id);
    memset(ol, 0, sizeof *ol);
}

ptrdiff_t gsvd_pca_outliers_find(const struct gsvd_pca_outliers *ol, const char *id)
{
    return gsvd_str_find(ol->ids.items, ol->by_id, ol->n, id);
}

static int outliers_init(struct gsvd_pca_outliers *ol, const struct gsvd_strlist *ids)
{
    size_t n = ids->n;
    memset(ol, 0, sizeof *ol);
    ol->n = n;
    ol->round = gsvd_calloc(n ? n : 1, sizeof *ol->round);
    ol->pc = gsvd_calloc(n ? n : 1, sizeof *ol->pc);
    ol->sigma = gsvd_malloc((n ? n : 1) * sizeof *ol->sigma);
    int rc = GSVD_OK;
    if (!ol->round || !ol->pc || !ol->sigma) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        GSVD_TRY(gsvd_strlist_push(&ol->ids, ids->items[i]));
        ol->sigma[i] = NAN;
    }
    if (!(ol->by_id = gsvd_str_order(ol->ids.items, n)))
        rc = GSVD_ENOMEM;
out:
    return rc;
}

/* Sample i's distance on component q in standard deviations, from c = u_i - mean (mean of all),
 * sq = sum of (u_j - mean)^2 over the n samples: over the population sd of all, or with loo
 * (smartpca's outliermode 1) from the mean of the others over the sd of their deviations from
 * it, n in the denominator as smartpca's ridoutlier has it: in centred terms that mean is
 * m = -c / (n - 1) and sum_{j != i} (c_j - m)^2 = (sq - c^2) - (n - 1) m^2. */
static double distance(double c, size_t n, double sq, int loo)
{
    double m = 0, var = sq / (double)n;
    if (loo) {
        m = -c / (double)(n - 1);
        var = ((sq - c * c) - (double)(n - 1) * m * m) / (double)n;
    }
    return (c - m) / sqrt(var > 0 ? var : 0);
}

/* Flag the samples of result r (rows: the starting-set indices at[0..r->n)) beyond sigma
 * standard deviations on any of the first pcs components (loo: from the others), as round
 * `round`.  Returns how many.  Fewer than 3 samples: none, as smartpca. */
static size_t flag(const struct gsvd_pca_result *r, size_t pcs, double sigma, int loo,
                   const size_t *at, int64_t round, struct gsvd_pca_outliers *ol)
{
    size_t n = r->n, k = r->k, hits = 0;
    if (n < 3)
        return 0;
    for (size_t q = 0; q < pcs; q++) {
        double mean = 0, var = 0;
        for (size_t i = 0; i < n; i++)
            mean += r->u[i * k + q];
        mean /= (double)n;
        for (size_t i = 0; i < n; i++) {
            double d = r->u[i * k + q] - mean;
            var += d * d;
        }
        for (size_t i = 0; i < n; i++) {
            double z = distance(r->u[i * k + q] - mean, n, var, loo);
            if (ol->round[at[i]] == 0 && fabs(z) > sigma) {
                ol->round[at[i]] = round;
                ol->pc[at[i]] = (int64_t)q + 1;
                ol->sigma[at[i]] = z;
                hits++;
            }
        }
    }
    return hits;
}

/* Keep the first k of r's components (r was computed with more). */
static void truncate_components(struct gsvd_pca_result *r, size_t k)
{
    size_t k0 = r->k;
    if (k == k0)
        return;
    for (size_t i = 0; i < r->n; i++)
        memmove(r->u + i * k, r->u + i * k0, k * sizeof *r->u);
    if (r->v)
        for (uint64_t j = 0; j < r->m_range; j++)
            memmove(r->v + j * k, r->v + j * k0, k * sizeof *r->v);
    r->k = k; /* s, the bounds and the Tracy-Widom arrays keep their leading k entries */
}

int gsvd_pca_outliers_run(gsvd_geno **g, gsvd_pca_open_fn reopen, void *ctx, gsvd_backend *be,
                          const struct gsvd_pca_params *p, struct gsvd_pca_result **out,
                          struct gsvd_pca_outliers *ol)
{
    struct gsvd_pca_params pr = *p;
    struct gsvd_pca_result *r = NULL;
    struct gsvd_strlist keep = GSVD_STRLIST_INIT;
    size_t *at = NULL, n_cur;
    int rc = GSVD_OK;

    *out = NULL;
    memset(ol, 0, sizeof *ol);
    GSVD_TRY(outliers_init(ol, gsvd_geno_sample_ids(*g)));
    n_cur = ol->n;
    at = gsvd_malloc((n_cur ? n_cur : 1) * sizeof *at);
    if (!at) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n_cur; i++)
        at[i] = i;
    if (p->outlier_iter > 0 && p->outlier_pcs > pr.n_components)
        pr.n_components = p->outlier_pcs;
    for (size_t round = 1;; round++) {
        if (p->outlier_iter > 0 && p->outlier_pcs >= n_cur) {
            gsvd_log_error("outlier removal on %zu PCs needs more than %zu samples", p->outlier_pcs,
                           n_cur);
            rc = GSVD_EINVAL;
            goto out;
        }
        GSVD_TRY(gsvd_pca_run(*g, be, &pr, &r));
        if (round > p->outlier_iter)
            break;
        size_t hits =
            flag(r, p->outlier_pcs, p->outlier_sigma, p->outlier_loo, at, (int64_t)round, ol);
        if (hits == 0)
            break;
        ol->n_removed += hits;
        ol->n_rounds++;
        gsvd_strlist_free(&keep);
        size_t w = 0;
        for (size_t i = 0; i < n_cur; i++)
            if (ol->round[at[i]] == 0) {
                GSVD_TRY(gsvd_strlist_push(&keep, ol->ids.items[at[i]]));
                at[w++] = at[i];
            }
        gsvd_log_info("outlier round %zu: %zu of %zu samples beyond %g sd on PCs 1-%zu removed",
                      round, hits, n_cur, p->outlier_sigma, p->outlier_pcs);
        n_cur = w;
        gsvd_pca_result_free(r);
        r = NULL;
        gsvd_geno *next = NULL;
        rc = reopen(ctx, &keep, &next);
        if (p->comm) /* one rank's failed reopen stops every rank before the next run */
            rc = gsvd_comm_agree(p->comm, rc, NULL);
        if (rc < 0) {
            gsvd_geno_close(next);
            goto out;
        }
        gsvd_geno_close(*g);
        *g = next;
    }
    truncate_components(r, p->n_components);
    *out = r;
    r = NULL;
out:
    if (rc < 0)
        gsvd_pca_outliers_free(ol);
    gsvd_pca_result_free(r);
    gsvd_strlist_free(&keep);
    gsvd_free(at);
    return rc;
}

int gsvd_pca_outliers_join(const struct gsvd_pca_outliers *ol, const struct gsvd_pca_result *r,
                           struct gsvd_pca_fit_join *out)
{
    size_t n = ol->n, k = r->k, row = 0;
    int rc = GSVD_OK;

    memset(out, 0, sizeof *out);
    out->all = *r;
    out->all.n = n;
    out->all.u = gsvd_malloc((n ? n : 1) * k * sizeof *out->all.u);
    if (!out->all.u) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        GSVD_TRY(gsvd_strlist_push(&out->ids, ol->ids.items[i]));
        for (size_t q = 0; q < k; q++)
            out->all.u[i * k + q] = ol->round[i] ? NAN : r->u[row * k + q];
        row += ol->round[i] == 0;
    }
    if (row != r->n) {
        gsvd_log_error("outlier join: %zu samples kept, %zu result rows", row, r->n);
        rc = GSVD_EINTERNAL;
        goto out;
    }
    out->n_fitted = r->n;
out:
    if (rc < 0)
        gsvd_pca_fit_join_free(out);
    return rc;
}
