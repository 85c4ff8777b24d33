/* zarr/meta_fill.c - the "fill_value" of a Zarr array: parsed for its dtype (integers
 * exactly, from the text when beyond 2^53; NaN and infinities as strings; base64 bytes; UCS-4
 * strings) by the v2 and v3 parsers, and written back by gsvd_zarray_emit. */
#include "gsvd_config.h"
#include "zarr/meta.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/textnum.h"
#include "zarr/meta_internal.h"

static int b64_value(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

/* Decode standard base64 into at most cap bytes; -1 if not valid base64 or too long. */
static long b64_decode(const char *s, unsigned char *dst, size_t cap)
{
    size_t len = strlen(s), o = 0;
    unsigned acc = 0;
    int bits = 0;

    while (len > 0 && s[len - 1] == '=')
        len--;
    for (size_t i = 0; i < len; i++) {
        int v = b64_value((unsigned char)s[i]);
        if (v < 0)
            return -1;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o >= cap)
                return -1;
            dst[o++] = (unsigned char)((acc >> bits) & 0xff);
        }
    }
    return (long)o;
}

/* Store an integer fill value in native order; range-checked against the dtype. */
static int fill_int(struct gsvd_zarray *z, double d, const char *where)
{
    const struct gsvd_dtype *dt = &z->dtype;
    int bits = (int)dt->size * 8;

    if (!isfinite(d) || d != floor(d))
        goto bad;
    if (dt->kind == 'i') {
        double lo = -ldexp(1.0, bits - 1), hi = ldexp(1.0, bits - 1);
        if (d < lo || d >= hi)
            goto bad;
        int64_t v = (int64_t)d;
        switch (dt->size) {
        case 1: {
            int8_t x = (int8_t)v;
            memcpy(z->fill, &x, 1);
            break;
        }
        case 2: {
            int16_t x = (int16_t)v;
            memcpy(z->fill, &x, 2);
            break;
        }
        case 4: {
            int32_t x = (int32_t)v;
            memcpy(z->fill, &x, 4);
            break;
        }
        default:
            memcpy(z->fill, &v, 8);
            break;
        }
    } else {
        if (d < 0 || d >= ldexp(1.0, bits))
            goto bad;
        uint64_t v = (uint64_t)d;
        switch (dt->size) {
        case 1: {
            uint8_t x = (uint8_t)v;
            memcpy(z->fill, &x, 1);
            break;
        }
        case 2: {
            uint16_t x = (uint16_t)v;
            memcpy(z->fill, &x, 2);
            break;
        }
        case 4: {
            uint32_t x = (uint32_t)v;
            memcpy(z->fill, &x, 4);
            break;
        }
        default:
            memcpy(z->fill, &v, 8);
            break;
        }
    }
    return GSVD_OK;
bad:
    gsvd_log_error("%s: fill_value %.17g does not fit dtype %c%zu", where, d, dt->kind, dt->size);
    return GSVD_EFORMAT;
}

static int fill_float(struct gsvd_zarray *z, double d)
{
    if (z->dtype.size == 2) {
        uint16_t h = gsvd_half_from_double(d);
        memcpy(z->fill, &h, 2);
    } else if (z->dtype.size == 4) {
        float f = (float)d;
        memcpy(z->fill, &f, 4);
    } else {
        memcpy(z->fill, &d, 8);
    }
    return GSVD_OK;
}

/* UTF-8 text into UCS-4 little-endian, zero-padded to size bytes. */
static int fill_ucs4(struct gsvd_zarray *z, const char *s, const char *where)
{
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t cp;
        int n;
        if (*p < 0x80) {
            cp = *p;
            n = 1;
        } else if ((*p & 0xe0) == 0xc0) {
            cp = *p & 0x1fu;
            n = 2;
        } else if ((*p & 0xf0) == 0xe0) {
            cp = *p & 0x0fu;
            n = 3;
        } else if ((*p & 0xf8) == 0xf0) {
            cp = *p & 0x07u;
            n = 4;
        } else {
            goto bad;
        }
        for (int i = 1; i < n; i++) {
            if ((p[i] & 0xc0) != 0x80)
                goto bad;
            cp = (cp << 6) | (p[i] & 0x3fu);
        }
        if (o + 4 > z->dtype.size)
            goto bad;
        for (int i = 0; i < 4; i++)
            z->fill[o + (size_t)i] = (unsigned char)(cp >> (8 * i));
        o += 4;
        p += n;
    }
    return GSVD_OK;
