/* analysis/pca/pca_store.c - the PCA output group: its writer and its reader (pca_store.h). */
#include "gsvd_config.h"
#include "analysis/pca/pca_store.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/codec.h"
#include "zarr/meta.h"
#include "zarr/reader.h"
#include "zarr/result.h"
#include "zarr/store.h"

const char *gsvd_pca_scaler_name(enum gsvd_scaler s)
{
    static const char *const names[] = {"patterson", "hwe", "standard", "center", "none"};
    return (size_t)s < GSVD_ARRAY_LEN(names) ? names[s] : "unknown";
}

/* The row chunk of a 1-D array or of the rows of a 2-D one: the whole axis up to 100,000. */
static uint64_t row_chunk(uint64_t rows)
{
    return rows < 100000 ? (rows ? rows : 1) : 100000;
}

/* A float64 array of `rows` values (or rows x cols), copied from data. */
static int put_f8(gsvd_result *res, const char *path, size_t ndim, uint64_t rows, uint64_t cols,
                  const char *d0, const char *d1, const double *data)
{
    double nan = NAN;
    struct gsvd_array_spec s = {.path = path,
                                .ndim = ndim,
                                .shape = {rows, cols},
                                .chunks = {row_chunk(rows), cols},
                                .dtype = {'f', '<', 8},
                                .dims = {d0, d1},
                                .fill = &nan};
    return gsvd_result_add(res, &s, data);
}

/* The same, taking ownership of data (gsvd_malloc'd), freed at once on failure. */
static int adopt_f8(gsvd_result *res, const char *path, uint64_t rows, const char *d0, double *data)
{
    double nan = NAN;
    struct gsvd_array_spec s = {.path = path,
                                .ndim = 1,
                                .shape = {rows},
                                .chunks = {row_chunk(rows)},
                                .dtype = {'f', '<', 8},
                                .dims = {d0},
                                .fill = &nan};
    return gsvd_result_adopt(res, &s, data);
}

static int put_strings(gsvd_result *res, const char *path, const char *dim,
                       const struct gsvd_strlist *l)
{
    struct gsvd_array_spec s = {.path = path,
                                .ndim = 1,
                                .shape = {l->n},
                                .chunks = {row_chunk(l->n)},
                                .dtype = {'O', '|', sizeof(char *)},
                                .dims = {dim}};
    return gsvd_result_add(res, &s, l->items);
}

static int put_bool(gsvd_result *res, const char *path, const char *dim, uint64_t m,
                    const uint8_t *data)
{
    struct gsvd_array_spec s = {.path = path,
                                .ndim = 1,
                                .shape = {m},
                                .chunks = {row_chunk(m)},
                                .dtype = {'b', '|', 1},
                                .dims = {dim}};
    return gsvd_result_add(res, &s, data);
}

static int put_i8(gsvd_result *res, const char *path, const char *dim, uint64_t m,
                  const int64_t *data)
{
    int64_t fill = -1;
    struct gsvd_array_spec s = {.path = path,
                                .ndim = 1,
                                .shape = {m},
                                .chunks = {row_chunk(m)},
                                .dtype = {'i', '<', 8},
                                .dims = {dim},
                                .fill = &fill};
    return gsvd_result_add(res, &s, data);
}

/* sample_pca_outlier, _pc and _sigma for the output's samples (looked up by ID; a sample
 * outside the set removal started from, e.g. one --fit-samples left out, was never removed). */
