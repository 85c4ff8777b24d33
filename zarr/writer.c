/* zarr/writer.c - staged Zarr v2 or v3 output with consolidated metadata written last.
 * v3 documents are written as text and read back with the v3 parser (gsvd_zarray_parse_v3),
 * so the array model the encoder uses is the one a reader of the output gets.  A sharded
 * array keeps the encoded inner chunks of each unfinished shard in memory (compressed) and
 * stores the shard when its last inner chunk arrives: pdist's band order finishes a row of
 * shards before the next, so what is held is about one row of shards. */
#include "gsvd_config.h"
#include "zarr/writer.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/ndcopy.h"
#include "zarr/meta_v3.h"
#include "zarr/store.h"

#define V3_DOC "zarr.json"
#define MAX_SHARDS ((uint64_t)1 << 28) /* pending-shard table entries per array */

/* The inner chunks of one shard received so far (v3 sharded arrays). */
struct shard_pending {
    struct gsvd_buf *parts; /* n_inner encoded inner chunks, C order within the shard */
    unsigned char *have;    /* n_inner flags */
    uint64_t n_have;
};

struct gsvd_warray {
    gsvd_writer *w;                 /* the writer that owns this array */
    char *path;                     /* owned */
    struct gsvd_zarray meta;        /* owned members */
    uint64_t n_chunks;              /* chunks in the grid */
    uint64_t n_written;             /* distinct chunks written so far (under lock) */
    uint8_t *written;               /* owned; one bit per chunk, C order of the grid */
    pthread_mutex_t lock;           /* guards n_written, written and pending */
    struct shard_pending **pending; /* v3 sharded: per shard (C order), NULL when none held */
    uint64_t n_shards;
};

struct gsvd_writer {
    gsvd_store *st;            /* owned; staged */
    struct gsvd_strlist keys;  /* metadata keys written, for .zmetadata */
    struct gsvd_strlist docs;  /* their texts, same order */
    struct gsvd_strlist kinds; /* v3: "group" or "array" for each key */
    gsvd_warray **arrays;      /* owned */
    size_t n_arrays;
    struct gsvd_writer_params p;
    char *root_attrs; /* v3: the root group's attributes (JSON object text), or NULL */
};

static void pending_free(struct shard_pending *sp, size_t n_inner)
{
    if (!sp)
        return;
    for (size_t i = 0; sp->parts && i < n_inner; i++)
        gsvd_buf_free(&sp->parts[i]);
    gsvd_free(sp->parts);
    gsvd_free(sp->have);
    gsvd_free(sp);
}

static void warray_free(gsvd_warray *a)
{
    if (!a)
        return;
    for (uint64_t i = 0; a->pending && i < a->n_shards; i++)
        pending_free(a->pending[i], a->meta.n_inner);
    gsvd_free(a->pending);
    gsvd_zarray_clear(&a->meta);
    gsvd_free(a->path);
    gsvd_free(a->written);
    pthread_mutex_destroy(&a->lock);
    gsvd_free(a);
}

void gsvd_writer_close(gsvd_writer *w)
{
    if (!w)
        return;
    gsvd_store_close(w->st);
    for (size_t i = 0; i < w->n_arrays; i++)
        warray_free(w->arrays[i]);
    gsvd_free(w->arrays);
    gsvd_strlist_free(&w->keys);
    gsvd_strlist_free(&w->docs);
    gsvd_strlist_free(&w->kinds);
    gsvd_free(w->root_attrs);
    gsvd_free(w);
}

/* Store a metadata document and remember it for the consolidated metadata (replacing an
 * earlier version).  `kind` ("group" or "array") is recorded for v3 documents; the v3 root
 * zarr.json is only remembered here: the commit writes it, last. */
static int put_meta(gsvd_writer *w, const char *path, const char *name, const char *text,
                    const char *kind)
{
    int rc = GSVD_OK;
    char *key = NULL;

    GSVD_TRY(gsvd_key_join(path, name, &key));
    if (w->p.zarr_format == 2 || *path)
        GSVD_TRY(gsvd_store_put(w->st, key, text, strlen(text)));
    for (size_t i = 0; i < w->keys.n; i++) {
        if (strcmp(w->keys.items[i], key) == 0) {
            char *copy = gsvd_strdup(text);
            if (!copy) {
                rc = GSVD_ENOMEM;
                goto out;
            }
            gsvd_free(w->docs.items[i]);
            w->docs.items[i] = copy;
            goto out;
        }
    }
    GSVD_TRY(gsvd_strlist_push(&w->keys, key));
    rc = gsvd_strlist_push(&w->docs, text);
    if (rc == GSVD_OK)
        rc = gsvd_strlist_push(&w->kinds, kind);
    if (rc < 0) { /* keep the lists the same length */
        gsvd_free(w->keys.items[--w->keys.n]);
        if (w->docs.n > w->keys.n)
            gsvd_free(w->docs.items[--w->docs.n]);
        goto out;
    }
out:
    gsvd_free(key);
    return rc;
}

/* Index of the key path/name in w->keys, or -1. */
static long find_key(const gsvd_writer *w, const char *path, const char *name)
{
    size_t lp = strlen(path);
    for (size_t i = 0; i < w->keys.n; i++) {
        const char *k = w->keys.items[i];
        if (lp == 0 ? strcmp(k, name) == 0
                    : strncmp(k, path, lp) == 0 && k[lp] == '/' && strcmp(k + lp + 1, name) == 0)
            return (long)i;
    }
    return -1;
}

