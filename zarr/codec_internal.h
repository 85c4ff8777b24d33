/* zarr/codec_internal.h - for codec*.c (and test_codec_blosc, fuzz_differential) only: the codec
 * vtable and the workspace.
 * Each codec_<name>.c defines one or more `const struct gsvd_codec_ops`; codec.c holds the one
 * static table of them; codec.c, codec_v3.c and codec_chain.c build and run chains
 * (codec_chain_internal.h). */
#ifndef GSVD_ZARR_CODEC_INTERNAL_H
#define GSVD_ZARR_CODEC_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "common/buf.h"
#include "zarr/codec.h"
#include "zarr/dtype.h"

enum gsvd_codec_role {
    GSVD_CODEC_COMPRESSOR = 1, /* bytes -> bytes, allowed as "compressor" */
    GSVD_CODEC_FILTER = 2,     /* bytes -> bytes, allowed in "filters" */
    GSVD_CODEC_VLEN = 3,       /* strings <-> bytes; only as the first filter of an |O array */
};

struct gsvd_codec_ops {
    const char *id; /* numcodecs id: "blosc", "zstd", "zlib", "gzip", "lz4", "delta", ... */
    enum gsvd_codec_role role;
    /* Parse the codec's JSON object (unknown extra keys are ignored, as numcodecs adds public
     * attributes over versions).  `dt` is the array dtype; `where` names the array for messages.
     * Returns GSVD_OK and a config in *cfg_out (owned by the chain; freed with free_cfg), or a
     * logged GSVD_EFORMAT / GSVD_EUNSUPPORTED / GSVD_ENOMEM. */
    int (*parse)(const cJSON *config, const struct gsvd_dtype *dt, const char *where,
                 void **cfg_out);
    void (*free_cfg)(void *cfg); /* accepts NULL */
    /* Emit the codec's JSON object as numcodecs writes it; caller owns *out. */
    int (*to_json)(const void *cfg, cJSON **out);
    /* Decode src[n] into dst; writes at most cap bytes and sets *out_len.  Output that would not
     * fit, or corrupt input, is GSVD_ECODEC logged with `key`.  Not used for GSVD_CODEC_VLEN. */
    int (*decode)(const void *cfg, gsvd_codec_ws *ws, const void *src, size_t n, void *dst,
                  size_t cap, size_t *out_len, const char *key);
    /* Optional (NULL if the format does not record it): the decoded size recorded in src.
     * GSVD_ENOTFOUND (not logged) when this frame does not record it; GSVD_ECODEC if corrupt. */
    int (*decoded_size)(const void *cfg, const void *src, size_t n, size_t *size);
    /* Encode src[n]; replaces dst's contents. */
    int (*encode)(const void *cfg, gsvd_codec_ws *ws, const void *src, size_t n,
                  struct gsvd_buf *dst);
    /* Short description for `gensvd info`, e.g. "blosc(zstd:5,bitshuffle)". */
    void (*describe)(const void *cfg, char *buf, size_t len);
    /* Optional, filters only (NULL: same size): the size this filter's encoded form has for
     * `decoded` bytes of input, e.g. delta with a narrower "astype".  codec_chain.c uses it to know
     * the exact size each decode stage must produce. */
    size_t (*encoded_size)(const void *cfg, size_t decoded);
};
/* A decode op called with key == NULL is a quiet size probe (codec_chain.c growing a buffer for a
 * vlen chunk): it returns GSVD_ECODEC without logging. */

/* One thread's scratch.  Contexts are created lazily by the codec that needs them. */
struct gsvd_codec_ws {
    void *zstd_dctx;        /* ZSTD_DCtx *, created on first zstd decode */
    void *zstd_cctx;        /* ZSTD_CCtx *, created on first zstd encode */
    struct gsvd_buf tmp[2]; /* ping-pong buffers between chain stages */
};

extern const struct gsvd_codec_ops gsvd_codec_blosc_ops;
extern const struct gsvd_codec_ops gsvd_codec_zstd_ops;
extern const struct gsvd_codec_ops gsvd_codec_zlib_ops;
extern const struct gsvd_codec_ops gsvd_codec_gzip_ops;
extern const struct gsvd_codec_ops gsvd_codec_lz4_ops;
extern const struct gsvd_codec_ops gsvd_codec_delta_ops;
extern const struct gsvd_codec_ops gsvd_codec_vlen_utf8_ops;
extern const struct gsvd_codec_ops gsvd_codec_crc32c_ops;

/* Undo Blosc's bit-shuffle of n one-byte elements (n a multiple of 8): output byte 8k + t, bit b =
 * input byte b (n / 8) + k, bit t.  level 0: portable; 1: SSE2 where built; 2: AVX-512BW + GFNI
 * where the CPU has them (else as 1).  Every level gives the same bytes (tests compare them). */
void gsvd_blosc_bitunshuffle1(const uint8_t *in, uint8_t *out, size_t n, int level);

/* (codec_json.c) Integer member of a codec config: present, integral, within [lo, hi].  Absent:
 * *out = dflt and GSVD_OK when `required` is 0.  Logged GSVD_EFORMAT otherwise. */
int gsvd_codec_json_int(const cJSON *config, const char *name, long long lo, long long hi,
                        int required, long long dflt, const char *where, long long *out);

#endif /* GSVD_ZARR_CODEC_INTERNAL_H */
