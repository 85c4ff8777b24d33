/* zarr/meta.c - parse, validate and emit Zarr v2 metadata documents with cJSON: .zarray,
 * .zgroup and the consolidated .zmetadata.  The JSON layer is meta_json.c, fill values
 * meta_fill.c, Zarr v3 meta_v3.c.
 * Everything here reads hostile input: numbers must be integral and in range before they are
 * converted, products are overflow-checked, and each error names the document and member. */
#include "gsvd_config.h"
#include "zarr/meta.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/meta_internal.h"
#include "zarr/store.h"

int gsvd_zarray_derive(struct gsvd_zarray *z, const char *where)
{
    size_t items = 1, bytes = 0;

    for (size_t d = 0; d < z->ndim; d++) {
        z->grid[d] = z->shape[d] / z->chunks[d] + (z->shape[d] % z->chunks[d] != 0);
        if (z->chunks[d] > SIZE_MAX || gsvd_mul_size(items, (size_t)z->chunks[d], &items) < 0) {
            gsvd_log_error("%s: \"chunks\" product overflows size_t", where);
            return GSVD_EFORMAT;
        }
    }
    if (gsvd_mul_size(items, z->dtype.size, &bytes) < 0 || bytes >= GSVD_MAX_CHUNK_BYTES) {
        gsvd_log_error("%s: one chunk of \"chunks\" would hold %s bytes (at most 2 GiB)", where,
                       bytes >= GSVD_MAX_CHUNK_BYTES ? "over 2^31" : "more than 2^64");
        return GSVD_EFORMAT;
    }
    z->chunk_items = items;
    z->chunk_bytes = bytes;
    return GSVD_OK;
}

/* JSON text of a member (or "null" when absent); caller owns. */
static char *member_text(const cJSON *root, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, name);
    cJSON *null_value = NULL;
    char *text;

    if (!v)
        v = null_value = cJSON_CreateNull();
    text = v ? cJSON_PrintUnformatted(v) : NULL;
    cJSON_Delete(null_value);
    return text;
}

