/* zarr/codec_chain.c - running a codec chain over chunks: fixed-size and vlen-utf8 decode and
 * encode.
 *
 *
 * Decoding runs the compressor, then the filters in reverse order.  Every supported filter
 * keeps the byte count (delta with astype == dtype), so every stage of a fixed-size chunk must
 * produce exactly `cap` bytes; intermediate stages ping-pong between the worker's two scratch
 * buffers and the last stage writes straight into the caller's memory.
 *
 * vlen-utf8 chunks have no size known in advance.  decode_vlen asks the compressor for the size
 * its frame records (blosc, lz4, zstd with a content size); when the frame does not record it
 * (zlib, gzip, streamed zstd) it decodes into a buffer that doubles up to `max_bytes`.  Those
 * trial decodes pass key == NULL, which by the convention of codec_*.c means "size
 * probe: return GSVD_ECODEC without logging"; the last attempt passes the real key, so a corrupt
 * chunk is still logged exactly once. */
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

/* What an intermediate stage of a v3 chain may hold when the final output is `n` bytes: the
 * input of a later decoder is an encoding of at most n bytes, which every supported codec keeps
 * within n / 8 + 64 KiB of overhead.  A hostile frame claiming more is refused before any
 * allocation of that size. */
static size_t stage_limit(size_t n)
{
    return n > SIZE_MAX / 2 ? SIZE_MAX : n + n / 8 + 65536;
}

/* ---- fixed-size chunks ------------------------------------------------------------------ */

/* Stage s of decoding: the compressor first, then the filters from last to first. */
static const struct gsvd_codec_stage *decode_stage(const gsvd_codec_chain *c, size_t s)
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
static int decode_grow(const struct gsvd_codec_stage *st, gsvd_codec_ws *ws, const void *src,
                       size_t n, size_t hint, size_t max_bytes, const char *key, struct gsvd_buf *b)
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
        const struct gsvd_codec_stage *st = &c->filters[c->n_filters - 1 - k];
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
        gsvd_log_error("internal error: %s: a vlen-utf8 array read as fixed-size chunks", key);
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
        const struct gsvd_codec_stage *st = decode_stage(c, s);
        void *outp = dst;
        size_t out_len = 0, want = cap;

        /* the size stage s must produce: cap, run back through the later stages' filters */
        for (size_t later = n_stages - 1; later > s; later--) {
            const struct gsvd_codec_stage *ls = decode_stage(c, later);
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
        const struct gsvd_codec_stage *st = &c->filters[i];

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
        gsvd_log_error("internal error: a vlen-utf8 array written as fixed-size chunks");
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
        gsvd_log_error("internal error: %s: a fixed-size array read as vlen-utf8 chunks", key);
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
        gsvd_log_error("internal error: a fixed-size array written as vlen-utf8 chunks");
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
