/* zarr/array.c - chunk keys, chunk decoding (element order, byte order, fill) and region reads.
 *
 * Sharded Zarr v3 arrays: the reader's chunk is the inner chunk.  Chunk index idx lives in the
 * shard idx / per_shard (whose store key is what gsvd_array_chunk_key gives) at inner position
 * idx % per_shard, C order within the shard.  A shard's index (offset and length of each inner
 * chunk) is read once with a ranged read of its first or last 16 n + 4 bytes, checked (crc32c,
 * bounds, overlaps) and kept in a small cache shared by the array's readers; an inner chunk is
 * then one ranged read of exactly its bytes. */
#include "gsvd_config.h"
#include "zarr/array.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/ndcopy.h"
#include "zarr/meta_v3.h"

#define SHARD_CACHE 8    /* shard indexes kept per array */
#define EMPTY UINT64_MAX /* offset and length of an absent inner chunk */

struct shard_slot {
    int used;
    uint64_t shard;    /* linear shard index (C order over shard_grid) */
    uint64_t tick;     /* last use, for replacement */
    int missing;       /* the shard does not exist: every inner chunk is fill */
    uint64_t *entries; /* owned; 2 * n_inner: offset, length of each inner chunk */
};

struct gsvd_array {
    gsvd_tree *tree;         /* borrowed */
    char *path;              /* owned; "" for a root array */
    char *name;              /* owned; "URL/path" for messages */
    struct gsvd_zarray meta; /* owned members */
    struct gsvd_buf zattrs;  /* .zattrs text (v3: attributes + dimension_names), or empty */
    pthread_mutex_t lock;    /* guards the shard cache */
    uint64_t tick;
    struct shard_slot slots[SHARD_CACHE];
    int ranges_planned; /* sharded: a read-ahead plan of exact inner-chunk ranges is set, so
                         * fetch_inner asks for exactly those (set before a scan starts) */
};

const struct gsvd_zarray *gsvd_array_meta(const gsvd_array *a)
{
    return &a->meta;
}

const char *gsvd_array_path(const gsvd_array *a)
{
    return a->path;
}

const char *gsvd_array_name(const gsvd_array *a)
{
    return a->name;
}

void gsvd_array_close(gsvd_array *a)
{
    if (!a)
        return;
    gsvd_zarray_clear(&a->meta);
    gsvd_buf_free(&a->zattrs);
    for (size_t i = 0; i < SHARD_CACHE; i++)
        gsvd_free(a->slots[i].entries);
    pthread_mutex_destroy(&a->lock);
    gsvd_free(a->path);
    gsvd_free(a->name);
    gsvd_free(a);
}

/* v3: zarr.json into meta, attributes into zattrs. */
static int open_v3(gsvd_array *a, const char *path)
{
    int rc = GSVD_OK;
    char *key = NULL, *where = NULL;
    struct gsvd_buf json = GSVD_BUF_INIT;

    GSVD_TRY(gsvd_key_join(path, "zarr.json", &key));
    rc = gsvd_tree_get_meta(a->tree, key, &json);
    if (rc == GSVD_ENOTFOUND)
        gsvd_log_error("%s: no array here (no zarr.json)", a->name);
    if (rc < 0)
        goto out;
    where = gsvd_asprintf("%s/zarr.json", a->name);
    if (!where) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_zarray_parse_v3(json.data, json.len, where, &a->meta));
    GSVD_TRY(gsvd_v3_attrs(json.data, json.len, where, &a->zattrs));
out:
    gsvd_buf_free(&json);
    gsvd_free(key);
    gsvd_free(where);
    return rc;
}

