/* zarr/codec_v3.c - Zarr v3 codec lists: the bytes -> bytes codecs after the array -> bytes
 * codec, mapped onto the codec table's numcodecs-style parsers (gsvd_codec_chain_parse_v3), and
 * the v3 form of a v2 chain for the writer (gsvd_codec_chain_to_json_v3). */
#include "gsvd_config.h"
#include "zarr/codec.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/codec_chain_internal.h"
#include "zarr/codec_internal.h"

/* Zarr v3 names of the bytes -> bytes codecs (v3_config maps their configurations) */
#define SUPPORTED_V3 "blosc, zstd, gzip, crc32c"

/* The numcodecs-style config of v3 codec `name` (configuration `conf`, may be NULL), for the
 * codec table's parsers.  Returns GSVD_OK with *out (caller deletes), GSVD_ENOTFOUND (not
 * logged) for a name gensvd does not know, or a logged GSVD_EFORMAT / GSVD_ENOMEM. */
static int v3_config(const char *name, const cJSON *conf, const char *where, cJSON **out)
{
    static const char *const keep_blosc[] = {"cname", "clevel", "blocksize"};
    static const char *const keep_zstd[] = {"level", "checksum"};
    static const char *const keep_gzip[] = {"level"};
    const char *const *keep = NULL;
    size_t n_keep = 0;
    const char *id = name;
    cJSON *o = NULL;
    int rc = GSVD_OK;

    *out = NULL;
    if (strcmp(name, "blosc") == 0) {
        keep = keep_blosc;
        n_keep = GSVD_ARRAY_LEN(keep_blosc);
    } else if (strcmp(name, "zstd") == 0) {
        keep = keep_zstd;
        n_keep = GSVD_ARRAY_LEN(keep_zstd);
    } else if (strcmp(name, "gzip") == 0) {
        keep = keep_gzip;
        n_keep = GSVD_ARRAY_LEN(keep_gzip);
    } else if (strcmp(name, "crc32c") != 0) {
        return GSVD_ENOTFOUND;
    }
    if (conf && !cJSON_IsObject(conf)) {
        gsvd_log_error("%s: codec '%s': \"configuration\" is not an object", where, name);
        return GSVD_EFORMAT;
    }
    o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "id", id))
        goto nomem;
    for (size_t i = 0; i < n_keep; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(conf, keep[i]);
        cJSON *dup = v ? cJSON_Duplicate(v, 1) : NULL;
        if (v && (!dup || !cJSON_AddItemToObject(o, keep[i], dup))) {
            cJSON_Delete(dup);
            goto nomem;
        }
    }
    if (strcmp(name, "blosc") == 0) {
        /* v3 spells shuffle as a word; typesize only matters to encoders (the frame has it) */
        static const char *const words[] = {"noshuffle", "shuffle", "bitshuffle"};
        const cJSON *sh = cJSON_GetObjectItemCaseSensitive(conf, "shuffle");
        const cJSON *ts = cJSON_GetObjectItemCaseSensitive(conf, "typesize");
        int code = -1;
        for (size_t i = 0; cJSON_IsString(sh) && i < GSVD_ARRAY_LEN(words); i++)
            if (strcmp(sh->valuestring, words[i]) == 0)
                code = (int)i;
        if (sh && code < 0) {
            gsvd_log_error("%s: codec 'blosc': \"shuffle\" must be \"noshuffle\", \"shuffle\" or "
                           "\"bitshuffle\"",
                           where);
            rc = GSVD_EFORMAT;
            goto out;
        }
        if (ts && (!cJSON_IsNumber(ts) || ts->valuedouble < 1 || ts->valuedouble > 255 ||
                   ts->valuedouble != (double)(int)ts->valuedouble)) {
            gsvd_log_error("%s: codec 'blosc': \"typesize\" must be an integer in 1..255", where);
            rc = GSVD_EFORMAT;
            goto out;
        }
        if (!cJSON_AddNumberToObject(o, "shuffle", code < 0 ? 0 : code))
            goto nomem;
    }
    *out = o;
    o = NULL;
    goto out;
nomem:
    gsvd_log_error("%s: out of memory building the codec chain", where);
    rc = GSVD_ENOMEM;
out:
    cJSON_Delete(o);
    return rc;
}

/* One entry of a v3 codec list: name, configuration (NULL when absent) and must_understand. */
static int v3_entry(const cJSON *e, size_t i, const char *where, const char **name,
                    const cJSON **conf, int *must)
{
    const cJSON *n, *m;

    *conf = NULL;
    *must = 1;
    if (cJSON_IsString(e)) { /* a bare name is a codec without configuration */
        *name = e->valuestring;
        return GSVD_OK;
    }
    n = cJSON_GetObjectItemCaseSensitive(e, "name");
    if (!cJSON_IsObject(e) || !cJSON_IsString(n)) {
        gsvd_log_error("%s: codecs[%zu] is not an object with a string \"name\"", where, i);
        return GSVD_EFORMAT;
    }
    m = cJSON_GetObjectItemCaseSensitive(e, "must_understand");
    if (m && !cJSON_IsBool(m)) {
        gsvd_log_error("%s: codecs[%zu] (%s): \"must_understand\" must be true or false", where, i,
                       n->valuestring);
        return GSVD_EFORMAT;
    }
    *name = n->valuestring;
    *conf = cJSON_GetObjectItemCaseSensitive(e, "configuration");
    *must = !cJSON_IsFalse(m);
    return GSVD_OK;
}

