/* zarr/meta_v3.c - Zarr v3 zarr.json into struct gsvd_zarray and a codec chain.
 *
 * The v3 codec list is read in three parts: array -> array codecs (transpose, kept as the
 * chunk's element order), one array -> bytes codec (bytes: the byte order; vlen-utf8: strings;
 * sharding_indexed: a shard of inner chunks, whose own list is read the same way), then
 * bytes -> bytes codecs, which become an ordered codec chain (zarr/codec.h).  Members and codecs
 * gensvd does not know are refused unless they carry "must_understand": false, as the spec
 * asks.  Error messages name the document and the member. */
#include "gsvd_config.h"
#include "zarr/meta_v3.h"

#include <math.h>
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

#define MAX_INDEX_BYTES ((size_t)1 << 30) /* a shard index of 2^26 inner chunks */

/* Members of an array's zarr.json that gensvd reads or may ignore. */
static const char *const array_members[] = {
    "zarr_format",        "node_type", "shape",      "data_type",       "chunk_grid",
    "fill_value",         "codecs",    "attributes", "dimension_names", "storage_transformers",
    "chunk_key_encoding",
};
static const char *const group_members[] = {"zarr_format", "node_type", "attributes",
                                            "consolidated_metadata"};

/* Refuse members outside `known` unless they are objects saying "must_understand": false. */
static int check_members(const cJSON *root, const char *const *known, size_t n_known,
                         const char *where)
{
    const cJSON *m;

    cJSON_ArrayForEach(m, root)
    {
        size_t i = 0;
        while (i < n_known && strcmp(m->string, known[i]) != 0)
            i++;
        if (i < n_known)
            continue;
        if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(m, "must_understand")))
            continue;
        gsvd_log_error("%s: member \"%s\" is not understood by gensvd (and does not say "
                       "\"must_understand\": false)",
                       where, m->string);
        return GSVD_EUNSUPPORTED;
    }
    return GSVD_OK;
}

/* zarr_format 3 and the node_type string of a parsed document. */
static int check_header(const cJSON *root, const char *where, const char **node_type)
{
    const cJSON *v;

    if (!cJSON_IsObject(root)) {
        gsvd_log_error("%s: not a JSON object", where);
        return GSVD_EFORMAT;
    }
    v = cJSON_GetObjectItemCaseSensitive(root, "zarr_format");
    if (!cJSON_IsNumber(v)) {
        gsvd_log_error("%s: \"zarr_format\" is missing or not a number", where);
        return GSVD_EFORMAT;
    }
    if (v->valuedouble != 3) {
        gsvd_log_error("%s: zarr_format %g in zarr.json is not supported (only 3)", where,
                       v->valuedouble);
        return GSVD_EUNSUPPORTED;
    }
    v = cJSON_GetObjectItemCaseSensitive(root, "node_type");
    if (!cJSON_IsString(v) ||
        (strcmp(v->valuestring, "group") != 0 && strcmp(v->valuestring, "array") != 0)) {
        gsvd_log_error("%s: \"node_type\" must be \"group\" or \"array\"", where);
        return GSVD_EFORMAT;
    }
    *node_type = v->valuestring;
    return GSVD_OK;
}

int gsvd_v3_node_type(const char *json, size_t n, const char *where)
{
    cJSON *root = NULL;
    const char *type = NULL;
    int rc = gsvd_meta_parse_json(json, n, where, 1, &root, NULL);

    if (rc == GSVD_OK)
        rc = check_header(root, where, &type);
    if (rc == GSVD_OK && strcmp(type, "group") == 0)
        rc = check_members(root, group_members, GSVD_ARRAY_LEN(group_members), where);
    if (rc == GSVD_OK)
        rc = strcmp(type, "group") == 0 ? 1 : 2;
    cJSON_Delete(root);
    return rc;
}

/* ---- attributes --------------------------------------------------------------------------- */

