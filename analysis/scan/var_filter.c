/* analysis/scan/var_filter.c - the VCF FILTER column onto a scan's selection (var_filter.h). */
#include "gsvd_config.h"
#include "analysis/scan/var_filter.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "analysis/scan/mask.h"
#include "zarr/array.h"
#include "zarr/reader.h"
#include "zarr/store.h"
#include "zarr/tree.h"

/* Rows of variant_filter read at a time. */
#define ROWS_PER_READ 65536

void gsvd_var_filter_free(struct gsvd_var_filter *vf)
{
    if (!vf)
        return;
    gsvd_free(vf->keep);
    memset(vf, 0, sizeof *vf);
}

/* Array `name` of group `node` opened into *a (kind 0: absent, *a NULL). */
static int open_if_there(gsvd_tree *t, const char *node, const char *name, gsvd_array **a)
{
    char *path = NULL;
    int rc = gsvd_key_join(node, name, &path), kind;

    *a = NULL;
    if (rc < 0)
        return rc;
    kind = gsvd_tree_node_kind(t, path);
    rc = kind < 0 ? kind : kind == GSVD_NODE_ARRAY ? gsvd_array_open(t, path, a) : GSVD_OK;
    gsvd_free(path);
    return rc;
}

/* failing[f] = 1 where filter f of filter_id keeps a variant out: any name but PASS and the
 * exceptions.  An exception that is no filter of the store is warned about. */
static int failing_filters(gsvd_array *ids, uint64_t width, const struct gsvd_strlist *except,
                           const char *url, uint8_t *failing)
{
    struct gsvd_strlist names = GSVD_STRLIST_INIT;
    gsvd_reader *r = NULL;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_reader_new(ids, &r));
    GSVD_TRY(gsvd_reader_read_strings(r, 0, width, &names));
    for (uint64_t f = 0; f < width; f++) {
        failing[f] = strcmp(names.items[f], "PASS") != 0;
        for (size_t e = 0; except && e < except->n && failing[f]; e++)
            failing[f] = strcmp(names.items[f], except->items[e]) != 0;
    }
    for (size_t e = 0; except && e < except->n; e++) {
        size_t f = 0;
        while (f < names.n && strcmp(names.items[f], except->items[e]) != 0)
            f++;
        if (f == names.n)
            gsvd_log_warn("%s: filter_id has no filter '%s' (an exception of --var-filter)", url,
                          except->items[e]);
    }
out:
    gsvd_strlist_free(&names);
    gsvd_reader_free(r);
    return rc;
}

/* keep[v] = no failing filter applies to variant v, for the n rows of variant_filter. */
static int read_keep(gsvd_array *vfa, const uint8_t *failing, struct gsvd_var_filter *vf)
{
    const struct gsvd_zarray *z = gsvd_array_meta(vfa);
    uint64_t n = z->shape[0], width = z->shape[1];
    size_t rows = (size_t)(n < ROWS_PER_READ ? (n ? n : 1) : ROWS_PER_READ);
    uint8_t *buf = NULL;
    gsvd_reader *r = NULL;
    int rc = GSVD_OK;

    if (!(vf->keep = gsvd_malloc((size_t)(n ? n : 1))) || !(buf = gsvd_malloc(rows * width))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    vf->len = n;
    GSVD_TRY(gsvd_reader_new(vfa, &r));
    for (uint64_t v0 = 0; v0 < n; v0 += rows) {
        uint64_t m = n - v0 < rows ? n - v0 : rows;
        GSVD_TRY(gsvd_reader_read_rows(r, v0, m, buf));
        for (uint64_t i = 0; i < m; i++) {
            uint8_t pass = 1;
            for (uint64_t f = 0; f < width; f++)
                pass &= !(buf[i * width + f] && failing[f]);
            vf->keep[v0 + i] = pass;
            vf->n_failed += !pass;
        }
    }
out:
    gsvd_free(buf);
    gsvd_reader_free(r);
    return rc;
}

int gsvd_var_filter_apply(gsvd_tree *t, const char *node, const struct gsvd_strlist *except,
                          struct gsvd_var_filter *vf, struct gsvd_geno_params *geno)
{
    const char *url = gsvd_store_url(gsvd_tree_store(t));
    gsvd_array *vfa = NULL, *ids = NULL;
    uint8_t *failing = NULL;
    uint64_t n_range, n_left, width;
    int rc = GSVD_OK;

    memset(vf, 0, sizeof *vf);
    GSVD_TRY(open_if_there(t, node, "variant_filter", &vfa));
    GSVD_TRY(open_if_there(t, node, "filter_id", &ids));
    if (!vfa || !ids) {
        gsvd_log_error("%s: no %s: --var-filter needs the VCF FILTER column as VCF-Zarr stores "
                       "it (variant_filter and filter_id, as bio2zarr and sgkit write them)",
                       url, vfa ? "filter_id" : "variant_filter");
        rc = GSVD_ENOTFOUND;
        goto out;
    }
    const struct gsvd_zarray *z = gsvd_array_meta(vfa), *zi = gsvd_array_meta(ids);
    if (z->ndim != 2 || z->dtype.size != 1 || z->dtype.kind != 'b' || zi->ndim != 1 ||
        zi->shape[0] != z->shape[1]) {
        gsvd_log_error("%s: variant_filter must be a 2-D bool array (variants x filters) and "
                       "filter_id a 1-D array of its filters' names",
                       url);
        rc = GSVD_EFORMAT;
        goto out;
    }
    width = z->shape[1];
    if (!(failing = gsvd_malloc((size_t)(width ? width : 1)))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(failing_filters(ids, width, except, url, failing));
    GSVD_TRY(read_keep(vfa, failing, vf));
    GSVD_TRY(gsvd_mask_narrow(geno, vf->keep, vf->len, url, "variant_filter", &n_range, &n_left));
    if (n_left == 0 && n_range > 0) {
        gsvd_log_error("%s: no variant of the %llu used passes FILTER (PASS or '.'%s)", url,
                       (unsigned long long)n_range,
                       except && except->n ? ", or failing only the exceptions" : "");
        rc = GSVD_EDEGENERATE;
        goto out;
    }
    gsvd_log_info("%s: %llu of %llu variants fail FILTER and are left out (--var-filter)", url,
                  (unsigned long long)vf->n_failed, (unsigned long long)vf->len);
out:
    if (rc < 0)
        gsvd_var_filter_free(vf);
    gsvd_free(failing);
    gsvd_array_close(vfa);
    gsvd_array_close(ids);
    return rc;
}
