/* zarr/codec.h - codec chains.  Zarr v2: optional filters, then an optional compressor.
 * A chain is parsed from .zarray by zarr/meta.c and owned by the array's metadata.  Decoding runs
 * the compressor, then the filters in reverse order; encoding runs the filters in order, then the
 * compressor.  Supported ids: compressors blosc (blosclz, lz4, lz4hc, zlib, zstd; shuffle
 * -1/0/1/2), zstd, zlib, gzip, lz4 (numcodecs framing); filters delta, crc32c and vlen-utf8.
 * Zarr v3 (gsvd_codec_chain_parse_v3, from zarr/meta_v3.c): the bytes -> bytes codecs after the
 * array -> bytes one, in order, each free to change the size; encoding runs them in order.
 * Thread safety: a chain is immutable after parsing and may be shared by threads; each thread
 * passes its own workspace (gsvd_codec_ws), which holds the codec contexts and scratch buffers. */
#ifndef GSVD_ZARR_CODEC_H
#define GSVD_ZARR_CODEC_H
#include <stddef.h>
#include <stdint.h>
#include "common/buf.h"
#include "zarr/dtype.h"
GSVD_EXTERN_C_BEGIN

typedef struct gsvd_codec_chain gsvd_codec_chain;
typedef struct gsvd_codec_ws gsvd_codec_ws;

/* Per-worker scratch (decompression contexts, intermediate buffers).  Caller owns; free with
 * gsvd_codec_ws_free.  GSVD_ENOMEM on failure. */
GSVD_NODISCARD int gsvd_codec_ws_new(gsvd_codec_ws **out);
void gsvd_codec_ws_free(gsvd_codec_ws *ws); /* accepts NULL */

/* Parse a chain from the JSON texts of .zarray's "compressor" and "filters" values (either may be
 * NULL or "null").  `dt` is the array dtype; `where` names the array in messages.  Returns
 * GSVD_OK and a new chain (caller owns; free with gsvd_codec_chain_free), or GSVD_EFORMAT
 * (malformed config), GSVD_EUNSUPPORTED (unknown id; the message lists the supported ids),
 * GSVD_ENOMEM.  Errors are logged. */
GSVD_NODISCARD int gsvd_codec_chain_parse_json(const char *compressor_json,
                                               const char *filters_json,
                                               const struct gsvd_dtype *dt, const char *where,
                                               gsvd_codec_chain **out);

/* A Zarr v3 chain: `codecs_json` is the JSON text of a list of the array's bytes -> bytes codecs
 * in zarr.json order (each {"name": ..., "configuration": {...}} or a bare name): blosc (v3
 * config: cname, clevel, shuffle "noshuffle"|"shuffle"|"bitshuffle", typesize, blocksize),
 * zstd (level, checksum), gzip (level), crc32c.  A codec gensvd does not know is skipped when
 * it says "must_understand": false and refused otherwise.  `vlen` makes a string chain (the
 * array -> bytes codec was vlen-utf8).  `prefix` (may be NULL; copied) describes the codecs
 * before these (e.g. "bytes(little)") for gsvd_codec_chain_describe.  Decoding runs the list
 * backwards, encoding forwards.  Returns GSVD_OK and a new
 * chain (caller owns; free with gsvd_codec_chain_free), or (logged, naming `where` and the
 * codec) GSVD_EFORMAT (malformed entry or configuration), GSVD_EUNSUPPORTED (unknown codec that
 * must be understood), GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_codec_chain_parse_v3(const char *codecs_json, int vlen, const char *prefix,
                                             const struct gsvd_dtype *dt, const char *where,
                                             gsvd_codec_chain **out);

/* CRC-32C (Castagnoli) of p[n], as Zarr v3's crc32c codec and shard indexes store it. */
uint32_t gsvd_crc32c(const void *p, size_t n);

/* gensvd's default output chain: blosc zstd level 5 with byte shuffle (bit shuffle for 1-byte
 * types), typesize from dt; for dtype 'O' the vlen-utf8 filter is added.  Caller owns. */
