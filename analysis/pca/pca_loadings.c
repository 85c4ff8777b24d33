/* analysis/pca/pca_loadings.c - the variant loadings V = Z U / s in one more pass over the data
 * (pca_internal.h), with every variant's mean, scale and kept flag; under a communicator each
 * rank computes its part of the variants and rank 0 gathers them in rank order. */
#include "gsvd_config.h"
#include "analysis/pca/pca_internal.h"

#include <math.h>

#include "common/alloc.h"
#include "common/err.h"

struct load_ctx {
    gsvd_backend *be;
    struct gsvd_pca_result *res;
    const double *us; /* n x k row-major: U / s */
    double *rows;     /* scratch: kept rows x k */
    size_t rows_cap;
};

static int load_cb(void *vctx, const struct gsvd_gblock *blk, const struct gsvd_geno_info *info)
{
    struct load_ctx *c = vctx;
    struct gsvd_pca_result *r = c->res;
    size_t k = r->k, kept = 0;
    int rc = GSVD_OK;

    if (blk->n_rows * k > c->rows_cap) {
        gsvd_free(c->rows);
        c->rows_cap = blk->n_rows * k;
        c->rows = gsvd_malloc(c->rows_cap * sizeof *c->rows);
        if (!c->rows) {
            c->rows_cap = 0;
            return GSVD_ENOMEM;
        }
    }
    GSVD_TRY(gsvd_backend_project(c->be, blk, k, c->us, c->rows));
    for (size_t j = 0; j < info->n_variants; j++) {
        uint64_t v = info->first + j;
        r->var_mean[v] = info->mean[j];
        r->var_scale[v] = info->scale[j];
        r->var_included[v] = info->kept[j];
        for (size_t q = 0; q < k; q++)
            r->v[v * k + q] = info->kept[j] ? c->rows[kept * k + q] : NAN;
        kept += info->kept[j];
    }
out:
    return rc;
}

int gsvd_pca_loadings(gsvd_geno *g, gsvd_backend *be, const struct gsvd_pca_params *p,
                      struct gsvd_pca_result *r, int *told)
{
    struct load_ctx c = {.be = be, .res = r};
    size_t n = r->n, k = r->k;
    uint64_t m = gsvd_geno_n_variants(g); /* this rank's part (rebalanced after pass 1) */
    double *us = gsvd_malloc(n * k * sizeof *us);
    int rc = GSVD_OK;

    r->m_range = m;
    r->v = gsvd_malloc(((size_t)m * k + 1) * sizeof *r->v);
    r->var_mean = gsvd_malloc(((size_t)m + 1) * sizeof *r->var_mean);
    r->var_scale = gsvd_malloc(((size_t)m + 1) * sizeof *r->var_scale);
    r->var_included = gsvd_malloc((size_t)m + 1);
    if (!us || !r->v || !r->var_mean || !r->var_scale || !r->var_included)
        rc = GSVD_ENOMEM;
    if (rc == GSVD_OK) {
        for (size_t i = 0; i < n; i++)
            for (size_t q = 0; q < k; q++)
                us[i * k + q] = r->u[i * k + q] / r->s[q];
        c.us = us;
        rc = gsvd_geno_scan(g, load_cb, &c);
    }
    if (p->comm) {
        uint64_t all = p->n_variants_all;
        GSVD_TRY(gsvd_pca_agree(p, rc, told));
        GSVD_TRY(gsvd_pca_gather_rows(p, (void **)&r->v, k * sizeof *r->v, m, all, told));
        GSVD_TRY(gsvd_pca_gather_rows(p, (void **)&r->var_mean, sizeof *r->var_mean, m, all, told));
        GSVD_TRY(
            gsvd_pca_gather_rows(p, (void **)&r->var_scale, sizeof *r->var_scale, m, all, told));
        GSVD_TRY(gsvd_pca_gather_rows(p, (void **)&r->var_included, 1, m, all, told));
        if (gsvd_comm_rank(p->comm) == 0)
            r->m_range = all;
    }
out:
    gsvd_free(c.rows);
    gsvd_free(us);
    return rc;
}
