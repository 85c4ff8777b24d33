/* analysis/pca_store.c - the PCA output group: writer (and reader, pca_store.h). */
#include "gsvd_config.h"
#include "analysis/pca_store.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/codec.h"
#include "zarr/meta.h"

const char *gsvd_pca_scaler_name(enum gsvd_scaler s)
{
    static const char *const names[] = {"patterson", "hwe", "standard", "center", "none"};
    return (size_t)s < GSVD_ARRAY_LEN(names) ? names[s] : "unknown";
}

/* A float64 array of `len` values (or len x k) in the output group. */
static int put_f8(gsvd_writer *w, gsvd_codec_ws *ws, const char *path, size_t ndim, uint64_t rows,
                  uint64_t cols, const char *d0, const char *d1, const double *data)
{
    gsvd_warray *a;
    double nan = NAN;
    uint64_t chunk = rows < 100000 ? (rows ? rows : 1) : 100000;
    struct gsvd_array_spec s = {.path = path,
                                .ndim = ndim,
                                .shape = {rows, cols},
                                .chunks = {chunk, cols},
                                .dtype = {'f', '<', 8},
                                .dims = {d0, d1},
                                .fill = &nan};
    int rc = gsvd_writer_array(w, &s, &a);
    for (uint64_t r0 = 0; rc == GSVD_OK && r0 < rows; r0 += chunk)
        rc = gsvd_warray_write_rows(a, ws, r0, rows - r0 < chunk ? rows - r0 : chunk,
                                    data + r0 * (ndim == 2 ? cols : 1));
    return rc;
}

int gsvd_pca_store_write(const char *url, int overwrite, const struct gsvd_writer_params *wp,
                         const struct gsvd_pca_store_info *info, const struct gsvd_pca_result *r,
                         const struct gsvd_strlist *ids)
{
    gsvd_writer *w = NULL;
    gsvd_codec_ws *ws = NULL;
    struct gsvd_buf attrs = GSVD_BUF_INIT;
    double *tmp = NULL;
    size_t n = r->n, k = r->k;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_codec_ws_new(&ws));
    GSVD_TRY(gsvd_writer_open_params(url, overwrite, wp, &w));
    GSVD_TRY(
        gsvd_buf_printf(&attrs, "{\n    \"version\": \"%s\",\n    \"command\": ", GSVD_VERSION));
    GSVD_TRY(gsvd_json_quote(&attrs, info->command ? info->command : ""));
    GSVD_TRY(gsvd_buf_puts(&attrs, ",\n    \"input\": "));
    GSVD_TRY(gsvd_json_quote(&attrs, info->input ? info->input : ""));
    GSVD_TRY(gsvd_buf_printf(
        &attrs,
        ",\n    \"method\": \"%s\",\n    \"k\": %zu,\n    \"l\": %zu,\n"
        "    \"iterations\": %zu,\n    \"convergence\": %.17g,\n    \"max_relative_residual\": "
        "%.17g,\n    \"stop\": \"%s\",\n    \"tol\": %.17g,\n    \"converged\": %s,\n"
        "    \"seed\": %llu,\n    \"scaler\": \"%s\",\n    \"missing\": \"%s\",\n"
        "    \"N\": %zu,\n    \"M\": %llu,\n    \"M_used\": %llu,\n"
        "    \"trace\": %.17g,\n    \"singular_value_error_bound\": [",
        gsvd_pca_method_name(r->method), k, r->l, r->iterations, r->convergence,
        isfinite(r->max_residual) ? r->max_residual : -1.0,
        info->pca->stop == GSVD_PCA_STOP_SUBSPACE ? "subspace" : "bound", info->pca->tol,
        r->converged < 0 ? "null"
        : r->converged   ? "true"
                         : "false",
        (unsigned long long)info->pca->seed, gsvd_pca_scaler_name(info->geno->scaler),
        info->geno->missing_error ? "error" : "mean", n, (unsigned long long)r->m_range,
        (unsigned long long)r->m_used, r->trace));
    for (size_t q = 0; q < k; q++)
        GSVD_TRY(gsvd_buf_printf(&attrs, "%s%.6g", q ? ", " : "",
                                 isfinite(r->error_bound[q]) ? r->error_bound[q] : -1.0));
    GSVD_TRY(gsvd_buf_puts(&attrs, "]\n}"));
    GSVD_TRY(gsvd_writer_group(w, "", attrs.data));
    {
        gsvd_warray *a;
        struct gsvd_array_spec s = {.path = "sample_id",
                                    .ndim = 1,
                                    .shape = {n},
                                    .chunks = {n < 100000 ? n : 100000},
                                    .dtype = {'O', '|', sizeof(char *)},
                                    .dims = {"samples"}};
        GSVD_TRY(gsvd_writer_array(w, &s, &a));
        GSVD_TRY(gsvd_warray_write_strings(a, ws, (const char *const *)ids->items, n));
    }
    tmp = gsvd_malloc((n > r->m_range ? n : (size_t)r->m_range) * k * sizeof *tmp + 8);
    if (!tmp) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n * k; i++)
        tmp[i] = r->u[i] * r->s[i % k];
    GSVD_TRY(put_f8(w, ws, "sample_pca_projection", 2, n, k, "samples", "components", tmp));
    for (size_t q = 0; q < k; q++)
        tmp[q] = r->s[q] * r->s[q] / (double)n;
    GSVD_TRY(put_f8(w, ws, "sample_pca_explained_variance", 1, k, 0, "components", NULL, tmp));
    for (size_t q = 0; q < k; q++)
        tmp[q] = r->s[q] * r->s[q] / r->trace;
    GSVD_TRY(
        put_f8(w, ws, "sample_pca_explained_variance_ratio", 1, k, 0, "components", NULL, tmp));
    GSVD_TRY(put_f8(w, ws, "sample_pca_singular_value", 1, k, 0, "components", NULL, r->s));
    for (size_t q = 0; q < k; q++)
        tmp[q] = r->s[q] * r->s[q] / (double)r->m_used;
    GSVD_TRY(put_f8(w, ws, "sample_pca_eigenvalue", 1, k, 0, "components", NULL, tmp));
    if (r->v) {
        uint64_t m = r->m_range;
        GSVD_TRY(put_f8(w, ws, "sample_pca_component", 2, m, k, "variants", "components", r->v));
        GSVD_TRY(put_f8(w, ws, "variant_pca_mean", 1, m, 0, "variants", NULL, r->var_mean));
        for (uint64_t j = 0; j < m; j++)
            tmp[j] = r->var_scale[j] > 0 ? 1.0 / r->var_scale[j] : NAN;
        GSVD_TRY(put_f8(w, ws, "variant_pca_scale", 1, m, 0, "variants", NULL, tmp));
        gsvd_warray *a;
        uint64_t chunk = m < 100000 ? m : 100000;
        struct gsvd_array_spec s = {.path = "variant_pca_included",
                                    .ndim = 1,
                                    .shape = {m},
                                    .chunks = {chunk},
                                    .dtype = {'b', '|', 1},
                                    .dims = {"variants"}};
        GSVD_TRY(gsvd_writer_array(w, &s, &a));
        for (uint64_t r0 = 0; r0 < m; r0 += chunk)
            GSVD_TRY(gsvd_warray_write_rows(a, ws, r0, m - r0 < chunk ? m - r0 : chunk,
                                            r->var_included + r0));
    }
    GSVD_TRY(gsvd_writer_commit(w));
out:
    gsvd_free(tmp);
    gsvd_buf_free(&attrs);
    gsvd_writer_close(w);
    gsvd_codec_ws_free(ws);
    return rc;
}