static int put_outliers(gsvd_result *res, const struct gsvd_pca_outliers *ol,
                        const struct gsvd_strlist *ids)
{
    size_t n = ids->n;
    int64_t *round = gsvd_malloc((n ? n : 1) * sizeof *round);
    int64_t *pc = gsvd_malloc((n ? n : 1) * sizeof *pc);
    double *sigma = gsvd_malloc((n ? n : 1) * sizeof *sigma);
    int rc = round && pc && sigma ? GSVD_OK : GSVD_ENOMEM;

    for (size_t i = 0; rc == GSVD_OK && i < n; i++) {
        ptrdiff_t at = gsvd_pca_outliers_find(ol, ids->items[i]);
        round[i] = at < 0 ? 0 : ol->round[at];
        pc[i] = at < 0 ? 0 : ol->pc[at];
        sigma[i] = at < 0 ? NAN : ol->sigma[at];
    }
    if (rc == GSVD_OK)
        rc = put_i8(res, "sample_pca_outlier", "samples", n, round);
    if (rc == GSVD_OK)
        rc = put_i8(res, "sample_pca_outlier_pc", "samples", n, pc);
    if (rc == GSVD_OK)
        rc = put_f8(res, "sample_pca_outlier_sigma", 1, n, 0, "samples", NULL, sigma);
    gsvd_free(round);
    gsvd_free(pc);
    gsvd_free(sigma);
    return rc;
}

/* The group's attributes (pca_store.h). */
static int pca_attrs(const struct gsvd_pca_store_info *info, const struct gsvd_pca_result *r,
                     struct gsvd_buf *attrs)
{
    size_t k = r->k;
    int rc = GSVD_OK;

    GSVD_TRY(
        gsvd_buf_printf(attrs, "{\n    \"version\": \"%s\",\n    \"command\": ", GSVD_VERSION));
    GSVD_TRY(gsvd_json_quote(attrs, info->command ? info->command : ""));
    GSVD_TRY(gsvd_buf_puts(attrs, ",\n    \"input\": "));
    GSVD_TRY(gsvd_json_quote(attrs, info->input ? info->input : ""));
    GSVD_TRY(gsvd_buf_printf(
        attrs,
        ",\n    \"method\": \"%s\",\n    \"k\": %zu,\n    \"l\": %zu,\n"
        "    \"iterations\": %zu,\n    \"convergence\": %.17g,\n    \"max_relative_residual\": "
        "%.17g,\n    \"stop\": \"%s\",\n    \"tol\": %.17g,\n    \"converged\": %s,\n"
        "    \"seed\": %llu,\n    \"scaler\": \"%s\",\n    \"missing\": \"%s\",\n"
        "    \"N\": %zu,\n    \"M\": %llu,\n    \"M_used\": %llu,\n"
        "    \"trace\": %.17g,\n    \"M_variant_mask\": %llu,\n"
        "    \"singular_value_error_bound\": [",
        gsvd_pca_method_name(r->method), k, r->l, r->iterations, r->convergence,
        isfinite(r->max_residual) ? r->max_residual : -1.0, gsvd_pca_stop_name(info->pca->stop),
        info->pca->tol,
        r->converged < 0 ? "null"
        : r->converged   ? "true"
                         : "false",
        (unsigned long long)info->pca->seed, gsvd_pca_scaler_name(info->geno->scaler),
        info->geno->missing_error ? "error" : "mean", r->n, (unsigned long long)r->m_range,
        (unsigned long long)r->m_used, r->trace, (unsigned long long)r->counts.n_mask));
    for (size_t q = 0; q < k; q++)
        GSVD_TRY(gsvd_buf_printf(attrs, "%s%.6g", q ? ", " : "",
                                 isfinite(r->error_bound[q]) ? r->error_bound[q] : -1.0));
    GSVD_TRY(gsvd_buf_puts(attrs, "],\n    \"singular_value_error_estimate\": ["));
    for (size_t q = 0; q < k; q++)
        GSVD_TRY(gsvd_buf_printf(attrs, "%s%.6g", q ? ", " : "",
                                 isfinite(r->error_estimate[q]) ? r->error_estimate[q] : -1.0));
    GSVD_TRY(gsvd_buf_printf(attrs,
                             "],\n    \"gram_error\": %.6g,\n    \"ploidy\": %zu,\n"
                             "    \"variant_start\": %llu",
                             r->gram_error, info->ploidy ? info->ploidy : 2,
                             (unsigned long long)info->var_start));
    if (info->fitted || info->n_fitted)
        GSVD_TRY(gsvd_buf_printf(attrs, ",\n    \"N_fitted\": %zu", info->n_fitted));
    if (info->outliers)
        GSVD_TRY(gsvd_buf_printf(
            attrs,
            ",\n    \"outlier_iter\": %zu,\n    \"outlier_pcs\": %zu,\n    \"outlier_sigma\": "
            "%.17g,\n    \"outlier_mode\": \"%s\",\n    \"outlier_rounds\": %zu,\n"
            "    \"N_outliers\": %zu,\n    \"outlier_projected\": %s",
            info->pca->outlier_iter, info->pca->outlier_pcs, info->pca->outlier_sigma,
            info->pca->outlier_loo ? "leave-one-out" : "all", info->outliers->n_rounds,
            info->outliers->n_removed, info->fitted ? "true" : "false"));
    if (r->tw_stat) {
        size_t sig = 0;
        while (sig < k && r->tw_pvalue[sig] < 0.05)
            sig++;
        GSVD_TRY(gsvd_buf_printf(
            attrs, ",\n    \"tw_eigenvalues\": %zu,\n    \"tw_significant\": %zu", r->tw_m, sig));
        if (info->pca->tw_effective_n > 0)
            GSVD_TRY(gsvd_buf_printf(attrs, ",\n    \"tw_effective_n_given\": %.17g",
                                     info->pca->tw_effective_n));
    }
    GSVD_TRY(gsvd_buf_puts(attrs, "\n}"));
out:
    return rc;
}

