/* analysis/pca/pca_fit.c - `pca --fit-samples`: project the samples outside the fit (pca_fit.h). */
#include "gsvd_config.h"
#include "analysis/pca/pca_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pca/pca_store.h"
#include "analysis/pca/project.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"

void gsvd_pca_fit_join_free(struct gsvd_pca_fit_join *j)
{
    if (!j)
        return;
    gsvd_free(j->all.u);
    gsvd_strlist_free(&j->ids);
    gsvd_free(j->fitted);
    memset(j, 0, sizeof *j);
}

/* The fit as a reference for projection (borrowing r's arrays). */
static struct gsvd_pca_model fit_model(const struct gsvd_pca_result *r, gsvd_geno *gfit,
                                       const struct gsvd_geno_params *fitp)
{
    return (struct gsvd_pca_model){.k = r->k,
                                   .n = r->n,
                                   .m = r->m_range,
                                   .ploidy = gsvd_geno_ploidy(gfit),
                                   .scaler = fitp->scaler,
                                   .trace = r->trace,
                                   .m_used = r->m_used,
                                   .s = r->s,
                                   .v = r->v,
                                   .mean = r->var_mean,
                                   .scale = r->var_scale,
                                   .included = r->var_included};
}

/* Project the samples `ids` of the fit's array and range onto r (missing calls as `missing`),
 * read as projection reads them: raw dosages, no filters (the fit's variants come from its
 * var_included).  With comm (r's loadings on every rank: gsvd_pca_share_loadings) each rank
 * scans its part of the variants, cut at GSVD_PROJECT_RUN multiples, and every rank gets the
 * exact sums: the bytes of one process. */
static int project_ids(gsvd_tree *t, const char *node, const struct gsvd_geno_params *fitp,
                       const struct gsvd_strlist *ids, gsvd_geno *gfit,
                       const struct gsvd_pca_result *r, enum gsvd_proj_missing missing,
                       size_t threads, gsvd_comm *comm, struct gsvd_project_result **out)
{
    struct gsvd_geno_params gp = *fitp;
    struct gsvd_pca_model ref = fit_model(r, gfit, fitp);
    struct gsvd_project_map map = {0};
    struct gsvd_project_params pp = {.n_threads = threads, .missing = missing, .comm = comm};
    gsvd_geno *g = NULL;
    int rc = GSVD_OK;

    gp.samples = ids;
    gp.sample_mask = NULL;
    gp.sample_mask_len = 0;
    gp.scaler = GSVD_SCALER_NONE;
    gp.maf = 0;
    gp.max_missing = 1;
    gp.missing_error = 0;
    gp.cache_bytes = 0;
    rc = gsvd_geno_open(t, node, &gp, &g);
    if (rc == GSVD_OK)
        rc = gsvd_project_map_identity(r->m_range, r->var_included, &map);
    if (rc == GSVD_OK)
        rc = gsvd_project_restrict(g, comm, 0);
    if (comm) /* a rank that could not start stops the others before the collective */
        rc = gsvd_comm_agree(comm, rc, NULL);
    if (rc == GSVD_OK)
        rc = gsvd_project_run(g, &ref, &map, &pp, out);
    gsvd_project_map_free(&map);
    gsvd_geno_close(g);
    return rc;
}

