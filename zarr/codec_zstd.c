/* zarr/codec_zstd.c - numcodecs "zstd": one or more concatenated zstd frames, with or without a
 * recorded content size (tensorstore omits it).  ZSTD_decompressDCtx handles all of these in one
 * bounded call: it decodes every frame straight into dst and fails with dstSize_tooSmall rather
 * than write past cap.  Contexts live in the worker's gsvd_codec_ws. */
#include "gsvd_config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>
#include <zstd.h>

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

struct zstd_cfg {
    int level;        /* any int: zstd clamps; negative levels are the fast modes */
    int checksum;     /* write a content checksum */
    int has_checksum; /* "checksum" was in the config, so to_json writes it back */
};

static int zstd_parse(const cJSON *config, const struct gsvd_dtype *dt, const char *where,
                      void **cfg_out)
{
    int rc = GSVD_OK;
    const cJSON *checksum = cJSON_GetObjectItemCaseSensitive(config, "checksum");
    struct zstd_cfg *cfg = NULL;
    long long level;

    (void)dt;
    *cfg_out = NULL;
    GSVD_TRY(gsvd_codec_json_int(config, "level", INT_MIN, INT_MAX, 0, 1, where, &level));
    if (checksum && !cJSON_IsBool(checksum)) {
        gsvd_log_error("%s: zstd \"checksum\" must be true or false", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    cfg = gsvd_calloc(1, sizeof *cfg);
    if (!cfg) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    cfg->level = (int)level;
    cfg->has_checksum = checksum != NULL;
    cfg->checksum = cJSON_IsTrue(checksum);
    *cfg_out = cfg;
out:
    return rc;
}

static void zstd_free_cfg(void *cfg)
{
    gsvd_free(cfg);
}

static int zstd_to_json(const void *cfgp, cJSON **out)
{
    const struct zstd_cfg *cfg = cfgp;
    cJSON *o = cJSON_CreateObject();

    *out = NULL;
    if (!o || (cfg->has_checksum && !cJSON_AddBoolToObject(o, "checksum", cfg->checksum)) ||
        !cJSON_AddStringToObject(o, "id", "zstd") ||
        !cJSON_AddNumberToObject(o, "level", cfg->level)) {
        cJSON_Delete(o);
        gsvd_log_error("out of memory building zstd JSON");
        return GSVD_ENOMEM;
    }
    *out = o;
    return GSVD_OK;
}

/* Sum of the content sizes of all frames; GSVD_ENOTFOUND when a frame does not record one. */
static int zstd_decoded_size(const void *cfg, const void *src, size_t n, size_t *size)
{
    const char *p = src;
    size_t total = 0;

    (void)cfg;
    if (n == 0)
        return GSVD_ECODEC;
    while (n > 0) {
        unsigned long long fcs = ZSTD_getFrameContentSize(p, n);
        size_t frame = ZSTD_findFrameCompressedSize(p, n);

        if (fcs == ZSTD_CONTENTSIZE_ERROR || ZSTD_isError(frame))
            return GSVD_ECODEC;
        if (fcs == ZSTD_CONTENTSIZE_UNKNOWN)
            return GSVD_ENOTFOUND;
        if (fcs > SIZE_MAX - total)
            return GSVD_ECODEC;
        total += (size_t)fcs;
        p += frame;
        n -= frame;
    }
    *size = total;
    return GSVD_OK;
}

static int zstd_decode(const void *cfg, gsvd_codec_ws *ws, const void *src, size_t n, void *dst,
                       size_t cap, size_t *out_len, const char *key)
{
    unsigned long long fcs;
    size_t got;

    (void)cfg;
    *out_len = 0;
    fcs = n ? ZSTD_getFrameContentSize(src, n) : ZSTD_CONTENTSIZE_ERROR;
    if (fcs == ZSTD_CONTENTSIZE_ERROR) {
        LOG_KEY(key, "%s: not a zstd frame", key);
        return GSVD_ECODEC;
    }
    if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs > cap) {
        LOG_KEY(key, "%s: zstd frame holds %llu bytes, more than the %zu expected", key, fcs, cap);
        return GSVD_ECODEC;
    }
    if (!ws->zstd_dctx) {
        ws->zstd_dctx = ZSTD_createDCtx();
        if (!ws->zstd_dctx) {
            gsvd_log_error("out of memory creating a zstd context");
            return GSVD_ENOMEM;
        }
    }
    got = ZSTD_decompressDCtx(ws->zstd_dctx, dst, cap, src, n);
    if (ZSTD_isError(got)) {
        LOG_KEY(key, "%s: zstd decompression failed: %s", key, ZSTD_getErrorName(got));
        return GSVD_ECODEC;
    }
    *out_len = got;
    return GSVD_OK;
}

static int zstd_encode(const void *cfgp, gsvd_codec_ws *ws, const void *src, size_t n,
                       struct gsvd_buf *dst)
{
    int rc = GSVD_OK;
    const struct zstd_cfg *cfg = cfgp;
    size_t bound = ZSTD_compressBound(n);
    size_t got;

    if (ZSTD_isError(bound) || bound == 0) {
        gsvd_log_error("chunk of %zu bytes is too large for zstd", n);
        return GSVD_EINVAL;
    }
    if (!ws->zstd_cctx) {
        ws->zstd_cctx = ZSTD_createCCtx();
        if (!ws->zstd_cctx) {
            gsvd_log_error("out of memory creating a zstd context");
            return GSVD_ENOMEM;
        }
    }
    gsvd_buf_clear(dst);
    GSVD_TRY(gsvd_buf_reserve(dst, bound));
    ZSTD_CCtx_reset(ws->zstd_cctx, ZSTD_reset_session_and_parameters);
    got = ZSTD_CCtx_setParameter(ws->zstd_cctx, ZSTD_c_compressionLevel, cfg->level);
    if (!ZSTD_isError(got))
        got = ZSTD_CCtx_setParameter(ws->zstd_cctx, ZSTD_c_checksumFlag, cfg->checksum);
    if (!ZSTD_isError(got))
        got = ZSTD_compress2(ws->zstd_cctx, dst->data, bound, src, n);
    if (ZSTD_isError(got)) {
        gsvd_log_error("zstd compression failed: %s", ZSTD_getErrorName(got));
        rc = GSVD_ECODEC;
        goto out;
    }
    dst->len = got;
out:
    return rc;
}

static void zstd_describe(const void *cfgp, char *buf, size_t len)
{
    const struct zstd_cfg *cfg = cfgp;

    snprintf(buf, len, "zstd(%d%s)", cfg->level, cfg->checksum ? ", checksum" : "");
}

const struct gsvd_codec_ops gsvd_codec_zstd_ops = {
    .id = "zstd",
    .role = GSVD_CODEC_COMPRESSOR,
    .parse = zstd_parse,
    .free_cfg = zstd_free_cfg,
    .to_json = zstd_to_json,
    .decode = zstd_decode,
    .decoded_size = zstd_decoded_size,
    .encode = zstd_encode,
    .describe = zstd_describe,
};
