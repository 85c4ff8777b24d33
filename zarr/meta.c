/* zarr/meta.c - parse, validate and emit Zarr v2 metadata documents with cJSON.
 * Everything here reads hostile input: numbers must be integral and in range before they are
 * converted, products are overflow-checked, and each error names the document and member. */
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
#include "zarr/store.h"

void gsvd_meta_global_init(void)
{
    cJSON_Hooks hooks = {gsvd_malloc, gsvd_free};
    cJSON_InitHooks(&hooks);
}

#define MAX_EXACT_INT 9007199254740992.0 /* 2^53: larger JSON integers are inexact in cJSON */

/* Replace bare NaN / Infinity / -Infinity tokens outside strings with null: zarr-python writes
 * them into .zattrs although they are not JSON.  Returns GSVD_OK with the new text in *out
 * (NUL-terminated, length in out->len; caller frees), or GSVD_ENOMEM. */
static int nullify_nonfinite(const char *s, size_t n, struct gsvd_buf *out)
{
    int in_str = 0, rc = GSVD_OK;

    GSVD_TRY(gsvd_buf_append(out, "", 0)); /* allocated and terminated even when n == 0 */
    for (size_t i = 0; i < n; i++) {
        const char *t = s + i;
        size_t left = n - i, skip = 0;
        if (in_str) {
            if (*t == '\\' && left > 1) {
                GSVD_TRY(gsvd_buf_append(out, t, 2));
                i++;
                continue;
            }
            if (*t == '"')
                in_str = 0;
        } else if (*t == '"') {
            in_str = 1;
        } else if (left >= 3 && memcmp(t, "NaN", 3) == 0) {
            skip = 3;
        } else if (left >= 8 && memcmp(t, "Infinity", 8) == 0) {
            skip = 8;
        } else if (left >= 9 && memcmp(t, "-Infinity", 9) == 0) {
            skip = 9;
        }
        if (skip) {
            GSVD_TRY(gsvd_buf_puts(out, "null"));
            i += skip - 1;
            continue;
        }
        GSVD_TRY(gsvd_buf_append(out, t, 1));
    }
out:
    return rc;
}

static const char *skip_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* Offset of the first byte in text[0, n) that cannot be parsed alike everywhere: a control byte
 * (below 0x20, other than tab, LF and CR; JSON allows none, inside strings or out) or the escape
 * \u0000 (a string holding a NUL); n if there is none.  cJSON skips every byte up to 0x20 as
 * whitespace and ends its strings at a NUL, so without this check such a document was accepted,
 * and text copied out of it (the .zmetadata documents, fill values, keys) then differed from what
 * cJSON saw: a C string stops at the NUL. */
static size_t find_control(const char *text, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            return i;
        if (c == '\\' && i + 1 < n) {
            if (n - i >= 6 && memcmp(text + i + 1, "u0000", 5) == 0)
                return i;
            i++; /* the escaped character: "\\u0000" is a backslash and text */
        }
    }
    return n;
}

/* Parse exactly one JSON value in text[0, n) (surrounding whitespace allowed).  On failure *at is
 * the byte offset of the error; GSVD_ENOMEM if cJSON ran out of memory.  A control byte
 * (find_control) anywhere in the text is GSVD_EFORMAT before cJSON sees it. */
static int parse_exact(const char *text, size_t n, cJSON **out, size_t *at)
{
    const char *end = NULL;
    unsigned long failed;
    cJSON *root;

    *out = NULL;
    *at = find_control(text, n);
    if (*at < n)
        return GSVD_EFORMAT;
    failed = gsvd_alloc_failures();
    root = cJSON_ParseWithLengthOpts(text, n, &end, 0);
    *at = end && end >= text && end <= text + n ? (size_t)(end - text) : 0;
    if (!root)
        return gsvd_alloc_failures() != failed ? GSVD_ENOMEM : GSVD_EFORMAT;
    if (end && end >= text && end <= text + n) {
        end = skip_ws(end, text + n);
        if (end < text + n) {
            *at = (size_t)(end - text);
            cJSON_Delete(root);
            return GSVD_EFORMAT;
        }
    }
    *out = root;
    return GSVD_OK;
}

