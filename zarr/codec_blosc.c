/* zarr/codec_blosc.c - numcodecs "blosc" through c-blosc 1.x, context API only (the plain API
 * holds a process-wide lock and reads environment variables).
 * c-blosc 1.x trusts the cbytes field of the 16-byte header, so decode checks the header against
 * the real chunk length before handing it over: that is blosc_cbuffer_validate's check, relaxed
 * to cbytes <= n because some writers pad chunks (z5py added 16 zero bytes). */
#include "gsvd_config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <blosc.h>
#include <cjson/cJSON.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/codec_internal.h"

/* Decoders log only when given a key; key == NULL is codec.c's quiet size probe. */
#define LOG_KEY(key, ...)                                                                          \
    do {                                                                                           \
        if (key)                                                                                   \
            gsvd_log_error(__VA_ARGS__);                                                           \
    } while (0)

#define BLOSC_HEADER 16

struct blosc_cfg {
    char cname[8];   /* blosclz, lz4, lz4hc, snappy, zlib, zstd */
    int clevel;      /* 0..9 */
    int shuffle;     /* -1 auto, 0 none, 1 byte, 2 bit: as written in JSON */
    int blocksize;   /* bytes; 0 = automatic */
    size_t typesize; /* numpy itemsize of the encoded buffer; 1 when over 255 */
};

static uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int cname_ok(const char *cname, const char *where)
{
    static const char *const names[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};

    for (size_t i = 0; i < GSVD_ARRAY_LEN(names); i++)
        if (strcmp(cname, names[i]) == 0)
            return GSVD_OK;
    if (strcmp(cname, "snappy") == 0) {
        if (blosc_get_complib_info("snappy", NULL, NULL) >= 0)
            return GSVD_OK;
        gsvd_log_error("%s: blosc cname 'snappy' not supported: this c-blosc lacks snappy", where);
        return GSVD_EUNSUPPORTED;
    }
    gsvd_log_error("%s: blosc cname '%s' is none of blosclz, lz4, lz4hc, snappy, zlib, zstd", where,
                   cname);
    return GSVD_EFORMAT;
}

/* Keys absent from the config take numcodecs' defaults (lz4, 5, byte shuffle, automatic). */
static int blosc_parse(const cJSON *config, const struct gsvd_dtype *dt, const char *where,
                       void **cfg_out)
{
    int rc = GSVD_OK;
    const cJSON *cname = cJSON_GetObjectItemCaseSensitive(config, "cname");
    struct blosc_cfg *cfg = NULL;
    long long clevel, shuffle, blocksize;

    *cfg_out = NULL;
    if (cname && (!cJSON_IsString(cname) || strlen(cname->valuestring) >= sizeof cfg->cname)) {
        gsvd_log_error("%s: blosc \"cname\" is not a compressor name", where);
        return GSVD_EFORMAT;
    }
    GSVD_TRY(cname_ok(cname ? cname->valuestring : "lz4", where));
    GSVD_TRY(gsvd_codec_json_int(config, "clevel", 0, 9, 0, 5, where, &clevel));
    GSVD_TRY(gsvd_codec_json_int(config, "shuffle", -1, 2, 0, 1, where, &shuffle));
    GSVD_TRY(gsvd_codec_json_int(config, "blocksize", 0, INT_MAX, 0, 0, where, &blocksize));
    cfg = gsvd_calloc(1, sizeof *cfg);
    if (!cfg) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    snprintf(cfg->cname, sizeof cfg->cname, "%s", cname ? cname->valuestring : "lz4");
    cfg->clevel = (int)clevel;
    cfg->shuffle = (int)shuffle;
    cfg->blocksize = (int)blocksize;
    /* vlen-utf8 output is a byte buffer; c-blosc 1.x treats typesizes over 255 as 1 */
    cfg->typesize = dt->kind == 'O' || dt->size > BLOSC_MAX_TYPESIZE ? 1 : dt->size;
    *cfg_out = cfg;
out:
    return rc;
}

static void blosc_free_cfg(void *cfg)
{
    gsvd_free(cfg);
}

static int blosc_to_json(const void *cfgp, cJSON **out)
{
    const struct blosc_cfg *cfg = cfgp;
    cJSON *o = cJSON_CreateObject();

    *out = NULL;
    if (!o || !cJSON_AddNumberToObject(o, "blocksize", cfg->blocksize) ||
        !cJSON_AddNumberToObject(o, "clevel", cfg->clevel) ||
        !cJSON_AddStringToObject(o, "cname", cfg->cname) ||
        !cJSON_AddStringToObject(o, "id", "blosc") ||
        !cJSON_AddNumberToObject(o, "shuffle", cfg->shuffle)) {
        cJSON_Delete(o);
        gsvd_log_error("out of memory building blosc JSON");
        return GSVD_ENOMEM;
    }
    *out = o;
    return GSVD_OK;
}

