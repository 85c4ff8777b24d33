/* zarr/meta_json.c - the JSON layer under the Zarr v2 and v3 metadata parsers: strict
 * parsing (control bytes and bare NaN refused or mended), raw value spans for exact text,
 * integer lists, single members of a document, and JSON string quoting.  Everything here reads
 * hostile input: numbers must be integral and in range before they are converted. */
#include "gsvd_config.h"
#include "zarr/meta.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/meta_internal.h"

void gsvd_meta_global_init(void)
{
    cJSON_Hooks hooks = {gsvd_malloc, gsvd_free};
    cJSON_InitHooks(&hooks);
}

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
    if (!isfinite(d) || d != floor(d) || d < 0 || d > hi || d > GSVD_META_MAX_EXACT_INT)
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
        if (json_uint(v, GSVD_META_MAX_EXACT_INT, &dims[i]) < 0 || dims[i] < (uint64_t)min_value) {
            gsvd_log_error("%s: \"%s\"[%zu] must be an integer >= %d and <= 2^53", where, name, i,
                           min_value);
            return GSVD_EFORMAT;
        }
        i++;
    }
    *ndim = i;
    return GSVD_OK;
}

static int get_member(const char *json, size_t n, const char *name, const char *where, cJSON **root,
                      const cJSON **v)
{
    int rc = gsvd_meta_parse_json(json, n, where, 1, root, NULL);
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