int gsvd_array_open(gsvd_tree *t, const char *path, gsvd_array **out)
{
    int rc = GSVD_OK;
    gsvd_array *a = NULL;
    char *key = NULL, *where = NULL;
    struct gsvd_buf json = GSVD_BUF_INIT;
    const char *url = gsvd_store_url(gsvd_tree_store(t));

    *out = NULL;
    if (*path && gsvd_key_check(path) < 0) {
        gsvd_log_error("%s: invalid array path '%s'", url, path);
        return GSVD_EINVAL;
    }
    a = gsvd_calloc(1, sizeof *a);
    if (!a)
        return GSVD_ENOMEM;
    pthread_mutex_init(&a->lock, NULL);
    a->tree = t;
    a->path = gsvd_strdup(path);
    a->name = *path ? gsvd_asprintf("%s/%s", url, path) : gsvd_strdup(url);
    if (!a->path || !a->name) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (gsvd_tree_format(t) == 3) {
        GSVD_TRY(open_v3(a, path));
        *out = a;
        a = NULL;
        goto out;
    }
    GSVD_TRY(gsvd_key_join(path, ".zarray", &key));
    rc = gsvd_tree_get_meta(t, key, &json);
    if (rc == GSVD_ENOTFOUND) {
        /* a v3 node inside a v2 hierarchy: say so rather than "nothing here" */
        gsvd_free(key);
        key = NULL;
        GSVD_TRY(gsvd_key_join(path, "zarr.json", &key));
        if (gsvd_store_get(gsvd_tree_store(t), key, &json) == GSVD_OK) {
            gsvd_log_error("%s: a Zarr v3 node (zarr.json) inside a Zarr v2 hierarchy; open a v3 "
                           "store at its root",
                           a->name);
            rc = GSVD_EUNSUPPORTED;
        } else {
            gsvd_log_error("%s: no array here (no .zarray)", a->name);
            rc = GSVD_ENOTFOUND;
        }
        goto out;
    }
    if (rc < 0)
        goto out;
    where = gsvd_asprintf("%s/.zarray", a->name);
    if (!where) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_zarray_parse(json.data, json.len, where, &a->meta));
    gsvd_free(key);
    key = NULL;
    GSVD_TRY(gsvd_key_join(path, ".zattrs", &key));
    rc = gsvd_tree_get_meta(t, key, &a->zattrs);
    if (rc == GSVD_ENOTFOUND) {
        gsvd_buf_clear(&a->zattrs);
        rc = GSVD_OK;
    } else if (rc == GSVD_OK) {
        gsvd_free(where);
        where = gsvd_asprintf("%s/.zattrs", a->name);
        if (!where) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        GSVD_TRY(gsvd_meta_check_object(a->zattrs.data, a->zattrs.len, where));
    } else {
        goto out;
    }
    *out = a;
    a = NULL;
out:
    gsvd_array_close(a);
    gsvd_buf_free(&json);
    gsvd_free(key);
    gsvd_free(where);
    return rc;
}

int gsvd_array_dim_names(const gsvd_array *a, struct gsvd_strlist *out)
{
    int rc;
    if (a->zattrs.len == 0)
        return GSVD_OK;
    rc =
        gsvd_meta_get_string_list(a->zattrs.data, a->zattrs.len, "_ARRAY_DIMENSIONS", a->name, out);
    return rc == GSVD_ENOTFOUND ? GSVD_OK : rc;
}

/* Store key of the object at grid position idx: a chunk, or for sharded arrays a shard. */
static int object_key(const gsvd_array *a, const uint64_t *idx, char **out)
{
    struct gsvd_buf b = GSVD_BUF_INIT;
    int rc = GSVD_OK;

    *out = NULL;
    if (*a->path)
        GSVD_TRY(gsvd_buf_printf(&b, "%s/", a->path));
    if (a->meta.key_c_prefix)
        GSVD_TRY(gsvd_buf_puts(&b, "c"));
    else if (a->meta.ndim == 0)
        GSVD_TRY(gsvd_buf_puts(&b, "0"));
    for (size_t d = 0; d < a->meta.ndim; d++) {
        if (d || a->meta.key_c_prefix)
            GSVD_TRY(gsvd_buf_append(&b, &a->meta.sep, 1));
        GSVD_TRY(gsvd_buf_printf(&b, "%llu", (unsigned long long)idx[d]));
    }
    *out = b.data;
    b.data = NULL;
out:
    gsvd_buf_free(&b);
    return rc;
}

/* Shard of chunk idx (sidx) and the chunk's position in it (C order). */
static uint64_t shard_of(const struct gsvd_zarray *z, const uint64_t *idx, uint64_t *sidx)
{
    uint64_t inner = 0;

    for (size_t d = 0; d < z->ndim; d++) {
        sidx[d] = idx[d] / z->per_shard[d];
        inner = inner * z->per_shard[d] + idx[d] % z->per_shard[d];
    }
    return inner;
}

int gsvd_array_chunk_key(const gsvd_array *a, const uint64_t *idx, char **out)
{
    uint64_t sidx[GSVD_MAX_DIMS];

    if (!a->meta.sharded)
        return object_key(a, idx, out);
    shard_of(&a->meta, idx, sidx);
    return object_key(a, sidx, out);
}

/* Name of chunk idx in messages: its key, and for sharded arrays its place in the shard. */
static char *chunk_label(const gsvd_array *a, const uint64_t *idx)
{
    char *key = NULL, *label;
    uint64_t sidx[GSVD_MAX_DIMS], inner;

    if (gsvd_array_chunk_key(a, idx, &key) < 0)
        return NULL;
    if (!a->meta.sharded)
        return key;
    inner = shard_of(&a->meta, idx, sidx);
    label = gsvd_asprintf("%s (inner chunk %llu)", key, (unsigned long long)inner);
    gsvd_free(key);
    return label;
}