bad:
    gsvd_log_error("%s: fill_value is not valid text of at most %zu characters", where,
                   z->dtype.size / 4);
    return GSVD_EFORMAT;
}

/* Exact 64-bit integer fill values: cJSON keeps numbers as doubles (exact only to 2^53), so
 * large values are re-read from the text of the "fill_value" member of `root` (parsed from
 * json[0, n)). */
static int fill_int_exact(struct gsvd_zarray *z, const cJSON *root, const cJSON *item,
                          const char *json, size_t n, const char *where)
{
    size_t idx = gsvd_meta_child_index(root, item), cnt = (size_t)cJSON_GetArraySize(root);
    const char **vs = gsvd_malloc((cnt ? cnt : 1) * sizeof *vs);
    const char **ve = gsvd_malloc((cnt ? cnt : 1) * sizeof *ve);
    char tok[32];
    size_t len;
    int rc = GSVD_OK;

    if (!vs || !ve) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (gsvd_meta_object_spans(json, json + n, vs, ve, cnt) != cnt || idx >= cnt)
        goto bad;
    len = (size_t)(ve[idx] - vs[idx]);
    if (len == 0 || len >= sizeof tok)
        goto bad;
    memcpy(tok, vs[idx], len);
    tok[len] = '\0';
    for (size_t i = 0; i < len; i++)
        if (!(tok[i] == '-' && i == 0) && !(tok[i] >= '0' && tok[i] <= '9'))
            goto bad;
    errno = 0;
    if (z->dtype.kind == 'u') {
        if (tok[0] == '-')
            goto bad;
        unsigned long long u = strtoull(tok, NULL, 10);
        if (errno || (z->dtype.size < 8 && u >> (8 * z->dtype.size)))
            goto bad;
        memcpy(z->fill, &u, z->dtype.size);
    } else {
        long long i = strtoll(tok, NULL, 10);
        if (errno || z->dtype.size < 8)
            goto bad;
        memcpy(z->fill, &i, 8);
    }
    goto out;
bad:
    gsvd_log_error("%s: fill_value does not fit dtype %c%zu", where, z->dtype.kind, z->dtype.size);
    rc = GSVD_EFORMAT;
out:
    gsvd_free(vs);
    gsvd_free(ve);
    return rc;
}

int gsvd_meta_parse_fill(struct gsvd_zarray *z, const cJSON *root, const char *json, size_t n,
                         const char *where)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "fill_value");
    const struct gsvd_dtype *dt = &z->dtype;

    if (dt->kind == 'O') {
        /* zarr-python 2 writes 0 for vlen-utf8 arrays, meaning "" */
        z->fill_str = gsvd_strdup(cJSON_IsString(v) ? v->valuestring : "");
        return z->fill_str ? GSVD_OK : GSVD_ENOMEM;
    }
    z->fill = gsvd_calloc(1, dt->size);
    if (!z->fill)
        return GSVD_ENOMEM;
    if (!v || cJSON_IsNull(v)) {
        z->has_fill = 0; /* absent is accepted as null, as zarr-python 3 does */
        return GSVD_OK;
    }
    z->has_fill = 1;
    switch (dt->kind) {
    case 'b':
        if (cJSON_IsBool(v))
            z->fill[0] = cJSON_IsTrue(v) ? 1 : 0;
        else if (cJSON_IsNumber(v) && (v->valuedouble == 0 || v->valuedouble == 1))
            z->fill[0] = v->valuedouble != 0;
        else
            break;
        return GSVD_OK;
    case 'i':
    case 'u':
        if (cJSON_IsNumber(v) && fabs(v->valuedouble) >= GSVD_META_MAX_EXACT_INT)
            return fill_int_exact(z, root, v, json, n, where);
        if (cJSON_IsNumber(v))
            return fill_int(z, v->valuedouble, where);
        if (cJSON_IsBool(v))
            return fill_int(z, cJSON_IsTrue(v) ? 1 : 0, where);
        break;
    case 'f':
        if (cJSON_IsNumber(v))
            return fill_float(z, v->valuedouble);
        if (cJSON_IsString(v)) {
            if (strcmp(v->valuestring, "NaN") == 0)
                return fill_float(z, NAN);
            if (strcmp(v->valuestring, "Infinity") == 0)
                return fill_float(z, INFINITY);
            if (strcmp(v->valuestring, "-Infinity") == 0)
                return fill_float(z, -INFINITY);
        }
        break;
    case 'S':
        if (cJSON_IsString(v)) {
            /* base64 of the raw bytes; legacy writers stored the text itself */
            if (b64_decode(v->valuestring, z->fill, dt->size) < 0) {
                size_t len = strlen(v->valuestring);
                memcpy(z->fill, v->valuestring, len < dt->size ? len : dt->size);
            }
            return GSVD_OK;
        }
        if (cJSON_IsNumber(v) && v->valuedouble == 0)
            return GSVD_OK;
        break;
    case 'U':
        if (cJSON_IsString(v))
            return fill_ucs4(z, v->valuestring, where);
        if (cJSON_IsNumber(v) && v->valuedouble == 0)
            return GSVD_OK;
        break;
    default:
        break;
    }
    gsvd_log_error("%s: fill_value has the wrong type for dtype %c%zu", where, dt->kind, dt->size);
    return GSVD_EFORMAT;
}