/* What the node at `path` is: 0 none, 1 group, 2 array. */
static int node_kind(const gsvd_writer *w, const char *path)
{
    long i;
    if (w->p.zarr_format == 3) {
        i = find_key(w, path, V3_DOC);
        return i < 0 ? 0 : w->kinds.items[i][0] == 'g' ? 1 : 2;
    }
    return find_key(w, path, ".zgroup") >= 0 ? 1 : find_key(w, path, ".zarray") >= 0 ? 2 : 0;
}

/* A v3 group document with attributes `attrs` (a JSON object text, or NULL for none). */
static int put_group_v3(gsvd_writer *w, const char *path, const char *attrs)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    GSVD_TRY(gsvd_buf_printf(&b,
                             "{\n    \"zarr_format\": 3,\n    \"node_type\": \"group\",\n    "
                             "\"attributes\": %s\n}",
                             attrs ? attrs : "{}"));
    GSVD_TRY(put_meta(w, path, V3_DOC, b.data, "group"));
out:
    gsvd_buf_free(&b);
    return rc;
}

static int put_group(gsvd_writer *w, const char *path)
{
    if (w->p.zarr_format == 3)
        return put_group_v3(w, path, NULL);
    return put_meta(w, path, ".zgroup", "{\n    \"zarr_format\": 2\n}", "group");
}

/* Create the group document for path and every ancestor that lacks one. */
static int ensure_groups(gsvd_writer *w, const char *path)
{
    int rc = GSVD_OK;
    char *p = gsvd_strdup(path);

    if (!p)
        return GSVD_ENOMEM;
    if (node_kind(w, "") == 0)
        GSVD_TRY(put_group(w, ""));
    for (char *s = p; *p; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char save = *s;
        *s = '\0';
        if (node_kind(w, p) != 1) {
            if (node_kind(w, p) == 2) {
                gsvd_log_error("%s: '%s' is an array, not a group", gsvd_store_url(w->st), p);
                rc = GSVD_EINVAL;
                goto out;
            }
            GSVD_TRY(put_group(w, p));
        }
        *s = save;
        if (save == '\0')
            break;
    }
out:
    gsvd_free(p);
    return rc;
}

int gsvd_writer_open(const char *url, int overwrite, gsvd_writer **out)
{
    return gsvd_writer_open_params(url, overwrite, NULL, out);
}

int gsvd_writer_open_params(const char *url, int overwrite, const struct gsvd_writer_params *p,
                            gsvd_writer **out)
{
    static const struct gsvd_writer_params defaults = GSVD_WRITER_PARAMS_DEFAULT;
    int rc = GSVD_OK;
    gsvd_writer *w;

    *out = NULL;
    if (!p)
        p = &defaults;
    if (p->zarr_format != 2 && p->zarr_format != 3) {
        gsvd_log_error("Zarr format %d: gensvd writes 2 or 3", p->zarr_format);
        return GSVD_EINVAL;
    }
    if (p->zarr_format == 2 && (p->shard[0] || p->shard[1])) {
        gsvd_log_error("shards need Zarr format 3");
        return GSVD_EINVAL;
    }
    w = gsvd_calloc(1, sizeof *w);
    if (!w)
        return GSVD_ENOMEM;
    w->p = *p;
    GSVD_TRY(
        gsvd_store_open(url, GSVD_STORE_WRITE | (overwrite ? GSVD_STORE_OVERWRITE : 0), &w->st));
    GSVD_TRY(ensure_groups(w, ""));
    *out = w;
    w = NULL;
out:
    gsvd_writer_close(w);
    return rc;
}

int gsvd_writer_group(gsvd_writer *w, const char *path, const char *attrs_json)
{
    int rc = GSVD_OK;

    if (*path && gsvd_key_check(path) < 0) {
        gsvd_log_error("invalid group path '%s'", path);
        return GSVD_EINVAL;
    }
    GSVD_TRY(ensure_groups(w, path));
    if (attrs_json) {
        GSVD_TRY(gsvd_meta_check_object(attrs_json, strlen(attrs_json), path));
        if (w->p.zarr_format == 2) {
            GSVD_TRY(put_meta(w, path, ".zattrs", attrs_json, "attrs"));
        } else if (*path) {
            GSVD_TRY(put_group_v3(w, path, attrs_json));
        } else {
            char *copy = gsvd_strdup(attrs_json);
            if (!copy)
                return GSVD_ENOMEM;
            gsvd_free(w->root_attrs);
            w->root_attrs = copy;
        }
    }
out:
    return rc;
}