int gsvd_zarray_parse(const char *json, size_t n, const char *where, struct gsvd_zarray *out)
{
    int rc = GSVD_OK;
    cJSON *root = NULL;
    const cJSON *v;
    char *comp = NULL, *filt = NULL;
    struct gsvd_zarray z;
    size_t nchunk = 0;

    memset(&z, 0, sizeof z);
    memset(out, 0, sizeof *out);
    GSVD_TRY(gsvd_meta_parse_json(json, n, where, 0, &root, NULL));
    if (!cJSON_IsObject(root)) {
        gsvd_log_error("%s: not a JSON object", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    v = cJSON_GetObjectItemCaseSensitive(root, "zarr_format");
    if (!cJSON_IsNumber(v)) {
        gsvd_log_error("%s: \"zarr_format\" is missing or not a number", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    if (v->valuedouble != 2) {
        gsvd_log_error("%s: zarr_format %g is not supported (only Zarr v2)", where, v->valuedouble);
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    GSVD_TRY(gsvd_meta_parse_dims(root, "shape", where, z.shape, &z.ndim, 0));
    GSVD_TRY(gsvd_meta_parse_dims(root, "chunks", where, z.chunks, &nchunk, 1));
    if (nchunk != z.ndim) {
        gsvd_log_error("%s: \"chunks\" has %zu dimensions but \"shape\" has %zu", where, nchunk,
                       z.ndim);
        rc = GSVD_EFORMAT;
        goto out;
    }
    v = cJSON_GetObjectItemCaseSensitive(root, "dtype");
    if (!cJSON_IsString(v)) {
        gsvd_log_error("%s: \"dtype\" is missing or not a string%s", where,
                       cJSON_IsArray(v) ? " (structured dtypes are not supported)" : "");
        rc = cJSON_IsArray(v) ? GSVD_EUNSUPPORTED : GSVD_EFORMAT;
        goto out;
    }
    rc = gsvd_dtype_parse(v->valuestring, &z.dtype);
    if (rc < 0) {
        gsvd_log_error("%s: dtype \"%s\" is %s (supported: %s)", where, v->valuestring,
                       rc == GSVD_EUNSUPPORTED ? "not supported" : "not a valid typestr",
                       gsvd_dtype_supported());
        goto out;
    }
    v = cJSON_GetObjectItemCaseSensitive(root, "order");
    if (!cJSON_IsString(v) ||
        (strcmp(v->valuestring, "C") != 0 && strcmp(v->valuestring, "F") != 0)) {
        gsvd_log_error("%s: \"order\" must be \"C\" or \"F\"", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    z.order = v->valuestring[0];
    v = cJSON_GetObjectItemCaseSensitive(root, "dimension_separator");
    z.sep = '.';
    if (v && !cJSON_IsNull(v)) {
        if (!cJSON_IsString(v) ||
            (strcmp(v->valuestring, ".") != 0 && strcmp(v->valuestring, "/") != 0)) {
            gsvd_log_error("%s: \"dimension_separator\" must be \".\" or \"/\"", where);
            rc = GSVD_EFORMAT;
            goto out;
        }
        z.sep = v->valuestring[0];
    }
    GSVD_TRY(gsvd_zarray_derive(&z, where));
    GSVD_TRY(gsvd_meta_parse_fill(&z, root, json, n, where));
    if (!cJSON_HasObjectItem(root, "compressor")) {
        gsvd_log_error("%s: \"compressor\" is missing (use null for none)", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    comp = member_text(root, "compressor");
    filt = member_text(root, "filters");
    if (!comp || !filt) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_codec_chain_parse_json(comp, filt, &z.dtype, where, &z.codecs));
    *out = z;
    memset(&z, 0, sizeof z);
out:
    gsvd_zarray_clear(&z);
    cJSON_Delete(root);
    cJSON_free(comp);
    cJSON_free(filt);
    return rc;
}

void gsvd_zarray_clear(struct gsvd_zarray *z)
{
    gsvd_free(z->fill);
    gsvd_free(z->fill_str);
    gsvd_codec_chain_free(z->codecs);
    memset(z, 0, sizeof *z);
}

int gsvd_zarray_emit(const struct gsvd_zarray *z, struct gsvd_buf *dst)
{
    int rc = GSVD_OK;
    struct gsvd_buf comp = GSVD_BUF_INIT, filt = GSVD_BUF_INIT;
    char dt[32];

    GSVD_TRY(gsvd_codec_chain_to_json(z->codecs, &comp, &filt));
    gsvd_dtype_format(&z->dtype, dt, sizeof dt);
    GSVD_TRY(gsvd_buf_puts(dst, "{\n    \"chunks\": ["));
    for (size_t d = 0; d < z->ndim; d++)
        GSVD_TRY(gsvd_buf_printf(dst, "%s%llu", d ? ", " : "", (unsigned long long)z->chunks[d]));
    GSVD_TRY(gsvd_buf_printf(dst,
                             "],\n    \"compressor\": %s,\n    \"dimension_separator\": "
                             "\"%c\",\n    \"dtype\": \"%s\",\n    \"fill_value\": ",
                             comp.data ? comp.data : "null", z->sep ? z->sep : '.', dt));
    GSVD_TRY(gsvd_meta_emit_fill(z, dst));
    GSVD_TRY(gsvd_buf_printf(dst,
                             ",\n    \"filters\": %s,\n    \"order\": \"%c\",\n    "
                             "\"shape\": [",
                             filt.data ? filt.data : "null", z->order ? z->order : 'C'));
    for (size_t d = 0; d < z->ndim; d++)
        GSVD_TRY(gsvd_buf_printf(dst, "%s%llu", d ? ", " : "", (unsigned long long)z->shape[d]));
    GSVD_TRY(gsvd_buf_puts(dst, "],\n    \"zarr_format\": 2\n}"));
out:
    gsvd_buf_free(&comp);
    gsvd_buf_free(&filt);
    return rc;
}

int gsvd_meta_check_object(const char *json, size_t n, const char *where)
{
    cJSON *root = NULL;
    int rc = gsvd_meta_parse_json(json, n, where, 1, &root, NULL);
    if (rc == GSVD_OK && !cJSON_IsObject(root)) {
        gsvd_log_error("%s: not a JSON object", where);
        rc = GSVD_EFORMAT;
    }
    cJSON_Delete(root);
    return rc;
}

int gsvd_zgroup_parse(const char *json, size_t n, const char *where)
{
    cJSON *root = NULL;
    const cJSON *v;
    int rc = gsvd_meta_parse_json(json, n, where, 0, &root, NULL);
    if (rc < 0)
        return rc;
    v = cJSON_GetObjectItemCaseSensitive(root, "zarr_format");
    if (!cJSON_IsObject(root) || !cJSON_IsNumber(v)) {
        gsvd_log_error("%s: not a .zgroup (an object with \"zarr_format\")", where);
        rc = GSVD_EFORMAT;
    } else if (v->valuedouble != 2) {
        gsvd_log_error("%s: zarr_format %g is not supported (only Zarr v2)", where, v->valuedouble);
        rc = GSVD_EUNSUPPORTED;
    }
    cJSON_Delete(root);
    return rc;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0 && (ls == lx || s[ls - lx - 1] == '/');
}

int gsvd_zmetadata_parse(const char *json, size_t n, const char *where, struct gsvd_strlist *keys,
                         struct gsvd_strlist *docs)
{
    int rc = GSVD_OK;
    cJSON *root = NULL;
    const cJSON *meta, *v, *item;
    struct gsvd_buf fixed = GSVD_BUF_INIT;
    const char *text, **vs = NULL, **ve = NULL, *rvs[64], *rve[64];
    size_t len, cnt, idx, i = 0;

    GSVD_TRY(gsvd_meta_parse_json(json, n, where, 1, &root, &fixed));
    text = fixed.data ? fixed.data : json;
    len = fixed.data ? fixed.len : n;
    v = cJSON_GetObjectItemCaseSensitive(root, "zarr_consolidated_format");
    if (!cJSON_IsObject(root) || !cJSON_IsNumber(v) || v->valuedouble != 1) {
        gsvd_log_error("%s: not consolidated metadata (\"zarr_consolidated_format\": 1)", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    meta = cJSON_GetObjectItemCaseSensitive(root, "metadata");
    if (!cJSON_IsObject(meta)) {
        gsvd_log_error("%s: \"metadata\" is missing or not an object", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    /* the metadata object's own text, then each member's */
    idx = gsvd_meta_child_index(root, meta);
    cnt = (size_t)cJSON_GetArraySize(root);
    if (cnt > GSVD_ARRAY_LEN(rvs) ||
        gsvd_meta_object_spans(text, text + len, rvs, rve, cnt) != cnt) {
        gsvd_log_error("%s: too many top-level members", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    cnt = (size_t)cJSON_GetArraySize(meta);
    vs = gsvd_malloc((cnt ? cnt : 1) * sizeof *vs);
    ve = gsvd_malloc((cnt ? cnt : 1) * sizeof *ve);
    if (!vs || !ve) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (gsvd_meta_object_spans(rvs[idx], rve[idx], vs, ve, cnt) != cnt) {
        gsvd_log_error("%s: cannot delimit the metadata documents", where);
        rc = GSVD_EINTERNAL;
        goto out;
    }
    cJSON_ArrayForEach(item, meta)
    {
        const char *k = item->string;
        if (!k || gsvd_key_check(k) < 0 ||
            !(ends_with(k, ".zarray") || ends_with(k, ".zgroup") || ends_with(k, ".zattrs"))) {
            gsvd_log_error("%s: invalid metadata key '%s'", where, k ? k : "");
            rc = GSVD_EFORMAT;
            goto out;
        }
        if (!cJSON_IsObject(item)) {
            gsvd_log_error("%s: metadata for '%s' is not an object", where, k);
            rc = GSVD_EFORMAT;
            goto out;
        }
        GSVD_TRY(gsvd_strlist_push(keys, k));
        rc = gsvd_strlist_pushn(docs, vs[i], (size_t)(ve[i] - vs[i]));
        if (rc < 0) {
            gsvd_free(keys->items[--keys->n]); /* keep the lists the same length */
            goto out;
        }
        i++;
    }
out:
    gsvd_free(vs);
    gsvd_free(ve);
    gsvd_buf_free(&fixed);
    cJSON_Delete(root);
    return rc;
}

int gsvd_zmetadata_emit(const struct gsvd_strlist *keys, const struct gsvd_strlist *docs,
                        struct gsvd_buf *dst)
{
    int rc = GSVD_OK;
    GSVD_TRY(gsvd_buf_puts(dst, "{\n    \"metadata\": {"));
    for (size_t i = 0; i < keys->n; i++) {
        GSVD_TRY(gsvd_buf_puts(dst, i ? ",\n        " : "\n        "));
        GSVD_TRY(gsvd_json_quote(dst, keys->items[i]));
        GSVD_TRY(gsvd_buf_puts(dst, ": "));
        GSVD_TRY(gsvd_buf_puts(dst, docs->items[i]));
    }
    GSVD_TRY(gsvd_buf_puts(dst, "\n    },\n    \"zarr_consolidated_format\": 1\n}"));
out:
    return rc;
}
