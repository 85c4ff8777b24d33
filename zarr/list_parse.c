/* zarr/list_parse.c - S3 ListObjectsV2 XML and GCS objects.list JSON pages to child names.
 *
 * The XML reader is a small, strict tag scanner rather than a general parser: a listing page
 * is flat (ListBucketResult > Contents > Key, ListBucketResult > CommonPrefixes > Prefix), so
 * the scanner keeps a bounded stack of element names, collects the text of the four leaves it
 * needs and refuses anything that could expand (DOCTYPE, entity declarations) or that S3 never
 * sends (CDATA).  A general XML library would be a new dependency for four fields. */
#include "gsvd_config.h"

#include "zarr/list_parse.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"

#define MAX_DEPTH 16
#define MAX_NAME 64

enum leaf { L_NONE, L_KEY, L_PREFIX, L_TRUNCATED, L_TOKEN };

struct xml {
    const char *start, *p, *end, *what;
    char stack[MAX_DEPTH][MAX_NAME]; /* open element names, namespace prefix dropped */
    int depth;
    struct gsvd_buf text; /* decoded text of the current leaf */
};

/* Push the first component of `name` after `prefix` onto names. */
static int add_name(const char *name, size_t len, const char *prefix, const char *what,
                    struct gsvd_strlist *names)
{
    size_t plen = strlen(prefix), n;
    const char *rest, *slash;

    if (len < plen || memcmp(name, prefix, plen) != 0) {
        gsvd_log_error("%s: listing names '%.*s', which is not under the prefix '%s'", what,
                       (int)(len > 200 ? 200 : len), name, prefix);
        return GSVD_EFORMAT;
    }
    rest = name + plen;
    n = len - plen;
    slash = memchr(rest, '/', n);
    if (slash)
        n = (size_t)(slash - rest);
    if (n == 0)
        return GSVD_OK; /* the "directory" marker object itself, or "prefix//" */
    if (memchr(rest, '\0', n)) {
        gsvd_log_error("%s: listing holds a name with a NUL character", what);
        return GSVD_EFORMAT;
    }
    if (names->n >= GSVD_LIST_MAX_ENTRIES) {
        gsvd_log_error("%s: listing page holds more than %d entries", what, GSVD_LIST_MAX_ENTRIES);
        return GSVD_EFORMAT;
    }
    return gsvd_strlist_pushn(names, rest, n);
}

static int xml_fail(const struct xml *x, const char *why)
{
    gsvd_log_error("%s: malformed listing XML at byte %zu: %s", x->what, (size_t)(x->p - x->start),
                   why);
    return GSVD_EFORMAT;
}