int gsvd_v3_attrs(const char *json, size_t n, const char *where, struct gsvd_buf *attrs)
{
    int rc = GSVD_OK;
    cJSON *root = NULL, *out = NULL, *dims = NULL;
    const cJSON *a, *d, *item;
    char *text = NULL;
    int all_strings = 1;

    gsvd_buf_clear(attrs);
    GSVD_TRY(gsvd_meta_parse_json(json, n, where, 1, &root, NULL));
    a = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "attributes") : NULL;
    d = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "dimension_names") : NULL;
    if (a && !cJSON_IsObject(a)) {
        gsvd_log_error("%s: \"attributes\" is not an object", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    if (cJSON_IsArray(d))
        for (item = d->child; item; item = item->next)
            all_strings &= cJSON_IsString(item) != 0;
    if (!a && !(cJSON_IsArray(d) && all_strings))
        goto out;
    out = a ? cJSON_Duplicate(a, 1) : cJSON_CreateObject();
    if (!out)
        goto nomem;
    if (cJSON_IsArray(d) && all_strings && !cJSON_HasObjectItem(out, "_ARRAY_DIMENSIONS")) {
        dims = cJSON_Duplicate(d, 1);
        if (!dims || !cJSON_AddItemToObject(out, "_ARRAY_DIMENSIONS", dims))
            goto nomem;
        dims = NULL;
    }
    text = cJSON_PrintUnformatted(out);
    if (!text)
        goto nomem;
    rc = gsvd_buf_puts(attrs, text);
    goto out;
nomem:
    gsvd_log_error("%s: out of memory copying the attributes", where);
    rc = GSVD_ENOMEM;
out:
    cJSON_free(text);
    cJSON_Delete(dims);
    cJSON_Delete(out);
    cJSON_Delete(root);
    return rc;
}

/* ---- data types and fill values ----------------------------------------------------------- */

/* data_type into z->dtype, byte order left '<' (the bytes codec sets it).  *vlen = 1 for the
 * variable-length "string" type. */
static int parse_data_type(const cJSON *v, const char *where, struct gsvd_zarray *z, int *vlen)
{
    static const struct {
        const char *name, *typestr;
    } simple[] = {
        {"bool", "|b1"},   {"int8", "|i1"},    {"int16", "<i2"},   {"int32", "<i4"},
        {"int64", "<i8"},  {"uint8", "|u1"},   {"uint16", "<u2"},  {"uint32", "<u4"},
        {"uint64", "<u8"}, {"float16", "<f2"}, {"float32", "<f4"}, {"float64", "<f8"},
        {"string", "|O"},
    };
    const cJSON *conf, *lb;
    const char *name;
    char typestr[32];
    double len;

    *vlen = 0;
    if (cJSON_IsString(v)) {
        for (size_t i = 0; i < GSVD_ARRAY_LEN(simple); i++) {
            if (strcmp(v->valuestring, simple[i].name) == 0) {
                *vlen = simple[i].typestr[1] == 'O';
                return gsvd_dtype_parse(simple[i].typestr, &z->dtype);
            }
        }
        gsvd_log_error("%s: data_type \"%s\" is not supported (supported: bool, int8..int64, "
                       "uint8..uint64, float16/32/64, string, fixed_length_utf32, "
                       "null_terminated_bytes)",
                       where, v->valuestring);
        return GSVD_EUNSUPPORTED;
    }
    if (!cJSON_IsObject(v) || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(v, "name"))) {
        gsvd_log_error("%s: \"data_type\" is missing, or neither a name nor an object with one",
                       where);
        return GSVD_EFORMAT;
    }
    name = cJSON_GetObjectItemCaseSensitive(v, "name")->valuestring;
    if (strcmp(name, "fixed_length_utf32") != 0 && strcmp(name, "null_terminated_bytes") != 0) {
        gsvd_log_error("%s: data_type \"%s\" is not supported", where, name);
        return GSVD_EUNSUPPORTED;
    }
    conf = cJSON_GetObjectItemCaseSensitive(v, "configuration");
    lb = cJSON_GetObjectItemCaseSensitive(conf, "length_bytes");
    len = cJSON_IsNumber(lb) ? lb->valuedouble : -1;
    if (!(len >= 1 && len <= 1 << 20) || len != floor(len) ||
        (name[0] == 'f' && fmod(len, 4) != 0)) {
        gsvd_log_error("%s: data_type %s: \"length_bytes\" must be an integer in 1..2^20%s", where,
                       name, name[0] == 'f' ? " and a multiple of 4" : "");
        return GSVD_EFORMAT;
    }
    snprintf(typestr, sizeof typestr, name[0] == 'f' ? "<U%d" : "|S%d",
             (int)(name[0] == 'f' ? len / 4 : len));
    return gsvd_dtype_parse(typestr, &z->dtype);
}