/* .zattrs text: {"_ARRAY_DIMENSIONS": [...]} merged with the spec's extra members. */
static int array_attrs(const struct gsvd_array_spec *s, struct gsvd_buf *b)
{
    int rc = GSVD_OK;
    GSVD_TRY(gsvd_buf_puts(b, "{\n    \"_ARRAY_DIMENSIONS\": ["));
    for (size_t d = 0; d < s->ndim; d++) {
        char name[32];
        if (d)
            GSVD_TRY(gsvd_buf_puts(b, ", "));
        if (s->dims[d]) {
            GSVD_TRY(gsvd_json_quote(b, s->dims[d]));
        } else {
            snprintf(name, sizeof name, "dim_%zu", d);
            GSVD_TRY(gsvd_json_quote(b, name));
        }
    }
    GSVD_TRY(gsvd_buf_puts(b, "]"));
    if (s->attrs_json) {
        /* splice the members of the extra object after ours */
        const char *p = strchr(s->attrs_json, '{'), *e = strrchr(s->attrs_json, '}');
        if (!p || !e || e < p) {
            gsvd_log_error("%s: attributes are not a JSON object", s->path);
            rc = GSVD_EINVAL;
            goto out;
        }
        p++;
        while (p < e && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
            p++;
        if (p < e) {
            GSVD_TRY(gsvd_buf_puts(b, ",\n    "));
            GSVD_TRY(gsvd_buf_append(b, p, (size_t)(e - p)));
        }
    }
    GSVD_TRY(gsvd_buf_puts(b, "\n}"));
    GSVD_TRY(gsvd_meta_check_object(b->data, b->len, s->path));
out:
    return rc;
}

/* Directory part of an array path: "a/b/c" -> "a/b", "c" -> "". */
static char *parent_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? gsvd_strndup(path, (size_t)(slash - path)) : gsvd_strdup("");
}

int gsvd_writer_shard_shape(const struct gsvd_writer_params *p, const char *what, size_t ndim,
                            const uint64_t *shape, const uint64_t *chunks, uint64_t *shard_out)
{
    for (size_t d = 0; d < ndim; d++) {
        uint64_t ext = chunks[d], want = 0;
        uint64_t grid = shape[d] / chunks[d] + (shape[d] % chunks[d] != 0);

        if (d == 0)
            want = p->shard[0];
        else if (d == 1)
            want = p->shard[1] ? p->shard[1] : p->shard[0];
        if (want && grid > 1) {
            if (want % chunks[d] != 0) {
                gsvd_log_error("%s: shard extent %llu on axis %zu is not a multiple of the chunk "
                               "extent %llu",
                               what, (unsigned long long)want, d, (unsigned long long)chunks[d]);
                return GSVD_EINVAL;
            }
            ext = want < grid * chunks[d] ? want : grid * chunks[d];
        }
        if (shard_out)
            shard_out[d] = ext;
    }
    return GSVD_OK;
}

/* The v3 data_type name of a numeric dtype, or NULL. */
static const char *v3_type_name(const struct gsvd_dtype *dt)
{
    static const char *const ints[] = {"int8", "int16", NULL, "int32", NULL, NULL, NULL, "int64"};
    static const char *const uints[] = {"uint8", "uint16", NULL, "uint32",
                                        NULL,    NULL,     NULL, "uint64"};
    if (dt->size < 1 || dt->size > 8)
        return NULL;
    switch (dt->kind) {
    case 'b':
        return dt->size == 1 ? "bool" : NULL;
    case 'i':
        return ints[dt->size - 1];
    case 'u':
        return uints[dt->size - 1];
    case 'f':
        return dt->size == 4 ? "float32" : dt->size == 8 ? "float64" : NULL;
    case 'O':
        return "string";
    default:
        return NULL;
    }
}

/* fill_value in its v3 JSON form: numbers, true/false, "NaN", "Infinity", "-Infinity", "" (a
 * string, or base64 of no bytes: an all-zero fixed-length bytes value). */