static int check_index(const gsvd_array *a, const uint64_t *idx)
{
    for (size_t d = 0; d < a->meta.ndim; d++) {
        if (idx[d] >= a->meta.grid[d]) {
            gsvd_log_error("%s: chunk index %llu out of range on axis %zu", a->name,
                           (unsigned long long)idx[d], d);
            return GSVD_EINVAL;
        }
    }
    return GSVD_OK;
}

static uint64_t load_u64(const unsigned char *p, int big)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[big ? 7 - i : i] << (8 * i);
    return v;
}

struct span {
    uint64_t start, end, inner;
};

static int span_cmp(const void *x, const void *y)
{
    const struct span *a = x, *b = y;
    return a->start < b->start ? -1 : a->start > b->start;
}

/* Check a decoded shard index: each inner chunk empty (both fields all ones) or inside the
 * shard's data (when the shard's size is known), and no two overlapping. */
static int check_shard_index(const gsvd_array *a, const char *key, const uint64_t *e, uint64_t size,
                             uint64_t index_len)
{
    const struct gsvd_zarray *z = &a->meta;
    uint64_t lo = z->index_at_start ? index_len : 0;
    uint64_t hi = size == UINT64_MAX ? UINT64_MAX : z->index_at_start ? size : size - index_len;
    struct span *sp = gsvd_malloc((z->n_inner ? z->n_inner : 1) * sizeof *sp);
    size_t n = 0;
    int rc = GSVD_OK;

    if (!sp)
        return GSVD_ENOMEM;
    for (size_t i = 0; i < z->n_inner; i++) {
        uint64_t off = e[2 * i], len = e[2 * i + 1];
        if (off == EMPTY && len == EMPTY)
            continue;
        if (off == EMPTY || len == EMPTY || off > UINT64_MAX - len || off < lo || off + len > hi) {
            gsvd_log_error("%s: shard index: inner chunk %zu at offset %llu, length %llu lies "
                           "outside the shard's data (bytes %llu..%llu)",
                           key, i, (unsigned long long)off, (unsigned long long)len,
                           (unsigned long long)lo, (unsigned long long)hi);
            rc = GSVD_EFORMAT;
            goto out;
        }
        sp[n++] = (struct span){off, off + len, i};
    }
    qsort(sp, n, sizeof *sp, span_cmp);
    for (size_t i = 1; i < n; i++) {
        if (sp[i].start < sp[i - 1].end) {
            gsvd_log_error("%s: shard index: inner chunks %llu and %llu overlap", key,
                           (unsigned long long)sp[i - 1].inner, (unsigned long long)sp[i].inner);
            rc = GSVD_EFORMAT;
            goto out;
        }
    }
out:
    gsvd_free(sp);
    return rc;
}

/* Read, check and decode the index of shard `key`: *entries (caller frees) or, when the shard
 * does not exist, *entries NULL and GSVD_OK. */
static int read_shard_index(const gsvd_array *a, const char *key, uint64_t **entries)
{
    const struct gsvd_zarray *z = &a->meta;
    struct gsvd_buf b = GSVD_BUF_INIT;
    uint64_t size = UINT64_MAX, *e = NULL;
    size_t len = 16 * z->n_inner + (z->index_crc ? 4 : 0); /* n_inner <= 2^26: no overflow */
    int rc;

    *entries = NULL;
    rc = gsvd_store_get_range(gsvd_tree_store(a->tree), key, 0, len, !z->index_at_start, &b, &size);
    if (rc == GSVD_ENOTFOUND) {
        rc = GSVD_OK;
        goto out;
    }
    if (rc < 0)
        goto out;
    if (b.len != len) {
        gsvd_log_error("%s: shard of %zu bytes is shorter than its index (%zu bytes)", key, b.len,
                       len);
        rc = GSVD_EFORMAT;
        goto out;
    }
    if (z->index_crc) {
        const unsigned char *c = (const unsigned char *)b.data + len - 4;
        uint32_t want =
            (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24;
        if (gsvd_crc32c(b.data, len - 4) != want) {
            gsvd_log_error("%s: shard index crc32c mismatch", key);
            rc = GSVD_ECODEC;
            goto out;
        }
    }
    e = gsvd_malloc((z->n_inner ? z->n_inner : 1) * 2 * sizeof *e);
    if (!e) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < 2 * z->n_inner; i++)
        e[i] = load_u64((const unsigned char *)b.data + 8 * i, z->index_big_endian);
    GSVD_TRY(check_shard_index(a, key, e, size, len));
    *entries = e;
    e = NULL;
out:
    gsvd_free(e);
    gsvd_buf_free(&b);
    return rc;
}