static int hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A float fill value given as its bits, "0x" and 2 * size hex digits (big-endian text). */
static int fill_hex(struct gsvd_zarray *z, const char *s, const char *where)
{
    size_t size = z->dtype.size;
    uint64_t bits = 0;

    if (strlen(s) != 2 + 2 * size)
        goto bad;
    for (size_t i = 2; s[i]; i++) {
        int d = hex_digit((unsigned char)s[i]);
        if (d < 0)
            goto bad;
        bits = bits << 4 | (uint64_t)d;
    }
    z->fill = gsvd_calloc(1, size);
    if (!z->fill)
        return GSVD_ENOMEM;
    memcpy(z->fill, &bits, size); /* little-endian host: the low bytes are the value */
    z->has_fill = 1;
    return GSVD_OK;
bad:
    gsvd_log_error("%s: fill_value \"%s\" is not 0x followed by %zu hex digits", where, s,
                   2 * size);
    return GSVD_EFORMAT;
}

static int parse_fill_v3(struct gsvd_zarray *z, const cJSON *root, const char *json, size_t n,
                         const char *where)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "fill_value");

    if (!v) {
        gsvd_log_error("%s: \"fill_value\" is missing (required in Zarr v3)", where);
        return GSVD_EFORMAT;
    }
    if (z->dtype.kind == 'f' && cJSON_IsString(v) && strncmp(v->valuestring, "0x", 2) == 0)
        return fill_hex(z, v->valuestring, where);
    return gsvd_meta_parse_fill(z, root, json, n, where);
}

/* ---- codecs ------------------------------------------------------------------------------- */

/* One codec entry: name and configuration (NULL when absent); *optional = must_understand
 * false. */
static int codec_entry(const cJSON *e, const char *list, size_t i, const char *where,
                       const char **name, const cJSON **conf, int *optional)
{
    const cJSON *nm, *mu;

    *conf = NULL;
    *optional = 0;
    if (cJSON_IsString(e)) {
        *name = e->valuestring;
        return GSVD_OK;
    }
    nm = cJSON_GetObjectItemCaseSensitive(e, "name");
    if (!cJSON_IsObject(e) || !cJSON_IsString(nm)) {
        gsvd_log_error("%s: %s[%zu] is not an object with a string \"name\"", where, list, i);
        return GSVD_EFORMAT;
    }
    *name = nm->valuestring;
    *conf = cJSON_GetObjectItemCaseSensitive(e, "configuration");
    if (*conf && !cJSON_IsObject(*conf)) {
        gsvd_log_error("%s: %s[%zu] (%s): \"configuration\" is not an object", where, list, i,
                       *name);
        return GSVD_EFORMAT;
    }
    mu = cJSON_GetObjectItemCaseSensitive(e, "must_understand");
    *optional = cJSON_IsFalse(mu);
    return GSVD_OK;
}

/* transpose "order": a permutation of 0..ndim-1 (or the legacy "C" / "F"). */
static int parse_transpose(const cJSON *conf, const char *where, struct gsvd_zarray *z)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(conf, "order"), *item;
    unsigned seen[GSVD_MAX_DIMS] = {0};
    size_t i = 0;
    int identity = 1, reversal = 1;

    if (cJSON_IsString(o) &&
        (strcmp(o->valuestring, "C") == 0 || strcmp(o->valuestring, "F") == 0)) {
        z->order = z->ndim > 1 ? o->valuestring[0] : 'C';
        return GSVD_OK;
    }
    if (!cJSON_IsArray(o) || (size_t)cJSON_GetArraySize(o) != z->ndim) {
        gsvd_log_error("%s: codec transpose: \"order\" must list %zu axes", where, z->ndim);
        return GSVD_EFORMAT;
    }
    cJSON_ArrayForEach(item, o)
    {
        double d = item->valuedouble;
        if (!cJSON_IsNumber(item) || !(d >= 0 && d < (double)z->ndim) || d != floor(d) ||
            seen[(size_t)d]) {
            gsvd_log_error("%s: codec transpose: \"order\" is not a permutation of 0..%zu", where,
                           z->ndim ? z->ndim - 1 : 0);
            return GSVD_EFORMAT;
        }
        seen[(size_t)d] = 1;
        z->perm[i] = (unsigned char)d;
        identity &= z->perm[i] == i;
        reversal &= z->perm[i] == z->ndim - 1 - i;
        i++;
    }
    z->order = identity ? 'C' : reversal ? 'F' : 'P';
    return GSVD_OK;
}

