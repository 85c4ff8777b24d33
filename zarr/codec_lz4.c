/* zarr/codec_lz4.c - numcodecs "lz4": a 4-byte little-endian uncompressed size, then one raw
 * LZ4 block (not the LZ4 frame format).  LZ4_decompress_safe never writes past its capacity and
 * must regenerate exactly the size the prefix records. */
#include "gsvd_config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>
#include <lz4.h>

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

struct lz4_cfg {
    int acceleration; /* LZ4_compress_fast's; values below 1 mean 1 */
};

static int lz4_parse(const cJSON *config, const struct gsvd_dtype *dt, const char *where,
                     void **cfg_out)
{
    int rc = GSVD_OK;
    struct lz4_cfg *cfg = NULL;
    long long accel;

    (void)dt;
    *cfg_out = NULL;
    GSVD_TRY(gsvd_codec_json_int(config, "acceleration", INT_MIN, INT_MAX, 0, 1, where, &accel));
    cfg = gsvd_calloc(1, sizeof *cfg);
    if (!cfg) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    cfg->acceleration = (int)accel;
    *cfg_out = cfg;
out:
    return rc;
}

static void lz4_free_cfg(void *cfg)
{
    gsvd_free(cfg);
}

static int lz4_to_json(const void *cfgp, cJSON **out)
{
    const struct lz4_cfg *cfg = cfgp;
    cJSON *o = cJSON_CreateObject();

    *out = NULL;
    if (!o || !cJSON_AddNumberToObject(o, "acceleration", cfg->acceleration) ||
        !cJSON_AddStringToObject(o, "id", "lz4")) {
        cJSON_Delete(o);
        gsvd_log_error("out of memory building lz4 JSON");
        return GSVD_ENOMEM;
    }
    *out = o;
    return GSVD_OK;
}

static uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int lz4_decoded_size(const void *cfg, const void *src, size_t n, size_t *size)
{
    (void)cfg;
    if (n < 4)
        return GSVD_ECODEC;
    *size = load_le32(src);
    return GSVD_OK;
}

static int lz4_decode(const void *cfg, gsvd_codec_ws *ws, const void *src, size_t n, void *dst,
                      size_t cap, size_t *out_len, const char *key)
{
    const char *p = src;
    uint32_t size;
    int got;

    (void)cfg;
    (void)ws;
    *out_len = 0;
    if (n < 4) {
        LOG_KEY(key, "%s: lz4 chunk of %zu bytes lacks its size prefix", key, n);
        return GSVD_ECODEC;
    }
    size = load_le32(src);
    if (size > cap || size > INT_MAX || n - 4 > INT_MAX) {
        LOG_KEY(key, "%s: lz4 chunk records %lu bytes, expected at most %zu", key,
                (unsigned long)size, cap);
        return GSVD_ECODEC;
    }
    got = LZ4_decompress_safe(p + 4, dst, (int)(n - 4), (int)size);
    if (got < 0) {
        LOG_KEY(key, "%s: lz4 block is corrupt (%d)", key, got);
        return GSVD_ECODEC;
    }
    if ((uint32_t)got != size) {
        LOG_KEY(key, "%s: lz4 block decodes to %d bytes, its prefix records %lu", key, got,
                (unsigned long)size);
        return GSVD_ECODEC;
    }
    *out_len = size;
    return GSVD_OK;
}

static void store_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static int lz4_encode(const void *cfgp, gsvd_codec_ws *ws, const void *src, size_t n,
                      struct gsvd_buf *dst)
{
    int rc = GSVD_OK;
    const struct lz4_cfg *cfg = cfgp;
    int bound, got;

    (void)ws;
    if (n > LZ4_MAX_INPUT_SIZE) {
        gsvd_log_error("chunk of %zu bytes exceeds lz4's limit of %d bytes", n, LZ4_MAX_INPUT_SIZE);
        return GSVD_EINVAL;
    }
    bound = LZ4_compressBound((int)n);
    gsvd_buf_clear(dst);
    GSVD_TRY(gsvd_buf_reserve(dst, 4 + (size_t)bound));
    store_le32((unsigned char *)dst->data, (uint32_t)n);
    got = LZ4_compress_fast(src, dst->data + 4, (int)n, bound, cfg->acceleration);
    if (got <= 0 && n > 0) {
        gsvd_log_error("lz4 compression failed (%d)", got);
        rc = GSVD_ECODEC;
        goto out;
    }
    dst->len = 4 + (size_t)got;
out:
    return rc;
}

static void lz4_describe(const void *cfgp, char *buf, size_t len)
{
    const struct lz4_cfg *cfg = cfgp;

    snprintf(buf, len, "lz4(acceleration %d)", cfg->acceleration);
}

const struct gsvd_codec_ops gsvd_codec_lz4_ops = {
    .id = "lz4",
    .role = GSVD_CODEC_COMPRESSOR,
    .parse = lz4_parse,
    .free_cfg = lz4_free_cfg,
    .to_json = lz4_to_json,
    .decode = lz4_decode,
    .decoded_size = lz4_decoded_size,
    .encode = lz4_encode,
    .describe = lz4_describe,
};
