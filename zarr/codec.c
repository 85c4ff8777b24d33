/* zarr/codec.c - the codec table and codec chains (filters, then an optional compressor).
 *
 * Decoding runs the compressor, then the filters in reverse order.  Every supported filter
 * keeps the byte count (delta with astype == dtype), so every stage of a fixed-size chunk must
 * produce exactly `cap` bytes; intermediate stages ping-pong between the worker's two scratch
 * buffers and the last stage writes straight into the caller's memory.
 *
 * vlen-utf8 chunks have no size known in advance.  decode_vlen asks the compressor for the size
 * its frame records (blosc, lz4, zstd with a content size); when the frame does not record it
 * (zlib, gzip, streamed zstd) it decodes into a buffer that doubles up to `max_bytes`.  Those
 * trial decodes pass key == NULL, which by the convention of this file and codec_*.c means "size
 * probe: return GSVD_ECODEC without logging"; the last attempt passes the real key, so a corrupt
 * chunk is still logged exactly once. */
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
#include "zarr/codec_internal.h"

/* What an intermediate stage of a v3 chain may hold when the final output is `n` bytes: the
 * input of a later decoder is an encoding of at most n bytes, which every supported codec keeps
 * within n / 8 + 64 KiB of overhead.  A hostile frame claiming more is refused before any
 * allocation of that size. */
static size_t stage_limit(size_t n)
{
    return n > SIZE_MAX / 2 ? SIZE_MAX : n + n / 8 + 65536;
}

/* The one table of codecs; ids are numcodecs ids.  Keep gsvd_codec_supported() in step. */
static const struct gsvd_codec_ops *const codecs[] = {
    &gsvd_codec_blosc_ops, &gsvd_codec_zstd_ops,  &gsvd_codec_zlib_ops,      &gsvd_codec_gzip_ops,
    &gsvd_codec_lz4_ops,   &gsvd_codec_delta_ops, &gsvd_codec_vlen_utf8_ops, &gsvd_codec_crc32c_ops,
};

#define SUPPORTED_IDS "blosc, zstd, zlib, gzip, lz4, delta, vlen-utf8, crc32c"
/* Zarr v3 names of the bytes -> bytes codecs (codec.c maps their configurations) */
#define SUPPORTED_V3 "blosc, zstd, gzip, crc32c"

struct stage {
    const struct gsvd_codec_ops *ops; /* NULL: empty slot */
    void *cfg;                        /* owned; freed with ops->free_cfg */
};

struct gsvd_codec_chain {
    struct stage *filters; /* n_filters stages in .zarray order; owned */
    size_t n_filters;
    struct stage comp;    /* compressor; comp.ops NULL for "compressor": null */
    struct gsvd_dtype dt; /* array dtype */
    int is_vlen;          /* v2: filters[0] is vlen-utf8; v3: the array -> bytes codec was */
    int ordered;          /* v3: filters[] holds every bytes -> bytes codec in zarr.json order,
                             each free to change the size; comp is unused */
    char *prefix;         /* owned, or NULL: description of the v3 codecs before filters[] */
};

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

static const struct gsvd_codec_ops *find_codec(const char *id)
{
    for (size_t i = 0; i < GSVD_ARRAY_LEN(codecs); i++)
        if (strcmp(codecs[i]->id, id) == 0)
            return codecs[i];
    return NULL;
}

/* Parse one JSON text; NULL text gives *out NULL.  A "null" text gives a cJSON null. */
static int parse_text(const char *text, const char *where, const char *what, cJSON **out)
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
                       struct stage *st)
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
    ops = find_codec(id->valuestring);
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

static void chain_free_stage(struct stage *st)
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
    GSVD_TRY(parse_text(compressor_json, where, "compressor", &cj));
    GSVD_TRY(parse_text(filters_json, where, "filters", &fj));
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

/* ---- Zarr v3 bytes -> bytes codecs ------------------------------------------------------ */

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
    GSVD_TRY(parse_text(codecs_json, where, "codecs", &list));
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
        rc = find_codec(name)->parse(conf, dt, where, &c->filters[c->n_filters].cfg);
        if (rc < 0)
            goto out; /* logged by the codec */
        c->filters[c->n_filters++].ops = find_codec(name);
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