/* A new array of n values (n >= 1 allocated), or NULL. */
static double *new_f8(size_t n)
{
    return gsvd_malloc((n ? n : 1) * sizeof(double));
}

int gsvd_pca_store_build(const struct gsvd_pca_store_info *info, const struct gsvd_pca_result *r,
                         const struct gsvd_strlist *ids, gsvd_result **out)
{
    gsvd_result *res = NULL;
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    double *tmp = NULL;
    size_t n = r->n, k = r->k;
    int rc = GSVD_OK;

    *out = NULL;
    GSVD_TRY(gsvd_result_new(&res));
    GSVD_TRY(pca_attrs(info, r, &attrs));
    GSVD_TRY(gsvd_result_set_attrs(res, attrs.data, GSVD_RESULT_ATTRS_FIRST));
    GSVD_TRY(put_strings(res, "sample_id", "samples", ids));
    if (info->fitted)
        GSVD_TRY(put_bool(res, "sample_pca_fitted", "samples", n, info->fitted));
    if (info->outliers)
        GSVD_TRY(put_outliers(res, info->outliers, ids));
    if (!(tmp = new_f8(n * k))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n * k; i++)
        tmp[i] = r->u[i] * r->s[i % k];
    GSVD_TRY(put_f8(res, "sample_pca_projection", 2, n, k, "samples", "components", tmp));
    gsvd_free(tmp);
    tmp = NULL;
    /* the vectors over k: each a new array adopted by the result */
    {
        double *ev = new_f8(k), *evr = new_f8(k), *eig = new_f8(k);
        for (size_t q = 0; ev && evr && eig && q < k; q++) {
            ev[q] = r->s[q] * r->s[q] / (double)(info->n_fitted ? info->n_fitted : n);
            evr[q] = r->s[q] * r->s[q] / r->trace;
            eig[q] = r->s[q] * r->s[q] / (double)r->m_used;
        }
        if (!ev || !evr || !eig) {
            gsvd_free(ev);
            gsvd_free(evr);
            gsvd_free(eig);
            rc = GSVD_ENOMEM;
            goto out;
        }
        /* over the samples the PCs were fitted on */
        rc = adopt_f8(res, "sample_pca_explained_variance", k, "components", ev);
        if (rc == GSVD_OK)
            rc = adopt_f8(res, "sample_pca_explained_variance_ratio", k, "components", evr);
        else
            gsvd_free(evr);
        if (rc == GSVD_OK)
            rc = put_f8(res, "sample_pca_singular_value", 1, k, 0, "components", NULL, r->s);
        if (rc == GSVD_OK)
            rc = adopt_f8(res, "sample_pca_eigenvalue", k, "components", eig);
        else
            gsvd_free(eig);
        if (rc < 0)
            goto out;
    }
    if (r->tw_stat) {
        GSVD_TRY(put_f8(res, "sample_pca_tw_statistic", 1, k, 0, "components", NULL, r->tw_stat));
        GSVD_TRY(put_f8(res, "sample_pca_tw_pvalue", 1, k, 0, "components", NULL, r->tw_pvalue));
        GSVD_TRY(put_f8(res, "sample_pca_tw_effective_n", 1, k, 0, "components", NULL, r->tw_neff));
    }
    if (r->v) {
        uint64_t m = r->m_range;
        double *scale = new_f8((size_t)m);
        GSVD_TRY(put_f8(res, "sample_pca_component", 2, m, k, "variants", "components", r->v));
        GSVD_TRY(put_f8(res, "variant_pca_mean", 1, m, 0, "variants", NULL, r->var_mean));
        if (!scale) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        for (uint64_t j = 0; j < m; j++)
            scale[j] = r->var_scale[j] > 0 ? 1.0 / r->var_scale[j] : NAN;
        GSVD_TRY(adopt_f8(res, "variant_pca_scale", m, "variants", scale));
        GSVD_TRY(put_bool(res, "variant_pca_included", "variants", m, r->var_included));
        if (info->vids && info->vids->n == m) {
            GSVD_TRY(put_strings(res, "variant_pca_contig", "variants", &info->vids->contig));
            GSVD_TRY(put_i8(res, "variant_pca_position", "variants", m, info->vids->pos));
            GSVD_TRY(put_strings(res, "variant_pca_alleles", "variants", &info->vids->alleles));
            if (info->vids->name.n == m)
                GSVD_TRY(put_strings(res, "variant_pca_id", "variants", &info->vids->name));
        }
    }
    *out = res;
    res = NULL;
out:
    gsvd_free(tmp);
    gsvd_buf_free(&attrs);
    gsvd_result_free(res);
    return rc;
}