/* Offset and length of inner chunk `inner` of shard `lin` (key), through the cache.  Returns 1
 * when present, 0 when the shard or the chunk is absent, or a negative error (logged). */
static int shard_entry(gsvd_array *a, const char *key, uint64_t lin, uint64_t inner, uint64_t *off,
                       uint64_t *len)
{
    uint64_t *entries = NULL;
    struct shard_slot *victim;
    int rc;

    pthread_mutex_lock(&a->lock);
    for (size_t i = 0; i < SHARD_CACHE; i++) {
        struct shard_slot *s = &a->slots[i];
        if (s->used && s->shard == lin) {
            s->tick = ++a->tick;
            rc = !s->missing && s->entries[2 * inner] != EMPTY;
            if (rc) {
                *off = s->entries[2 * inner];
                *len = s->entries[2 * inner + 1];
            }
            pthread_mutex_unlock(&a->lock);
            return rc;
        }
    }
    pthread_mutex_unlock(&a->lock);
    rc = read_shard_index(a, key, &entries); /* outside the lock: it is I/O */
    if (rc < 0)
        return rc;
    rc = entries && entries[2 * inner] != EMPTY;
    if (rc) {
        *off = entries[2 * inner];
        *len = entries[2 * inner + 1];
    }
    pthread_mutex_lock(&a->lock);
    victim = &a->slots[0];
    for (size_t i = 0; i < SHARD_CACHE; i++) {
        struct shard_slot *s = &a->slots[i];
        if (s->used && s->shard == lin) { /* another reader got there first */
            victim = NULL;
            break;
        }
        if (!s->used || s->tick < victim->tick)
            victim = s;
        if (!s->used)
            break;
    }
    if (victim) {
        gsvd_free(victim->entries);
        *victim = (struct shard_slot){1, lin, ++a->tick, entries == NULL, entries};
        entries = NULL;
    }
    pthread_mutex_unlock(&a->lock);
    gsvd_free(entries);
    return rc;
}

#define SPAN_MAX_BYTES ((uint64_t)16 << 20) /* one coalesced read of inner chunks */
#define SPAN_LOOKAHEAD 4096                 /* chunks of the scan looked at for it */

void gsvd_chunk_span_free(struct gsvd_chunk_span *s)
{
    gsvd_buf_free(&s->bytes);
    memset(s, 0, sizeof *s);
}

/* Shard of chunk idx: its linear index, key (when key is not NULL; caller frees) and the
 * chunk's place in it. */
static int locate_inner(const gsvd_array *a, const uint64_t *idx, uint64_t *lin, uint64_t *inner,
                        char **key)
{
    const struct gsvd_zarray *z = &a->meta;
    uint64_t sidx[GSVD_MAX_DIMS];

    *inner = shard_of(z, idx, sidx);
    *lin = 0;
    for (size_t d = 0; d < z->ndim; d++)
        *lin = *lin * z->shard_grid[d] + sidx[d];
    return key ? object_key(a, sidx, key) : GSVD_OK;
}

/* Next chunk of the C-order scan over [lo, hi) after idx (updated); 0 at the end. */
static int scan_next(size_t nd, uint64_t *idx, const uint64_t *lo, const uint64_t *hi)
{
    size_t d = nd;
    while (d-- > 0) {
        if (++idx[d] < hi[d])
            return 1;
        idx[d] = lo[d];
    }
    return 0;
}

/* Bytes [off, off + len) of shard `key` into dst, exactly. */
static int read_part(gsvd_array *a, const char *key, uint64_t inner, uint64_t off, uint64_t len,
                     struct gsvd_buf *dst)
{
    int rc = gsvd_store_get_range(gsvd_tree_store(a->tree), key, off, len, 0, dst, NULL);
    if (rc < 0)
        return rc;
    if (dst->len != len) {
        gsvd_log_error("%s: inner chunk %llu (offset %llu, length %llu) runs past the end of the "
                       "shard",
                       key, (unsigned long long)inner, (unsigned long long)off,
                       (unsigned long long)len);
        return GSVD_EFORMAT;
    }
    return GSVD_OK;
}

/* Sharded fetch: the inner chunk's bytes by one ranged read, or (with a scan box and a span)
 * from a read that also covers the scan's other chunks in the same shard. */
static int fetch_inner(gsvd_array *a, const uint64_t *idx, const uint64_t *lo, const uint64_t *hi,
                       struct gsvd_chunk_span *span, struct gsvd_buf *raw)
{
    const struct gsvd_zarray *z = &a->meta;
    uint64_t lin = 0, inner = 0, off = 0, len = 0, start, end, lo_new, hi_new;
    uint64_t next[GSVD_MAX_DIMS];
    char *key = NULL;
    int rc;

