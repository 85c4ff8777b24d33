/* zarr/codec.c - the codec registry and the configuration of codec chains (filters, then an
 * optional compressor): the one static table of codecs, per-worker workspaces, parsing a v2
 * .zarray's "compressor" and "filters", writing them back, and describing a chain.
 * Zarr v3 codec lists are in codec_v3.c; running a chain over chunks is codec_chain.c. */
#include "gsvd_config.h"
#include "zarr/codec.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <zstd.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/codec_chain_internal.h"
#include "zarr/codec_internal.h"

/* The one table of codecs; ids are numcodecs ids.  Keep gsvd_codec_supported() in step. */
static const struct gsvd_codec_ops *const codecs[] = {
    &gsvd_codec_blosc_ops, &gsvd_codec_zstd_ops,  &gsvd_codec_zlib_ops,      &gsvd_codec_gzip_ops,
    &gsvd_codec_lz4_ops,   &gsvd_codec_delta_ops, &gsvd_codec_vlen_utf8_ops, &gsvd_codec_crc32c_ops,
};

#define SUPPORTED_IDS "blosc, zstd, zlib, gzip, lz4, delta, vlen-utf8, crc32c"

const char *gsvd_codec_supported(void)
{
    return SUPPORTED_IDS;
}

int gsvd_codec_ws_new(gsvd_codec_ws **out)
{
    *out = gsvd_calloc(1, sizeof **out);
    return *out ? GSVD_OK : GSVD_ENOMEM;
}

void gsvd_codec_ws_free(gsvd_codec_ws *ws)
{
    if (!ws)
        return;
    ZSTD_freeDCtx(ws->zstd_dctx);
    ZSTD_freeCCtx(ws->zstd_cctx);
    gsvd_buf_free(&ws->tmp[0]);
    gsvd_buf_free(&ws->tmp[1]);
    gsvd_free(ws);
}

/* ---- configuration ---------------------------------------------------------------------- */

const struct gsvd_codec_ops *gsvd_codec_find(const char *id)
{
    for (size_t i = 0; i < GSVD_ARRAY_LEN(codecs); i++)
        if (strcmp(codecs[i]->id, id) == 0)
            return codecs[i];
    return NULL;
}

int gsvd_codec_parse_text(const char *text, const char *where, const char *what, cJSON **out)
{
    *out = NULL;
    if (!text)
        return GSVD_OK;
    unsigned long failed = gsvd_alloc_failures();
    *out = cJSON_ParseWithLength(text, strlen(text));
    if (!*out) {
        if (gsvd_alloc_failures() != failed)
            return GSVD_ENOMEM; /* logged by the allocator */
        gsvd_log_error("%s: \"%s\" is not valid JSON", where, what);
        return GSVD_EFORMAT;
    }
    return GSVD_OK;
}

/* Parse one codec object for slot `index` (-1 for the compressor, else the filter index). */
static int parse_stage(const cJSON *obj, const struct gsvd_dtype *dt, const char *where, long index,
                       struct gsvd_codec_stage *st)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(obj, "id");
    const struct gsvd_codec_ops *ops;
    char slot[32];
    int rc;

    if (index < 0)
        snprintf(slot, sizeof slot, "compressor");
    else
        snprintf(slot, sizeof slot, "filters[%ld]", index);
    if (!cJSON_IsObject(obj)) {
        gsvd_log_error("%s: %s is not a JSON object", where, slot);
        return GSVD_EFORMAT;
    }
    if (!id) {
        gsvd_log_error("%s: %s has no \"id\"", where, slot);
        return GSVD_EFORMAT;
    }
    if (!cJSON_IsString(id)) {
        gsvd_log_error("%s: %s \"id\" is not a string", where, slot);
        return GSVD_EFORMAT;
    }
    ops = gsvd_codec_find(id->valuestring);
    if (!ops) {
        gsvd_log_error("%s: codec '%s' not supported (supported: %s)", where, id->valuestring,
                       SUPPORTED_IDS);
        return GSVD_EUNSUPPORTED;
    }
    if (index < 0 && ops->role != GSVD_CODEC_COMPRESSOR) {
        gsvd_log_error("%s: codec '%s' is a filter; not supported as the compressor", where,
                       ops->id);
        return GSVD_EUNSUPPORTED;
    }
    if (index >= 0 && ops->role == GSVD_CODEC_COMPRESSOR) {
        gsvd_log_error("%s: compressor '%s' not supported in filters", where, ops->id);
        return GSVD_EUNSUPPORTED;
    }
    if (index > 0 && ops->role == GSVD_CODEC_VLEN) {
        gsvd_log_error("%s: codec '%s' not supported as %s; it must be the first filter", where,
                       ops->id, slot);
        return GSVD_EUNSUPPORTED;
    }
    rc = ops->parse(obj, dt, where, &st->cfg);
    if (rc < 0)
        return rc; /* logged by the codec */
    st->ops = ops;
    return GSVD_OK;
}