GSVD_NODISCARD int gsvd_codec_chain_default(const struct gsvd_dtype *dt, gsvd_codec_chain **out);

void gsvd_codec_chain_free(gsvd_codec_chain *c); /* accepts NULL */

/* 1 if the chain has a vlen-utf8 filter (object arrays of strings). */
int gsvd_codec_chain_is_vlen(const gsvd_codec_chain *c);

/* Decode one fixed-size chunk: src[n] -> exactly cap bytes at dst.  A decoded size other than
 * cap is GSVD_ECODEC; corrupt input is GSVD_ECODEC; both are logged naming `key`.
 * Trailing bytes after a complete blosc frame are tolerated (some writers add them). */
GSVD_NODISCARD int gsvd_codec_chain_decode(const gsvd_codec_chain *c, gsvd_codec_ws *ws,
                                           const void *src, size_t n, void *dst, size_t cap,
                                           const char *key);

/* Decode one vlen-utf8 chunk holding exactly n_items strings; appends them to *out.  A count
 * other than n_items, a length past the end, or invalid UTF-8 is GSVD_ECODEC (logged with key).
 * `max_bytes` bounds the decompressed size (hostile input). */
GSVD_NODISCARD int gsvd_codec_chain_decode_vlen(const gsvd_codec_chain *c, gsvd_codec_ws *ws,
                                                const void *src, size_t n, size_t n_items,
                                                size_t max_bytes, const char *key,
                                                struct gsvd_strlist *out);

/* Encode a fixed-size chunk of n bytes; replaces dst's contents.  May reallocate dst->data. */
GSVD_NODISCARD int gsvd_codec_chain_encode(const gsvd_codec_chain *c, gsvd_codec_ws *ws,
                                           const void *src, size_t n, struct gsvd_buf *dst);

/* Encode n_items strings as one vlen-utf8 chunk (the chain must be vlen); replaces dst. */
GSVD_NODISCARD int gsvd_codec_chain_encode_vlen(const gsvd_codec_chain *c, gsvd_codec_ws *ws,
                                                const char *const *items, size_t n_items,
                                                struct gsvd_buf *dst);

/* JSON texts for .zarray: "compressor" value and "filters" value (either may be "null").
 * Appended to the buffers. */
GSVD_NODISCARD int gsvd_codec_chain_to_json(const gsvd_codec_chain *c, struct gsvd_buf *compressor,
                                            struct gsvd_buf *filters);

/* The Zarr v3 bytes -> bytes codec entries (JSON objects, comma-separated, no brackets) that
 * encode as this v2 chain's compressor does: blosc (typesize, cname, clevel, shuffle as a word,
 * blocksize) or zstd (level, checksum false); nothing for "compressor": null.  A vlen-utf8
 * filter is the caller's array -> bytes codec and is left out.  Appended to dst.  Returns
 * GSVD_OK, GSVD_EUNSUPPORTED (logged: another filter or compressor), GSVD_EINVAL (a v3 chain),
 * GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_codec_chain_to_json_v3(const gsvd_codec_chain *c, struct gsvd_buf *dst);

/* Human description for `gensvd info`, e.g. "delta(<i4) | blosc(zstd:7, bitshuffle)" or
 * "none".  Always NUL-terminates buf. */
void gsvd_codec_chain_describe(const gsvd_codec_chain *c, char *buf, size_t len);

/* Comma-separated list of supported codec ids (compressors and filters) for --version and
 * error messages.  Static. */
const char *gsvd_codec_supported(void);

/* Process-wide set-up and tear-down of the compression libraries (c-blosc's global state).
 * Call once from main() before any thread starts and after the last one ends; cannot fail. */
void gsvd_codec_global_init(void);
void gsvd_codec_global_cleanup(void);

/* The linked compression libraries and their versions for --version, e.g. "c-blosc 1.21.3,
 * zstd 1.5.4, zlib 1.2.13, lz4 1.9.4".  Always NUL-terminates buf (len > 0). */
void gsvd_codec_library_versions(char *buf, size_t len);

GSVD_EXTERN_C_END
#endif /* GSVD_ZARR_CODEC_H */