static int emit_base64(struct gsvd_buf *b, const unsigned char *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    int rc = gsvd_buf_puts(b, "\"");
    for (size_t i = 0; rc >= 0 && i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        char q[4] = {tab[(v >> 18) & 63], tab[(v >> 12) & 63], i + 1 < n ? tab[(v >> 6) & 63] : '=',
                     i + 2 < n ? tab[v & 63] : '='};
        rc = gsvd_buf_append(b, q, 4);
    }
    return rc < 0 ? rc : gsvd_buf_puts(b, "\"");
}

/* UCS-4 (native order) fill as a JSON string, trailing NULs cut. */
static int emit_ucs4(struct gsvd_buf *b, const unsigned char *p, size_t size)
{
    struct gsvd_buf utf8 = GSVD_BUF_INIT;
    size_t n = size / 4;
    int rc = GSVD_OK;
    uint32_t c;

    while (n > 0 && (memcpy(&c, p + 4 * (n - 1), 4), c == 0))
        n--;
    GSVD_TRY(gsvd_buf_append(&utf8, "", 0));
    for (size_t i = 0; i < n; i++) {
        unsigned char u[4];
        size_t k;
        memcpy(&c, p + 4 * i, 4);
        k = gsvd_utf8_encode(c, u);
        if (k == 0) {
            rc = GSVD_EINVAL;
            goto out;
        }
        GSVD_TRY(gsvd_buf_append(&utf8, u, k));
    }
    rc = gsvd_json_quote(b, utf8.data);
out:
    gsvd_buf_free(&utf8);
    return rc;
}

/* Fill value as JSON text, as zarr-python writes it (meta_internal.h). */
int gsvd_meta_emit_fill(const struct gsvd_zarray *z, struct gsvd_buf *b)
{
    const struct gsvd_dtype *dt = &z->dtype;
    if (dt->kind == 'O') /* "" as bio2zarr and zarr-python 3 write it (zarr-python 2 wrote 0) */
        return gsvd_json_quote(b, z->fill_str ? z->fill_str : "");
    if (!z->has_fill)
        return gsvd_buf_puts(b, "null");
    switch (dt->kind) {
    case 'b':
        return gsvd_buf_puts(b, z->fill[0] ? "true" : "false");
    case 'i': {
        int64_t v = 0;
        if (dt->size == 1) {
            int8_t x;
            memcpy(&x, z->fill, 1);
            v = x;
        } else if (dt->size == 2) {
            int16_t x;
            memcpy(&x, z->fill, 2);
            v = x;
        } else if (dt->size == 4) {
            int32_t x;
            memcpy(&x, z->fill, 4);
            v = x;
        } else
            memcpy(&v, z->fill, 8);
        return gsvd_buf_printf(b, "%lld", (long long)v);
    }
    case 'u': {
        uint64_t v = 0;
        memcpy(&v, z->fill, dt->size); /* little-endian host */
        return gsvd_buf_printf(b, "%llu", (unsigned long long)v);
    }
    case 'f': {
        double d;
        if (dt->size == 2) {
            uint16_t h;
            memcpy(&h, z->fill, 2);
            d = gsvd_half_to_double(h);
        } else if (dt->size == 4) {
            float f;
            memcpy(&f, z->fill, 4);
            d = f;
        } else {
            memcpy(&d, z->fill, 8);
        }
        if (isnan(d))
            return gsvd_buf_puts(b, "\"NaN\"");
        if (isinf(d))
            return gsvd_buf_puts(b, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        return gsvd_buf_printf(b, "%.17g", d);
    }
    case 'S':
        return emit_base64(b, z->fill, dt->size);
    case 'U':
        return emit_ucs4(b, z->fill, dt->size);
    default:
        return gsvd_buf_puts(b, "null");
    }
}
