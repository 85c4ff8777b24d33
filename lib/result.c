/* lib/result.c - results (the arrays and attributes of an analysis' output group, zarr/result.h)
 * seen through include/gensvd.h's accessors, and destinations: checked before any work, and
 * written by the one result writer, so a result written here has the bytes `gensvd CMD -o`
 * writes. */
#include "gsvd_config.h"
#include "lib/lib_internal.h"

#include <stdio.h>
#include <string.h>

#include "analysis/pca/pca_store.h"
#include "common/alloc.h"
#include "common/comm.h"
#include "common/err.h"
#include "common/log.h"
#include "common/parse.h"
#include "zarr/dest.h"
#include "zarr/meta.h"

int lib_result_new(gensvd_ctx *ctx, enum gensvd_analysis an, gsvd_result *r, int input_format,
                   gensvd_result **out)
{
    gensvd_result *res = gsvd_calloc(1, sizeof *res);
    *out = NULL;
    if (!res) {
        gsvd_result_free(r);
        return GSVD_ENOMEM;
    }
    if (!(res->strings = gsvd_calloc(1, sizeof *res->strings))) {
        gsvd_free(res);
        gsvd_result_free(r);
        return GSVD_ENOMEM;
    }
    res->ctx = ctx;
    res->analysis = an;
    res->r = r;
    res->input_format = input_format;
    *out = res;
    return GSVD_OK;
}

void gensvd_result_free(gensvd_result *res)
{
    if (!res)
        return;
    gsvd_result_free(res->r);
    gsvd_result_free(res->held);
    gsvd_pca_result_free(res->pca);
    if (res->model) {
        gsvd_pca_model_free(res->model);
        gsvd_free(res->model);
    }
    gsvd_strlist_free(res->strings);
    gsvd_free(res->strings);
    gsvd_free(res);
}

enum gensvd_analysis gensvd_result_analysis(const gensvd_result *res)
{
    return res ? res->analysis : (enum gensvd_analysis)0;
}

const char *gensvd_result_array_name(const gensvd_result *res, size_t i)
{
    const struct gsvd_result_array *a = res ? gsvd_result_at(res->r, i) : NULL;
    return a ? a->spec.path : NULL;
}

enum gensvd_dtype lib_public_dtype(const struct gsvd_dtype *d)
{
    static const enum gensvd_dtype ints[] = {
        GENSVD_DTYPE_INT8, GENSVD_DTYPE_INT16, 0, GENSVD_DTYPE_INT32, 0, 0, 0, GENSVD_DTYPE_INT64};
    static const enum gensvd_dtype uints[] = {
        GENSVD_DTYPE_UINT8, GENSVD_DTYPE_UINT16, 0, GENSVD_DTYPE_UINT32, 0, 0, 0,
        GENSVD_DTYPE_UINT64};
    switch (d->kind) {
    case 'b':
        return GENSVD_DTYPE_BOOL;
    case 'i':
        return d->size >= 1 && d->size <= 8 ? ints[d->size - 1] : 0;
    case 'u':
        return d->size >= 1 && d->size <= 8 ? uints[d->size - 1] : 0;
    case 'f':
        return d->size == 2   ? GENSVD_DTYPE_FLOAT16
               : d->size == 4 ? GENSVD_DTYPE_FLOAT32
               : d->size == 8 ? GENSVD_DTYPE_FLOAT64
                              : 0;
    case 'S':
        return GENSVD_DTYPE_BYTES;
    case 'U':
        return GENSVD_DTYPE_UTF32;
    case 'O':
        return GENSVD_DTYPE_STRING;
    default:
        return 0;
    }
}

int gensvd_result_array(const gensvd_result *res, const char *name, struct gensvd_array_view *out)
{
    const struct gsvd_result_array *a;
    if (!out)
        return GENSVD_EINVAL;
    memset(out, 0, sizeof *out);
    if (!res || !name)
        return GENSVD_EINVAL;
    if (!(a = gsvd_result_find(res->r, name)))
        a = gsvd_result_find(res->held, name);
    if (!a || !a->data || a->spec.ndim > GENSVD_MAX_DIMS)
        return GENSVD_ENOTFOUND; /* absent, or written to a destination as it was computed */
    out->data = a->data;
    out->dtype = lib_public_dtype(&a->spec.dtype);
    out->ndim = a->spec.ndim;
    for (size_t d = 0; d < a->spec.ndim; d++) {
        out->shape[d] = a->spec.shape[d];
        out->dims[d] = a->spec.dims[d] ? a->spec.dims[d] : "";
    }
    return GENSVD_OK;
}

const char *gensvd_result_attrs_json(const gensvd_result *res)
{
    const char *a = res ? gsvd_result_attrs(res->r) : NULL;
    return a ? a : "{}";
}