/* Parse a metadata document.  `lenient`: if the text is not JSON only because of bare NaN or
 * Infinity, accept it with those values as null; then *fixed (when not NULL) receives the text
 * actually parsed (caller frees it with gsvd_buf_free), else it is left empty. */
int gsvd_meta_parse_json(const char *json, size_t n, const char *where, int lenient, cJSON **out,
                         struct gsvd_buf *fixed)
{
    struct gsvd_buf alt = GSVD_BUF_INIT;
    size_t at = find_control(json, n), alt_at;
    int rc;

    if (at < n) {
        gsvd_log_error("%s: invalid JSON at byte %zu: %s", where, at,
                       json[at] == '\\' ? "\\u0000 (NUL) in a string" : "control character");
        *out = NULL;
        return GSVD_EFORMAT;
    }
    rc = parse_exact(json, n, out, &at);

    if (rc == GSVD_EFORMAT && lenient) {
        rc = nullify_nonfinite(json, n, &alt);
        if (rc == GSVD_OK)
            rc = parse_exact(alt.data, alt.len, out, &alt_at);
        if (rc == GSVD_OK && fixed) {
            *fixed = alt;
            alt = (struct gsvd_buf)GSVD_BUF_INIT;
        }
    }
    gsvd_buf_free(&alt);
    if (rc == GSVD_EFORMAT)
        gsvd_log_error("%s: invalid JSON at byte %zu", where, at);
    return rc;
}

static int parse_json(const char *json, size_t n, const char *where, int lenient, cJSON **out)
{
    return gsvd_meta_parse_json(json, n, where, lenient, out, NULL);
}

/* ---- raw spans of values in text that cJSON has accepted -----------------------------------
 * cJSON keeps numbers as doubles; where exact text matters (64-bit fill values, documents
 * copied out of .zmetadata) we take the value's bytes from the text itself.  Members are
 * paired with cJSON's children by position, which is text order. */
static const char *skip_string(const char *p, const char *e)
{
    for (p++; p < e && *p != '"'; p++)
        if (*p == '\\')
            p++;
    return p < e ? p + 1 : e;
}

static const char *skip_value(const char *p, const char *e)
{
    int depth = 0;
    if (p < e && *p == '"')
        return skip_string(p, e);
    if (p < e && (*p == '{' || *p == '[')) {
        while (p < e) {
            if (*p == '"') {
                p = skip_string(p, e);
                continue;
            }
            if (*p == '{' || *p == '[')
                depth++;
            else if ((*p == '}' || *p == ']') && --depth == 0)
                return p + 1;
            p++;
        }
        return e;
    }
    while (p < e && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' && *p != '\n' &&
           *p != '\r')
        p++;
    return p;
}

size_t gsvd_meta_object_spans(const char *p, const char *e, const char **vs, const char **ve,
                              size_t max)
{
    size_t i = 0;
    p = skip_ws(p, e);
    if (p >= e || *p != '{')
        return 0;
    for (p++; i < max;) {
        p = skip_ws(p, e);
        if (p >= e || *p != '"')
            break;
        p = skip_ws(skip_string(p, e), e);
        if (p >= e || *p != ':')
            break;
        p = skip_ws(p + 1, e);
        vs[i] = p;
        p = skip_value(p, e);
        ve[i++] = p;
        p = skip_ws(p, e);
        if (p < e && *p == ',')
            p++;
    }
    return i;
}

size_t gsvd_meta_child_index(const cJSON *obj, const cJSON *item)
{
    size_t i = 0;
    for (const cJSON *c = obj->child; c && c != item; c = c->next)
        i++;
    return i;
}

/* A JSON number that is an integer in [lo, hi] (and exactly representable). */
static int json_uint(const cJSON *v, double hi, uint64_t *out)
{
    double d;
    if (!cJSON_IsNumber(v))
        return GSVD_EFORMAT;
    d = v->valuedouble;
    if (!isfinite(d) || d != floor(d) || d < 0 || d > hi || d > MAX_EXACT_INT)
        return GSVD_EFORMAT;
    *out = (uint64_t)d;
    return GSVD_OK;
}