/* An array held beside the output group (never written: chunks and fill are nominal): 1-D of
 * n elements along dim0, or 2-D n x k along dim0, "components" (k > 0). */
static int add_held(gsvd_result *res, const char *name, const char *dim0, char kind, uint64_t n,
                    uint64_t k, const void *data)
{
    struct gsvd_array_spec s = {
        .path = name,
        .ndim = k ? 2 : 1,
        .shape = {n, k},
        .chunks = {n ? n : 1, k ? k : 1},
        .dtype = {kind, kind == 'O' ? '|' : '<', kind == 'O' ? sizeof(char *) : 8},
        .dims = {dim0, k ? "components" : NULL}};
    return gsvd_result_add(res, &s, data);
}

int gsvd_pca_table_build(const struct gsvd_pca_result *r, const struct gsvd_strlist *ids,
                         const struct gsvd_pca_outliers *ol, gsvd_result **out)
{
    const struct gsvd_geno_counts *c = &r->counts;
    uint64_t counts[9] = {c->n_kept,    c->n_range, c->n_no_calls,      c->n_zero_var, c->n_maf,
                          c->n_missing, c->n_mask,  c->n_missing_calls, c->n_hwe};
    int64_t converged = r->converged;
    gsvd_result *res = NULL;
    int rc = GSVD_OK;

    *out = NULL;
    GSVD_TRY(gsvd_result_new(&res));
    GSVD_TRY(add_held(res, "fit_sample_id", "fit_samples", 'O', ids->n, 0, ids->items));
    GSVD_TRY(add_held(res, "fit_sample_vector", "fit_samples", 'f', r->n, r->k, r->u));
    GSVD_TRY(
        add_held(res, "singular_value_error_bound", "components", 'f', r->k, 0, r->error_bound));
    GSVD_TRY(add_held(res, "singular_value_error_estimate", "components", 'f', r->k, 0,
                      r->error_estimate));
    GSVD_TRY(add_held(res, "gram_error", "scalar", 'f', 1, 0, &r->gram_error));
    GSVD_TRY(add_held(res, "converged", "scalar", 'i', 1, 0, &converged));
    GSVD_TRY(add_held(res, "variant_counts", "counts", 'u', 9, 0, counts));
    if (r->gram_eig)
        GSVD_TRY(add_held(res, "gram_eigenvalue", "eigenvalues", 'f', r->n, 0, r->gram_eig));
    if (ol) {
        GSVD_TRY(
            add_held(res, "outlier_sample_id", "start_samples", 'O', ol->ids.n, 0, ol->ids.items));
        GSVD_TRY(add_held(res, "outlier_round", "start_samples", 'i', ol->n, 0, ol->round));
        GSVD_TRY(add_held(res, "outlier_pc", "start_samples", 'i', ol->n, 0, ol->pc));
        GSVD_TRY(add_held(res, "outlier_sigma", "start_samples", 'f', ol->n, 0, ol->sigma));
    }
    *out = res;
    res = NULL;
out:
    gsvd_result_free(res);
    return rc;
}