/* bytes codec: the byte order of multi-byte elements. */
static int parse_bytes(const cJSON *conf, const char *where, struct gsvd_zarray *z, char *desc,
                       size_t len)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(conf, "endian");
    int one = z->dtype.kind == 'S' || (z->dtype.kind != 'U' && z->dtype.size == 1);

    if (e && !(cJSON_IsString(e) &&
               (strcmp(e->valuestring, "little") == 0 || strcmp(e->valuestring, "big") == 0))) {
        gsvd_log_error("%s: codec bytes: \"endian\" must be \"little\" or \"big\"", where);
        return GSVD_EFORMAT;
    }
    if (!e && !one) {
        gsvd_log_error("%s: codec bytes: \"endian\" is required for %zu-byte elements", where,
                       z->dtype.size);
        return GSVD_EFORMAT;
    }
    if (z->dtype.kind == 'S' || one) {
        z->dtype.byteorder = '|';
        snprintf(desc, len, "bytes");
    } else {
        z->dtype.byteorder = e->valuestring[0] == 'b' ? '>' : '<';
        snprintf(desc, len, "bytes(%s)", e->valuestring);
    }
    return GSVD_OK;
}

struct chain_parts {
    const cJSON *rest;     /* the bytes -> bytes codecs after the array -> bytes one */
    int rest_from;         /* index of the first of them in the list */
    const cJSON *sharding; /* the sharding_indexed configuration, or NULL */
    char desc[256];        /* description of the array -> array and array -> bytes codecs */
};

/* Split a codec list into array -> array, array -> bytes and bytes -> bytes codecs; read the
 * first two kinds into z.  `inner`: the list inside sharding_indexed. */
static int split_codecs(const cJSON *list, const char *lname, int inner, int vlen,
                        const char *where, struct gsvd_zarray *z, struct chain_parts *p)
{
    const cJSON *e;
    size_t i = 0;
    int have_transpose = 0;
    char one[96];

    memset(p, 0, sizeof *p);
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0) {
        gsvd_log_error("%s: \"%s\" is missing or not a non-empty list", where, lname);
        return GSVD_EFORMAT;
    }
    cJSON_ArrayForEach(e, list)
    {
        const char *name;
        const cJSON *conf;
        int optional, rc = codec_entry(e, lname, i, where, &name, &conf, &optional);

        if (rc < 0)
            return rc;
        if (strcmp(name, "transpose") == 0) {
            if (have_transpose) {
                gsvd_log_error("%s: codec transpose twice is not supported", where);
                return GSVD_EUNSUPPORTED;
            }
            have_transpose = 1;
            rc = parse_transpose(conf, where, z);
            if (rc < 0)
                return rc;
            snprintf(one, sizeof one, "transpose(%s) | ",
                     z->order == 'C'   ? "C"
                     : z->order == 'F' ? "F"
                                       : "permuted");
            strncat(p->desc, one, sizeof p->desc - strlen(p->desc) - 1);
        } else if (strcmp(name, "bytes") == 0 || strcmp(name, "vlen-utf8") == 0) {
            if (vlen != (name[0] == 'v')) {
                gsvd_log_error("%s: codec %s does not fit data_type %s", where, name,
                               vlen ? "string" : "of fixed size");
                return GSVD_EUNSUPPORTED;
            }
            if (vlen) {
                z->dtype.byteorder = '|';
                snprintf(one, sizeof one, "vlen-utf8");
            } else if ((rc = parse_bytes(conf, where, z, one, sizeof one)) < 0) {
                return rc;
            }
            strncat(p->desc, one, sizeof p->desc - strlen(p->desc) - 1);
            p->rest = e->next;
            p->rest_from = (int)i + 1;
            return GSVD_OK;
        } else if (strcmp(name, "sharding_indexed") == 0) {
            if (inner || have_transpose) {
                gsvd_log_error("%s: %s sharding_indexed is not supported", where,
                               inner ? "nested" : "transpose before");
                return GSVD_EUNSUPPORTED;
            }
            if (e->next) {
                gsvd_log_error("%s: codecs after sharding_indexed are not supported (shards could "
                               "not be read in parts)",
                               where);
                return GSVD_EUNSUPPORTED;
            }
            if (!conf) {
                gsvd_log_error("%s: codec sharding_indexed has no \"configuration\"", where);
                return GSVD_EFORMAT;
            }
            p->sharding = conf;
            return GSVD_OK;
        } else if (!optional) {
            gsvd_log_error("%s: codec '%s' is not supported before the array -> bytes codec "
                           "(supported: transpose, bytes, vlen-utf8, sharding_indexed)",
                           where, name);
            return GSVD_EUNSUPPORTED;
        }
        i++;
    }
    gsvd_log_error("%s: \"%s\" has no array -> bytes codec (bytes, vlen-utf8 or "
                   "sharding_indexed)",
                   where, lname);
    return GSVD_EFORMAT;
}