    GSVD_TRY(locate_inner(a, idx, &lin, &inner, &key));
    rc = shard_entry(a, key, lin, inner, &off, &len);
    if (rc <= 0) {
        gsvd_buf_clear(raw);
        goto out;
    }
    if (len > GSVD_MAX_CHUNK_BYTES) {
        gsvd_log_error("%s: inner chunk %llu of %llu bytes (at most 2 GiB)", key,
                       (unsigned long long)inner, (unsigned long long)len);
        rc = GSVD_EFORMAT;
        goto out;
    }
    if (span && span->valid && span->shard == lin && off >= span->off &&
        off - span->off <= span->bytes.len && len <= span->bytes.len - (off - span->off)) {
        gsvd_buf_clear(raw);
        GSVD_TRY(gsvd_buf_append(raw, span->bytes.data + (off - span->off), (size_t)len));
        rc = 1;
        goto out;
    }
    /* the other chunks of the scan in this shard (a bounded look-ahead): when they and this one
     * fill a block of the shard with little in between, one read fetches them all, whatever
     * order the writer put them in */
    start = off;
    end = off + len; /* the index was checked: no overflow */
    if (span && !a->ranges_planned) {
        uint64_t sum = len, n_scanned = 0;
        memcpy(next, idx, z->ndim * sizeof *next);
        while (n_scanned++ < SPAN_LOOKAHEAD && scan_next(z->ndim, next, lo, hi)) {
            uint64_t lin2, inner2, off2, len2;
            int present;
            GSVD_TRY(locate_inner(a, next, &lin2, &inner2, NULL)); /* no key: same shard */
            if (lin2 != lin)
                continue;
            present = shard_entry(a, key, lin2, inner2, &off2, &len2);
            if (present < 0) {
                rc = present;
                goto out;
            }
            if (!present)
                continue;
            lo_new = off2 < start ? off2 : start;
            hi_new = off2 + len2 > end ? off2 + len2 : end;
            if (hi_new - lo_new > SPAN_MAX_BYTES)
                continue;
            start = lo_new;
            end = hi_new;
            sum += len2;
        }
        /* read the block only when what lies between the chunks is a small part of it */
        if (end - start - sum > sum / 4 + 65536) {
            start = off;
            end = off + len;
        }
    }
    if (end - start > len) {
        GSVD_TRY(read_part(a, key, inner, start, end - start, &span->bytes));
        span->valid = 1;
        span->shard = lin;
        span->off = start;
        gsvd_buf_clear(raw);
        GSVD_TRY(gsvd_buf_append(raw, span->bytes.data + (off - start), (size_t)len));
    } else {
        GSVD_TRY(read_part(a, key, inner, off, len, raw));
    }
    rc = 1;
out:
    if (rc < 0 && span)
        span->valid = 0;
    gsvd_free(key);
    return rc;
}

int gsvd_array_fetch_chunk_in(gsvd_array *a, const uint64_t *idx, const uint64_t *lo,
                              const uint64_t *hi, struct gsvd_chunk_span *span,
                              struct gsvd_buf *raw)
{
    int rc = check_index(a, idx);

    if (rc < 0)
        return rc;
    if (!a->meta.sharded)
        return gsvd_array_fetch_chunk(a, idx, raw);
    for (size_t d = 0; d < a->meta.ndim; d++) {
        if (!(lo[d] <= idx[d] && idx[d] < hi[d] && hi[d] <= a->meta.grid[d])) {
            gsvd_log_error("%s: chunk scan box does not hold chunk %llu on axis %zu", a->name,
                           (unsigned long long)idx[d], d);
            return GSVD_EINVAL;
        }
    }
    return fetch_inner(a, idx, lo, hi, span, raw);
}

int gsvd_array_fetch_chunk(gsvd_array *a, const uint64_t *idx, struct gsvd_buf *raw)
{
    char *key = NULL;
    int rc = check_index(a, idx);

    if (rc < 0)
        return rc;
    if (a->meta.sharded)
        return fetch_inner(a, idx, NULL, NULL, NULL, raw);
    GSVD_TRY(gsvd_array_chunk_key(a, idx, &key));
    rc = gsvd_store_get(gsvd_tree_store(a->tree), key, raw);
    if (rc == GSVD_ENOTFOUND) {
        gsvd_buf_clear(raw);
        rc = 0;
    } else if (rc == GSVD_OK) {
        rc = 1;
    }
out:
    gsvd_free(key);
    return rc;
}

/* ---- read-ahead of sharded arrays -------------------------------------------------------- */

#define PLAN_MAX_CHUNKS ((uint64_t)1 << 24)      /* inner chunks a plan may list */
#define PLAN_MAX_INDEX_BYTES ((uint64_t)1 << 28) /* shard indexes held while planning */