/* Check the header against the chunk: 16 <= cbytes <= n, nbytes within the output. */
static int check_header(const unsigned char *p, size_t n, size_t cap, const char *key,
                        uint32_t *nbytes)
{
    uint32_t cbytes;

    if (n < BLOSC_HEADER) {
        LOG_KEY(key, "%s: blosc header truncated (%zu of 16 bytes)", key, n);
        return GSVD_ECODEC;
    }
    *nbytes = load_le32(p + 4);
    cbytes = load_le32(p + 12);
    if (cbytes < BLOSC_HEADER || cbytes > n) {
        LOG_KEY(key, "%s: blosc header claims %lu compressed bytes, chunk has %zu", key,
                (unsigned long)cbytes, n);
        return GSVD_ECODEC;
    }
    if (*nbytes > BLOSC_MAX_BUFFERSIZE ||
        ((p[2] & BLOSC_MEMCPYED) && cbytes - BLOSC_HEADER < *nbytes)) {
        LOG_KEY(key, "%s: blosc header is inconsistent (nbytes %lu, cbytes %lu)", key,
                (unsigned long)*nbytes, (unsigned long)cbytes);
        return GSVD_ECODEC;
    }
    if (*nbytes > cap) {
        LOG_KEY(key, "%s: blosc frame holds %lu bytes, more than the %zu expected", key,
                (unsigned long)*nbytes, cap);
        return GSVD_ECODEC;
    }
    return GSVD_OK;
}

static int blosc_decode(const void *cfg, gsvd_codec_ws *ws, const void *src, size_t n, void *dst,
                        size_t cap, size_t *out_len, const char *key)
{
    int rc;
    uint32_t nbytes = 0;
    int got;

    (void)cfg;
    (void)ws;
    *out_len = 0;
    rc = check_header(src, n, cap, key, &nbytes);
    if (rc < 0)
        return rc;
    if (nbytes == 0)
        return GSVD_OK;
    got = blosc_decompress_ctx(src, dst, cap, 1);
    if (got <= 0 || (uint32_t)got != nbytes) {
        LOG_KEY(key, "%s: blosc decompression failed (%d)", key, got);
        return GSVD_ECODEC;
    }
    *out_len = (size_t)got;
    return GSVD_OK;
}

static int blosc_decoded_size(const void *cfg, const void *src, size_t n, size_t *size)
{
    uint32_t nbytes = 0;
    int rc;

    (void)cfg;
    rc = check_header(src, n, SIZE_MAX, NULL, &nbytes);
    if (rc < 0)
        return rc;
    *size = nbytes;
    return GSVD_OK;
}

static int blosc_encode(const void *cfgp, gsvd_codec_ws *ws, const void *src, size_t n,
                        struct gsvd_buf *dst)
{
    int rc = GSVD_OK;
    const struct blosc_cfg *cfg = cfgp;
    int shuffle = cfg->shuffle;
    int got;

    (void)ws;
    if (n > BLOSC_MAX_BUFFERSIZE) {
        gsvd_log_error("chunk of %zu bytes exceeds blosc's limit of %d bytes", n,
                       BLOSC_MAX_BUFFERSIZE);
        return GSVD_EINVAL;
    }
    if (shuffle == -1) /* numcodecs AUTOSHUFFLE */
        shuffle = cfg->typesize == 1 ? BLOSC_BITSHUFFLE : BLOSC_SHUFFLE;
    gsvd_buf_clear(dst);
    GSVD_TRY(gsvd_buf_reserve(dst, n + BLOSC_MAX_OVERHEAD));
    got = blosc_compress_ctx(cfg->clevel, shuffle, cfg->typesize, n, src, dst->data,
                             n + BLOSC_MAX_OVERHEAD, cfg->cname, (size_t)cfg->blocksize, 1);
    if (got <= 0) {
        gsvd_log_error("blosc compression failed (%d)", got);
        rc = GSVD_ECODEC;
        goto out;
    }
    dst->len = (size_t)got;
out:
    return rc;
}

static void blosc_describe(const void *cfgp, char *buf, size_t len)
{
    static const char *const shuffles[] = {"autoshuffle", "noshuffle", "shuffle", "bitshuffle"};
    const struct blosc_cfg *cfg = cfgp;

    snprintf(buf, len, "blosc(%s:%d, %s)", cfg->cname, cfg->clevel, shuffles[cfg->shuffle + 1]);
}

const struct gsvd_codec_ops gsvd_codec_blosc_ops = {
    .id = "blosc",
    .role = GSVD_CODEC_COMPRESSOR,
    .parse = blosc_parse,
    .free_cfg = blosc_free_cfg,
    .to_json = blosc_to_json,
    .decode = blosc_decode,
    .decoded_size = blosc_decoded_size,
    .encode = blosc_encode,
    .describe = blosc_describe,
};