int gsvd_pca_table_add_smartpca(gsvd_result *table, const struct gsvd_strlist *ids, size_t k,
                                const double *rows)
{
    int rc = add_held(table, "smartpca_sample_id", "smartpca_samples", 'O', ids->n, 0, ids->items);
    if (rc == GSVD_OK)
        rc = add_held(table, "smartpca_row", "smartpca_samples", 'f', ids->n, k, rows);
    return rc;
}

int gsvd_pca_store_write(const char *url, int overwrite, const struct gsvd_writer_params *wp,
                         const struct gsvd_pca_store_info *info, const struct gsvd_pca_result *r,
                         const struct gsvd_strlist *ids)
{
    gsvd_result *res = NULL;
    int rc = gsvd_pca_store_build(info, r, ids, &res);
    if (rc == GSVD_OK)
        rc = gsvd_result_write(res, url, overwrite, wp, 1);
    gsvd_result_free(res);
    return rc;
}

int gsvd_project_store_build(const char *attrs_json, size_t n, size_t k, const double *scores,
                             const double *s, double trace, const struct gsvd_strlist *ids,
                             gsvd_result **out)
{
    gsvd_result *res = NULL;
    double *evr = NULL, tot = 0;
    int rc = GSVD_OK;

    *out = NULL;
    if (!(evr = new_f8(k)))
        return GSVD_ENOMEM;
    for (size_t q = 0; q < k; q++)
        tot += s[q] * s[q];
    for (size_t q = 0; q < k; q++) /* without the trace: the share of the k components */
        evr[q] = s[q] * s[q] / (isfinite(trace) && trace > 0 ? trace : tot);
    GSVD_TRY(gsvd_result_new(&res));
    GSVD_TRY(gsvd_result_set_attrs(res, attrs_json, GSVD_RESULT_ATTRS_FIRST));
    GSVD_TRY(put_strings(res, "sample_id", "samples", ids));
    GSVD_TRY(put_f8(res, "sample_pca_projection", 2, n, k, "samples", "components", scores));
    GSVD_TRY(put_f8(res, "sample_pca_singular_value", 1, k, 0, "components", NULL, s));
    rc = adopt_f8(res, "sample_pca_explained_variance_ratio", k, "components", evr);
    evr = NULL;
    if (rc < 0)
        goto out;
    *out = res;
    res = NULL;
out:
    gsvd_free(evr);
    gsvd_result_free(res);
    return rc;
}