struct plan {
    uint64_t n;    /* chunks of the scan */
    uint64_t *lin; /* per chunk in scan order: its shard, its place in it */
    uint64_t *inner;
    uint64_t *shards; /* the distinct shards, sorted */
    size_t n_shards;
    char **keys;        /* per distinct shard: its object key */
    uint64_t **entries; /* per distinct shard: its index (NULL: no such shard) */
    unsigned char *seen;
};

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static size_t plan_slot(const struct plan *p, uint64_t lin)
{
    const uint64_t *f = bsearch(&lin, p->shards, p->n_shards, sizeof lin, cmp_u64);
    return (size_t)(f - p->shards); /* every lin of the scan is in shards */
}

static void plan_free(struct plan *p)
{
    for (size_t i = 0; i < p->n_shards; i++) {
        if (p->keys)
            gsvd_free(p->keys[i]);
        if (p->entries)
            gsvd_free(p->entries[i]);
    }
    gsvd_free(p->keys);
    gsvd_free(p->entries);
    gsvd_free(p->lin);
    gsvd_free(p->inner);
    gsvd_free(p->shards);
    gsvd_free(p->seen);
}

/* The scan's chunks in order (odometer over `order`), their shards, and the distinct shards'
 * keys.  GSVD_OK with p->n == 0 when the scan is too big to plan. */
static int plan_chunks(gsvd_array *a, const size_t *order, const uint64_t *lo, const uint64_t *hi,
                       struct plan *p)
{
    const struct gsvd_zarray *z = &a->meta;
    uint64_t idx[GSVD_MAX_DIMS], n = 1, sidx[GSVD_MAX_DIMS];
    size_t nd = z->ndim, m = 0;
    int rc = GSVD_OK;

    for (size_t d = 0; d < nd; d++) {
        if (hi[d] - lo[d] > PLAN_MAX_CHUNKS / n)
            return GSVD_OK;
        n *= hi[d] - lo[d];
        idx[d] = lo[d];
    }
    p->lin = gsvd_malloc((size_t)n * sizeof *p->lin);
    p->inner = gsvd_malloc((size_t)n * sizeof *p->inner);
    p->shards = gsvd_malloc((size_t)n * sizeof *p->shards);
    if (!p->lin || !p->inner || !p->shards)
        return GSVD_ENOMEM;
    for (uint64_t c = 0; c < n; c++) {
        GSVD_TRY(locate_inner(a, idx, &p->lin[c], &p->inner[c], NULL));
        p->shards[c] = p->lin[c];
        size_t j = nd;
        while (j-- > 0) {
            size_t d = order[j];
            if (++idx[d] < hi[d])
                break;
            idx[d] = lo[d];
        }
    }
    qsort(p->shards, (size_t)n, sizeof *p->shards, cmp_u64);
    for (uint64_t c = 0; c < n; c++)
        if (c == 0 || p->shards[c] != p->shards[m - 1])
            p->shards[m++] = p->shards[c];
    p->n_shards = m;
    p->keys = gsvd_calloc(m, sizeof *p->keys);
    p->entries = gsvd_calloc(m, sizeof *p->entries);
    p->seen = gsvd_calloc(m, 1);
    if (!p->keys || !p->entries || !p->seen)
        return GSVD_ENOMEM;
    for (size_t i = 0; i < m; i++) {
        uint64_t lin = p->shards[i];
        for (size_t d = nd; d-- > 0;) {
            sidx[d] = lin % z->shard_grid[d];
            lin /= z->shard_grid[d];
        }
        GSVD_TRY(object_key(a, sidx, &p->keys[i]));
    }
    p->n = n;
out:
    return rc;
}

/* The plan's ranges: each shard's index before its first chunk, then every present inner
 * chunk's exact range, in scan order (indexes only when entries are not read yet). */
static int plan_ranges(const gsvd_array *a, struct plan *p, int with_chunks,
                       struct gsvd_store_range *r, size_t *n_out)
{
    const struct gsvd_zarray *z = &a->meta;
    uint64_t index_len = 16 * z->n_inner + (z->index_crc ? 4 : 0);
    size_t n = 0;

    memset(p->seen, 0, p->n_shards);
    for (uint64_t c = 0; c < p->n; c++) {
        size_t s = plan_slot(p, p->lin[c]);
        const uint64_t *e = p->entries[s];
        if (!p->seen[s]) {
            p->seen[s] = 1;
            r[n++] = (struct gsvd_store_range){p->keys[s], 0, index_len, !z->index_at_start};
        }
        if (with_chunks && e && e[2 * p->inner[c]] != EMPTY)
            r[n++] = (struct gsvd_store_range){p->keys[s], e[2 * p->inner[c]],
                                               e[2 * p->inner[c] + 1], 0};
    }
    *n_out = n;
    return GSVD_OK;
}