int gsvd_codec_chain_is_vlen(const gsvd_codec_chain *c)
{
    return c->is_vlen;
}

/* ---- fixed-size chunks ------------------------------------------------------------------ */

/* Stage s of decoding: the compressor first, then the filters from last to first. */
static const struct stage *decode_stage(const gsvd_codec_chain *c, size_t s)
{
    if (c->comp.ops) {
        if (s == 0)
            return &c->comp;
        s--;
    }
    return &c->filters[c->n_filters - 1 - s];
}

/* Decode one stage into b (cleared) when the output size is not known in advance: the size the
 * frame records (blosc, lz4, zstd with a content size, crc32c), else a guess from `hint` that
 * doubles up to what the format can expand to and `max_bytes`; see the note at the top. */
static int decode_grow(const struct stage *st, gsvd_codec_ws *ws, const void *src, size_t n,
                       size_t hint, size_t max_bytes, const char *key, struct gsvd_buf *b)
{
    int rc = GSVD_OK, known = 0;
    size_t size = 0, out_len = 0, try;

    gsvd_buf_clear(b);
    if (st->ops->decoded_size) {
        rc = st->ops->decoded_size(st->cfg, src, n, &size);
        /* a corrupt frame (neither OK nor ENOTFOUND) is left to the decoder, which logs it */
        known = rc != GSVD_ENOTFOUND;
        if (rc < 0)
            size = 0;
        rc = GSVD_OK;
    }
    if (known) {
        if (size > max_bytes) {
            gsvd_log_error("%s: chunk decodes to %zu bytes, more than the limit %zu", key, size,
                           max_bytes);
            return GSVD_ECODEC;
        }
        GSVD_TRY(gsvd_buf_reserve(b, size ? size : 1));
        GSVD_TRY(st->ops->decode(st->cfg, ws, src, n, b->data, size, &out_len, key));
        if (out_len != size) {
            gsvd_log_error("%s: decoded %zu bytes, the %s frame records %zu", key, out_len,
                           st->ops->id, size);
            rc = GSVD_ECODEC;
            goto out;
        }
        b->len = out_len;
        goto out;
    }
    /* No recorded size: grow a guess, but never past what the format can expand to (deflate's
     * ratio is at most 1032:1; 1100 covers every frame numcodecs writes without a size), so a
     * tiny corrupt chunk cannot make us allocate max_bytes. */
    if (n < (SIZE_MAX - 65536) / 1100 && 1100 * n + 65536 < max_bytes)
        max_bytes = 1100 * n + 65536;
    try = hint;
    if (n < SIZE_MAX / 4 && 4 * n > try)
        try = 4 * n;
    if (try < 4096)
        try = 4096;
    for (;;) {
        int last;

        if (try > max_bytes)
            try = max_bytes;
        last = try == max_bytes;
        gsvd_buf_clear(b);
        GSVD_TRY(gsvd_buf_reserve(b, try));
        rc = st->ops->decode(st->cfg, ws, src, n, b->data, try, &out_len, last ? key : NULL);
        if (rc == GSVD_OK)
            break;
        if (rc != GSVD_ECODEC || last)
            goto out; /* logged: by the allocator, or by the decoder given the key */
        rc = GSVD_OK;
        try = try > SIZE_MAX / 2 ? SIZE_MAX : try * 2;
    }
    b->len = out_len;
out:
    return rc;
}

/* v3: run filters[] backwards.  With dst, the last stage writes exactly cap bytes there; without
 * (strings), every stage's size is found by decode_grow and *res / *res_len point at the result
 * (in ws->tmp[] or src).  Stages before the last ping-pong between ws->tmp[0] and ws->tmp[1]. */