static void chain_free_stage(struct gsvd_codec_stage *st)
{
    if (st->ops)
        st->ops->free_cfg(st->cfg);
    st->ops = NULL;
    st->cfg = NULL;
}

void gsvd_codec_chain_free(gsvd_codec_chain *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_filters; i++)
        chain_free_stage(&c->filters[i]);
    gsvd_free(c->filters);
    chain_free_stage(&c->comp);
    gsvd_free(c->prefix);
    gsvd_free(c);
}

static int parse_filters(const cJSON *fj, const char *where, gsvd_codec_chain *c)
{
    int rc = GSVD_OK;
    const cJSON *item;
    int n;

    if (!fj || cJSON_IsNull(fj))
        return GSVD_OK;
    if (!cJSON_IsArray(fj)) {
        gsvd_log_error("%s: \"filters\" is neither null nor a list", where);
        return GSVD_EFORMAT;
    }
    n = cJSON_GetArraySize(fj);
    if (n == 0)
        return GSVD_OK;
    c->filters = gsvd_calloc((size_t)n, sizeof *c->filters);
    if (!c->filters)
        return GSVD_ENOMEM;
    cJSON_ArrayForEach(item, fj)
    {
        GSVD_TRY(parse_stage(item, &c->dt, where, (long)c->n_filters, &c->filters[c->n_filters]));
        c->n_filters++;
    }
out:
    return rc;
}

/* vlen-utf8 and dtype 'O' go together: one implies the other, and nothing follows vlen-utf8
 * (its output has no fixed size). */
static int check_vlen(gsvd_codec_chain *c, const char *where)
{
    c->is_vlen = c->n_filters > 0 && c->filters[0].ops->role == GSVD_CODEC_VLEN;
    if (c->dt.kind == 'O' && !c->is_vlen) {
        gsvd_log_error("%s: dtype |O needs 'vlen-utf8' as the first filter; other object codecs "
                       "are not supported",
                       where);
        return GSVD_EUNSUPPORTED;
    }
    if (c->is_vlen && c->n_filters > 1) {
        gsvd_log_error("%s: filters after 'vlen-utf8' not supported", where);
        return GSVD_EUNSUPPORTED;
    }
    return GSVD_OK;
}

int gsvd_codec_chain_parse_json(const char *compressor_json, const char *filters_json,
                                const struct gsvd_dtype *dt, const char *where,
                                gsvd_codec_chain **out)
{
    int rc = GSVD_OK;
    cJSON *cj = NULL;
    cJSON *fj = NULL;
    gsvd_codec_chain *c = NULL;

    *out = NULL;
    if (!where)
        where = "(array)";
    GSVD_TRY(gsvd_codec_parse_text(compressor_json, where, "compressor", &cj));
    GSVD_TRY(gsvd_codec_parse_text(filters_json, where, "filters", &fj));
    c = gsvd_calloc(1, sizeof *c);
    if (!c) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    c->dt = *dt;
    GSVD_TRY(parse_filters(fj, where, c));
    if (cj && !cJSON_IsNull(cj))
        GSVD_TRY(parse_stage(cj, dt, where, -1, &c->comp));
    GSVD_TRY(check_vlen(c, where));
    *out = c;
    c = NULL;
out:
    gsvd_codec_chain_free(c);
    cJSON_Delete(cj);
    cJSON_Delete(fj);
    return rc;
}