/* Sharded arrays on stores that read ranges ahead (remote): the shards' indexes are read
 * first (themselves read ahead), then the plan lists every needed inner chunk's exact byte range
 * in scan order, each shard's index range before its first chunk (it may have left the index
 * cache by then).  fetch_inner then asks for exactly those ranges, so a scan keeps
 * `concurrency` of them in flight, as a v2 scan keeps its chunks; without a plan (local stores,
 * or scans too big to plan) inner chunks are read on demand and coalesced per reader. */
static int plan_sharded(gsvd_array *a, const size_t *order, const uint64_t *lo, const uint64_t *hi)
{
    const struct gsvd_zarray *z = &a->meta;
    gsvd_store *st = gsvd_tree_store(a->tree);
    struct plan p = {0};
    struct gsvd_store_range *r = NULL;
    size_t n = 0;
    int rc;

    GSVD_TRY(plan_chunks(a, order, lo, hi, &p));
    if (p.n == 0 || p.n_shards > PLAN_MAX_INDEX_BYTES / (16 * (z->n_inner ? z->n_inner : 1)))
        goto out; /* too big to plan: on demand */
    r = gsvd_malloc((size_t)(p.n + p.n_shards) * sizeof *r);
    if (!r) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(plan_ranges(a, &p, 0, r, &n));
    GSVD_TRY(gsvd_store_prefetch_ranges(st, r, n));
    for (size_t i = 0; i < p.n_shards; i++)
        GSVD_TRY(read_shard_index(a, p.keys[i], &p.entries[i]));
    GSVD_TRY(plan_ranges(a, &p, 1, r, &n));
    GSVD_TRY(gsvd_store_prefetch_ranges(st, r, n));
    a->ranges_planned = 1;
    gsvd_log_debug("%s: reading ahead %zu inner chunk and index ranges of %zu shards", a->name, n,
                   p.n_shards);
out:
    gsvd_free(r);
    plan_free(&p);
    return rc;
}

int gsvd_array_prefetch(gsvd_array *a, size_t axis, const uint64_t *start, const uint64_t *count)
{
    const struct gsvd_zarray *z = &a->meta;
    uint64_t lo[GSVD_MAX_DIMS], hi[GSVD_MAX_DIMS], idx[GSVD_MAX_DIMS];
    struct gsvd_strlist keys = GSVD_STRLIST_INIT;
    size_t nd = z->ndim, order[GSVD_MAX_DIMS], k = 0;
    char *key = NULL;
    int rc = GSVD_OK;

    if (nd == 0 || axis >= nd)
        return GSVD_OK;
    if (z->sharded && !gsvd_store_can_prefetch_ranges(gsvd_tree_store(a->tree)))
        return GSVD_OK; /* local shards: read on demand, coalesced per reader */
    for (size_t d = 0; d < nd; d++) {
        if (start[d] > z->shape[d] || count[d] > z->shape[d] - start[d]) {
            gsvd_log_error("%s: prefetch region leaves axis %zu", a->name, d);
            return GSVD_EINVAL;
        }
        if (count[d] == 0)
            return GSVD_OK;
        lo[d] = start[d] / z->chunks[d];
        hi[d] = (start[d] + count[d] - 1) / z->chunks[d] + 1;
        idx[d] = lo[d];
    }
    /* odometer over the axes with `axis` slowest, the others in C order */
    order[k++] = axis;
    for (size_t d = 0; d < nd; d++)
        if (d != axis)
            order[k++] = d;
    if (z->sharded)
        return plan_sharded(a, order, lo, hi);
    for (;;) {
        GSVD_TRY(gsvd_array_chunk_key(a, idx, &key));
        GSVD_TRY(gsvd_strlist_push(&keys, key));
        gsvd_free(key);
        key = NULL;
        size_t j = nd;
        while (j-- > 0) {
            size_t d = order[j];
            if (++idx[d] < hi[d])
                break;
            idx[d] = lo[d];
        }
        if (j == (size_t)-1)
            break;
    }
    rc = gsvd_store_prefetch(gsvd_tree_store(a->tree), (const char *const *)keys.items, keys.n);
out:
    gsvd_free(key);
    gsvd_strlist_free(&keys);
    return rc;
}