int gsvd_project_store_write(const char *url, int overwrite, const struct gsvd_writer_params *wp,
                             const char *attrs_json, size_t n, size_t k, const double *scores,
                             const double *s, double trace, const struct gsvd_strlist *ids)
{
    gsvd_result *res = NULL;
    int rc = gsvd_project_store_build(attrs_json, n, k, scores, s, trace, ids, &res);
    if (rc == GSVD_OK)
        rc = gsvd_result_write(res, url, overwrite, wp, 1);
    gsvd_result_free(res);
    return rc;
}

/* ---- reader ---------------------------------------------------------------------------- */

void gsvd_pca_model_free(struct gsvd_pca_model *m)
{
    if (!m)
        return;
    gsvd_free(m->s);
    gsvd_free(m->scores);
    gsvd_strlist_free(&m->ids);
    gsvd_free(m->v);
    gsvd_free(m->mean);
    gsvd_free(m->scale);
    gsvd_free(m->included);
    gsvd_variant_ids_free(&m->vids);
    memset(m, 0, sizeof *m);
}

/* 0: `name` is absent from group node; 1: present; < 0: a store error. */
static int has_array(gsvd_tree *t, const char *node, const char *name)
{
    char *path = NULL;
    int rc = gsvd_key_join(node, name, &path);
    if (rc == GSVD_OK) {
        rc = gsvd_tree_node_kind(t, path);
        if (rc >= 0)
            rc = rc == GSVD_NODE_ARRAY;
    }
    gsvd_free(path);
    return rc;
}

/* Read the whole array `name` (kind 'f' size 8, or 'b' / 'i' as asked; rank ndim; axis 0 of
 * rows elements, axis 1 of cols when ndim is 2; rows == 0 takes the array's) into a new
 * buffer. */
static int read_whole(gsvd_tree *t, const char *node, const char *name, char kind, size_t ndim,
                      uint64_t *rows, uint64_t cols, void **dst)
{
    char *path = NULL;
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    const struct gsvd_zarray *z;
    size_t esz = kind == 'b' ? 1 : 8, n;
    int rc = GSVD_OK;

    *dst = NULL;
    GSVD_TRY(gsvd_key_join(node, name, &path));
    rc = has_array(t, node, name);
    if (rc == 0) {
        gsvd_log_error("%s: no array '%s' (is it a `gensvd pca -o` output?)",
                       gsvd_store_url(gsvd_tree_store(t)), path);
        rc = GSVD_ENOTFOUND;
    }
    if (rc < 0)
        goto out;
    rc = GSVD_OK;
    GSVD_TRY(gsvd_array_open(t, path, &a));
    z = gsvd_array_meta(a);
    if (z->ndim != ndim || z->dtype.kind != kind || z->dtype.size != esz ||
        (*rows && z->shape[0] != *rows) || (ndim == 2 && z->shape[1] != cols) ||
        z->shape[0] > ((uint64_t)1 << 40)) {
        char want[64];
        if (ndim == 2)
            snprintf(want, sizeof want, "%s x %llu", *rows ? "" : "N", (unsigned long long)cols);
        else
            snprintf(want, sizeof want, "%s", *rows ? "" : "N");
        gsvd_log_error("%s: expected a %zu-D %s array of shape (%s%.0llu%s), found %zu-D '%c%zu' "
                       "of %llu%s%.0llu",
                       path, ndim,
                       kind == 'b'   ? "bool"
                       : kind == 'i' ? "int64"
                                     : "float64",
                       "", (unsigned long long)*rows, want, z->ndim, z->dtype.kind, z->dtype.size,
                       (unsigned long long)z->shape[0], z->ndim == 2 ? " x " : "",
                       (unsigned long long)(z->ndim == 2 ? z->shape[1] : 0));
        rc = GSVD_EFORMAT;
        goto out;
    }
    *rows = z->shape[0];
    GSVD_TRY(gsvd_mul_size((size_t)*rows, ndim == 2 ? (size_t)cols : 1, &n));
    if (!(*dst = gsvd_malloc(n ? n * esz : 1))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_reader_new(a, &r));
    if (n)
        GSVD_TRY(gsvd_reader_read_rows(r, 0, *rows, *dst));
out:
    if (rc < 0) {
        gsvd_free(*dst);
        *dst = NULL;
    }
    gsvd_reader_free(r);
    gsvd_array_close(a);
    gsvd_free(path);
    return rc;
}