static int decode_ordered(const gsvd_codec_chain *c, gsvd_codec_ws *ws, const void *src, size_t n,
                          void *dst, size_t cap, size_t max_bytes, const char *key,
                          const void **res, size_t *res_len)
{
    int rc = GSVD_OK;
    const void *in = src;
    size_t in_len = n;

    for (size_t k = 0; k < c->n_filters; k++) {
        const struct stage *st = &c->filters[c->n_filters - 1 - k];
        size_t out_len = 0;

        if (dst && k + 1 == c->n_filters) {
            GSVD_TRY(st->ops->decode(st->cfg, ws, in, in_len, dst, cap, &out_len, key));
            if (out_len != cap) {
                gsvd_log_error("%s: decoded %zu bytes, expected %zu from zarr.json", key, out_len,
                               cap);
                rc = GSVD_ECODEC;
                goto out;
            }
            return GSVD_OK;
        }
        struct gsvd_buf *b = &ws->tmp[k % 2];
        size_t limit =
            !dst && k + 1 == c->n_filters ? max_bytes : stage_limit(dst ? cap : max_bytes);
        GSVD_TRY(decode_grow(st, ws, in, in_len, dst ? cap : 4096, limit, key, b));
        in = b->data;
        in_len = b->len;
    }
    if (dst) { /* no codecs after the array -> bytes codec */
        if (in_len != cap) {
            gsvd_log_error("%s: %zu bytes, expected %zu from zarr.json", key, in_len, cap);
            return GSVD_ECODEC;
        }
        if (cap)
            memcpy(dst, in, cap);
        return GSVD_OK;
    }
    *res = in;
    *res_len = in_len;
out:
    return rc;
}

int gsvd_codec_chain_decode(const gsvd_codec_chain *c, gsvd_codec_ws *ws, const void *src, size_t n,
                            void *dst, size_t cap, const char *key)
{
    int rc = GSVD_OK;
    size_t n_stages = c->n_filters + (c->comp.ops ? 1 : 0);
    const void *in = src;
    size_t in_len = n;

    if (!key)
        key = "(chunk)";
    if (c->is_vlen) {
        gsvd_log_error("%s: vlen-utf8 chunk passed to the fixed-size decoder", key);
        return GSVD_EINVAL;
    }
    if (c->ordered)
        return decode_ordered(c, ws, src, n, dst, cap, 0, key, NULL, NULL);
    if (n_stages == 0) {
        if (n != cap) {
            gsvd_log_error("%s: decoded %zu bytes, expected %zu from .zarray", key, n, cap);
            return GSVD_ECODEC;
        }
        if (n)
            memcpy(dst, src, n);
        return GSVD_OK;
    }
    for (size_t s = 0; s < n_stages; s++) {
        const struct stage *st = decode_stage(c, s);
        void *outp = dst;
        size_t out_len = 0, want = cap;

        /* the size stage s must produce: cap, run back through the later stages' filters */
        for (size_t later = n_stages - 1; later > s; later--) {
            const struct stage *ls = decode_stage(c, later);
            if (ls->ops->encoded_size)
                want = ls->ops->encoded_size(ls->cfg, want);
        }
        if (s + 1 < n_stages) {
            struct gsvd_buf *b = &ws->tmp[s % 2];
            gsvd_buf_clear(b);
            GSVD_TRY(gsvd_buf_reserve(b, want));
            outp = b->data;
        }
        GSVD_TRY(st->ops->decode(st->cfg, ws, in, in_len, outp, want, &out_len, key));
        if (out_len != want) {
            gsvd_log_error("%s: decoded %zu bytes, expected %zu from .zarray", key, out_len, want);
            rc = GSVD_ECODEC;
            goto out;
        }
        in = outp;
        in_len = out_len;
    }
out:
    return rc;
}

/* Run the filters from `first` on, then the compressor, from src[n] into dst.  Intermediate
 * results ping-pong between ws->tmp[], starting with ws->tmp[next]; src must not be ws->tmp[next].
 */
