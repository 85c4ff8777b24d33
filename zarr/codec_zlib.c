/* zarr/codec_zlib.c - numcodecs "zlib" (RFC 1950) and "gzip" (RFC 1952) through zlib.
 * Decoding inflates into exactly the caller's capacity; output that would not fit, a truncated
 * stream and bytes after the end of the stream are all GSVD_ECODEC.  gzip accepts several
 * concatenated members, as Python's gzip module does.  zlib's own allocations go through
 * gsvd_malloc so that allocation-failure tests reach them. */
#include "gsvd_config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>
#include <zlib.h>

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

#define WBITS_ZLIB 15
#define WBITS_GZIP (15 + 16)

struct zlib_cfg {
    int level; /* 0..9; -1 (zlib only) = Z_DEFAULT_COMPRESSION */
    int gzip;  /* 1 for the gzip container */
};

static voidpf zalloc_cb(voidpf opaque, uInt items, uInt size)
{
    (void)opaque;
    return gsvd_calloc(items, size);
}

static void zfree_cb(voidpf opaque, voidpf p)
{
    (void)opaque;
    gsvd_free(p);
}

static int parse_common(const cJSON *config, const char *where, int gzip, void **cfg_out)
{
    int rc = GSVD_OK;
    struct zlib_cfg *cfg = NULL;
    long long level;

    *cfg_out = NULL;
    GSVD_TRY(gsvd_codec_json_int(config, "level", gzip ? 0 : -1, 9, 0, 1, where, &level));
    cfg = gsvd_calloc(1, sizeof *cfg);
    if (!cfg) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    cfg->level = (int)level;
    cfg->gzip = gzip;
    *cfg_out = cfg;
out:
    return rc;
}

static int zlib_parse(const cJSON *config, const struct gsvd_dtype *dt, const char *where,
                      void **cfg_out)
{
    (void)dt;
    return parse_common(config, where, 0, cfg_out);
}

static int gzip_parse(const cJSON *config, const struct gsvd_dtype *dt, const char *where,
                      void **cfg_out)
{
    (void)dt;
    return parse_common(config, where, 1, cfg_out);
}

static void zlib_free_cfg(void *cfg)
{
    gsvd_free(cfg);
}

static int zlib_to_json(const void *cfgp, cJSON **out)
{
    const struct zlib_cfg *cfg = cfgp;
    cJSON *o = cJSON_CreateObject();

    *out = NULL;
    if (!o || !cJSON_AddStringToObject(o, "id", cfg->gzip ? "gzip" : "zlib") ||
        !cJSON_AddNumberToObject(o, "level", cfg->level)) {
        cJSON_Delete(o);
        gsvd_log_error("out of memory building zlib JSON");
        return GSVD_ENOMEM;
    }
    *out = o;
    return GSVD_OK;
}

/* Inflate into dst[cap].  Once dst is full, inflate goes on into a one-byte scratch, so output
 * past cap is detected rather than dropped.  Z_OK always means progress, so the loop ends. */
static int inflate_all(z_stream *zs, const struct zlib_cfg *cfg, unsigned char *dst, size_t cap,
                       size_t *out_len, const char *key)
{
    const char *name = cfg->gzip ? "gzip" : "zlib";
    unsigned char spill;
    size_t done = 0;

    for (;;) {
        size_t room = cap - done;
        uInt give = room == 0 ? 1 : room > UINT_MAX ? UINT_MAX : (uInt)room;
        int ret;

        zs->next_out = room == 0 ? &spill : dst + done;
        zs->avail_out = give;
        ret = inflate(zs, Z_NO_FLUSH);
        if (room == 0 && zs->avail_out == 0) {
            LOG_KEY(key, "%s: %s stream holds more than the %zu bytes expected", key, name, cap);
            return GSVD_ECODEC;
        }
        if (room > 0)
            done += give - zs->avail_out;
        if (ret == Z_STREAM_END) {
            if (zs->avail_in == 0)
                break;
            if (!cfg->gzip) {
                LOG_KEY(key, "%s: %u bytes after the end of the zlib stream", key, zs->avail_in);
                return GSVD_ECODEC;
            }
            if (inflateReset(zs) != Z_OK)
                return GSVD_EINTERNAL;
            continue; /* the next gzip member */
        }
        if (ret == Z_OK)
            continue;
        if (ret == Z_MEM_ERROR)
            return GSVD_ENOMEM;   /* logged by the allocator */
        if (ret == Z_BUF_ERROR) { /* no progress possible: input used up before the end */
            LOG_KEY(key, "%s: %s stream is truncated", key, name);
            return GSVD_ECODEC;
        }
        LOG_KEY(key, "%s: %s stream is corrupt: %s", key, name, zs->msg ? zs->msg : "bad data");
        return GSVD_ECODEC;
    }
    *out_len = done;
    return GSVD_OK;
}