/* The bytes -> bytes codecs from p->rest on as an ordered chain. */
static int build_chain(const struct chain_parts *p, int vlen, const char *prefix, const char *where,
                       struct gsvd_zarray *z)
{
    int rc = GSVD_OK;
    cJSON *arr = cJSON_CreateArray();
    char *text = NULL;

    if (!arr)
        goto nomem;
    for (const cJSON *e = p->rest; e; e = e->next) {
        cJSON *dup = cJSON_Duplicate(e, 1);
        if (!dup || !cJSON_AddItemToArray(arr, dup)) {
            cJSON_Delete(dup);
            goto nomem;
        }
    }
    text = cJSON_PrintUnformatted(arr);
    if (!text)
        goto nomem;
    rc = gsvd_codec_chain_parse_v3(text, vlen, prefix, &z->dtype, where, &z->codecs);
    goto out;
nomem:
    gsvd_log_error("%s: out of memory reading the codecs", where);
    rc = GSVD_ENOMEM;
out:
    cJSON_free(text);
    cJSON_Delete(arr);
    return rc;
}

/* index_codecs: bytes (little or big), optionally crc32c; nothing else. */
static int parse_index_codecs(const cJSON *list, const char *where, struct gsvd_zarray *z)
{
    const cJSON *e;
    size_t i = 0;
    int have_bytes = 0;

    if (!cJSON_IsArray(list)) {
        gsvd_log_error("%s: sharding_indexed: \"index_codecs\" is missing or not a list", where);
        return GSVD_EFORMAT;
    }
    cJSON_ArrayForEach(e, list)
    {
        const char *name;
        const cJSON *conf, *en;
        int optional, rc = codec_entry(e, "index_codecs", i, where, &name, &conf, &optional);

        if (rc < 0)
            return rc;
        if (strcmp(name, "bytes") == 0 && !have_bytes) {
            en = cJSON_GetObjectItemCaseSensitive(conf, "endian");
            if (en && !(cJSON_IsString(en) && (strcmp(en->valuestring, "little") == 0 ||
                                               strcmp(en->valuestring, "big") == 0))) {
                gsvd_log_error("%s: index_codecs bytes: \"endian\" must be \"little\" or \"big\"",
                               where);
                return GSVD_EFORMAT;
            }
            z->index_big_endian = en && en->valuestring[0] == 'b';
            have_bytes = 1;
        } else if (strcmp(name, "crc32c") == 0 && have_bytes && !z->index_crc) {
            z->index_crc = 1;
        } else if (!optional || !have_bytes) {
            gsvd_log_error("%s: index_codecs[%zu] '%s' is not supported (supported: bytes, then "
                           "crc32c)",
                           where, i, name);
            return GSVD_EUNSUPPORTED;
        }
        i++;
    }
    if (!have_bytes) {
        gsvd_log_error("%s: sharding_indexed: \"index_codecs\" has no bytes codec", where);
        return GSVD_EFORMAT;
    }
    return GSVD_OK;
}

/* sharding_indexed: the shard shape (z->chunks so far) becomes z->shard and the inner chunk
 * shape becomes z->chunks; the inner codecs give the chain. */
