/* analysis/pdist/pdist_sources.c - where a pdist run's features come from: the genotype scan
 * (samples as items, or haplotypes for p-distance) or an in-memory matrix (items x features,
 * float64 or int8), each one pass per band through pd_feed; and, for --axis variants, the kept
 * variants collected as a matrix (pdist_run.h). */
#include "gsvd_config.h"

#include <math.h>
#include <string.h>

#include "analysis/pdist/pdist_run.h"
#include "analysis/scan/genotype.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"

static int geno_block(void *ctx, const struct gsvd_gblock *blk, const struct gsvd_geno_info *info)
{
    struct pd_run *r = ctx;
    struct pd_stripe s = {.n_feat = blk->n_rows,
                          .i8 = blk->i8,
                          .f64 = blk->f64,
                          .item_stride = 1,
                          .feat_stride = blk->n_cols};
    int rc;
    (void)info;
    if (blk->n_rows == 0)
        return GSVD_OK;
    if (!blk->i8 && !blk->f64)
        return GSVD_EINTERNAL; /* packed (cached) blocks are not used by pdist */
    if (r->haps > 1) {         /* item i's haplotype h of variant v is feature h rows + v */
        if (!blk->i8)
            return GSVD_EINTERNAL; /* haplotypes come from integer calls */
        rc = gsvd_pd_haplotype_rows(blk->i8, blk->n_rows, r->env.n, r->haps, &r->hrows,
                                    &r->hrows_cap);
        if (rc < 0)
            return rc;
        s = (struct pd_stripe){.n_feat = blk->n_rows * r->haps,
                               .i8 = r->hrows,
                               .item_stride = 1,
                               .feat_stride = r->env.n};
    }
    rc = pd_feed(r, &s);
    /* the scan stops on any non-zero return; a hand-over travels as ECANCELED */
    return rc == PD_HANDOVER ? GSVD_ECANCELED : rc;
}

struct geno_src {
    struct pd_source base;
    gsvd_geno *g;
    size_t haps; /* features per variant */
};

static uint64_t geno_used(struct pd_source *src)
{
    const struct geno_src *gs = (const struct geno_src *)src;
    const struct gsvd_geno_counts *c = gsvd_geno_counts(gs->g);
    return (c->n_range - c->n_mask) * gs->haps;
}

static int geno_pass(struct pd_source *src, struct pd_run *r)
{
    struct geno_src *gs = (struct geno_src *)src;
    int rc = gsvd_geno_scan(gs->g, geno_block, r);
    if (rc == GSVD_ECANCELED)
        return PD_HANDOVER;
    return rc;
}

int gsvd_pdist_run(gsvd_geno *g, const struct gsvd_pdist_params *p, gsvd_pdist_sink_fn sink,
                   void *ctx, struct gsvd_pdist_summary *sum)
{
    struct pd_run r = {.p = p};
    struct geno_src src = {.base = {.pass = geno_pass, .used = geno_used}, .g = g, .haps = 1};
    size_t hg = p->hap_group > 1 ? p->hap_group : 1;
    int rc;

    if ((p->metric == GSVD_PDIST_P_DISTANCE && !gsvd_geno_haplotypes(g)) ||
        (hg > 1 && (p->metric != GSVD_PDIST_P_DISTANCE || hg != gsvd_geno_haplotypes(g)))) {
        gsvd_log_error("%s: p-distance compares the haplotypes of phased calls: open the "
                       "genotypes with haplotypes, and group the columns by their ploidy",
                       gsvd_geno_array_name(g));
        return GSVD_EINVAL;
    }
    r.haps = src.haps = hg;
    r.env.n = gsvd_geno_n_samples(g) / hg;
    r.env.m = gsvd_geno_n_variants(g) * hg;
    r.m_used = r.env.m;
    r.ploidy = (double)gsvd_geno_ploidy(g);
    if (r.env.m > UINT32_MAX) {
        gsvd_log_error("%llu features: more than pdist's per-pair counts hold (2^32 - 1); "
                       "use --variants to split the range",
                       (unsigned long long)r.env.m);
        return GSVD_EINVAL;
    }
    rc = pd_run_engine(&r, &src.base, gsvd_geno_is_float(g), sink, ctx);
    if (rc == GSVD_OK && sum)
        *sum = r.sum;
    pd_run_clear(&r);
    return rc;
}

struct matrix_src {
    struct pd_source base;
    const double *x; /* or */
    const int8_t *x8;
    size_t n, m;
};

static int matrix_pass(struct pd_source *src, struct pd_run *r)
{
    struct matrix_src *ms = (struct matrix_src *)src;
    struct pd_stripe s = {
        .n_feat = ms->m, .f64 = ms->x, .i8 = ms->x8, .item_stride = ms->m, .feat_stride = 1};
    if (ms->m == 0)
        return GSVD_OK;
    return pd_feed(r, &s);
}

/* An in-memory matrix, float64 (x) or int8 (x8). */
static int run_matrix(const double *x, const int8_t *x8, size_t n, size_t m,
                      const struct gsvd_pdist_params *p, gsvd_pdist_sink_fn sink, void *ctx,
                      struct gsvd_pdist_summary *sum)
{
    struct pd_run r = {.p = p};
    struct matrix_src src = {.base = {.pass = matrix_pass}, .x = x, .x8 = x8, .n = n, .m = m};
    int is_int = 1, rc;