int gsvd_codec_chain_default(const struct gsvd_dtype *dt, gsvd_codec_chain **out)
{
    char comp[128];

    snprintf(comp, sizeof comp,
             "{\"blocksize\":0,\"clevel\":5,\"cname\":\"zstd\",\"id\":\"blosc\",\"shuffle\":%d}",
             dt->size == 1 ? 2 : 1);
    return gsvd_codec_chain_parse_json(comp, dt->kind == 'O' ? "[{\"id\":\"vlen-utf8\"}]" : NULL,
                                       dt, "default codec chain", out);
}

int gsvd_codec_chain_is_vlen(const gsvd_codec_chain *c)
{
    return c->is_vlen;
}

/* ---- JSON and descriptions -------------------------------------------------------------- */

static int append_json(const cJSON *obj, struct gsvd_buf *b)
{
    int rc;
    char *text = cJSON_PrintUnformatted(obj);

    if (!text) {
        gsvd_log_error("out of memory printing codec JSON");
        return GSVD_ENOMEM;
    }
    rc = gsvd_buf_puts(b, text);
    cJSON_free(text);
    return rc;
}

int gsvd_codec_chain_to_json(const gsvd_codec_chain *c, struct gsvd_buf *compressor,
                             struct gsvd_buf *filters)
{
    int rc = GSVD_OK;
    cJSON *obj = NULL;
    cJSON *arr = NULL;

    if (c->ordered) {
        gsvd_log_error("gensvd reads Zarr v3 codec chains but does not write them");
        return GSVD_EUNSUPPORTED;
    }
    if (c->comp.ops) {
        GSVD_TRY(c->comp.ops->to_json(c->comp.cfg, &obj));
        GSVD_TRY(append_json(obj, compressor));
    } else {
        GSVD_TRY(gsvd_buf_puts(compressor, "null"));
    }
    if (c->n_filters == 0) {
        GSVD_TRY(gsvd_buf_puts(filters, "null"));
        goto out;
    }
    arr = cJSON_CreateArray();
    if (!arr) {
        gsvd_log_error("out of memory building codec JSON");
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < c->n_filters; i++) {
        cJSON *f = NULL;

        GSVD_TRY(c->filters[i].ops->to_json(c->filters[i].cfg, &f));
        if (!cJSON_AddItemToArray(arr, f)) {
            cJSON_Delete(f);
            gsvd_log_error("out of memory building codec JSON");
            rc = GSVD_ENOMEM;
            goto out;
        }
    }
    GSVD_TRY(append_json(arr, filters));
out:
    cJSON_Delete(obj);
    cJSON_Delete(arr);
    return rc;
}

/* Append text to buf[len] at *pos, truncating; buf stays NUL-terminated. */
static void describe_append(char *buf, size_t len, size_t *pos, const char *text)
{
    int n = snprintf(buf + *pos, len - *pos, "%s", text);

    if (n > 0)
        *pos += (size_t)n < len - *pos ? (size_t)n : len - *pos - 1;
}

void gsvd_codec_chain_describe(const gsvd_codec_chain *c, char *buf, size_t len)
{
    char one[128];
    size_t pos = 0;

    if (!len)
        return;
    buf[0] = '\0';
    if (c->prefix)
        describe_append(buf, len, &pos, c->prefix);
    if (c->n_filters == 0 && !c->comp.ops) {
        if (!c->prefix)
            describe_append(buf, len, &pos, "none");
        return;
    }
    if (c->prefix)
        describe_append(buf, len, &pos, " | ");
    for (size_t i = 0; i < c->n_filters; i++) {
        c->filters[i].ops->describe(c->filters[i].cfg, one, sizeof one);
        describe_append(buf, len, &pos, i ? " | " : "");
        describe_append(buf, len, &pos, one);
    }
    if (c->comp.ops) {
        c->comp.ops->describe(c->comp.cfg, one, sizeof one);
        describe_append(buf, len, &pos, c->n_filters ? " | " : "");
        describe_append(buf, len, &pos, one);
    }
}