static int parse_sharding(const cJSON *conf, int vlen, const char *where, struct gsvd_zarray *z)
{
    int rc = GSVD_OK;
    uint64_t inner[GSVD_MAX_DIMS];
    size_t nd = 0, n_inner = 1;
    struct chain_parts p;
    const cJSON *loc = cJSON_GetObjectItemCaseSensitive(conf, "index_location");
    char prefix[512], shape[200] = "";

    GSVD_TRY(gsvd_meta_parse_dims(conf, "chunk_shape", where, inner, &nd, 1));
    if (nd != z->ndim) {
        gsvd_log_error("%s: sharding_indexed \"chunk_shape\" has %zu dimensions but \"shape\" has "
                       "%zu",
                       where, nd, z->ndim);
        return GSVD_EFORMAT;
    }
    for (size_t d = 0; d < nd; d++) {
        if (z->chunks[d] % inner[d] != 0) {
            gsvd_log_error("%s: shard shape %llu on axis %zu is not a multiple of the inner chunk "
                           "shape %llu",
                           where, (unsigned long long)z->chunks[d], d,
                           (unsigned long long)inner[d]);
            return GSVD_EFORMAT;
        }
        z->shard[d] = z->chunks[d];
        z->per_shard[d] = z->chunks[d] / inner[d];
        z->shard_grid[d] = z->shape[d] / z->shard[d] + (z->shape[d] % z->shard[d] != 0);
        z->chunks[d] = inner[d];
        if (gsvd_mul_size(n_inner, (size_t)z->per_shard[d], &n_inner) < 0 ||
            n_inner > MAX_INDEX_BYTES / 16) {
            gsvd_log_error("%s: a shard would hold over 2^26 inner chunks", where);
            return GSVD_EFORMAT;
        }
        snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%llu", d ? "x" : "",
                 (unsigned long long)z->shard[d]);
    }
    /* shards are cached under their C-order linear index, which must not wrap */
    for (size_t d = 0, n = 1; d < nd; d++) {
        if (z->shard_grid[d] > SIZE_MAX || gsvd_mul_size(n, (size_t)z->shard_grid[d], &n) < 0) {
            gsvd_log_error("%s: the shard grid has more than 2^64 shards", where);
            return GSVD_EFORMAT;
        }
    }
    z->sharded = 1;
    z->n_inner = n_inner;
    if (loc && !(cJSON_IsString(loc) && (strcmp(loc->valuestring, "start") == 0 ||
                                         strcmp(loc->valuestring, "end") == 0))) {
        gsvd_log_error("%s: sharding_indexed: \"index_location\" must be \"start\" or \"end\"",
                       where);
        return GSVD_EFORMAT;
    }
    z->index_at_start = loc && strcmp(loc->valuestring, "start") == 0;
    GSVD_TRY(parse_index_codecs(cJSON_GetObjectItemCaseSensitive(conf, "index_codecs"), where, z));
    GSVD_TRY(split_codecs(cJSON_GetObjectItemCaseSensitive(conf, "codecs"), "sharding codecs", 1,
                          vlen, where, z, &p));
    snprintf(prefix, sizeof prefix, "shards %s (index at %s%s) | %s", shape,
             z->index_at_start ? "start" : "end", z->index_crc ? ", crc32c" : "", p.desc);
    GSVD_TRY(build_chain(&p, vlen, prefix, where, z));
out:
    return rc;
}

/* chunk_grid regular -> z->chunks. */
static int parse_grid(const cJSON *root, const char *where, struct gsvd_zarray *z)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(root, "chunk_grid");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(g, "name");
    const cJSON *conf = cJSON_GetObjectItemCaseSensitive(g, "configuration");
    size_t nd = 0;
    int rc;

    if (!cJSON_IsObject(g) || !cJSON_IsString(name)) {
        gsvd_log_error("%s: \"chunk_grid\" is missing or has no \"name\"", where);
        return GSVD_EFORMAT;
    }
    if (strcmp(name->valuestring, "regular") != 0) {
        gsvd_log_error("%s: chunk_grid \"%s\" is not supported (only \"regular\")", where,
                       name->valuestring);
        return GSVD_EUNSUPPORTED;
    }
    if (!cJSON_IsObject(conf)) {
        gsvd_log_error("%s: chunk_grid has no \"configuration\"", where);
        return GSVD_EFORMAT;
    }
    rc = gsvd_meta_parse_dims(conf, "chunk_shape", where, z->chunks, &nd, 1);
    if (rc < 0)
        return rc;
    if (nd != z->ndim) {
        gsvd_log_error("%s: \"chunk_shape\" has %zu dimensions but \"shape\" has %zu", where, nd,
                       z->ndim);
        return GSVD_EFORMAT;
    }
    return GSVD_OK;
}

/* chunk_key_encoding default|v2 with separator "/" or ".". */
static int parse_key_encoding(const cJSON *root, const char *where, struct gsvd_zarray *z)
{
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(root, "chunk_key_encoding");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(k, "name");
    const cJSON *conf = cJSON_GetObjectItemCaseSensitive(k, "configuration");
    const cJSON *sep = cJSON_GetObjectItemCaseSensitive(conf, "separator");

    if (!cJSON_IsObject(k) || !cJSON_IsString(name)) {
        gsvd_log_error("%s: \"chunk_key_encoding\" is missing or has no \"name\"", where);
        return GSVD_EFORMAT;
    }
    if (strcmp(name->valuestring, "default") == 0) {
        z->key_c_prefix = 1;
        z->sep = '/';
    } else if (strcmp(name->valuestring, "v2") == 0) {
        z->sep = '.';
    } else {
        gsvd_log_error("%s: chunk_key_encoding \"%s\" is not supported (default, v2)", where,
                       name->valuestring);
        return GSVD_EUNSUPPORTED;
    }
    if (conf && !cJSON_IsObject(conf)) {
        gsvd_log_error("%s: chunk_key_encoding \"configuration\" is not an object", where);
        return GSVD_EFORMAT;
    }
    if (sep) {
        if (!cJSON_IsString(sep) ||
            (strcmp(sep->valuestring, "/") != 0 && strcmp(sep->valuestring, ".") != 0)) {
            gsvd_log_error("%s: chunk_key_encoding \"separator\" must be \"/\" or \".\"", where);
            return GSVD_EFORMAT;
        }
        z->sep = sep->valuestring[0];
    }
    return GSVD_OK;
}