static int read_strings(gsvd_tree *t, const char *node, const char *name, uint64_t n,
                        struct gsvd_strlist *out)
{
    char *path = NULL;
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_key_join(node, name, &path));
    GSVD_TRY(gsvd_array_open(t, path, &a));
    if (gsvd_array_meta(a)->ndim != 1 || gsvd_array_meta(a)->shape[0] != n) {
        gsvd_log_error("%s: expected a 1-D array of %llu strings", path, (unsigned long long)n);
        rc = GSVD_EFORMAT;
        goto out;
    }
    GSVD_TRY(gsvd_reader_new(a, &r));
    GSVD_TRY(gsvd_reader_read_strings(r, 0, n, out));
out:
    gsvd_reader_free(r);
    gsvd_array_close(a);
    gsvd_free(path);
    return rc;
}

/* Attributes the reader needs: scaler, ploidy, trace, M_used. */
static int read_attrs(gsvd_tree *t, const char *node, struct gsvd_pca_model *m)
{
    struct gsvd_buf doc = GSVD_BUF_INIT;
    char *key = NULL, *scaler = NULL;
    double x;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_key_join(node, ".zattrs", &key));
    rc = gsvd_tree_get_meta(t, key, &doc);
    if (rc == GSVD_ENOTFOUND) {
        gsvd_log_error("%s: no attributes at '%s' (is it a `gensvd pca -o` output?)",
                       gsvd_store_url(gsvd_tree_store(t)), key);
        goto out;
    }
    if (rc < 0)
        goto out;
    rc = gsvd_meta_get_string(doc.data, doc.len, "scaler", key, &scaler);
    if (rc == GSVD_ENOTFOUND)
        gsvd_log_error("%s: no \"scaler\" attribute (is it a `gensvd pca -o` output?)", key);
    if (rc < 0)
        goto out;
    for (m->scaler = 0; m->scaler <= GSVD_SCALER_NONE; m->scaler++)
        if (strcmp(scaler, gsvd_pca_scaler_name(m->scaler)) == 0)
            break;
    if (m->scaler > GSVD_SCALER_NONE) {
        gsvd_log_error("%s: unknown scaler \"%s\"", key, scaler);
        rc = GSVD_EFORMAT;
        goto out;
    }
    m->ploidy = 2;
    rc = gsvd_meta_get_number(doc.data, doc.len, "ploidy", key, &x);
    if (rc < 0 && rc != GSVD_ENOTFOUND) /* absent: 2; out of memory fails */
        goto out;
    if (rc == GSVD_OK && !(x >= 1 && x <= 100 && x == (double)(size_t)x)) {
        gsvd_log_error("%s: \"ploidy\" %g is not an integer 1..100", key, x);
        rc = GSVD_EFORMAT;
        goto out;
    }
    if (rc == GSVD_OK)
        m->ploidy = (size_t)x;
    m->trace = NAN;
    rc = gsvd_meta_get_number(doc.data, doc.len, "trace", key, &x);
    if (rc == GSVD_OK)
        m->trace = x;
    else if (rc != GSVD_ENOTFOUND)
        goto out;
    rc = gsvd_meta_get_number(doc.data, doc.len, "M_used", key, &x);
    if (rc == GSVD_OK && x >= 0)
        m->m_used = (uint64_t)x;
    else if (rc < 0 && rc != GSVD_ENOTFOUND)
        goto out;
    rc = GSVD_OK;