int gsvd_pca_share_loadings(gsvd_comm *comm, struct gsvd_pca_result *r)
{
    uint64_t m = r->m_range;
    size_t k = r->k;
    double *v = NULL, *mean = NULL, *scale = NULL;
    uint8_t *inc = NULL;
    int rc = GSVD_OK;

    if (gsvd_comm_size(comm) < 2)
        return GSVD_OK;
    GSVD_TRY(gsvd_comm_bcast(comm, &m, sizeof m, 0));
    if (gsvd_comm_rank(comm) != 0) { /* its own part, replaced by the whole */
        v = gsvd_malloc(((size_t)m * k + 1) * sizeof *v);
        mean = gsvd_malloc(((size_t)m + 1) * sizeof *mean);
        scale = gsvd_malloc(((size_t)m + 1) * sizeof *scale);
        inc = gsvd_malloc((size_t)m + 1);
        if (!v || !mean || !scale || !inc) {
            gsvd_log_error("no memory for the %llu variants' loadings shared for projection",
                           (unsigned long long)m);
            rc = GSVD_ENOMEM;
        } else {
            gsvd_free(r->v);
            gsvd_free(r->var_mean);
            gsvd_free(r->var_scale);
            gsvd_free(r->var_included);
            r->v = v;
            r->var_mean = mean;
            r->var_scale = scale;
            r->var_included = inc;
            r->m_range = m;
            v = mean = scale = NULL;
            inc = NULL;
        }
    }
    GSVD_TRY(gsvd_comm_agree(comm, rc, NULL));
    GSVD_TRY(gsvd_comm_bcast(comm, r->v, (size_t)m * k * sizeof *r->v, 0));
    GSVD_TRY(gsvd_comm_bcast(comm, r->var_mean, (size_t)m * sizeof *r->var_mean, 0));
    GSVD_TRY(gsvd_comm_bcast(comm, r->var_scale, (size_t)m * sizeof *r->var_scale, 0));
    GSVD_TRY(gsvd_comm_bcast(comm, r->var_included, (size_t)m, 0));
out:
    gsvd_free(v);
    gsvd_free(mean);
    gsvd_free(scale);
    gsvd_free(inc);
    return rc;
}

int gsvd_pca_fit_join(gsvd_tree *t, const char *node, const struct gsvd_geno_params *fitp,
                      const struct gsvd_strlist *universe, gsvd_geno *gfit,
                      const struct gsvd_pca_result *r, size_t threads, gsvd_comm *comm,
                      struct gsvd_pca_fit_join *out)
{
    struct gsvd_geno_params gp = *fitp;
    struct gsvd_strlist rest = GSVD_STRLIST_INIT;
    const struct gsvd_strlist *fit = gsvd_geno_sample_ids(gfit);
    struct gsvd_project_result *pr = NULL;
    gsvd_geno *gall = NULL;
    size_t *by_id = NULL; /* fit's positions in ID order */
    size_t n, k = r->k, nf = r->n, ir = 0;
    int rc = GSVD_OK, agreed = 0; /* with comm: whether this rank took part in the agreement */

    memset(out, 0, sizeof *out);
    if (!universe) { /* every sample of the store, in its order */
        gp.samples = NULL;
        gp.cache_bytes = 0;
        GSVD_TRY(gsvd_geno_open(t, node, &gp, &gall));
        universe = gsvd_geno_sample_ids(gall);
    }
    n = universe->n;
    if (!(by_id = gsvd_str_order(fit->items, fit->n)) ||
        !(out->fitted = gsvd_calloc(n ? n : 1, 1))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const char *id = universe->items[i];
        out->fitted[i] = gsvd_str_find(fit->items, by_id, fit->n, id) >= 0;
        out->n_fitted += out->fitted[i];
        GSVD_TRY(gsvd_strlist_push(&out->ids, id));
        if (!out->fitted[i])
            GSVD_TRY(gsvd_strlist_push(&rest, id));
    }
    if (out->n_fitted != nf) {
        gsvd_log_error("--fit-samples: %zu of the %zu fit samples are not in the sample set "
                       "(--samples, or the store's)",
                       nf - out->n_fitted, nf);
        rc = GSVD_EINCONSIST;
        goto out;
    }
    out->all = *r;
    out->all.n = n;
    out->all.u = gsvd_malloc((n ? n : 1) * k * sizeof *out->all.u);
    if (!out->all.u) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    agreed = 1; /* every rank reaches this agreement, or the one at out: */
    if (comm)
        GSVD_TRY(gsvd_comm_agree(comm, GSVD_OK, NULL));
    if (rest.n) {
        GSVD_TRY(
            project_ids(t, node, fitp, &rest, gfit, r, GSVD_PROJ_MISSING_MEAN, threads, comm, &pr));
        gsvd_log_info("--fit-samples: %zu samples fitted, %zu projected onto their PCs", nf,
                      rest.n);
    }
    for (size_t i = 0; i < n; i++) {
        double *dst = out->all.u + i * k;
        if (out->fitted[i]) {
            size_t row = (size_t)gsvd_str_find(fit->items, by_id, fit->n, universe->items[i]);
            memcpy(dst, r->u + row * k, k * sizeof *dst);
        } else {
            for (size_t q = 0; q < k; q++)
                dst[q] = pr->scores[ir * k + q] / r->s[q];
            ir++;
        }
    }
out:
    if (comm && !agreed) /* failed before it: the others wait in the agreement above */
        rc = gsvd_comm_agree(comm, rc, NULL);
    if (rc < 0)
        gsvd_pca_fit_join_free(out);
    gsvd_project_result_free(pr);
    gsvd_geno_close(gall);
    gsvd_strlist_free(&rest);
    gsvd_free(by_id);
    return rc;
}