const char *gensvd_result_array_attrs_json(const gensvd_result *res, const char *name)
{
    const struct gsvd_result_array *a = res && name ? gsvd_result_find(res->r, name) : NULL;
    if (!a && res && name)
        a = gsvd_result_find(res->held, name);
    if (!a)
        return NULL;
    return a->spec.attrs_json && *a->spec.attrs_json ? a->spec.attrs_json : "{}";
}

int gensvd_result_attr_double(const gensvd_result *res, const char *name, double *out)
{
    const char *a = res ? gsvd_result_attrs(res->r) : NULL;
    const struct gsvd_scope *prev;
    int rc;
    if (!out || !name || !a)
        return !out || !name ? GENSVD_EINVAL : GENSVD_ENOTFOUND;
    prev = lib_begin(res->ctx);
    rc = gsvd_meta_get_number(a, strlen(a), name, "attributes", out);
    return lib_end(res->ctx, prev, rc, "gensvd_result_attr_double");
}

const char *gensvd_result_attr_string(const gensvd_result *res, const char *name)
{
    const char *a = res ? gsvd_result_attrs(res->r) : NULL;
    const struct gsvd_scope *prev;
    char *s = NULL;
    int rc;

    if (!a || !name)
        return NULL;
    for (size_t i = 0; i + 1 < res->strings->n; i += 2)
        if (!strcmp(res->strings->items[i], name))
            return res->strings->items[i + 1];
    prev = lib_begin(res->ctx);
    rc = gsvd_meta_get_string(a, strlen(a), name, "attributes", &s);
    if (rc == GSVD_OK &&
        (gsvd_strlist_push(res->strings, name) < 0 || gsvd_strlist_push(res->strings, s) < 0))
        rc = GSVD_ENOMEM;
    gsvd_free(s);
    lib_end(res->ctx, prev, rc, "gensvd_result_attr_string");
    return rc == GSVD_OK ? res->strings->items[res->strings->n - 1] : NULL;
}

/* ---- destinations ------------------------------------------------------------------------- */

int gensvd_dest_new(gensvd_ctx *ctx, const char *url, gensvd_dest **out)
{
    const struct gsvd_scope *prev;
    gensvd_dest *d = NULL;
    int rc = GSVD_OK;

    if (!out)
        return GENSVD_EINVAL;
    *out = NULL;
    if (!ctx)
        return GENSVD_EINVAL;
    prev = lib_begin(ctx);
    if (!url || !*url) {
        rc = lib_fail(GSVD_EINVAL, "empty output path");
        goto out;
    }
    if (!(d = gsvd_calloc(1, sizeof *d)) || !(d->url = gsvd_strdup(url))) {
        rc = GSVD_ENOMEM; /* the allocator logged it */
        goto out;
    }
    d->ctx = ctx;
    *out = d;
    d = NULL;
out:
    gensvd_dest_free(d);
    return lib_end(ctx, prev, rc, "gensvd_dest_new");
}

void gensvd_dest_free(gensvd_dest *dest)
{
    if (!dest)
        return;
    gsvd_free(dest->url);
    gsvd_free(dest);
}

static int dest_set_int(gensvd_dest *d, const char *name, int64_t value)
{
    if (!strcmp(name, "force")) {
        if (value != 0 && value != 1)
            return lib_fail(GSVD_EINVAL, "destination setting 'force': %lld is not 0 or 1",
                            (long long)value);
        d->force = (int)value;
        return GSVD_OK;
    }
    if (!strcmp(name, "zarr-format")) {
        if (value != 0 && value != 2 && value != 3)
            return lib_fail(GSVD_EINVAL,
                            "destination setting 'zarr-format': %lld is not 2 or 3 (0: the "
                            "input's)",
                            (long long)value);
        d->zarr_format = (int)value;
        return GSVD_OK;
    }
    if (!strcmp(name, "shard"))
        return lib_fail(GSVD_EINVAL, "destination setting 'shard' takes text, ROWS[,COLS]");
    return lib_fail(GSVD_EINVAL, "unknown destination setting '%s'", name);
}

int gensvd_dest_set_int(gensvd_dest *dest, const char *name, int64_t value)
{
    const struct gsvd_scope *prev;
    if (!dest || !name)
        return GENSVD_EINVAL;
    prev = lib_begin(dest->ctx);
    dest->checked = 0;
    return lib_end(dest->ctx, prev, dest_set_int(dest, name, value), "gensvd_dest_set_int");
}