/* dimension_names: absent, or a list of strings or nulls, one per axis. */
static int check_dim_names(const cJSON *root, const char *where, size_t ndim)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "dimension_names"), *item;

    if (!d || cJSON_IsNull(d))
        return GSVD_OK;
    if (!cJSON_IsArray(d) || (size_t)cJSON_GetArraySize(d) != ndim) {
        gsvd_log_error("%s: \"dimension_names\" must be a list of %zu names", where, ndim);
        return GSVD_EFORMAT;
    }
    cJSON_ArrayForEach(item, d)
    {
        if (!cJSON_IsString(item) && !cJSON_IsNull(item)) {
            gsvd_log_error("%s: \"dimension_names\" entries must be strings or null", where);
            return GSVD_EFORMAT;
        }
    }
    return GSVD_OK;
}

static int check_array_extras(const cJSON *root, const char *where)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(root, "storage_transformers");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "attributes");

    if (st && !(cJSON_IsArray(st) && cJSON_GetArraySize(st) == 0)) {
        gsvd_log_error("%s: \"storage_transformers\" are not supported", where);
        return cJSON_IsArray(st) ? GSVD_EUNSUPPORTED : GSVD_EFORMAT;
    }
    if (a && !cJSON_IsObject(a)) {
        gsvd_log_error("%s: \"attributes\" is not an object", where);
        return GSVD_EFORMAT;
    }
    return GSVD_OK;
}