static int v3_fill(const struct gsvd_array_spec *s, struct gsvd_buf *b)
{
    const unsigned char *f = s->fill;
    if (s->dtype.kind == 'O')
        return gsvd_buf_puts(b, "\"\"");
    if (s->dtype.kind == 'S') {
        for (size_t i = 0; f && i < s->dtype.size; i++)
            if (f[i]) {
                gsvd_log_error("%s: a fixed-length bytes fill other than zeros is not written "
                               "as Zarr v3",
                               s->path);
                return GSVD_EUNSUPPORTED;
            }
        return gsvd_buf_puts(b, "\"\"");
    }
    if (!f)
        return gsvd_buf_puts(b, s->dtype.kind == 'b'   ? "false"
                                : s->dtype.kind == 'f' ? "0.0"
                                                       : "0");
    if (s->dtype.kind == 'b')
        return gsvd_buf_puts(b, f[0] ? "true" : "false");
    if (s->dtype.kind == 'f') {
        double v;
        float v4;
        if (s->dtype.size == 4) {
            memcpy(&v4, f, 4);
            v = v4;
        } else {
            memcpy(&v, f, 8);
        }
        if (isnan(v))
            return gsvd_buf_puts(b, "\"NaN\"");
        if (isinf(v))
            return gsvd_buf_puts(b, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        return gsvd_buf_printf(b, "%.17g", v);
    }
    if (s->dtype.kind == 'i') {
        int64_t v = 0;
        switch (s->dtype.size) {
        case 1:
            v = *(const int8_t *)f;
            break;
        case 2: {
            int16_t t;
            memcpy(&t, f, 2);
            v = t;
            break;
        }
        case 4: {
            int32_t t;
            memcpy(&t, f, 4);
            v = t;
            break;
        }
        default:
            memcpy(&v, f, 8);
            break;
        }
        return gsvd_buf_printf(b, "%lld", (long long)v);
    }
    uint64_t u = 0;
    memcpy(&u, f, s->dtype.size); /* little-endian host, as the writer assumes throughout */
    return gsvd_buf_printf(b, "%llu", (unsigned long long)u);
}

static int put_dims(struct gsvd_buf *b, size_t n, const uint64_t *v)
{
    int rc = GSVD_OK;
    GSVD_TRY(gsvd_buf_puts(b, "["));
    for (size_t d = 0; d < n; d++)
        GSVD_TRY(gsvd_buf_printf(b, "%s%llu", d ? ", " : "", (unsigned long long)v[d]));
    GSVD_TRY(gsvd_buf_puts(b, "]"));
out:
    return rc;
}

/* zarr.json of a v3 array as zarr-python 3 writes it: the v2 chain `chain` gives the
 * compressor; `shard` (NULL: unsharded) the shard shape. */
static int array_doc_v3(const struct gsvd_array_spec *s, const gsvd_codec_chain *chain,
                        const uint64_t *shard, struct gsvd_buf *b)
{
    static const char *const bytes_le = "{\"name\": \"bytes\", \"configuration\": "
                                        "{\"endian\": \"little\"}}";
    const char *type = v3_type_name(&s->dtype);
    struct gsvd_buf comp = GSVD_BUF_INIT, inner = GSVD_BUF_INIT, tname = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    if (s->dtype.kind == 'S') {
        GSVD_TRY(gsvd_buf_printf(&tname,
                                 "{\"name\": \"null_terminated_bytes\", \"configuration\": "
                                 "{\"length_bytes\": %zu}}",
                                 s->dtype.size));
    } else if (type) {
        GSVD_TRY(gsvd_buf_printf(&tname, "\"%s\"", type));
    }
    if (!tname.len || (s->dtype.kind != 'O' && s->dtype.byteorder == '>')) {
        gsvd_log_error("%s: data type %c%zu is not written as Zarr v3", s->path, s->dtype.kind,
                       s->dtype.size);
        return GSVD_EUNSUPPORTED;
    }
    GSVD_TRY(gsvd_codec_chain_to_json_v3(chain, &comp));
    /* the array -> bytes codec, then the compressor */
    GSVD_TRY(gsvd_buf_puts(&inner, s->dtype.kind == 'O' ? "{\"name\": \"vlen-utf8\", "
                                                          "\"configuration\": {}}"
                                   : s->dtype.size == 1 || s->dtype.kind == 'S'
                                       ? "{\"name\": \"bytes\"}"
                                       : bytes_le));
    if (comp.len)
        GSVD_TRY(gsvd_buf_printf(&inner, ", %s", comp.data));
    GSVD_TRY(gsvd_buf_puts(b, "{\n    \"zarr_format\": 3,\n    \"node_type\": \"array\",\n"
                              "    \"shape\": "));
    GSVD_TRY(put_dims(b, s->ndim, s->shape));
    GSVD_TRY(gsvd_buf_printf(b,
                             ",\n    \"data_type\": %s,\n    \"chunk_grid\": {\"name\": "
                             "\"regular\", \"configuration\": {\"chunk_shape\": ",
                             tname.data));
    GSVD_TRY(put_dims(b, s->ndim, shard ? shard : s->chunks));
    GSVD_TRY(gsvd_buf_puts(b, "}},\n    \"chunk_key_encoding\": {\"name\": \"default\", "
                              "\"configuration\": {\"separator\": \"/\"}},\n    \"fill_value\": "));
    GSVD_TRY(v3_fill(s, b));
    GSVD_TRY(gsvd_buf_puts(b, ",\n    \"codecs\": ["));
    if (shard) {
        GSVD_TRY(gsvd_buf_puts(b, "{\"name\": \"sharding_indexed\", \"configuration\": "
                                  "{\"chunk_shape\": "));
        GSVD_TRY(put_dims(b, s->ndim, s->chunks));
        GSVD_TRY(gsvd_buf_printf(b,
                                 ", \"codecs\": [%s], \"index_codecs\": [%s, {\"name\": "
                                 "\"crc32c\"}], \"index_location\": \"end\"}}",
                                 inner.data, bytes_le));
    } else {
        GSVD_TRY(gsvd_buf_puts(b, inner.data));
    }
    GSVD_TRY(gsvd_buf_printf(b, "],\n    \"attributes\": %s,\n    \"dimension_names\": [",
                             s->attrs_json ? s->attrs_json : "{}"));
    for (size_t d = 0; d < s->ndim; d++) {
        char name[32];
        if (d)
            GSVD_TRY(gsvd_buf_puts(b, ", "));
        snprintf(name, sizeof name, "dim_%zu", d);
        GSVD_TRY(gsvd_json_quote(b, s->dims[d] ? s->dims[d] : name));
    }
    GSVD_TRY(gsvd_buf_puts(b, "],\n    \"storage_transformers\": []\n}"));
out:
    gsvd_buf_free(&comp);
    gsvd_buf_free(&inner);
    gsvd_buf_free(&tname);
    return rc;
}

/* The v3 metadata of `s` into a->meta (read back from the zarr.json text it also leaves in
 * `text`), and the pending-shard table of a sharded array. */
static int array_meta_v3(gsvd_writer *w, const struct gsvd_array_spec *s, gsvd_warray *a,
                         struct gsvd_buf *text)
{
    int rc = GSVD_OK;
    gsvd_codec_chain *chain = NULL;
    uint64_t shard[GSVD_MAX_DIMS];
    int sharded =
        (w->p.shard[0] || w->p.shard[1]) && s->ndim >= 1 && strchr("biuf", s->dtype.kind) != NULL;
    uint64_t n = 1;

    if (s->attrs_json)
        GSVD_TRY(gsvd_meta_check_object(s->attrs_json, strlen(s->attrs_json), s->path));
    if (s->compressor_json)
        rc = gsvd_codec_chain_parse_json(s->compressor_json, s->filters_json, &s->dtype, s->path,
                                         &chain);
    else
        rc = gsvd_codec_chain_default(&s->dtype, &chain);
    if (rc < 0)
        goto out;
    for (size_t d = 0; d < s->ndim; d++)
        if (s->chunks[d] == 0) {
            gsvd_log_error("%s: chunk extent 0 on axis %zu", s->path, d);
            rc = GSVD_EINVAL;
            goto out;
        }
    if (sharded)
        GSVD_TRY(gsvd_writer_shard_shape(&w->p, s->path, s->ndim, s->shape, s->chunks, shard));
    GSVD_TRY(array_doc_v3(s, chain, sharded ? shard : NULL, text));
    GSVD_TRY(gsvd_zarray_parse_v3(text->data, text->len, s->path, &a->meta));
    if (!a->meta.sharded)
        goto out;
    for (size_t d = 0; d < s->ndim; d++)
        if (gsvd_mul_u64(n, a->meta.shard_grid[d], &n) < 0 || n > MAX_SHARDS) {
            gsvd_log_error("%s: more than %llu shards", s->path, (unsigned long long)MAX_SHARDS);
            rc = GSVD_EINVAL;
            goto out;
        }
    a->n_shards = n;
    a->pending = gsvd_calloc((size_t)n, sizeof *a->pending);
    if (!a->pending)
        rc = GSVD_ENOMEM;
out:
    gsvd_codec_chain_free(chain);
    return rc;
}

/* The v2 metadata of `s` into a->meta. */
static int array_meta_v2(const struct gsvd_array_spec *s, gsvd_warray *a)
{
    int rc = GSVD_OK;

    a->meta.ndim = s->ndim;
    a->meta.dtype = s->dtype;
    a->meta.order = 'C';
    a->meta.sep = '.';
    for (size_t d = 0; d < s->ndim; d++) {
        if (s->chunks[d] == 0) {
            gsvd_log_error("%s: chunk extent 0 on axis %zu", s->path, d);
            rc = GSVD_EINVAL;
            goto out;
        }
        a->meta.shape[d] = s->shape[d];
        a->meta.chunks[d] = s->chunks[d];
    }
    GSVD_TRY(gsvd_zarray_derive(&a->meta, s->path));
    if (s->dtype.kind == 'O') {
        a->meta.fill_str = gsvd_strdup("");
        if (!a->meta.fill_str) {
            rc = GSVD_ENOMEM;
            goto out;
        }
    } else {
        a->meta.fill = gsvd_calloc(1, s->dtype.size);
        if (!a->meta.fill) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        if (s->fill) {
            memcpy(a->meta.fill, s->fill, s->dtype.size);
            a->meta.has_fill = 1;
        }
    }
    if (s->compressor_json)
        rc = gsvd_codec_chain_parse_json(s->compressor_json, s->filters_json, &s->dtype, s->path,
                                         &a->meta.codecs);
    else
        rc = gsvd_codec_chain_default(&s->dtype, &a->meta.codecs);
out:
    return rc;
}

int gsvd_writer_array(gsvd_writer *w, const struct gsvd_array_spec *s, gsvd_warray **out)
{
    int rc = GSVD_OK;
    gsvd_warray *a = NULL, **arrays;
    struct gsvd_buf text = GSVD_BUF_INIT;
    char *parent = NULL;
    uint64_t n = 1;

    *out = NULL;
    if (!s->path || gsvd_key_check(s->path) < 0 || s->ndim > GSVD_MAX_DIMS) {
        gsvd_log_error("invalid array path or rank '%s'", s->path ? s->path : "(null)");
        return GSVD_EINVAL;
    }
    a = gsvd_calloc(1, sizeof *a);
    if (!a)
        return GSVD_ENOMEM;
    pthread_mutex_init(&a->lock, NULL);
    a->w = w;
    a->path = gsvd_strdup(s->path);
    parent = parent_of(s->path);
    if (!a->path || !parent) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (w->p.zarr_format == 3)
        GSVD_TRY(array_meta_v3(w, s, a, &text));
    else
        GSVD_TRY(array_meta_v2(s, a));
    for (size_t d = 0; d < s->ndim; d++)
        if (gsvd_mul_u64(n, a->meta.grid[d], &n) < 0) {
            rc = GSVD_EINVAL;
            goto out;
        }
    a->n_chunks = n;
    if (n > ((uint64_t)1 << 36)) {
        gsvd_log_error("%s: %llu chunks is more than gensvd writes in one array", s->path,
                       (unsigned long long)n);
        rc = GSVD_EINVAL;
        goto out;
    }
    a->written = gsvd_calloc((size_t)(n / 8 + 1), 1);
    if (!a->written) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(ensure_groups(w, parent));
    if (node_kind(w, s->path) != 0) {
        gsvd_log_error("%s: node already exists", s->path);
        rc = GSVD_EINVAL;
        goto out;
    }
    if (w->p.zarr_format == 3) {
        GSVD_TRY(put_meta(w, s->path, V3_DOC, text.data, "array"));
    } else {
        GSVD_TRY(gsvd_zarray_emit(&a->meta, &text));
        GSVD_TRY(put_meta(w, s->path, ".zarray", text.data, "array"));
        gsvd_buf_clear(&text);
        GSVD_TRY(array_attrs(s, &text));
        GSVD_TRY(put_meta(w, s->path, ".zattrs", text.data, "attrs"));
    }
    arrays = gsvd_realloc(w->arrays, (w->n_arrays + 1) * sizeof *arrays);
    if (!arrays) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    w->arrays = arrays;
    w->arrays[w->n_arrays++] = a;
    *out = a;
    a = NULL;
out:
    warray_free(a);
    gsvd_buf_free(&text);
    gsvd_free(parent);
    return rc;
}

const struct gsvd_zarray *gsvd_warray_meta(const gsvd_warray *a)
{
    return &a->meta;
}

/* Store key of chunk (or, sharded, shard) idx: v2 "path/i.j", v3 "path/c/i/j". */
static int chunk_key(const gsvd_warray *a, const uint64_t *idx, char **out)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    int v3 = a->meta.zarr_format == 3;
    int rc = GSVD_OK;

    *out = NULL;
    GSVD_TRY(gsvd_buf_printf(&b, v3 ? "%s/c" : "%s/", a->path));
    if (a->meta.ndim == 0 && !v3)
        GSVD_TRY(gsvd_buf_puts(&b, "0"));
    for (size_t d = 0; d < a->meta.ndim; d++)
        GSVD_TRY(gsvd_buf_printf(&b, "%s%llu",
                                 v3  ? "/"
                                 : d ? "."
                                     : "",
                                 (unsigned long long)idx[d]));
    *out = b.data;
    b.data = NULL;
out:
    gsvd_buf_free(&b);
    return rc;
}