    if (p->missing == GSVD_PDIST_ERROR)
        for (size_t k = 0; k < n * m; k++)
            if (x8 ? x8[k] < 0 : isnan(x[k])) {
                gsvd_log_error("row %zu of the matrix has a missing value (--missing error)",
                               k / m + 1);
                return GSVD_EFORMAT;
            }
    for (size_t k = 0; k < n * m && is_int && !x8; k++)
        is_int = isnan(x[k]) || x[k] == 0 || x[k] == 1 || x[k] == 2;
    if (m > UINT32_MAX) {
        gsvd_log_error("%zu features: more than pdist's per-pair counts hold (2^32 - 1)", m);
        return GSVD_EINVAL;
    }
    r.env.n = n;
    r.env.m = m;
    r.m_used = m;
    r.ploidy = p->ploidy ? (double)p->ploidy : 2;
    rc = pd_run_engine(&r, &src.base, !is_int, sink, ctx);
    if (rc == GSVD_OK && sum)
        *sum = r.sum;
    pd_run_clear(&r);
    return rc;
}

int gsvd_pdist_run_matrix(const double *x, size_t n, size_t m, const struct gsvd_pdist_params *p,
                          gsvd_pdist_sink_fn sink, void *ctx, struct gsvd_pdist_summary *sum)
{
    return run_matrix(x, NULL, n, m, p, sink, ctx, sum);
}

int gsvd_pdist_run_matrix_i8(const int8_t *x, size_t n, size_t m, const struct gsvd_pdist_params *p,
                             gsvd_pdist_sink_fn sink, void *ctx, struct gsvd_pdist_summary *sum)
{
    return run_matrix(NULL, x, n, m, p, sink, ctx, sum);
}

/* ---- distances between variants ------------------------------------------------------------ */

struct var_collect {
    unsigned char *x; /* kept variants x samples: int8 or float64 (elem bytes each) */
    size_t elem;
    size_t rows, cap, n;
    uint64_t *ids;
    uint64_t limit; /* bytes; 0 = none */
};

static int var_block(void *ctx, const struct gsvd_gblock *blk, const struct gsvd_geno_info *info)
{
    struct var_collect *v = ctx;
    size_t n = v->n, need = v->rows + blk->n_rows, kept = 0;

    if (blk->n_rows == 0)
        return GSVD_OK;
    if (!blk->i8 && !blk->f64)
        return GSVD_EINTERNAL;
    if ((blk->f64 != NULL) != (v->elem == sizeof(double)))
        return GSVD_EINTERNAL; /* the scan's kind is fixed by the array */
    if (need > v->cap) {
        size_t row_bytes, cap_x = v->cap, cap_ids = v->cap; /* both arrays hold v->cap rows */
        if (gsvd_mul_size(n ? n : 1, v->elem, &row_bytes) < 0)
            return GSVD_ENOMEM;
        if (v->limit && (uint64_t)need * n * v->elem > v->limit) {
            gsvd_log_error("--axis variants: %zu variants x %zu samples do not fit in --memory "
                           "%llu bytes (%zu byte(s) per call, up to half of it); narrow "
                           "--variants",
                           need, n, (unsigned long long)v->limit * 2, v->elem);
            return GSVD_ENOMEM;
        }
        if (gsvd_grow(&v->x, &cap_x, need, row_bytes, 1024) < 0 ||
            gsvd_grow(&v->ids, &cap_ids, need, sizeof *v->ids, 1024) < 0)
            return GSVD_ENOMEM;
        v->cap = cap_x;
    }
    memcpy(v->x + v->rows * n * v->elem, blk->i8 ? (const void *)blk->i8 : (const void *)blk->f64,
           blk->n_rows * n * v->elem);
    for (size_t j = 0; j < info->n_variants; j++)
        if (info->kept[j])
            v->ids[v->rows + kept++] = info->first + j;
    if (kept != blk->n_rows)
        return GSVD_EINTERNAL;
    v->rows = need;
    return GSVD_OK;
}

int gsvd_pdist_collect_variants(gsvd_geno *g, struct gsvd_pdist_params *p, double **x, int8_t **x8,
                                size_t *rows, uint64_t **ids)
{
    struct var_collect v = {.n = gsvd_geno_n_samples(g),
                            .elem = gsvd_geno_is_float(g) ? sizeof(double) : 1,
                            .limit = p->memory / 2};
    int rc;

    *x = NULL;
    *x8 = NULL;
    *ids = NULL;
    *rows = 0;
    rc = gsvd_geno_scan(g, var_block, &v);
    if (rc == GSVD_OK) {
        if (v.elem == 1)
            *x8 = (int8_t *)v.x;
        else
            *x = (double *)(void *)v.x;
        *ids = v.ids;
        *rows = v.rows;
        p->ploidy = gsvd_geno_ploidy(g);
        if (p->memory) { /* the matrix itself is part of the working set */
            uint64_t held = (uint64_t)v.rows * v.n * v.elem;
            p->memory = held < p->memory ? p->memory - held : 1;
        }
        return GSVD_OK;
    }
    gsvd_free(v.x);
    gsvd_free(v.ids);
    return rc;
}