/* Append the UTF-8 encoding of code point c. */
static int put_utf8(struct gsvd_buf *b, uint32_t c)
{
    unsigned char u[4];
    size_t n;
    if (c < 0x80) {
        u[0] = (unsigned char)c;
        n = 1;
    } else if (c < 0x800) {
        u[0] = (unsigned char)(0xc0 | (c >> 6));
        u[1] = (unsigned char)(0x80 | (c & 0x3f));
        n = 2;
    } else if (c < 0x10000) {
        u[0] = (unsigned char)(0xe0 | (c >> 12));
        u[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
        u[2] = (unsigned char)(0x80 | (c & 0x3f));
        n = 3;
    } else {
        u[0] = (unsigned char)(0xf0 | (c >> 18));
        u[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
        u[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
        u[3] = (unsigned char)(0x80 | (c & 0x3f));
        n = 4;
    }
    return gsvd_buf_append(b, u, n);
}

/* Decode the entity at x->p ('&') onto x->text. */
static int entity(struct xml *x)
{
    static const struct {
        const char *name;
        char c;
    } named[] = {{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
    const char *s = x->p + 1, *semi = s;
    size_t n;

    while (semi < x->end && semi - s < 12 && *semi != ';')
        semi++;
    if (semi >= x->end || *semi != ';')
        return xml_fail(x, "unterminated entity");
    n = (size_t)(semi - s);
    x->p = semi + 1;
    if (n >= 2 && s[0] == '#') {
        uint32_t c = 0;
        int hex = s[1] == 'x';
        size_t i = hex ? 2 : 1;
        if (i >= n)
            return xml_fail(x, "empty character reference");
        for (; i < n; i++) {
            int d;
            if (s[i] >= '0' && s[i] <= '9')
                d = s[i] - '0';
            else if (hex && s[i] >= 'a' && s[i] <= 'f')
                d = s[i] - 'a' + 10;
            else if (hex && s[i] >= 'A' && s[i] <= 'F')
                d = s[i] - 'A' + 10;
            else
                return xml_fail(x, "bad character reference");
            c = c * (hex ? 16u : 10u) + (uint32_t)d;
            if (c > 0x10ffff)
                return xml_fail(x, "character reference out of range");
        }
        if (c == 0 || (c >= 0xd800 && c <= 0xdfff))
            return xml_fail(x, "character reference to NUL or a surrogate");
        return put_utf8(&x->text, c);
    }
    for (size_t i = 0; i < GSVD_ARRAY_LEN(named); i++)
        if (strlen(named[i].name) == n && memcmp(named[i].name, s, n) == 0)
            return gsvd_buf_append(&x->text, &named[i].c, 1);
    return xml_fail(x, "unknown entity");
}

/* Which leaf the open element path is: only the four we read count. */
static enum leaf leaf_of(const struct xml *x)
{
    if (x->depth == 2 && !strcmp(x->stack[1], "IsTruncated"))
        return L_TRUNCATED;
    if (x->depth == 2 && !strcmp(x->stack[1], "NextContinuationToken"))
        return L_TOKEN;
    if (x->depth == 3 && !strcmp(x->stack[1], "Contents") && !strcmp(x->stack[2], "Key"))
        return L_KEY;
    if (x->depth == 3 && !strcmp(x->stack[1], "CommonPrefixes") && !strcmp(x->stack[2], "Prefix"))
        return L_PREFIX;
    return L_NONE;
}

static int is_name_char(char c)
{
    return c != '>' && c != '/' && c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '=' &&
           c != '<' && c != '"' && c != '\'';
}

/* Read the tag name at x->p into out (namespace prefix dropped). */
static int tag_name(struct xml *x, char out[MAX_NAME])
{
    const char *s = x->p, *colon = NULL;
    while (x->p < x->end && is_name_char(*x->p)) {
        if (*x->p == ':')
            colon = x->p;
        x->p++;
    }
    if (colon)
        s = colon + 1;
    if (x->p == s || (size_t)(x->p - s) >= MAX_NAME)
        return xml_fail(x, "empty or overlong element name");
    memcpy(out, s, (size_t)(x->p - s));
    out[x->p - s] = '\0';
    return GSVD_OK;
}

/* Skip attributes up to '>' or "/>"; *empty = 1 for a self-closing tag. */
static int skip_attrs(struct xml *x, int *empty)
{
    *empty = 0;
    while (x->p < x->end && *x->p != '>') {
        if (*x->p == '"' || *x->p == '\'') {
            const char *q = memchr(x->p + 1, *x->p, (size_t)(x->end - x->p - 1));
            if (!q)
                return xml_fail(x, "unterminated attribute value");
            x->p = q + 1;
            continue;
        }
        if (*x->p == '<')
            return xml_fail(x, "'<' inside a tag");
        *empty = *x->p == '/';
        x->p++;
    }
    if (x->p >= x->end)
        return xml_fail(x, "unterminated tag");
    x->p++;
    return GSVD_OK;
}

/* A finished leaf: store its text where it belongs. */
static int end_leaf(struct xml *x, enum leaf lf, const char *prefix, struct gsvd_strlist *names,
                    int *truncated, char **token)
{
    const char *t = x->text.data ? x->text.data : "";
    size_t n = x->text.len;
    switch (lf) {
    case L_KEY:
    case L_PREFIX:
        return add_name(t, n, prefix, x->what, names);
    case L_TRUNCATED:
        *truncated = n == 4 && !memcmp(t, "true", 4);
        return GSVD_OK;
    case L_TOKEN:
        gsvd_free(*token);
        *token = gsvd_strndup(t, n);
        return *token ? GSVD_OK : GSVD_ENOMEM;
    case L_NONE:
        break;
    }
    return GSVD_OK;
}

/* Skip "<?...?>" and "<!--...-->"; refuse every other "<!". */
static int skip_special(struct xml *x)
{
    const char *close;
    size_t left = (size_t)(x->end - x->p);
    if (left >= 2 && x->p[1] == '?') {
        for (close = x->p + 2; close + 1 < x->end; close++)
            if (close[0] == '?' && close[1] == '>') {
                x->p = close + 2;
                return GSVD_OK;
            }
        return xml_fail(x, "unterminated processing instruction");
    }
    if (left >= 4 && !memcmp(x->p, "<!--", 4)) {
        for (close = x->p + 4; close + 2 < x->end; close++)
            if (!memcmp(close, "-->", 3)) {
                x->p = close + 3;
                return GSVD_OK;
            }
        return xml_fail(x, "unterminated comment");
    }
    return xml_fail(x, "DOCTYPE, entity declarations and CDATA are not accepted");
}

int gsvd_list_parse_s3(const char *text, size_t len, const char *prefix, const char *what,
                       struct gsvd_strlist *names, char **next_token)
{
    struct xml *x = gsvd_calloc(1, sizeof *x);
    enum leaf lf = L_NONE;
    int rc = GSVD_OK, truncated = 0, seen_root = 0, empty;
    char *token = NULL;

    *next_token = NULL;
    if (!x)
        return GSVD_ENOMEM;
    x->start = x->p = text;
    x->end = text + len;
    x->what = what;
    x->text = (struct gsvd_buf)GSVD_BUF_INIT;
    while (x->p < x->end) {
        if (*x->p == '&') {
            if (lf != L_NONE)
                GSVD_TRY(entity(x));
            else
                x->p++; /* text we do not keep: entities are not expanded */
        } else if (*x->p != '<') {
            const char *lt = memchr(x->p, '<', (size_t)(x->end - x->p));
            const char *amp = memchr(x->p, '&', (size_t)(x->end - x->p));
            const char *stop = lt ? lt : x->end;
            if (amp && amp < stop)
                stop = amp;
            if (lf != L_NONE)
                GSVD_TRY(gsvd_buf_append(&x->text, x->p, (size_t)(stop - x->p)));
            else if (x->depth == 0)
                for (const char *c = x->p; c < stop; c++)
                    if (*c != ' ' && *c != '\t' && *c != '\r' && *c != '\n') {
                        rc = xml_fail(x, "text outside the root element");
                        goto out;
                    }
            x->p = stop;
        } else if (x->p + 1 < x->end && (x->p[1] == '?' || x->p[1] == '!')) {
            GSVD_TRY(skip_special(x));
        } else if (x->p + 1 < x->end && x->p[1] == '/') {
            char nm[MAX_NAME];
            x->p += 2;
            GSVD_TRY(tag_name(x, nm));
            while (x->p < x->end &&
                   (*x->p == ' ' || *x->p == '\t' || *x->p == '\r' || *x->p == '\n'))
                x->p++;
            if (x->p >= x->end || *x->p != '>' || x->depth == 0 ||
                strcmp(nm, x->stack[x->depth - 1]) != 0) {
                rc = xml_fail(x, "mismatched end tag");
                goto out;
            }
            x->p++;
            if (lf != L_NONE)
                GSVD_TRY(end_leaf(x, lf, prefix, names, &truncated, &token));
            x->depth--;
            lf = L_NONE;
        } else {
            char nm[MAX_NAME];
            x->p++;
            GSVD_TRY(tag_name(x, nm));
            GSVD_TRY(skip_attrs(x, &empty));
            if (x->depth == 0) {
                if (seen_root || strcmp(nm, "ListBucketResult") != 0) {
                    gsvd_log_error("%s: the listing is not a ListBucketResult (root <%s>)", what,
                                   nm);
                    rc = GSVD_EFORMAT;
                    goto out;
                }
                seen_root = 1;
            }
            if (lf != L_NONE) {
                rc = xml_fail(x, "element inside a text field");
                goto out;
            }
            if (x->depth >= MAX_DEPTH) {
                rc = xml_fail(x, "elements nested too deep");
                goto out;
            }
            memcpy(x->stack[x->depth++], nm, sizeof nm);
            lf = leaf_of(x);
            gsvd_buf_clear(&x->text);
            if (empty) {
                if (lf != L_NONE)
                    GSVD_TRY(end_leaf(x, lf, prefix, names, &truncated, &token));
                x->depth--;
                lf = L_NONE;
            }
        }
        if (x->text.len > GSVD_LIST_MAX_VALUE) {
            rc = xml_fail(x, "a key, prefix or token longer than 4096 bytes");
            goto out;
        }
    }
    if (x->depth != 0 || !seen_root) {
        rc = xml_fail(x, seen_root ? "unterminated element" : "no root element");
        goto out;
    }
    if (truncated && (!token || !*token)) {
        gsvd_log_error("%s: listing says IsTruncated but gives no NextContinuationToken", what);
        rc = GSVD_EFORMAT;
        goto out;
    }
    if (truncated) {
        *next_token = token;
        token = NULL;
    }
out:
    gsvd_free(token);
    gsvd_buf_free(&x->text);
    gsvd_free(x);
    return rc;
}

/* names from an array of strings (member "prefixes") or of objects with "name" ("items"). */
static int gcs_names(const cJSON *arr, const char *member, const char *prefix, const char *what,
                     struct gsvd_strlist *names)
{
    const cJSON *e;
    if (!arr)
        return GSVD_OK;
    if (!cJSON_IsArray(arr)) {
        gsvd_log_error("%s: listing member \"%s\" is not an array", what, member);
        return GSVD_EFORMAT;
    }
    cJSON_ArrayForEach(e, arr)
    {
        const cJSON *s = e;
        int rc;
        if (!strcmp(member, "items"))
            s = cJSON_IsObject(e) ? cJSON_GetObjectItemCaseSensitive(e, "name") : NULL;
        if (!cJSON_IsString(s) || !s->valuestring) {
            gsvd_log_error("%s: listing member \"%s\" holds an entry without a string name", what,
                           member);
            return GSVD_EFORMAT;
        }
        if (strlen(s->valuestring) > GSVD_LIST_MAX_VALUE) {
            gsvd_log_error("%s: listing names an object longer than %d bytes", what,
                           GSVD_LIST_MAX_VALUE);
            return GSVD_EFORMAT;
        }
        rc = add_name(s->valuestring, strlen(s->valuestring), prefix, what, names);
        if (rc < 0)
            return rc;
    }
    return GSVD_OK;
}

int gsvd_list_parse_gcs(const char *text, size_t len, const char *prefix, const char *what,
                        struct gsvd_strlist *names, char **next_token)
{
    int rc = GSVD_OK;
    cJSON *root = NULL;
    const cJSON *tok;

    *next_token = NULL;
    root = cJSON_ParseWithLength(text, len);
    if (!cJSON_IsObject(root)) {
        gsvd_log_error("%s: the listing is not a JSON object", what);
        rc = GSVD_EFORMAT;
        goto out;
    }
    GSVD_TRY(gcs_names(cJSON_GetObjectItemCaseSensitive(root, "prefixes"), "prefixes", prefix, what,
                       names));
    GSVD_TRY(
        gcs_names(cJSON_GetObjectItemCaseSensitive(root, "items"), "items", prefix, what, names));
    tok = cJSON_GetObjectItemCaseSensitive(root, "nextPageToken");
    if (tok && !cJSON_IsNull(tok)) {
        if (!cJSON_IsString(tok) || !tok->valuestring ||
            strlen(tok->valuestring) > GSVD_LIST_MAX_VALUE) {
            gsvd_log_error("%s: listing nextPageToken is not a string of at most %d bytes", what,
                           GSVD_LIST_MAX_VALUE);
            rc = GSVD_EFORMAT;
            goto out;
        }
        if (*tok->valuestring) {
            *next_token = gsvd_strdup(tok->valuestring);
            if (!*next_token)
                rc = GSVD_ENOMEM;
        }
    }
out:
    cJSON_Delete(root);
    return rc;
}

void gsvd_list_unique(struct gsvd_strlist *names)
{
    size_t o = 0;
    gsvd_strlist_sort(names);
    for (size_t i = 0; i < names->n; i++) {
        if (o > 0 && !strcmp(names->items[o - 1], names->items[i])) {
            gsvd_free(names->items[i]);
            continue;
        }
        names->items[o++] = names->items[i];
    }
    names->n = o;
}

unsigned gsvd_list_page_size(void)
{
    const char *v = getenv("GENSVD_LIST_MAX_KEYS");
    char *end;
    unsigned long n;
    if (!v || !*v)
        return 0;
    errno = 0;
    n = strtoul(v, &end, 10);
    return errno || *end || n == 0 || n > 1000 ? 0 : (unsigned)n;
}