/* Inner chunks of shard sidx inside the array (edge shards have fewer). */
static uint64_t shard_expected(const struct gsvd_zarray *z, const uint64_t *sidx)
{
    uint64_t n = 1;
    for (size_t d = 0; d < z->ndim; d++) {
        uint64_t lo = sidx[d] * z->per_shard[d];
        n *= z->grid[d] - lo < z->per_shard[d] ? z->grid[d] - lo : z->per_shard[d];
    }
    return n;
}

static void store_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* A shard object: the inner chunks present, in C order, then the index (offset, length per
 * inner chunk, all-ones for absent ones, little endian) and the index's crc32c. */
static int store_shard(gsvd_warray *a, const uint64_t *sidx, const struct shard_pending *sp)
{
    size_t n_inner = a->meta.n_inner, data = 0, total;
    unsigned char *obj = NULL, *ix;
    char *key = NULL;
    int rc = GSVD_OK;

    for (size_t i = 0; i < n_inner; i++)
        if (sp->have[i] && gsvd_add_size(data, sp->parts[i].len, &data) < 0)
            return GSVD_EINVAL;
    if (gsvd_add_size(data, 16 * n_inner + 4, &total) < 0)
        return GSVD_EINVAL;
    obj = gsvd_malloc(total);
    if (!obj)
        return GSVD_ENOMEM;
    ix = obj + data;
    data = 0;
    for (size_t i = 0; i < n_inner; i++) {
        if (!sp->have[i]) {
            store_le64(ix + 16 * i, UINT64_MAX);
            store_le64(ix + 16 * i + 8, UINT64_MAX);
            continue;
        }
        memcpy(obj + data, sp->parts[i].data, sp->parts[i].len);
        store_le64(ix + 16 * i, data);
        store_le64(ix + 16 * i + 8, sp->parts[i].len);
        data += sp->parts[i].len;
    }
    uint32_t crc = gsvd_crc32c(ix, 16 * n_inner);
    for (int i = 0; i < 4; i++)
        ix[16 * n_inner + (size_t)i] = (unsigned char)(crc >> (8 * i));
    GSVD_TRY(chunk_key(a, sidx, &key));
    GSVD_TRY(gsvd_store_put(a->w->st, key, obj, total));
out:
    gsvd_free(obj);
    gsvd_free(key);
    return rc;
}