static int encode_stages(const gsvd_codec_chain *c, gsvd_codec_ws *ws, size_t first, int next,
                         const void *src, size_t n, struct gsvd_buf *dst)
{
    int rc = GSVD_OK;
    const void *in = src;
    size_t in_len = n;

    for (size_t i = first; i < c->n_filters; i++) {
        struct gsvd_buf *b = &ws->tmp[next];
        const struct stage *st = &c->filters[i];

        GSVD_TRY(st->ops->encode(st->cfg, ws, in, in_len, b));
        in = b->data;
        in_len = b->len;
        next ^= 1;
    }
    if (c->comp.ops) {
        GSVD_TRY(c->comp.ops->encode(c->comp.cfg, ws, in, in_len, dst));
    } else {
        gsvd_buf_clear(dst);
        GSVD_TRY(gsvd_buf_append(dst, in, in_len));
    }
out:
    return rc;
}

int gsvd_codec_chain_encode(const gsvd_codec_chain *c, gsvd_codec_ws *ws, const void *src, size_t n,
                            struct gsvd_buf *dst)
{
    if (c->is_vlen) {
        gsvd_log_error("vlen-utf8 chain passed to the fixed-size encoder");
        return GSVD_EINVAL;
    }
    return encode_stages(c, ws, 0, 0, src, n, dst); /* v3: comp is empty, filters in order */
}

/* ---- vlen-utf8 chunks ------------------------------------------------------------------- */

static uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void store_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* 1 if s[n] is well-formed UTF-8 (RFC 3629: no overlongs, no surrogates, at most U+10FFFF)
 * without NUL bytes (C strings cannot hold them). */
static int utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;

    while (i < n) {
        unsigned c = s[i];
        size_t len;
        unsigned lo = 0x80, hi = 0xBF; /* bounds of the second byte */

        if (c == 0)
            return 0;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0)
                lo = 0xA0; /* overlong */
            else if (c == 0xED)
                hi = 0x9F; /* surrogates */
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0)
                lo = 0x90; /* overlong */
            else if (c == 0xF4)
                hi = 0x8F; /* above U+10FFFF */
        } else {
            return 0;
        }
        if (n - i < len || s[i + 1] < lo || s[i + 1] > hi)
            return 0;
        for (size_t k = 2; k < len; k++)
            if (s[i + k] < 0x80 || s[i + k] > 0xBF)
                return 0;
        i += len;
    }
    return 1;
}

/* Parse the vlen-utf8 layout: u32le item count, then per item u32le length and the bytes. */
static int parse_vlen(const unsigned char *p, size_t len, size_t n_items, const char *key,
                      struct gsvd_strlist *out)
{
    int rc = GSVD_OK;
    size_t n0 = out->n;
    size_t pos = 4;
    uint32_t count;

    if (len < 4) {
        gsvd_log_error("%s: vlen-utf8 chunk of %zu bytes has no item count", key, len);
        return GSVD_ECODEC;
    }
    count = load_le32(p);
    if (count != n_items) {
        gsvd_log_error("%s: vlen-utf8 chunk holds %lu items, expected %zu from .zarray", key,
                       (unsigned long)count, n_items);
        return GSVD_ECODEC;
    }
    for (size_t i = 0; i < count; i++) {
        uint32_t item_len;

        if (len - pos < 4) {
            gsvd_log_error("%s: vlen-utf8 item %zu: length field past the end of the chunk", key,
                           i);
            rc = GSVD_ECODEC;
            goto out;
        }
        item_len = load_le32(p + pos);
        pos += 4;
        if (item_len > len - pos) {
            gsvd_log_error("%s: vlen-utf8 item %zu: %lu bytes past the end of the chunk", key, i,
                           (unsigned long)item_len);
            rc = GSVD_ECODEC;
            goto out;
        }
        if (!utf8_valid(p + pos, item_len)) {
            gsvd_log_error("%s: vlen-utf8 item %zu is not valid UTF-8 (or holds a NUL byte)", key,
                           i);
            rc = GSVD_ECODEC;
            goto out;
        }
        GSVD_TRY(gsvd_strlist_pushn(out, (const char *)p + pos, item_len));
        pos += item_len;
    }
    if (pos != len) {
        gsvd_log_error("%s: %zu trailing bytes after the last vlen-utf8 item", key, len - pos);
        rc = GSVD_ECODEC;
        goto out;
    }
out:
    if (rc < 0) { /* give back what this call appended */
        while (out->n > n0)
            gsvd_free(out->items[--out->n]);
    }
    return rc;
}

