/* zarr/writer.c - staged Zarr v2 output with consolidated metadata written last. */
#include "gsvd_config.h"
#include "zarr/writer.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/ndcopy.h"
#include "zarr/store.h"

struct gsvd_warray {
    gsvd_writer *w;          /* the writer that owns this array */
    char *path;              /* owned */
    struct gsvd_zarray meta; /* owned members */
    uint64_t n_chunks;       /* chunks in the grid */
    uint64_t n_written;      /* distinct chunks written so far (under lock) */
    uint8_t *written;        /* owned; one bit per chunk, C order of the grid */
    pthread_mutex_t lock;    /* guards n_written and written */
};

struct gsvd_writer {
    gsvd_store *st;           /* owned; staged */
    struct gsvd_strlist keys; /* metadata keys written, for .zmetadata */
    struct gsvd_strlist docs; /* their texts, same order */
    gsvd_warray **arrays;     /* owned */
    size_t n_arrays;
};

static void warray_free(gsvd_warray *a)
{
    if (!a)
        return;
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
    gsvd_free(w);
}

/* Store a metadata document and remember it for .zmetadata (replacing an earlier version). */
static int put_meta(gsvd_writer *w, const char *path, const char *name, const char *text)
{
    int rc = GSVD_OK;
    char *key = NULL;

    GSVD_TRY(gsvd_key_join(path, name, &key));
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
    if (rc < 0) { /* keep the lists the same length */
        gsvd_free(w->keys.items[--w->keys.n]);
        goto out;
    }
out:
    gsvd_free(key);
    return rc;
}

static int has_key(const gsvd_writer *w, const char *path, const char *name)
{
    size_t lp = strlen(path), ln = strlen(name);
    for (size_t i = 0; i < w->keys.n; i++) {
        const char *k = w->keys.items[i];
        if (lp == 0 ? strcmp(k, name) == 0
                    : strncmp(k, path, lp) == 0 && k[lp] == '/' && strcmp(k + lp + 1, name) == 0)
            return 1;
        (void)ln;
    }
    return 0;
}

/* Create .zgroup for path and every ancestor that lacks one. */
static int ensure_groups(gsvd_writer *w, const char *path)
{
    int rc = GSVD_OK;
    char *p = gsvd_strdup(path);

    if (!p)
        return GSVD_ENOMEM;
    if (!has_key(w, "", ".zgroup"))
        GSVD_TRY(put_meta(w, "", ".zgroup", "{\n    \"zarr_format\": 2\n}"));
    for (char *s = p; *p; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char save = *s;
        *s = '\0';
        if (!has_key(w, p, ".zgroup")) {
            if (has_key(w, p, ".zarray")) {
                gsvd_log_error("%s: '%s' is an array, not a group", gsvd_store_url(w->st), p);
                rc = GSVD_EINVAL;
                goto out;
            }
            GSVD_TRY(put_meta(w, p, ".zgroup", "{\n    \"zarr_format\": 2\n}"));
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
    int rc = GSVD_OK;
    gsvd_writer *w = gsvd_calloc(1, sizeof *w);

    *out = NULL;
    if (!w)
        return GSVD_ENOMEM;
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
        GSVD_TRY(put_meta(w, path, ".zattrs", attrs_json));
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
    if (rc < 0)
        goto out;
    GSVD_TRY(ensure_groups(w, parent));
    if (has_key(w, s->path, ".zarray") || has_key(w, s->path, ".zgroup")) {
        gsvd_log_error("%s: node already exists", s->path);
        rc = GSVD_EINVAL;
        goto out;
    }
    GSVD_TRY(gsvd_zarray_emit(&a->meta, &text));
    GSVD_TRY(put_meta(w, s->path, ".zarray", text.data));
    gsvd_buf_clear(&text);
    GSVD_TRY(array_attrs(s, &text));
    GSVD_TRY(put_meta(w, s->path, ".zattrs", text.data));
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

static int chunk_key(const gsvd_warray *a, const uint64_t *idx, char **out)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    *out = NULL;
    GSVD_TRY(gsvd_buf_printf(&b, "%s/", a->path));
    if (a->meta.ndim == 0)
        GSVD_TRY(gsvd_buf_puts(&b, "0"));
    for (size_t d = 0; d < a->meta.ndim; d++)
        GSVD_TRY(gsvd_buf_printf(&b, "%s%llu", d ? "." : "", (unsigned long long)idx[d]));
    *out = b.data;
    b.data = NULL;
out:
    gsvd_buf_free(&b);
    return rc;
}

static int put_chunk(gsvd_warray *a, const uint64_t *idx, const struct gsvd_buf *enc)
{
    char *key = NULL;
    uint64_t flat = 0;
    int rc = chunk_key(a, idx, &key);
    if (rc < 0)
        return rc;
    rc = gsvd_store_put(a->w->st, key, enc->data, enc->len);
    if (rc == GSVD_OK) {
        for (size_t d = 0; d < a->meta.ndim; d++)
            flat = flat * a->meta.grid[d] + idx[d];
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
    GSVD_TRY(gsvd_zmetadata_emit(&w->keys, &w->docs, &zmeta));
    GSVD_TRY(gsvd_store_put(w->st, ".zmetadata", zmeta.data, zmeta.len));
    GSVD_TRY(gsvd_store_commit(w->st));
out:
    gsvd_buf_free(&zmeta);
    return rc;
}