static int dest_set_string(gensvd_dest *d, const char *name, const char *value)
{
    const char *v = value ? value : "";
    if (!strcmp(name, "shard")) {
        const char *comma = strchr(v, ',');
        char rows[32];
        uint64_t s[2] = {0, 0};
        if (!*v) {
            d->shard[0] = d->shard[1] = 0;
            return GSVD_OK;
        }
        if ((comma ? (size_t)(comma - v) : strlen(v)) >= sizeof rows)
            return lib_fail(GSVD_EINVAL, "destination setting 'shard': '%s' is not ROWS[,COLS]", v);
        memcpy(rows, v, comma ? (size_t)(comma - v) : strlen(v) + 1);
        rows[comma ? (size_t)(comma - v) : strlen(v)] = '\0';
        if (gsvd_parse_uint(rows, 1, (uint64_t)1 << 40, 1, &s[0]) < 0 ||
            (comma && gsvd_parse_uint(comma + 1, 1, (uint64_t)1 << 40, 1, &s[1]) < 0))
            return lib_fail(GSVD_EINVAL, "destination setting 'shard': '%s' is not ROWS[,COLS]", v);
        d->shard[0] = s[0];
        d->shard[1] = s[1];
        return GSVD_OK;
    }
    if (!strcmp(name, "force") || !strcmp(name, "zarr-format")) {
        uint64_t n;
        if (gsvd_parse_uint(v, 0, 3, 0, &n) < 0)
            return lib_fail(GSVD_EINVAL, "destination setting '%s': '%s' is not a number", name, v);
        return dest_set_int(d, name, (int64_t)n);
    }
    return lib_fail(GSVD_EINVAL, "unknown destination setting '%s'", name);
}

int gensvd_dest_set_string(gensvd_dest *dest, const char *name, const char *value)
{
    const struct gsvd_scope *prev;
    if (!dest || !name)
        return GENSVD_EINVAL;
    prev = lib_begin(dest->ctx);
    dest->checked = 0;
    return lib_end(dest->ctx, prev, dest_set_string(dest, name, value), "gensvd_dest_set_string");
}

struct gsvd_writer_params lib_dest_params(const gensvd_dest *d, int input_format)
{
    struct gsvd_writer_params wp = GSVD_WRITER_PARAMS_DEFAULT;
    wp.zarr_format = d->zarr_format ? d->zarr_format : input_format == 3 ? 3 : 2;
    wp.shard[0] = d->shard[0];
    wp.shard[1] = d->shard[1];
    return wp;
}

/* The output checked as the command line checks it (zarr/dest.h: a local output by creating
 * and removing its staging directory, a remote one by opening it for writing, one request):
 * the same messages ("OUT: output exists (...)", "cannot create the output in directory
 * ..."); in a distributed run rank 0 checks and every rank gets its verdict (the staging
 * directories of ranks on other hosts would look stale to each other). */
int lib_dest_check(gensvd_dest *d)
{
    int rc = GSVD_OK;

    if (d->shard[0] && d->zarr_format != 3)
        return lib_fail(GSVD_EINVAL, "%s: shards need Zarr format 3 (\"zarr-format\" 3)", d->url);
    if (strncmp(d->url, "mem:", 4) != 0 && gsvd_comm_rank(lib_world()) == 0)
        rc = gsvd_dest_check(d->url, d->force);
    rc = gsvd_comm_agree(lib_world(), rc, NULL);
    if (rc == GSVD_OK)
        d->checked = 1;
    return rc;
}

int gensvd_dest_check(gensvd_dest *dest)
{
    const struct gsvd_scope *prev;
    if (!dest)
        return GENSVD_EINVAL;
    prev = lib_begin(dest->ctx);
    return lib_end(dest->ctx, prev, lib_dest_check(dest), "gensvd_dest_check");
}

int gensvd_file_check(gensvd_ctx *ctx, const char *path, int overwrite)
{
    const struct gsvd_scope *prev;
    int rc = GSVD_OK;

    if (!ctx || !path)
        return GENSVD_EINVAL;
    prev = lib_begin(ctx);
    if (gsvd_comm_rank(lib_world()) == 0)
        rc = gsvd_dest_check_file(path, overwrite);
    rc = gsvd_comm_agree(lib_world(), rc, NULL);
    return lib_end(ctx, prev, rc, "gensvd_file_check");
}

int gensvd_result_write(gensvd_ctx *ctx, const gensvd_result *res, gensvd_dest *dest)
{
    const struct gsvd_scope *prev;
    struct gsvd_writer_params wp;
    int rc = GSVD_OK;

    if (!ctx || !res || !dest)
        return GENSVD_EINVAL;
    prev = lib_begin(ctx);
    GSVD_TRY(lib_dest_check(dest));
    wp = lib_dest_params(dest, res->input_format);
    GSVD_TRY(gsvd_result_check_shards(res->r, &wp));
    GSVD_TRY(gsvd_result_write(res->r, dest->url, dest->force, &wp, lib_threads(ctx)));
out:
    return lib_end(ctx, prev, rc, "gensvd_result_write");
}
