/* zarr/writer.c - staged Zarr v2 or v3 output with consolidated metadata written last.
 * v3 documents are written as text and read back with the v3 parser (gsvd_zarray_parse_v3),
 * so the array model the encoder uses is the one a reader of the output gets.  A sharded
 * array keeps the encoded inner chunks of each unfinished shard in memory (compressed) and
 * stores the shard when its last inner chunk arrives: pdist's band order finishes a row of
 * shards before the next, so what is held is about one row of shards.
 * This file has the hierarchy and the commit; one array's metadata is built by writer_meta.c,
 * chunks and shards are stored by writer_chunk.c (writer_internal.h). */
#include "gsvd_config.h"
#include "zarr/writer.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "zarr/store.h"
#include "zarr/writer_internal.h"

#define V3_DOC "zarr.json"

static void warray_free(gsvd_warray *a)
{
    if (!a)
        return;
    for (uint64_t i = 0; a->pending && i < a->n_shards; i++)
        gsvd_writer_pending_free(a->pending[i], a->meta.n_inner);
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
/* Directory part of an array path: "a/b/c" -> "a/b", "c" -> "". */
static char *parent_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? gsvd_strndup(path, (size_t)(slash - path)) : gsvd_strdup("");
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
        GSVD_TRY(gsvd_writer_array_meta_v3(w, s, a, &text));
    else
        GSVD_TRY(gsvd_writer_array_meta_v2(s, a));
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
        GSVD_TRY(gsvd_writer_array_attrs(s, &text));
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

/* With shards asked for: the numeric arrays whose shards each hold a single chunk (the array is
 * one chunk on the sharded axes, or the shard equals the chunk), for which sharding changes
 * nothing.  A warning when that is every sharded array of the output (--shard had no effect),
 * else a detail at -v.  Best effort: a failed allocation only shortens the message. */
static void report_single_shards(const gsvd_writer *w)
{
    struct gsvd_buf names = GSVD_BUF_INIT;
    size_t n_single = 0, n_grouped = 0;
    char shard[48];

    if (!w->p.shard[0])
        return;
    for (size_t i = 0; i < w->n_arrays; i++) {
        const gsvd_warray *a = w->arrays[i];
        if (!a->meta.sharded)
            continue;
        if (a->meta.n_inner > 1) {
            n_grouped++;
            continue;
        }
        if (n_single < 8 && gsvd_buf_printf(&names, "%s%s", n_single ? ", " : "", a->path) < 0)
            gsvd_buf_clear(&names); /* out of memory: the message goes without names */
        else if (n_single == 8 && gsvd_buf_puts(&names, ", ...") < 0)
            gsvd_buf_clear(&names);
        n_single++;
    }
    if (w->p.shard[1] && w->p.shard[1] != w->p.shard[0])
        snprintf(shard, sizeof shard, "%llu,%llu", (unsigned long long)w->p.shard[0],
                 (unsigned long long)w->p.shard[1]);
    else
        snprintf(shard, sizeof shard, "%llu", (unsigned long long)w->p.shard[0]);
    if (n_single && !n_grouped)
        gsvd_log_warn("--shard %s has no effect on this output: every shard of %s holds a "
                      "single chunk (each array is one chunk, or its chunk is the shard's size)",
                      shard, names.len ? names.data : "its arrays");
    else if (n_single)
        gsvd_log_info("--shard %s: the shards of %s hold a single chunk each", shard,
                      names.len ? names.data : "some arrays");
    gsvd_buf_free(&names);
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
    report_single_shards(w);
out:
    gsvd_buf_free(&zmeta);
    return rc;
}