static int zlib_decode(const void *cfgp, gsvd_codec_ws *ws, const void *src, size_t n, void *dst,
                       size_t cap, size_t *out_len, const char *key)
{
    const struct zlib_cfg *cfg = cfgp;
    z_stream zs = {0};
    int rc, ret;

    (void)ws;
    *out_len = 0;
    if (n > UINT_MAX) {
        LOG_KEY(key, "%s: compressed chunk of %zu bytes is too large for zlib", key, n);
        return GSVD_ECODEC;
    }
    zs.zalloc = zalloc_cb;
    zs.zfree = zfree_cb;
    zs.next_in = (Bytef *)(uintptr_t)src; /* zlib's API is not const-correct */
    zs.avail_in = (uInt)n;
    ret = inflateInit2(&zs, cfg->gzip ? WBITS_GZIP : WBITS_ZLIB);
    if (ret != Z_OK)
        return ret == Z_MEM_ERROR ? GSVD_ENOMEM : GSVD_EINTERNAL;
    rc = inflate_all(&zs, cfg, dst, cap, out_len, key);
    inflateEnd(&zs);
    return rc;
}

static int zlib_encode(const void *cfgp, gsvd_codec_ws *ws, const void *src, size_t n,
                       struct gsvd_buf *dst)
{
    int rc = GSVD_OK;
    const struct zlib_cfg *cfg = cfgp;
    z_stream zs = {0};
    int inited = 0;
    uLong bound;
    int ret;

    (void)ws;
    if (n > UINT_MAX / 2) {
        gsvd_log_error("chunk of %zu bytes is too large for zlib", n);
        return GSVD_EINVAL;
    }
    zs.zalloc = zalloc_cb;
    zs.zfree = zfree_cb;
    ret = deflateInit2(&zs, cfg->level, Z_DEFLATED, cfg->gzip ? WBITS_GZIP : WBITS_ZLIB, 8,
                       Z_DEFAULT_STRATEGY);
    if (ret != Z_OK) {
        rc = ret == Z_MEM_ERROR ? GSVD_ENOMEM : GSVD_EINTERNAL;
        goto out;
    }
    inited = 1;
    bound = deflateBound(&zs, (uLong)n);
    gsvd_buf_clear(dst);
    GSVD_TRY(gsvd_buf_reserve(dst, bound));
    zs.next_in = (Bytef *)(uintptr_t)src;
    zs.avail_in = (uInt)n;
    zs.next_out = (Bytef *)dst->data;
    zs.avail_out = (uInt)bound;
    ret = deflate(&zs, Z_FINISH);
    if (ret != Z_STREAM_END) {
        gsvd_log_error("%s compression failed (%d)", cfg->gzip ? "gzip" : "zlib", ret);
        rc = ret == Z_MEM_ERROR ? GSVD_ENOMEM : GSVD_EINTERNAL;
        goto out;
    }
    dst->len = zs.total_out;
out:
    if (inited)
        deflateEnd(&zs);
    return rc;
}

static void zlib_describe(const void *cfgp, char *buf, size_t len)
{
    const struct zlib_cfg *cfg = cfgp;

    snprintf(buf, len, "%s(%d)", cfg->gzip ? "gzip" : "zlib", cfg->level);
}

const struct gsvd_codec_ops gsvd_codec_zlib_ops = {
    .id = "zlib",
    .role = GSVD_CODEC_COMPRESSOR,
    .parse = zlib_parse,
    .free_cfg = zlib_free_cfg,
    .to_json = zlib_to_json,
    .decode = zlib_decode,
    .decoded_size = NULL,
    .encode = zlib_encode,
    .describe = zlib_describe,
};

const struct gsvd_codec_ops gsvd_codec_gzip_ops = {
    .id = "gzip",
    .role = GSVD_CODEC_COMPRESSOR,
    .parse = gzip_parse,
    .free_cfg = zlib_free_cfg,
    .to_json = zlib_to_json,
    .decode = zlib_decode,
    .decoded_size = NULL,
    .encode = zlib_encode,
    .describe = zlib_describe,
};
