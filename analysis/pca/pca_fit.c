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

/* The samples `ids` of the fit's array and range as projection reads them: raw dosages, no
 * filters (the fit's variants come from its var_included). */
static int open_to_project(gsvd_tree *t, const char *node, const struct gsvd_geno_params *fitp,
                           const struct gsvd_strlist *ids, gsvd_geno **out)
{
    struct gsvd_geno_params gp = *fitp;

    gp.samples = ids;
    gp.sample_mask = NULL;
    gp.sample_mask_len = 0;
    gp.scaler = GSVD_SCALER_NONE;
    gp.maf = 0;
    gp.max_missing = 1;
    gp.missing_error = 0;
    gp.cache_bytes = 0;
    return gsvd_geno_open(t, node, &gp, out);
}

int gsvd_pca_fit_join(gsvd_tree *t, const char *node, const struct gsvd_geno_params *fitp,
                      const struct gsvd_strlist *universe, gsvd_geno *gfit,
                      const struct gsvd_pca_result *r, size_t threads,
                      struct gsvd_pca_fit_join *out)
{
    struct gsvd_geno_params gp = *fitp;
    struct gsvd_strlist rest = GSVD_STRLIST_INIT;
    const struct gsvd_strlist *fit = gsvd_geno_sample_ids(gfit);
    struct gsvd_project_map map = {0};
    struct gsvd_project_result *pr = NULL;
    struct gsvd_project_params pp = {.n_threads = threads};
    gsvd_geno *gall = NULL, *grest = NULL;
    size_t *by_id = NULL; /* fit's positions in ID order */
    size_t n, k = r->k, nf = r->n, ir = 0;
    int rc = GSVD_OK;

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
    if (rest.n) {
        struct gsvd_pca_model ref = fit_model(r, gfit, fitp);
        GSVD_TRY(open_to_project(t, node, fitp, &rest, &grest));
        GSVD_TRY(gsvd_project_map_identity(r->m_range, r->var_included, &map));
        GSVD_TRY(gsvd_project_run(grest, &ref, &map, &pp, &pr));
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
    if (rc < 0)
        gsvd_pca_fit_join_free(out);
    gsvd_project_result_free(pr);
    gsvd_project_map_free(&map);
    gsvd_geno_close(grest);
    gsvd_geno_close(gall);
    gsvd_strlist_free(&rest);
    gsvd_free(by_id);
    return rc;
}

int gsvd_pca_smartpca_rows(gsvd_tree *t, const char *node, const struct gsvd_geno_params *fitp,
                           const struct gsvd_strlist *ids, gsvd_geno *gfit,
                           const struct gsvd_pca_result *r, size_t threads, double **rows)
{
    const struct gsvd_strlist *fit = gsvd_geno_sample_ids(gfit);
    struct gsvd_project_map map = {0};
    struct gsvd_project_result *pr = NULL;
    struct gsvd_project_params pp = {.n_threads = threads, .missing = GSVD_PROJ_MISSING_LSQ};
    struct gsvd_pca_model ref = fit_model(r, gfit, fitp);
    gsvd_geno *g = NULL;
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
        !(den = gsvd_calloc(k, sizeof *den))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(open_to_project(t, node, fitp, ids, &g));
    GSVD_TRY(gsvd_project_map_identity(r->m_range, r->var_included, &map));
    GSVD_TRY(gsvd_project_run(g, &ref, &map, &pp, &pr));
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
    gsvd_project_map_free(&map);
    gsvd_geno_close(g);
    gsvd_free(by_id);
    return rc;
}
