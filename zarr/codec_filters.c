/* zarr/codec_filters.c - the numcodecs filters gensvd handles: "delta" and "vlen-utf8".
 *
 * delta stores the first element, then differences; decoding is a running sum in the element
 * type (numpy's cumsum with out=dtype), so integers wrap around: the sum is done on uint64_t
 * and truncated to the element size, which is the same modulo 2^bits without signed overflow.
 * "astype" may differ from "dtype" as numcodecs allows: differences are stored as astype
 * (integers truncated, floats rounded) and decoding sums them, converted to dtype, in dtype;
 * integer and float types are not mixed (GSVD_EUNSUPPORTED).
 *
 * vlen-utf8 is parsed here, but its byte layout is read and written by codec_chain.c, which turns
 * chunks into string lists. */
#include "gsvd_config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/codec_internal.h"

/* Decoders log only when given a key; key == NULL is codec_chain.c's quiet size probe. */
#define LOG_KEY(key, ...)                                                                          \
    do {                                                                                           \
        if (key)                                                                                   \
            gsvd_log_error(__VA_ARGS__);                                                           \
    } while (0)

struct delta_cfg {
    struct gsvd_dtype dtype;  /* element type; equals the array dtype */
    struct gsvd_dtype astype; /* encoded type: same kind family as dtype, any size */
};

static int same_dtype(const struct gsvd_dtype *a, const struct gsvd_dtype *b)
{
    return a->kind == b->kind && a->size == b->size && a->byteorder == b->byteorder;
}

static int delta_dtype(const cJSON *config, const char *name, const char *where,
                       struct gsvd_dtype *out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(config, name);
    int rc;

    if (!cJSON_IsString(item)) {
        gsvd_log_error("%s: delta \"%s\" is missing or not a string", where, name);
        return GSVD_EFORMAT;
    }
    rc = gsvd_dtype_parse(item->valuestring, out);
    if (rc == GSVD_EFORMAT) {
        gsvd_log_error("%s: delta \"%s\" '%s' is not a dtype", where, name, item->valuestring);
        return rc;
    }
    if (rc < 0 || !(out->kind == 'i' || out->kind == 'u' ||
                    (out->kind == 'f' && (out->size == 4 || out->size == 8)))) {
        gsvd_log_error("%s: delta \"%s\" '%s' not supported (integers, f4, f8)", where, name,
                       item->valuestring);
        return GSVD_EUNSUPPORTED;
    }
    return GSVD_OK;
}