int gsvd_zarray_parse_v3(const char *json, size_t n, const char *where, struct gsvd_zarray *out)
{
    int rc = GSVD_OK, vlen = 0;
    cJSON *root = NULL;
    struct gsvd_buf fixed = GSVD_BUF_INIT;
    struct gsvd_zarray z;
    struct chain_parts p;
    const char *type = NULL;

    memset(&z, 0, sizeof z);
    memset(out, 0, sizeof *out);
    GSVD_TRY(gsvd_meta_parse_json(json, n, where, 1, &root, &fixed));
    if (fixed.data) { /* bare NaN somewhere: exact numbers are re-read from the parsed text */
        json = fixed.data;
        n = fixed.len;
    }
    GSVD_TRY(check_header(root, where, &type));
    if (strcmp(type, "array") != 0) {
        gsvd_log_error("%s: a group, not an array", where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    GSVD_TRY(check_members(root, array_members, GSVD_ARRAY_LEN(array_members), where));
    GSVD_TRY(check_array_extras(root, where));
    z.zarr_format = 3;
    z.order = 'C';
    GSVD_TRY(gsvd_meta_parse_dims(root, "shape", where, z.shape, &z.ndim, 0));
    GSVD_TRY(parse_grid(root, where, &z));
    GSVD_TRY(
        parse_data_type(cJSON_GetObjectItemCaseSensitive(root, "data_type"), where, &z, &vlen));
    GSVD_TRY(parse_key_encoding(root, where, &z));
    GSVD_TRY(check_dim_names(root, where, z.ndim));
    GSVD_TRY(split_codecs(cJSON_GetObjectItemCaseSensitive(root, "codecs"), "codecs", 0, vlen,
                          where, &z, &p));
    if (p.sharding) {
        GSVD_TRY(parse_sharding(p.sharding, vlen, where, &z));
    } else {
        for (size_t d = 0; d < z.ndim; d++) {
            z.shard[d] = z.chunks[d]; /* one inner chunk per "shard" keeps sizes uniform */
            z.per_shard[d] = 1;
        }
        GSVD_TRY(build_chain(&p, vlen, p.desc, where, &z));
    }
    GSVD_TRY(gsvd_zarray_derive(&z, where));
    GSVD_TRY(parse_fill_v3(&z, root, json, n, where));
    *out = z;
    memset(&z, 0, sizeof z);
out:
    gsvd_zarray_clear(&z);
    gsvd_buf_free(&fixed);
    cJSON_Delete(root);
    return rc;
}

/* ---- consolidated metadata ---------------------------------------------------------------- */

/* Value spans of the members of the object text [p, e), allocated to fit `count`. */
static int spans_of(const char *p, const char *e, size_t count, const char ***vs, const char ***ve)
{
    *vs = gsvd_malloc((count ? count : 1) * sizeof **vs);
    *ve = gsvd_malloc((count ? count : 1) * sizeof **ve);
    if (!*vs || !*ve)
        return GSVD_ENOMEM;
    return gsvd_meta_object_spans(p, e, *vs, *ve, count) == count ? GSVD_OK : GSVD_EINTERNAL;
}

int gsvd_v3_consolidated_parse(const char *json, size_t n, const char *where,
                               struct gsvd_strlist *keys, struct gsvd_strlist *docs)
{
    int rc = GSVD_OK;
    cJSON *root = NULL;
    struct gsvd_buf fixed = GSVD_BUF_INIT;
    const cJSON *cm, *kind, *meta, *item;
    const char **rvs = NULL, **rve = NULL, **cvs = NULL, **cve = NULL, **mvs = NULL, **mve = NULL;
    const char *type = NULL;
    char *key = NULL;
    size_t ci, mi, i = 0, n0 = keys->n;

    GSVD_TRY(gsvd_meta_parse_json(json, n, where, 1, &root, &fixed));
    if (fixed.data) {
        json = fixed.data;
        n = fixed.len;
    }
    GSVD_TRY(check_header(root, where, &type));
    cm = cJSON_GetObjectItemCaseSensitive(root, "consolidated_metadata");
    if (!cm || cJSON_IsNull(cm)) {
        rc = GSVD_ENOTFOUND;
        goto out;
    }
    kind = cJSON_GetObjectItemCaseSensitive(cm, "kind");
    meta = cJSON_GetObjectItemCaseSensitive(cm, "metadata");
    if (!cJSON_IsObject(cm) || !cJSON_IsString(kind) || strcmp(kind->valuestring, "inline") != 0 ||
        !cJSON_IsObject(meta)) {
        gsvd_log_error("%s: \"consolidated_metadata\" is not {\"kind\": \"inline\", \"metadata\": "
                       "{...}}",
                       where);
        rc = GSVD_EFORMAT;
        goto out;
    }
    /* the text of each document: root -> consolidated_metadata -> metadata -> members */
    ci = gsvd_meta_child_index(root, cm);
    mi = gsvd_meta_child_index(cm, meta);
    GSVD_TRY(spans_of(json, json + n, (size_t)cJSON_GetArraySize(root), &rvs, &rve));
    GSVD_TRY(spans_of(rvs[ci], rve[ci], (size_t)cJSON_GetArraySize(cm), &cvs, &cve));
    GSVD_TRY(spans_of(cvs[mi], cve[mi], (size_t)cJSON_GetArraySize(meta), &mvs, &mve));
    GSVD_TRY(gsvd_strlist_push(keys, "zarr.json"));
    GSVD_TRY(gsvd_strlist_pushn(docs, json, n));
    cJSON_ArrayForEach(item, meta)
    {
        const char *path = item->string;
        if (!path || gsvd_key_check(path) < 0) {
            gsvd_log_error("%s: consolidated metadata: invalid node path '%s'", where,
                           path ? path : "");
            rc = GSVD_EFORMAT;
            goto out;
        }
        if (!cJSON_IsObject(item)) {
            gsvd_log_error("%s: consolidated metadata for '%s' is not an object", where, path);
            rc = GSVD_EFORMAT;
            goto out;
        }
        gsvd_free(key);
        key = gsvd_asprintf("%s/zarr.json", path);
        if (!key) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        GSVD_TRY(gsvd_strlist_push(keys, key));
        GSVD_TRY(gsvd_strlist_pushn(docs, mvs[i], (size_t)(mve[i] - mvs[i])));
        i++;
    }
out:
    if (rc < 0 && rc != GSVD_ENOTFOUND) { /* keep the lists as they were, same length */
        while (keys->n > n0)
            gsvd_free(keys->items[--keys->n]);
        while (docs->n > n0)
            gsvd_free(docs->items[--docs->n]);
    }
    if (rc == GSVD_EINTERNAL)
        gsvd_log_error("%s: cannot delimit the consolidated documents", where);
    gsvd_free(key);
    gsvd_free(rvs);
    gsvd_free(rve);
    gsvd_free(cvs);
    gsvd_free(cve);
    gsvd_free(mvs);
    gsvd_free(mve);
    gsvd_buf_free(&fixed);
    cJSON_Delete(root);
    return rc;
}