/* Keep inner chunk idx of a sharded array; store its shard when it is complete. */
static int put_inner(gsvd_warray *a, const uint64_t *idx, uint64_t flat, const struct gsvd_buf *enc)
{
    const struct gsvd_zarray *z = &a->meta;
    uint64_t sidx[GSVD_MAX_DIMS], fs = 0, pos = 0;
    struct shard_pending *sp, *done = NULL;
    int rc = GSVD_OK;

    for (size_t d = 0; d < z->ndim; d++) {
        sidx[d] = idx[d] / z->per_shard[d];
        fs = fs * z->shard_grid[d] + sidx[d];
        pos = pos * z->per_shard[d] + idx[d] % z->per_shard[d];
    }
    pthread_mutex_lock(&a->lock);
    sp = a->pending[fs];
    if (!sp && (a->written[flat / 8] & (1u << (flat % 8)))) {
        gsvd_log_error("%s: chunk rewritten after its shard was stored", a->path);
        rc = GSVD_EINVAL;
        goto out;
    }
    if (!sp) {
        sp = gsvd_calloc(1, sizeof *sp);
        if (!sp || !(sp->parts = gsvd_calloc(z->n_inner, sizeof *sp->parts)) ||
            !(sp->have = gsvd_calloc(z->n_inner, 1))) {
            pending_free(sp, z->n_inner);
            rc = GSVD_ENOMEM;
            goto out;
        }
        a->pending[fs] = sp;
    }
    gsvd_buf_clear(&sp->parts[pos]);
    GSVD_TRY(gsvd_buf_append(&sp->parts[pos], enc->data, enc->len));
    if (!sp->have[pos]) {
        sp->have[pos] = 1;
        sp->n_have++;
        a->written[flat / 8] |= (uint8_t)(1u << (flat % 8));
        a->n_written++;
    }
    if (sp->n_have == shard_expected(z, sidx)) {
        done = sp;
        a->pending[fs] = NULL;
    }
out:
    pthread_mutex_unlock(&a->lock);
    if (done) {
        rc = store_shard(a, sidx, done);
        pending_free(done, z->n_inner);
    }
    return rc;
}