static int delta_parse(const cJSON *config, const struct gsvd_dtype *dt, const char *where,
                       void **cfg_out)
{
    int rc = GSVD_OK;
    struct delta_cfg c;
    struct delta_cfg *cfg = NULL;
    char a[24], b[24];

    *cfg_out = NULL;
    GSVD_TRY(delta_dtype(config, "dtype", where, &c.dtype));
    if (cJSON_GetObjectItemCaseSensitive(config, "astype"))
        GSVD_TRY(delta_dtype(config, "astype", where, &c.astype));
    else
        c.astype = c.dtype; /* numcodecs' default */
    gsvd_dtype_format(&c.dtype, a, sizeof a);
    gsvd_dtype_format(&c.astype, b, sizeof b);
    if ((c.dtype.kind == 'f') != (c.astype.kind == 'f')) {
        gsvd_log_error("%s: delta astype '%s' mixes integer and float with dtype '%s'; not "
                       "supported",
                       where, b, a);
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    if (!same_dtype(&c.dtype, dt)) {
        gsvd_dtype_format(dt, b, sizeof b);
        gsvd_log_error("%s: delta dtype '%s' differs from the array dtype '%s'; not supported",
                       where, a, b);
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    cfg = gsvd_malloc(sizeof *cfg);
    if (!cfg) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    *cfg = c;
    *cfg_out = cfg;
out:
    return rc;
}

static void delta_free_cfg(void *cfg)
{
    gsvd_free(cfg);
}

static int delta_to_json(const void *cfgp, cJSON **out)
{
    const struct delta_cfg *cfg = cfgp;
    cJSON *o = cJSON_CreateObject();
    char a[24], d[24];

    *out = NULL;
    gsvd_dtype_format(&cfg->astype, a, sizeof a);
    gsvd_dtype_format(&cfg->dtype, d, sizeof d);
    if (!o || !cJSON_AddStringToObject(o, "astype", a) || !cJSON_AddStringToObject(o, "dtype", d) ||
        !cJSON_AddStringToObject(o, "id", "delta")) {
        cJSON_Delete(o);
        gsvd_log_error("out of memory building delta JSON");
        return GSVD_ENOMEM;
    }
    *out = o;
    return GSVD_OK;
}

/* Element access in the stored byte order, as raw bits. */
static uint64_t load_elem(const unsigned char *p, size_t size, int big)
{
    uint64_t v = 0;

    for (size_t i = 0; i < size; i++)
        v |= (uint64_t)p[big ? size - 1 - i : i] << (8 * i);
    return v;
}

static void store_elem(unsigned char *p, size_t size, int big, uint64_t v)
{
    for (size_t i = 0; i < size; i++)
        p[big ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/* Float running sum or differences in the element's own precision, as numpy computes them;
 * IEEE arithmetic overflows to infinity, so hostile input cannot cause undefined behaviour. */
static void delta_run_f4(const unsigned char *src, unsigned char *dst, size_t n_elem, int big,
                         int decode)
{
    float prev = 0.0f;

    for (size_t i = 0; i < n_elem; i++) {
        uint32_t u = (uint32_t)load_elem(src + 4 * i, 4, big);
        float x, y;

        memcpy(&x, &u, sizeof x);
        y = i == 0 ? x : decode ? prev + x : x - prev;
        prev = decode ? y : x;
        memcpy(&u, &y, sizeof u);
        store_elem(dst + 4 * i, 4, big, u);
    }
}

static void delta_run_f8(const unsigned char *src, unsigned char *dst, size_t n_elem, int big,
                         int decode)
{
    double prev = 0.0;

    for (size_t i = 0; i < n_elem; i++) {
        uint64_t u = load_elem(src + 8 * i, 8, big);
        double x, y;

        memcpy(&x, &u, sizeof x);
        y = i == 0 ? x : decode ? prev + x : x - prev;
        prev = decode ? y : x;
        memcpy(&u, &y, sizeof u);
        store_elem(dst + 8 * i, 8, big, u);
    }
}

/* Running sum (decode) or first differences (encode) of n elements, src to dst (distinct). */
static void delta_run(const struct gsvd_dtype *dt, const unsigned char *src, unsigned char *dst,
                      size_t n_elem, int decode)
{
    const size_t size = dt->size;
    const int big = dt->byteorder == '>';
    uint64_t prev = 0;

    if (dt->kind == 'f' && size == 4) {
        delta_run_f4(src, dst, n_elem, big, decode);
        return;
    }
    if (dt->kind == 'f') {
        delta_run_f8(src, dst, n_elem, big, decode);
        return;
    }
    for (size_t i = 0; i < n_elem; i++) {
        uint64_t x = load_elem(src + i * size, size, big);
        uint64_t y = decode ? prev + x : x - prev; /* unsigned: wraps, truncated by store */
        prev = decode ? y : x;
        store_elem(dst + i * size, size, big, y);
    }
}

/* Element i of an array of type t, as a signed 64-bit integer (sign- or zero-extended) or a
 * double. */
static int64_t load_int(const struct gsvd_dtype *t, const unsigned char *p)
{
    uint64_t v = load_elem(p, t->size, t->byteorder == '>');
    if (t->kind == 'i' && t->size < 8 && (v >> (8 * t->size - 1)) & 1)
        v |= ~(uint64_t)0 << (8 * t->size);
    return (int64_t)v;
}

static double load_float(const struct gsvd_dtype *t, const unsigned char *p)
{
    uint64_t v = load_elem(p, t->size, t->byteorder == '>');
    if (t->size == 4) {
        uint32_t u = (uint32_t)v;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    double d;
    memcpy(&d, &v, 8);
    return d;
}

static void store_float(const struct gsvd_dtype *t, unsigned char *p, double d)
{
    uint64_t v;
    if (t->size == 4) {
        float f = (float)d;
        uint32_t u;
        memcpy(&u, &f, 4);
        v = u;
    } else {
        memcpy(&v, &d, 8);
    }
    store_elem(p, t->size, t->byteorder == '>', v);
}

/* Delta between different element types: decode sums astype values (converted) in dtype;
 * encode stores dtype differences converted to astype. */
static void delta_convert(const struct delta_cfg *cfg, const unsigned char *src, unsigned char *dst,
                          size_t n_elem, int decode)
{
    const struct gsvd_dtype *in = decode ? &cfg->astype : &cfg->dtype;
    const struct gsvd_dtype *out = decode ? &cfg->dtype : &cfg->astype;
    if (cfg->dtype.kind == 'f') {
        double prev = 0;
        for (size_t i = 0; i < n_elem; i++) {
            double x = load_float(in, src + i * in->size);
            double y = i == 0 ? x : decode ? prev + x : x - prev;
            if (decode && cfg->dtype.size == 4)
                y = (float)y; /* numpy accumulates in the output dtype */
            prev = decode ? y : x;
            store_float(out, dst + i * out->size, y);
        }
        return;
    }
    uint64_t prev = 0;
    for (size_t i = 0; i < n_elem; i++) {
        uint64_t x = (uint64_t)load_int(in, src + i * in->size);
        uint64_t y = decode ? prev + x : x - prev; /* mod 2^64; the store keeps the low bits */
        prev = decode ? y : x;
        store_elem(dst + i * out->size, out->size, out->byteorder == '>', y);
    }
}

static size_t delta_encoded_size(const void *cfgp, size_t decoded)
{
    const struct delta_cfg *cfg = cfgp;
    return decoded / cfg->dtype.size * cfg->astype.size;
}

static int delta_decode(const void *cfgp, gsvd_codec_ws *ws, const void *src, size_t n, void *dst,
                        size_t cap, size_t *out_len, const char *key)
{
    const struct delta_cfg *cfg = cfgp;

    (void)ws;
    if (!same_dtype(&cfg->dtype, &cfg->astype)) {
        size_t n_elem = n / cfg->astype.size;
        *out_len = 0;
        if (n % cfg->astype.size != 0 || n_elem > cap / cfg->dtype.size) {
            LOG_KEY(key, "%s: delta input of %zu bytes is not %zu elements of %zu bytes", key, n,
                    cap / cfg->dtype.size, cfg->astype.size);
            return GSVD_ECODEC;
        }
        delta_convert(cfg, src, dst, n_elem, 1);
        *out_len = n_elem * cfg->dtype.size;
        return GSVD_OK;
    }
    *out_len = 0;
    if (n % cfg->dtype.size != 0 || n > cap) {
        LOG_KEY(key, "%s: delta input of %zu bytes is not %zu elements of %zu bytes", key, n,
                cap / cfg->dtype.size, cfg->dtype.size);
        return GSVD_ECODEC;
    }
    delta_run(&cfg->dtype, src, dst, n / cfg->dtype.size, 1);
    *out_len = n;
    return GSVD_OK;
}

static int delta_encode(const void *cfgp, gsvd_codec_ws *ws, const void *src, size_t n,
                        struct gsvd_buf *dst)
{
    int rc = GSVD_OK;
    const struct delta_cfg *cfg = cfgp;

    (void)ws;
    if (n % cfg->dtype.size != 0) {
        gsvd_log_error("delta input of %zu bytes is not a whole number of elements", n);
        return GSVD_EINVAL;
    }
    gsvd_buf_clear(dst);
    if (!same_dtype(&cfg->dtype, &cfg->astype)) {
        size_t n_elem = n / cfg->dtype.size;
        GSVD_TRY(gsvd_buf_reserve(dst, n_elem * cfg->astype.size));
        delta_convert(cfg, src, (unsigned char *)dst->data, n_elem, 0);
        dst->len = n_elem * cfg->astype.size;
        goto out;
    }
    GSVD_TRY(gsvd_buf_reserve(dst, n));
    delta_run(&cfg->dtype, src, (unsigned char *)dst->data, n / cfg->dtype.size, 0);
    dst->len = n;
out:
    return rc;
}

static void delta_describe(const void *cfgp, char *buf, size_t len)
{
    const struct delta_cfg *cfg = cfgp;
    char d[24];

    gsvd_dtype_format(&cfg->dtype, d, sizeof d);
    snprintf(buf, len, "delta(%s)", d);
}

const struct gsvd_codec_ops gsvd_codec_delta_ops = {
    .id = "delta",
    .role = GSVD_CODEC_FILTER,
    .parse = delta_parse,
    .free_cfg = delta_free_cfg,
    .to_json = delta_to_json,
    .decode = delta_decode,
    .decoded_size = NULL,
    .encode = delta_encode,
    .describe = delta_describe,
    .encoded_size = delta_encoded_size,
};

/* ---- vlen-utf8 -------------------------------------------------------------------------- */

/* The config carries nothing; a non-NULL marker keeps "cfg == NULL" meaning "not parsed". */
static const char vlen_marker[] = "vlen-utf8";

static int vlen_parse(const cJSON *config, const struct gsvd_dtype *dt, const char *where,
                      void **cfg_out)
{
    char d[24];

    (void)config;
    *cfg_out = NULL;
    if (dt->kind != 'O') {
        gsvd_dtype_format(dt, d, sizeof d);
        gsvd_log_error("%s: codec 'vlen-utf8' not supported with dtype '%s' (needs |O)", where, d);
        return GSVD_EUNSUPPORTED;
    }
    *cfg_out = (void *)(uintptr_t)vlen_marker;
    return GSVD_OK;
}

static void vlen_free_cfg(void *cfg)
{
    (void)cfg; /* static marker */
}

static int vlen_to_json(const void *cfg, cJSON **out)
{
    cJSON *o = cJSON_CreateObject();

    (void)cfg;
    *out = NULL;
    if (!o || !cJSON_AddStringToObject(o, "id", "vlen-utf8")) {
        cJSON_Delete(o);
        gsvd_log_error("out of memory building vlen-utf8 JSON");
        return GSVD_ENOMEM;
    }
    *out = o;
    return GSVD_OK;
}

static void vlen_describe(const void *cfg, char *buf, size_t len)
{
    (void)cfg;
    snprintf(buf, len, "vlen-utf8");
}

const struct gsvd_codec_ops gsvd_codec_vlen_utf8_ops = {
    .id = "vlen-utf8",
    .role = GSVD_CODEC_VLEN,
    .parse = vlen_parse,
    .free_cfg = vlen_free_cfg,
    .to_json = vlen_to_json,
    .decode = NULL,
    .decoded_size = NULL,
    .encode = NULL,
    .describe = vlen_describe,
};