out:
    gsvd_free(scaler);
    gsvd_free(key);
    gsvd_buf_free(&doc);
    return rc;
}

int gsvd_pca_model_read(gsvd_tree *t, const char *node, int need_loadings,
                        struct gsvd_pca_model *out)
{
    uint64_t k = 0, n = 0, m = 0;
    int rc = GSVD_OK, have;

    memset(out, 0, sizeof *out);
    GSVD_TRY(read_attrs(t, node, out));
    GSVD_TRY(read_whole(t, node, "sample_pca_singular_value", 'f', 1, &k, 0, (void **)&out->s));
    if (k == 0 || k > 100000) {
        gsvd_log_error("%s: sample_pca_singular_value holds %llu components",
                       gsvd_store_url(gsvd_tree_store(t)), (unsigned long long)k);
        rc = GSVD_EFORMAT;
        goto out;
    }
    out->k = (size_t)k;
    GSVD_TRY(read_whole(t, node, "sample_pca_projection", 'f', 2, &n, k, (void **)&out->scores));
    out->n = (size_t)n;
    GSVD_TRY(read_strings(t, node, "sample_id", n, &out->ids));
    have = has_array(t, node, "sample_pca_component");
    if (have < 0) {
        rc = have;
        goto out;
    }
    if (!have) {
        if (need_loadings) {
            gsvd_log_error("%s: no variant loadings (sample_pca_component): run `gensvd pca` "
                           "with --loadings to save what projection needs",
                           gsvd_store_url(gsvd_tree_store(t)));
            rc = GSVD_ENOTFOUND;
        }
        goto out;
    }
    GSVD_TRY(read_whole(t, node, "sample_pca_component", 'f', 2, &m, k, (void **)&out->v));
    GSVD_TRY(read_whole(t, node, "variant_pca_mean", 'f', 1, &m, 0, (void **)&out->mean));
    GSVD_TRY(read_whole(t, node, "variant_pca_scale", 'f', 1, &m, 0, (void **)&out->scale));
    GSVD_TRY(read_whole(t, node, "variant_pca_included", 'b', 1, &m, 0, (void **)&out->included));
    out->m = m;
    for (uint64_t j = 0; j < m; j++) { /* sigma -> 1 / sigma, as gsvd_pca_result has it */
        double sd = out->scale[j];
        int ok = out->included[j] && sd > 0 && isfinite(sd) && isfinite(out->mean[j]);
        for (size_t q = 0; ok && q < k; q++)
            ok = isfinite(out->v[j * k + q]);
        if (out->included[j] && !ok) {
            gsvd_log_error("%s: variant row %llu is marked included but its mean, scale or "
                           "loadings are not finite",
                           gsvd_store_url(gsvd_tree_store(t)), (unsigned long long)j);
            rc = GSVD_EFORMAT;
            goto out;
        }
        out->scale[j] = ok ? 1.0 / sd : 0.0;
    }
    have = has_array(t, node, "variant_pca_position");
    if (have < 0) {
        rc = have;
        goto out;
    }
    if (have) {
        int64_t *pos = NULL;
        uint64_t mm = m;
        GSVD_TRY(read_whole(t, node, "variant_pca_position", 'i', 1, &mm, 0, (void **)&pos));
        out->vids.pos = pos;
        GSVD_TRY(read_strings(t, node, "variant_pca_contig", m, &out->vids.contig));
        GSVD_TRY(read_strings(t, node, "variant_pca_alleles", m, &out->vids.alleles));
        out->vids.n = m;
    }
out:
    if (rc < 0)
        gsvd_pca_model_free(out);
    return rc;
}