/* Decompress a vlen chunk into ws->tmp[0]; see the note at the top of the file. */
static int decompress_vlen(const gsvd_codec_chain *c, gsvd_codec_ws *ws, const void *src, size_t n,
                           size_t n_items, size_t max_bytes, const char *key)
{
    /* a first guess: 4 bytes per item plus the count */
    size_t hint = n_items < (SIZE_MAX - 4) / 4 ? 4 + 4 * n_items : SIZE_MAX;
    return decode_grow(&c->comp, ws, src, n, hint, max_bytes, key, &ws->tmp[0]);
}

int gsvd_codec_chain_decode_vlen(const gsvd_codec_chain *c, gsvd_codec_ws *ws, const void *src,
                                 size_t n, size_t n_items, size_t max_bytes, const char *key,
                                 struct gsvd_strlist *out)
{
    int rc = GSVD_OK;
    const unsigned char *p = src;
    size_t len = n;

    if (!key)
        key = "(chunk)";
    if (!c->is_vlen) {
        gsvd_log_error("%s: fixed-size chunk passed to the vlen-utf8 decoder", key);
        return GSVD_EINVAL;
    }
    if (c->ordered) {
        const void *res = src;
        GSVD_TRY(decode_ordered(c, ws, src, n, NULL, 0, max_bytes, key, &res, &len));
        p = res;
        if (len > max_bytes) {
            gsvd_log_error("%s: vlen-utf8 chunk of %zu bytes, more than the limit %zu", key, len,
                           max_bytes);
            return GSVD_ECODEC;
        }
    } else if (c->comp.ops) {
        GSVD_TRY(decompress_vlen(c, ws, src, n, n_items, max_bytes, key));
        p = (const unsigned char *)ws->tmp[0].data;
        len = ws->tmp[0].len;
    } else if (n > max_bytes) {
        gsvd_log_error("%s: vlen-utf8 chunk of %zu bytes, more than the limit %zu", key, n,
                       max_bytes);
        return GSVD_ECODEC;
    }
    GSVD_TRY(parse_vlen(p, len, n_items, key, out));
out:
    return rc;
}

int gsvd_codec_chain_encode_vlen(const gsvd_codec_chain *c, gsvd_codec_ws *ws,
                                 const char *const *items, size_t n_items, struct gsvd_buf *dst)
{
    int rc = GSVD_OK;
    struct gsvd_buf *b = c->comp.ops || c->ordered ? &ws->tmp[0] : dst;
    unsigned char le[4];

    if (!c->is_vlen) {
        gsvd_log_error("fixed-size chain passed to the vlen-utf8 encoder");
        return GSVD_EINVAL;
    }
    if (n_items > UINT32_MAX) {
        gsvd_log_error("%zu strings do not fit one vlen-utf8 chunk", n_items);
        return GSVD_EINVAL;
    }
    gsvd_buf_clear(b);
    store_le32(le, (uint32_t)n_items);
    GSVD_TRY(gsvd_buf_append(b, le, 4));
    for (size_t i = 0; i < n_items; i++) {
        size_t len = strlen(items[i]);

        if (len > UINT32_MAX || !utf8_valid((const unsigned char *)items[i], len)) {
            gsvd_log_error("string %zu is not valid UTF-8 or longer than 4 GiB", i);
            rc = GSVD_EINVAL;
            goto out;
        }
        store_le32(le, (uint32_t)len);
        GSVD_TRY(gsvd_buf_append(b, le, 4));
        GSVD_TRY(gsvd_buf_append(b, items[i], len));
    }
    if (c->ordered) /* v3: the bytes -> bytes codecs in order, starting in tmp[1] */
        GSVD_TRY(encode_stages(c, ws, 0, 1, b->data, b->len, dst));
    else if (c->comp.ops)
        GSVD_TRY(c->comp.ops->encode(c->comp.cfg, ws, b->data, b->len, dst));
out:
    return rc;
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
        gsvd_log_error("the chain is already a Zarr v3 chain");
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