int gsvd_pca_smartpca_rows(gsvd_tree *t, const char *node, const struct gsvd_geno_params *fitp,
                           const struct gsvd_strlist *ids, gsvd_geno *gfit,
                           const struct gsvd_pca_result *r, size_t threads, gsvd_comm *comm,
                           double **rows)
{
    const struct gsvd_strlist *fit = gsvd_geno_sample_ids(gfit);
    struct gsvd_project_result *pr = NULL;
    size_t *by_id = NULL, n = ids->n, k = r->k;
    double *num = NULL, *den = NULL, *out = NULL;
    int rc = GSVD_OK;

    *rows = NULL;
    if (!(out = gsvd_malloc((n ? n : 1) * k * sizeof *out)))
        return GSVD_ENOMEM;
    if (n == r->n && r->counts.n_missing_calls == 0) { /* the fit alone, complete: U itself */
        memcpy(out, r->u, n * k * sizeof *out);
        *rows = out;
        return GSVD_OK;
    }
    if (!(by_id = gsvd_str_order(fit->items, fit->n)) || !(num = gsvd_calloc(k, sizeof *num)) ||
        !(den = gsvd_calloc(k, sizeof *den)))
        rc = GSVD_ENOMEM;
    if (comm) /* every rank or none goes on to the projection's collectives */
        rc = gsvd_comm_agree(comm, rc, NULL);
    if (rc < 0)
        goto out;
    GSVD_TRY(project_ids(t, node, fitp, ids, gfit, r, GSVD_PROJ_MISSING_LSQ, threads, comm, &pr));
    /* f_q over the fit samples: their fits a against their scores y = U S */
    for (size_t i = 0; i < n; i++) {
        ptrdiff_t row = gsvd_str_find(fit->items, by_id, fit->n, ids->items[i]);
        const double *a = pr->scores + i * k;
        if (row < 0 || isnan(a[0]))
            continue;
        for (size_t q = 0; q < k; q++) {
            num[q] += a[q] * r->u[(size_t)row * k + q] * r->s[q];
            den[q] += a[q] * a[q];
        }
    }
    for (size_t q = 0; q < k; q++) {
        double f = den[q] > 0 ? num[q] / den[q] : 1;
        for (size_t i = 0; i < n; i++)
            out[i * k + q] = pr->scores[i * k + q] * f / r->s[q];
    }
    gsvd_log_info("--eigensoft: %zu samples' least-squares fits on smartpca's scale", n);
    *rows = out;
    out = NULL;
out:
    gsvd_free(out);
    gsvd_free(num);
    gsvd_free(den);
    gsvd_project_result_free(pr);
    gsvd_free(by_id);
    return rc;
}