void gsvd_array_to_c_order(const struct gsvd_zarray *z, const void *src, void *dst, size_t esz)
{
    uint64_t stride[GSVD_MAX_DIMS], step[GSVD_MAX_DIMS], ext[GSVD_MAX_DIMS], j[GSVD_MAX_DIMS];
    const unsigned char *s = src;
    unsigned char *d = dst;
    size_t nd = z->ndim, o = 0;

    if (z->order == 'F') {
        gsvd_f_to_c(src, dst, z->chunks, nd, esz);
        return;
    }
    if (z->order != 'P') {
        memcpy(dst, src, z->chunk_items * esz);
        return;
    }
    /* walk the stored chunk (shape chunks[perm[i]]) in C order; stored axis i moves the C-order
     * destination by the stride of chunk axis perm[i] */
    for (size_t k = nd; k-- > 0;)
        stride[k] = k + 1 < nd ? stride[k + 1] * z->chunks[k + 1] : 1;
    for (size_t i = 0; i < nd; i++) {
        step[i] = stride[z->perm[i]];
        ext[i] = z->chunks[z->perm[i]];
        j[i] = 0;
    }
    for (size_t n = 0; n < z->chunk_items; n++, s += esz) {
        memcpy(d + o * esz, s, esz);
        for (size_t i = nd; i-- > 0;) {
            o += step[i];
            if (++j[i] < ext[i])
                break;
            o -= step[i] * ext[i];
            j[i] = 0;
        }
    }
}

/* Reverse the bytes of each of n elements of size esz in place. */
static void byteswap(unsigned char *p, size_t n, size_t esz)
{
    for (size_t i = 0; i < n; i++, p += esz)
        for (size_t j = 0; j < esz / 2; j++) {
            unsigned char t = p[j];
            p[j] = p[esz - 1 - j];
            p[esz - 1 - j] = t;
        }
}

static void fill_chunk(const struct gsvd_zarray *z, unsigned char *dst)
{
    gsvd_fill_elems(dst, z->chunk_items, z->fill, z->dtype.size);
}

int gsvd_array_decode_chunk(gsvd_array *a, gsvd_codec_ws *ws, const uint64_t *idx,
                            const struct gsvd_buf *raw, int present, void *dst,
                            struct gsvd_buf *scratch)
{
    const struct gsvd_zarray *z = &a->meta;
    int rc = GSVD_OK, f_order = z->order != 'C' && z->ndim > 1;
    char *key = NULL;
    void *target = dst;

    if (z->dtype.kind == 'O') {
        gsvd_log_error("%s: object arrays are read as strings, not raw chunks", a->name);
        return GSVD_EINTERNAL;
    }
    if (!present) {
        fill_chunk(z, dst);
        return GSVD_OK;
    }
    key = chunk_label(a, idx);
    if (!key) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (f_order) {
        gsvd_buf_clear(scratch);
        GSVD_TRY(gsvd_buf_reserve(scratch, z->chunk_bytes));
        target = scratch->data;
    }
    GSVD_TRY(
        gsvd_codec_chain_decode(z->codecs, ws, raw->data, raw->len, target, z->chunk_bytes, key));
    if (f_order)
        gsvd_array_to_c_order(z, target, dst, z->dtype.size);
    if (gsvd_dtype_needs_swap(&z->dtype))
        byteswap(dst, z->dtype.kind == 'U' ? z->chunk_items * (z->dtype.size / 4) : z->chunk_items,
                 z->dtype.kind == 'U' ? 4 : z->dtype.size);
out:
    gsvd_free(key);
    return rc;
}

int gsvd_array_read_chunk(gsvd_array *a, gsvd_codec_ws *ws, const uint64_t *idx, void *dst,
                          struct gsvd_buf *raw, struct gsvd_buf *scratch)
{
    int present = gsvd_array_fetch_chunk(a, idx, raw);
    if (present < 0)
        return present;
    return gsvd_array_decode_chunk(a, ws, idx, raw, present, dst, scratch);
}

int gsvd_array_stored_bytes(gsvd_array *a, uint64_t *bytes, uint64_t *n_chunks)
{
    const struct gsvd_zarray *z = &a->meta;
    uint64_t idx[GSVD_MAX_DIMS] = {0}, total = 0, n = 0;
    const uint64_t *grid = z->sharded ? z->shard_grid : z->grid;
    char *key = NULL;
    int rc = GSVD_OK;

    for (size_t d = 0; d < z->ndim; d++)
        if (grid[d] == 0)
            goto done;
    for (;;) {
        uint64_t sz = 0;
        gsvd_free(key);
        key = NULL;
        GSVD_TRY(object_key(a, idx, &key));
        rc = gsvd_store_size(gsvd_tree_store(a->tree), key, &sz);
        if (rc == GSVD_OK) {
            total += sz;
            n++;
        } else if (rc != GSVD_ENOTFOUND) {
            goto out;
        }
        rc = GSVD_OK;
        size_t d = z->ndim;
        while (d-- > 0) {
            if (++idx[d] < grid[d])
                break;
            idx[d] = 0;
        }
        if (d == (size_t)-1)
            break;
    }
done:
    *bytes = total;
    *n_chunks = n;
out:
    gsvd_free(key);
    return rc;
}