static int put_chunk(gsvd_warray *a, const uint64_t *idx, const struct gsvd_buf *enc)
{
    char *key = NULL;
    uint64_t flat = 0;
    int rc;

    for (size_t d = 0; d < a->meta.ndim; d++)
        flat = flat * a->meta.grid[d] + idx[d];
    if (a->meta.sharded)
        return put_inner(a, idx, flat, enc);
    rc = chunk_key(a, idx, &key);
    if (rc < 0)
        return rc;
    rc = gsvd_store_put(a->w->st, key, enc->data, enc->len);
    if (rc == GSVD_OK) {
        pthread_mutex_lock(&a->lock);
        if (!(a->written[flat / 8] & (1u << (flat % 8)))) {
            a->written[flat / 8] |= (uint8_t)(1u << (flat % 8));
            a->n_written++;
        }
        pthread_mutex_unlock(&a->lock);
    }
    gsvd_free(key);
    return rc;
}

int gsvd_warray_write_chunk(gsvd_warray *a, gsvd_codec_ws *ws, const uint64_t *idx,
                            const void *data, struct gsvd_buf *enc)
{
    int rc = GSVD_OK;
    for (size_t d = 0; d < a->meta.ndim; d++)
        if (idx[d] >= a->meta.grid[d]) {
            gsvd_log_error("%s: chunk index %llu out of range on axis %zu", a->path,
                           (unsigned long long)idx[d], d);
            return GSVD_EINVAL;
        }
    GSVD_TRY(gsvd_codec_chain_encode(a->meta.codecs, ws, data, a->meta.chunk_bytes, enc));
    GSVD_TRY(put_chunk(a, idx, enc));
out:
    return rc;
}

/* Copy the part of `data` (rows [row, row+n_rows), all other axes) that falls in chunk cidx
 * into the full-size chunk buffer; the rest of an edge chunk gets the fill value. */
static void gather_chunk(const struct gsvd_zarray *z, const uint64_t *cidx, uint64_t row,
                         uint64_t n_rows, const unsigned char *data, unsigned char *chunk)
{
    size_t nd = z->ndim;
    uint64_t ext[GSVD_MAX_DIMS], sorg[GSVD_MAX_DIMS], dshape[GSVD_MAX_DIMS];
    uint64_t zero[GSVD_MAX_DIMS] = {0};
    int edge = 0;

    for (size_t d = 0; d < nd; d++) {
        uint64_t lo = cidx[d] * z->chunks[d];
        uint64_t end = d == 0 ? row + n_rows : z->shape[d];
        ext[d] = end - lo < z->chunks[d] ? end - lo : z->chunks[d];
        edge |= ext[d] < z->chunks[d];
        dshape[d] = d == 0 ? n_rows : z->shape[d];
        sorg[d] = lo - (d == 0 ? row : 0);
    }
    if (edge)
        gsvd_fill_elems(chunk, z->chunk_items, z->fill, z->dtype.size);
    gsvd_ndcopy(nd, ext, z->dtype.size, data, (struct gsvd_ndbox){dshape, sorg}, chunk,
                (struct gsvd_ndbox){z->chunks, zero});
}

int gsvd_warray_write_rows(gsvd_warray *a, gsvd_codec_ws *ws, uint64_t row, uint64_t n_rows,
                           const void *data)
{
    const struct gsvd_zarray *z = &a->meta;
    int rc = GSVD_OK;
    unsigned char *chunk = NULL;
    struct gsvd_buf enc = GSVD_BUF_INIT;
    uint64_t cidx[GSVD_MAX_DIMS] = {0};

    if (z->ndim == 0 || z->dtype.kind == 'O' || row % z->chunks[0] != 0 || row > z->shape[0] ||
        (n_rows != z->chunks[0] && row + n_rows != z->shape[0]) || n_rows > z->shape[0] - row) {
        gsvd_log_error("%s: rows [%llu, %llu) are not whole chunk rows", a->path,
                       (unsigned long long)row, (unsigned long long)(row + n_rows));
        return GSVD_EINVAL;
    }
    if (n_rows == 0)
        return GSVD_OK;
    chunk = gsvd_malloc(z->chunk_bytes);
    if (!chunk)
        return GSVD_ENOMEM;
    cidx[0] = row / z->chunks[0];
    for (;;) {
        gather_chunk(z, cidx, row, n_rows, data, chunk);
        GSVD_TRY(gsvd_warray_write_chunk(a, ws, cidx, chunk, &enc));
        size_t d = z->ndim;
        while (d-- > 1) {
            if (++cidx[d] < z->grid[d])
                break;
            cidx[d] = 0;
        }
        if (d == 0)
            break;
    }
out:
    gsvd_free(chunk);
    gsvd_buf_free(&enc);
    return rc;
}