int gsvd_meta_parse_dims(const cJSON *root, const char *name, const char *where, uint64_t *dims,
                         size_t *ndim, int min_value)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, name);
    size_t i = 0;
    const cJSON *v;

    if (!cJSON_IsArray(arr)) {
        gsvd_log_error("%s: \"%s\" is missing or not a list", where, name);
        return GSVD_EFORMAT;
    }
    if ((size_t)cJSON_GetArraySize(arr) > GSVD_MAX_DIMS) {
        gsvd_log_error("%s: \"%s\" has %d dimensions (at most %d supported)", where, name,
                       cJSON_GetArraySize(arr), GSVD_MAX_DIMS);
        return GSVD_EUNSUPPORTED;
    }
    cJSON_ArrayForEach(v, arr)
    {
        if (json_uint(v, MAX_EXACT_INT, &dims[i]) < 0 || dims[i] < (uint64_t)min_value) {
            gsvd_log_error("%s: \"%s\"[%zu] must be an integer >= %d and <= 2^53", where, name, i,
                           min_value);
            return GSVD_EFORMAT;
        }
        i++;
    }
    *ndim = i;
    return GSVD_OK;
}

int gsvd_zarray_derive(struct gsvd_zarray *z, const char *where)
{
    size_t items = 1, bytes = 0;

    for (size_t d = 0; d < z->ndim; d++) {
        z->grid[d] = z->shape[d] / z->chunks[d] + (z->shape[d] % z->chunks[d] != 0);
        if (z->chunks[d] > SIZE_MAX || gsvd_mul_size(items, (size_t)z->chunks[d], &items) < 0) {
            gsvd_log_error("%s: \"chunks\" product overflows size_t", where);
            return GSVD_EFORMAT;
        }
    }
    if (gsvd_mul_size(items, z->dtype.size, &bytes) < 0 || bytes >= GSVD_MAX_CHUNK_BYTES) {
        gsvd_log_error("%s: one chunk of \"chunks\" would hold %s bytes (at most 2 GiB)", where,
                       bytes >= GSVD_MAX_CHUNK_BYTES ? "over 2^31" : "more than 2^64");
        return GSVD_EFORMAT;
    }
    z->chunk_items = items;
    z->chunk_bytes = bytes;
    return GSVD_OK;
}

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
        if (cJSON_IsNumber(v) && fabs(v->valuedouble) >= MAX_EXACT_INT)
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

/* JSON text of a member (or "null" when absent); caller owns. */
static char *member_text(const cJSON *root, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, name);
    cJSON *null_value = NULL;
    char *text;

    if (!v)
        v = null_value = cJSON_CreateNull();
    text = v ? cJSON_PrintUnformatted(v) : NULL;
    cJSON_Delete(null_value);
    return text;
}