int gsvd_codec_chain_parse_v3(const char *codecs_json, int vlen, const char *prefix,
                              const struct gsvd_dtype *dt, const char *where,
                              gsvd_codec_chain **out)
{
    int rc = GSVD_OK;
    cJSON *list = NULL, *conf = NULL;
    const cJSON *e;
    gsvd_codec_chain *c = NULL;
    size_t i = 0;

    *out = NULL;
    if (!where)
        where = "(array)";
    GSVD_TRY(gsvd_codec_parse_text(codecs_json, where, "codecs", &list));
    if (list && !cJSON_IsArray(list)) {
        gsvd_log_error("%s: \"codecs\" is not a list", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    c = gsvd_calloc(1, sizeof *c);
    if (!c || (prefix && !(c->prefix = gsvd_strdup(prefix)))) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    c->dt = *dt;
    c->ordered = 1;
    c->is_vlen = vlen;
    if (list && cJSON_GetArraySize(list) > 0) {
        c->filters = gsvd_calloc((size_t)cJSON_GetArraySize(list), sizeof *c->filters);
        if (!c->filters) {
            rc = GSVD_ENOMEM;
            goto out;
        }
    }
    cJSON_ArrayForEach(e, list)
    {
        const char *name;
        const cJSON *cfg;
        int must;

        GSVD_TRY(v3_entry(e, i, where, &name, &cfg, &must));
        cJSON_Delete(conf);
        conf = NULL;
        rc = v3_config(name, cfg, where, &conf);
        if (rc == GSVD_ENOTFOUND && !must) {
            rc = GSVD_OK; /* an optional codec gensvd does not know: skipped */
            i++;
            continue;
        }
        if (rc == GSVD_ENOTFOUND) {
            gsvd_log_error("%s: codec '%s' not supported after the array -> bytes codec "
                           "(supported: %s)",
                           where, name, SUPPORTED_V3);
            rc = GSVD_EUNSUPPORTED;
        }
        if (rc < 0)
            goto out;
        rc = gsvd_codec_find(name)->parse(conf, dt, where, &c->filters[c->n_filters].cfg);
        if (rc < 0)
            goto out; /* logged by the codec */
        c->filters[c->n_filters++].ops = gsvd_codec_find(name);
        i++;
    }
    *out = c;
    c = NULL;
out:
    gsvd_codec_chain_free(c);
    cJSON_Delete(list);
    cJSON_Delete(conf);
    return rc;
}

/* The v3 form of a v2 compressor object: blosc keeps its settings (shuffle as a word, -1 made
 * explicit the way the encoder resolves it, typesize as the encoder uses it), zstd its level. */
static int compressor_v3(const gsvd_codec_chain *c, const cJSON *comp, struct gsvd_buf *dst)
{
    static const char *const words[] = {"noshuffle", "shuffle", "bitshuffle"};
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(comp, "id");
    size_t typesize = c->is_vlen || c->dt.size > 255 ? 1 : c->dt.size;

    if (cJSON_IsString(id) && strcmp(id->valuestring, "blosc") == 0) {
        const cJSON *cname = cJSON_GetObjectItemCaseSensitive(comp, "cname");
        const cJSON *clevel = cJSON_GetObjectItemCaseSensitive(comp, "clevel");
        const cJSON *shuffle = cJSON_GetObjectItemCaseSensitive(comp, "shuffle");
        const cJSON *blocksize = cJSON_GetObjectItemCaseSensitive(comp, "blocksize");
        int sh = cJSON_IsNumber(shuffle) ? shuffle->valueint : 1;

        if (sh < 0)
            sh = typesize == 1 ? 2 : 1;
        if (!cJSON_IsString(cname) || !cJSON_IsNumber(clevel) || sh > 2)
            goto unsupported;
        return gsvd_buf_printf(dst,
                               "{\"name\": \"blosc\", \"configuration\": {\"typesize\": %zu, "
                               "\"cname\": \"%s\", \"clevel\": %d, \"shuffle\": \"%s\", "
                               "\"blocksize\": %d}}",
                               typesize, cname->valuestring, clevel->valueint, words[sh],
                               cJSON_IsNumber(blocksize) ? blocksize->valueint : 0);
    }
    if (cJSON_IsString(id) && strcmp(id->valuestring, "zstd") == 0) {
        const cJSON *level = cJSON_GetObjectItemCaseSensitive(comp, "level");
        return gsvd_buf_printf(dst,
                               "{\"name\": \"zstd\", \"configuration\": {\"level\": %d, "
                               "\"checksum\": false}}",
                               cJSON_IsNumber(level) ? level->valueint : 0);
    }
unsupported:
    gsvd_log_error("compressor '%s' has no Zarr v3 form in gensvd's writer (blosc, zstd)",
                   cJSON_IsString(id) ? id->valuestring : "?");
    return GSVD_EUNSUPPORTED;
}

int gsvd_codec_chain_to_json_v3(const gsvd_codec_chain *c, struct gsvd_buf *dst)
{
    int rc = GSVD_OK;
    cJSON *obj = NULL;

    if (c->ordered) {
        gsvd_log_error("internal error: the codec chain is already a Zarr v3 chain");
        return GSVD_EINVAL;
    }
    for (size_t i = 0; i < c->n_filters; i++)
        if (!(c->is_vlen && i == 0)) {
            gsvd_log_error("filter '%s' has no Zarr v3 form in gensvd's writer",
                           c->filters[i].ops->id);
            return GSVD_EUNSUPPORTED;
        }
    if (!c->comp.ops)
        return GSVD_OK;
    GSVD_TRY(c->comp.ops->to_json(c->comp.cfg, &obj));
    GSVD_TRY(compressor_v3(c, obj, dst));
out:
    cJSON_Delete(obj);
    return rc;
}