int gsvd_warray_write_strings(gsvd_warray *a, gsvd_codec_ws *ws, const char *const *items, size_t n)
{
    const struct gsvd_zarray *z = &a->meta;
    int rc = GSVD_OK;
    struct gsvd_buf enc = GSVD_BUF_INIT;
    unsigned char *chunk = NULL;
    const char **padded = NULL;
    size_t c0;

    if (z->ndim != 1 || n != z->shape[0] || (z->dtype.kind != 'O' && z->dtype.kind != 'S')) {
        gsvd_log_error("%s: expected %llu strings for a 1-D string array", a->path,
                       (unsigned long long)(z->ndim == 1 ? z->shape[0] : 0));
        return GSVD_EINVAL;
    }
    c0 = (size_t)z->chunks[0];
    padded = gsvd_calloc(c0, sizeof *padded);
    chunk = z->dtype.kind == 'S' ? gsvd_malloc(z->chunk_bytes) : NULL;
    if (!padded || (z->dtype.kind == 'S' && !chunk)) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (uint64_t c = 0; c < z->grid[0]; c++) {
        size_t lo = (size_t)c * c0;
        for (size_t i = 0; i < c0; i++)
            padded[i] = lo + i < n ? items[lo + i] : "";
        if (z->dtype.kind == 'O') {
            GSVD_TRY(gsvd_codec_chain_encode_vlen(z->codecs, ws, padded, c0, &enc));
            GSVD_TRY(put_chunk(a, &c, &enc));
        } else {
            memset(chunk, 0, z->chunk_bytes);
            for (size_t i = 0; i < c0; i++) {
                size_t len = strlen(padded[i]);
                if (len > z->dtype.size) {
                    gsvd_log_error("%s: string '%s' longer than %zu bytes", a->path, padded[i],
                                   z->dtype.size);
                    rc = GSVD_EINVAL;
                    goto out;
                }
                memcpy(chunk + i * z->dtype.size, padded[i], len);
            }
            GSVD_TRY(gsvd_warray_write_chunk(a, ws, &c, chunk, &enc));
        }
    }
out:
    gsvd_free(padded);
    gsvd_free(chunk);
    gsvd_buf_free(&enc);
    return rc;
}

/* The v3 root zarr.json: the root group with its attributes and every other node's document
 * as consolidated metadata ({"kind": "inline", "metadata": {PATH: DOC}}, as zarr-python 3). */
static int root_doc_v3(const gsvd_writer *w, struct gsvd_buf *b)
{
    int rc = GSVD_OK;
    int first = 1;

    GSVD_TRY(gsvd_buf_printf(b,
                             "{\n    \"zarr_format\": 3,\n    \"node_type\": \"group\",\n    "
                             "\"attributes\": %s,\n    \"consolidated_metadata\": {\"kind\": "
                             "\"inline\", \"must_understand\": false, \"metadata\": {",
                             w->root_attrs ? w->root_attrs : "{}"));
    for (size_t i = 0; i < w->keys.n; i++) {
        const char *k = w->keys.items[i];
        size_t len = strlen(k) - strlen("/" V3_DOC);
        if (strcmp(k, V3_DOC) == 0)
            continue;
        char *path = gsvd_strndup(k, len);
        if (!path) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        rc = gsvd_buf_puts(b, first ? "\n" : ",\n");
        if (rc == GSVD_OK)
            rc = gsvd_json_quote(b, path);
        gsvd_free(path);
        if (rc < 0)
            goto out;
        GSVD_TRY(gsvd_buf_printf(b, ": %s", w->docs.items[i]));
        first = 0;
    }
    GSVD_TRY(gsvd_buf_puts(b, "}}\n}"));
    GSVD_TRY(gsvd_meta_check_object(b->data, b->len, V3_DOC));
out:
    return rc;
}

int gsvd_writer_commit_part(gsvd_writer *w)
{
    return gsvd_store_commit(w->st);
}

int gsvd_writer_commit(gsvd_writer *w)
{
    int rc = GSVD_OK;
    struct gsvd_buf zmeta = GSVD_BUF_INIT;

    for (size_t i = 0; i < w->n_arrays; i++) {
        gsvd_warray *a = w->arrays[i];
        uint64_t done = a->n_written;
        if (done != a->n_chunks) {
            gsvd_log_error("%s: %llu of %llu chunks written; output discarded", a->path,
                           (unsigned long long)done, (unsigned long long)a->n_chunks);
            rc = GSVD_EINTERNAL;
            goto out;
        }
    }
    if (w->p.zarr_format == 3) {
        GSVD_TRY(root_doc_v3(w, &zmeta));
        GSVD_TRY(gsvd_store_put(w->st, V3_DOC, zmeta.data, zmeta.len));
    } else {
        GSVD_TRY(gsvd_zmetadata_emit(&w->keys, &w->docs, &zmeta));
        GSVD_TRY(gsvd_store_put(w->st, ".zmetadata", zmeta.data, zmeta.len));
    }
    GSVD_TRY(gsvd_store_commit(w->st));
out:
    gsvd_buf_free(&zmeta);
    return rc;
}
