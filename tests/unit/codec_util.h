/* tests/unit/codec_util.h - helpers shared by the zarr/ codec tests (test_codec,
 * test_codec_vlen, test_codec_config): dtypes and chains from strings, compressible test bytes,
 * and encode/decode round trips.  Include after gsvd_test.h. */
#ifndef GSVD_TESTS_UNIT_CODEC_UTIL_H
#define GSVD_TESTS_UNIT_CODEC_UTIL_H
#include "gsvd_config.h"

#include <stdint.h>
#include <string.h>

#include "common/alloc.h"
#include "common/buf.h"
#include "common/err.h"
#include "tests/gsvd_test.h"
#include "zarr/codec.h"
#include "zarr/dtype.h"

#define N_BYTES 4096

static inline struct gsvd_dtype dtype_of(const char *s)
{
    struct gsvd_dtype dt = {0, 0, 0};
    int rc = gsvd_dtype_parse(s, &dt);

    GSVD_CHECK(rc == GSVD_OK);
    return dt;
}

/* Parse a chain for dtype `ts`; returns the rc, chain in *out (NULL on failure). */
static inline int chain_of(const char *comp, const char *filters, const char *ts,
                           gsvd_codec_chain **out)
{
    struct gsvd_dtype dt = dtype_of(ts);
    return gsvd_codec_chain_parse_json(comp, filters, &dt, "t/.zarray", out);
}

/* Compressible pseudo-random bytes. */
static inline void fill(unsigned char *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (unsigned char)((x >> 16) % 7 + (i / 64));
    }
}

/* n bytes of small integral floats of `size` bytes, in the given byte order. */
static inline void fill_floats(unsigned char *p, size_t n, size_t size, int big)
{
    for (size_t i = 0; i + size <= n; i += size) {
        unsigned char b[8];
        if (size == 4) {
            float f = (float)((i * 7) % 101) - 50.0f;
            memcpy(b, &f, 4);
        } else {
            double d = (double)((i * 7) % 101) - 50.0;
            memcpy(b, &d, 8);
        }
        for (size_t k = 0; k < size; k++)
            p[i + k] = b[big ? size - 1 - k : k];
    }
}

/* Encode src[n] with the chain and decode it back; 1 when the bytes agree. */
static inline int roundtrip(const gsvd_codec_chain *c, gsvd_codec_ws *ws, const void *src, size_t n)
{
    struct gsvd_buf enc = GSVD_BUF_INIT;
    unsigned char *dec = gsvd_malloc(n ? n : 1);
    int ok = dec && gsvd_codec_chain_encode(c, ws, src, n, &enc) == GSVD_OK &&
             gsvd_codec_chain_decode(c, ws, enc.data, enc.len, dec, n, "t/0") == GSVD_OK &&
             (n == 0 || memcmp(dec, src, n) == 0);

    gsvd_free(dec);
    gsvd_buf_free(&enc);
    return ok;
}

static inline int encode_with(const char *comp, const char *filters, const char *ts,
                              const void *src, size_t n, gsvd_codec_ws *ws, struct gsvd_buf *out)
{
    gsvd_codec_chain *c = NULL;
    int rc = chain_of(comp, filters, ts, &c);

    if (rc == GSVD_OK)
        rc = gsvd_codec_chain_encode(c, ws, src, n, out);
    gsvd_codec_chain_free(c);
    return rc;
}

static inline int decode_with(const char *comp, const char *filters, const char *ts,
                              const void *src, size_t n, void *dst, size_t cap, gsvd_codec_ws *ws)
{
    gsvd_codec_chain *c = NULL;
    int rc = chain_of(comp, filters, ts, &c);

    if (rc == GSVD_OK)
        rc = gsvd_codec_chain_decode(c, ws, src, n, dst, cap, "t/0");
    gsvd_codec_chain_free(c);
    return rc;
}

#endif /* GSVD_TESTS_UNIT_CODEC_UTIL_H */