int gsvd_zarray_parse(const char *json, size_t n, const char *where, struct gsvd_zarray *out)
{
    int rc = GSVD_OK;
    cJSON *root = NULL;
    const cJSON *v;
    char *comp = NULL, *filt = NULL;
    struct gsvd_zarray z;
    size_t nchunk = 0;

    memset(&z, 0, sizeof z);
    memset(out, 0, sizeof *out);
    GSVD_TRY(parse_json(json, n, where, 0, &root));
    if (!cJSON_IsObject(root)) {
        gsvd_log_error("%s: not a JSON object", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    v = cJSON_GetObjectItemCaseSensitive(root, "zarr_format");
    if (!cJSON_IsNumber(v)) {
        gsvd_log_error("%s: \"zarr_format\" is missing or not a number", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    if (v->valuedouble != 2) {
        gsvd_log_error("%s: zarr_format %g is not supported (only Zarr v2)", where, v->valuedouble);
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    GSVD_TRY(gsvd_meta_parse_dims(root, "shape", where, z.shape, &z.ndim, 0));
    GSVD_TRY(gsvd_meta_parse_dims(root, "chunks", where, z.chunks, &nchunk, 1));
    if (nchunk != z.ndim) {
        gsvd_log_error("%s: \"chunks\" has %zu dimensions but \"shape\" has %zu", where, nchunk,
                       z.ndim);
        rc = GSVD_EFORMAT;
        goto out;
    }
    v = cJSON_GetObjectItemCaseSensitive(root, "dtype");
    if (!cJSON_IsString(v)) {
        gsvd_log_error("%s: \"dtype\" is missing or not a string%s", where,
                       cJSON_IsArray(v) ? " (structured dtypes are not supported)" : "");
        rc = cJSON_IsArray(v) ? GSVD_EUNSUPPORTED : GSVD_EFORMAT;
        goto out;
    }
    rc = gsvd_dtype_parse(v->valuestring, &z.dtype);
    if (rc < 0) {
        gsvd_log_error("%s: dtype \"%s\" is %s (supported: %s)", where, v->valuestring,
                       rc == GSVD_EUNSUPPORTED ? "not supported" : "not a valid typestr",
                       gsvd_dtype_supported());
        goto out;
    }
    v = cJSON_GetObjectItemCaseSensitive(root, "order");
    if (!cJSON_IsString(v) ||
        (strcmp(v->valuestring, "C") != 0 && strcmp(v->valuestring, "F") != 0)) {
        gsvd_log_error("%s: \"order\" must be \"C\" or \"F\"", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    z.order = v->valuestring[0];
    v = cJSON_GetObjectItemCaseSensitive(root, "dimension_separator");
    z.sep = '.';
    if (v && !cJSON_IsNull(v)) {
        if (!cJSON_IsString(v) ||
            (strcmp(v->valuestring, ".") != 0 && strcmp(v->valuestring, "/") != 0)) {
            gsvd_log_error("%s: \"dimension_separator\" must be \".\" or \"/\"", where);
            rc = GSVD_EFORMAT;
            goto out;
        }
        z.sep = v->valuestring[0];
    }
    GSVD_TRY(gsvd_zarray_derive(&z, where));
    GSVD_TRY(gsvd_meta_parse_fill(&z, root, json, n, where));
    if (!cJSON_HasObjectItem(root, "compressor")) {
        gsvd_log_error("%s: \"compressor\" is missing (use null for none)", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    comp = member_text(root, "compressor");
    filt = member_text(root, "filters");
    if (!comp || !filt) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_codec_chain_parse_json(comp, filt, &z.dtype, where, &z.codecs));
    *out = z;
    memset(&z, 0, sizeof z);
out:
    gsvd_zarray_clear(&z);
    cJSON_Delete(root);
    cJSON_free(comp);
    cJSON_free(filt);
    return rc;
}

void gsvd_zarray_clear(struct gsvd_zarray *z)
{
    gsvd_free(z->fill);
    gsvd_free(z->fill_str);
    gsvd_codec_chain_free(z->codecs);
    memset(z, 0, sizeof *z);
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

/* Fill value as JSON text, as zarr-python writes it. */
static int emit_fill(const struct gsvd_zarray *z, struct gsvd_buf *b)
{
    const struct gsvd_dtype *dt = &z->dtype;
    if (dt->kind == 'O') /* zarr-python 2 writes 0 for "" */
        return z->fill_str && *z->fill_str ? gsvd_json_quote(b, z->fill_str)
                                           : gsvd_buf_puts(b, "0");
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

int gsvd_zarray_emit(const struct gsvd_zarray *z, struct gsvd_buf *dst)
{
    int rc = GSVD_OK;
    struct gsvd_buf comp = GSVD_BUF_INIT, filt = GSVD_BUF_INIT;
    char dt[32];

    GSVD_TRY(gsvd_codec_chain_to_json(z->codecs, &comp, &filt));
    gsvd_dtype_format(&z->dtype, dt, sizeof dt);
    GSVD_TRY(gsvd_buf_puts(dst, "{\n    \"chunks\": ["));
    for (size_t d = 0; d < z->ndim; d++)
        GSVD_TRY(gsvd_buf_printf(dst, "%s%llu", d ? ", " : "", (unsigned long long)z->chunks[d]));
    GSVD_TRY(gsvd_buf_printf(dst,
                             "],\n    \"compressor\": %s,\n    \"dimension_separator\": "
                             "\"%c\",\n    \"dtype\": \"%s\",\n    \"fill_value\": ",
                             comp.data ? comp.data : "null", z->sep ? z->sep : '.', dt));
    GSVD_TRY(emit_fill(z, dst));
    GSVD_TRY(gsvd_buf_printf(dst,
                             ",\n    \"filters\": %s,\n    \"order\": \"%c\",\n    "
                             "\"shape\": [",
                             filt.data ? filt.data : "null", z->order ? z->order : 'C'));
    for (size_t d = 0; d < z->ndim; d++)
        GSVD_TRY(gsvd_buf_printf(dst, "%s%llu", d ? ", " : "", (unsigned long long)z->shape[d]));
    GSVD_TRY(gsvd_buf_puts(dst, "],\n    \"zarr_format\": 2\n}"));
out:
    gsvd_buf_free(&comp);
    gsvd_buf_free(&filt);
    return rc;
}

int gsvd_meta_check_object(const char *json, size_t n, const char *where)
{
    cJSON *root = NULL;
    int rc = parse_json(json, n, where, 1, &root);
    if (rc == GSVD_OK && !cJSON_IsObject(root)) {
        gsvd_log_error("%s: not a JSON object", where);
        rc = GSVD_EFORMAT;
    }
    cJSON_Delete(root);
    return rc;
}

int gsvd_zgroup_parse(const char *json, size_t n, const char *where)
{
    cJSON *root = NULL;
    const cJSON *v;
    int rc = parse_json(json, n, where, 0, &root);
    if (rc < 0)
        return rc;
    v = cJSON_GetObjectItemCaseSensitive(root, "zarr_format");
    if (!cJSON_IsObject(root) || !cJSON_IsNumber(v)) {
        gsvd_log_error("%s: not a .zgroup (an object with \"zarr_format\")", where);
        rc = GSVD_EFORMAT;
    } else if (v->valuedouble != 2) {
        gsvd_log_error("%s: zarr_format %g is not supported (only Zarr v2)", where, v->valuedouble);
        rc = GSVD_EUNSUPPORTED;
    }
    cJSON_Delete(root);
    return rc;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0 && (ls == lx || s[ls - lx - 1] == '/');
}

int gsvd_zmetadata_parse(const char *json, size_t n, const char *where, struct gsvd_strlist *keys,
                         struct gsvd_strlist *docs)
{
    int rc = GSVD_OK;
    cJSON *root = NULL;
    const cJSON *meta, *v, *item;
    struct gsvd_buf fixed = GSVD_BUF_INIT;
    const char *text, **vs = NULL, **ve = NULL, *rvs[64], *rve[64];
    size_t len, cnt, idx, i = 0;

    GSVD_TRY(gsvd_meta_parse_json(json, n, where, 1, &root, &fixed));
    text = fixed.data ? fixed.data : json;
    len = fixed.data ? fixed.len : n;
    v = cJSON_GetObjectItemCaseSensitive(root, "zarr_consolidated_format");
    if (!cJSON_IsObject(root) || !cJSON_IsNumber(v) || v->valuedouble != 1) {
        gsvd_log_error("%s: not consolidated metadata (\"zarr_consolidated_format\": 1)", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    meta = cJSON_GetObjectItemCaseSensitive(root, "metadata");
    if (!cJSON_IsObject(meta)) {
        gsvd_log_error("%s: \"metadata\" is missing or not an object", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    /* the metadata object's own text, then each member's */
    idx = gsvd_meta_child_index(root, meta);
    cnt = (size_t)cJSON_GetArraySize(root);
    if (cnt > GSVD_ARRAY_LEN(rvs) ||
        gsvd_meta_object_spans(text, text + len, rvs, rve, cnt) != cnt) {
        gsvd_log_error("%s: too many top-level members", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    cnt = (size_t)cJSON_GetArraySize(meta);
    vs = gsvd_malloc((cnt ? cnt : 1) * sizeof *vs);
    ve = gsvd_malloc((cnt ? cnt : 1) * sizeof *ve);
    if (!vs || !ve) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (gsvd_meta_object_spans(rvs[idx], rve[idx], vs, ve, cnt) != cnt) {
        gsvd_log_error("%s: cannot delimit the metadata documents", where);
        rc = GSVD_EINTERNAL;
        goto out;
    }
    cJSON_ArrayForEach(item, meta)
    {
        const char *k = item->string;
        if (!k || gsvd_key_check(k) < 0 ||
            !(ends_with(k, ".zarray") || ends_with(k, ".zgroup") || ends_with(k, ".zattrs"))) {
            gsvd_log_error("%s: invalid metadata key '%s'", where, k ? k : "");
            rc = GSVD_EFORMAT;
            goto out;
        }
        if (!cJSON_IsObject(item)) {
            gsvd_log_error("%s: metadata for '%s' is not an object", where, k);
            rc = GSVD_EFORMAT;
            goto out;
        }
        GSVD_TRY(gsvd_strlist_push(keys, k));
        rc = gsvd_strlist_pushn(docs, vs[i], (size_t)(ve[i] - vs[i]));
        if (rc < 0) {
            gsvd_free(keys->items[--keys->n]); /* keep the lists the same length */
            goto out;
        }
        i++;
    }
out:
    gsvd_free(vs);
    gsvd_free(ve);
    gsvd_buf_free(&fixed);
    cJSON_Delete(root);
    return rc;
}

int gsvd_zmetadata_emit(const struct gsvd_strlist *keys, const struct gsvd_strlist *docs,
                        struct gsvd_buf *dst)
{
    int rc = GSVD_OK;
    GSVD_TRY(gsvd_buf_puts(dst, "{\n    \"metadata\": {"));
    for (size_t i = 0; i < keys->n; i++) {
        GSVD_TRY(gsvd_buf_puts(dst, i ? ",\n        " : "\n        "));
        GSVD_TRY(gsvd_json_quote(dst, keys->items[i]));
        GSVD_TRY(gsvd_buf_puts(dst, ": "));
        GSVD_TRY(gsvd_buf_puts(dst, docs->items[i]));
    }
    GSVD_TRY(gsvd_buf_puts(dst, "\n    },\n    \"zarr_consolidated_format\": 1\n}"));
out:
    return rc;
}

static int get_member(const char *json, size_t n, const char *name, const char *where, cJSON **root,
                      const cJSON **v)
{
    int rc = parse_json(json, n, where, 1, root);
    if (rc < 0)
        return rc;
    *v = cJSON_IsObject(*root) ? cJSON_GetObjectItemCaseSensitive(*root, name) : NULL;
    return GSVD_OK;
}

int gsvd_meta_get_string(const char *json, size_t n, const char *name, const char *where,
                         char **out)
{
    cJSON *root = NULL;
    const cJSON *v = NULL;
    int rc = get_member(json, n, name, where, &root, &v);

    *out = NULL;
    if (rc == GSVD_OK) {
        if (!cJSON_IsString(v))
            rc = GSVD_ENOTFOUND;
        else if (!(*out = gsvd_strdup(v->valuestring)))
            rc = GSVD_ENOMEM;
    }
    cJSON_Delete(root);
    return rc;
}

int gsvd_meta_get_number(const char *json, size_t n, const char *name, const char *where,
                         double *out)
{
    cJSON *root = NULL;
    const cJSON *v = NULL;
    int rc = get_member(json, n, name, where, &root, &v);

    if (rc == GSVD_OK) {
        if (!cJSON_IsNumber(v))
            rc = GSVD_ENOTFOUND;
        else
            *out = v->valuedouble;
    }
    cJSON_Delete(root);
    return rc;
}

int gsvd_meta_get_string_list(const char *json, size_t n, const char *name, const char *where,
                              struct gsvd_strlist *out)
{
    cJSON *root = NULL;
    const cJSON *v = NULL, *item;
    int rc = get_member(json, n, name, where, &root, &v);

    if (rc == GSVD_OK && !cJSON_IsArray(v))
        rc = GSVD_ENOTFOUND;
    if (rc == GSVD_OK) {
        cJSON_ArrayForEach(item, v)
        {
            if (!cJSON_IsString(item)) {
                gsvd_log_error("%s: \"%s\" must be a list of strings", where, name);
                rc = GSVD_EFORMAT;
                break;
            }
            if ((rc = gsvd_strlist_push(out, item->valuestring)) < 0)
                break;
        }
    }
    cJSON_Delete(root);
    return rc;
}

int gsvd_json_quote(struct gsvd_buf *dst, const char *s)
{
    int rc = gsvd_buf_puts(dst, "\"");
    for (const unsigned char *p = (const unsigned char *)s; rc >= 0 && *p; p++) {
        if (*p == '"' || *p == '\\')
            rc = gsvd_buf_printf(dst, "\\%c", *p);
        else if (*p < 0x20)
            rc = gsvd_buf_printf(dst, "\\u%04x", *p);
        else
            rc = gsvd_buf_append(dst, p, 1);
    }
    return rc < 0 ? rc : gsvd_buf_puts(dst, "\"");
}
