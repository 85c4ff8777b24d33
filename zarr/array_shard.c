/* zarr/array_shard.c - the sharded side of zarr/array.c: shard indexes (read once with a ranged
 * read of the first or last 16 n + 4 bytes, checked for crc32c, bounds and overlaps, kept in a
 * small cache shared by the array's readers: one reader reads an index while the others wait,
 * and a corrupt one stays in the cache as its error, reported once), inner chunk fetches (one
 * ranged read, or a span of the scan's neighbours in the same shard), and the read-ahead plan of
 * remote scans. */
#include "gsvd_config.h"
#include "zarr/array_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/ndcopy.h"
#include "zarr/codec.h"
#include "zarr/store.h"
#include "zarr/tree.h"

/* Store key of the object at grid position idx: a chunk, or for sharded arrays a shard. */
int gsvd_array_object_key(const gsvd_array *a, const uint64_t *idx, char **out)
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
uint64_t gsvd_array_shard_of(const struct gsvd_zarray *z, const uint64_t *idx, uint64_t *sidx)
{
    uint64_t inner = 0;

    for (size_t d = 0; d < z->ndim; d++) {
        sidx[d] = idx[d] / z->per_shard[d];
        inner = inner * z->per_shard[d] + idx[d] % z->per_shard[d];
    }
    return inner;
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

/* The store, the shard's key and the array, for messages about a shard's bytes. */
#define SHARD_WHERE(a, key)                                                                        \
    gsvd_store_url(gsvd_tree_store((a)->tree)), (key), (*(a)->path ? (a)->path : "/")

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
            gsvd_log_error("%s: corrupt shard '%s' of array '%s': its index puts inner chunk %zu "
                           "at offset %llu, length %llu, outside the shard's data (bytes "
                           "%llu..%llu)",
                           SHARD_WHERE(a, key), i, (unsigned long long)off, (unsigned long long)len,
                           (unsigned long long)lo, (unsigned long long)hi);
            rc = GSVD_EFORMAT;
            goto out;
        }
        sp[n++] = (struct span){off, off + len, i};
    }
    qsort(sp, n, sizeof *sp, span_cmp);
    for (size_t i = 1; i < n; i++) {
        if (sp[i].start < sp[i - 1].end) {
            gsvd_log_error("%s: corrupt shard '%s' of array '%s': its index makes inner chunks "
                           "%llu and %llu overlap",
                           SHARD_WHERE(a, key), (unsigned long long)sp[i - 1].inner,
                           (unsigned long long)sp[i].inner);
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
        gsvd_log_error("%s: corrupt shard '%s' of array '%s': %zu bytes, shorter than its index "
                       "(%zu bytes)",
                       SHARD_WHERE(a, key), b.len, len);
        rc = GSVD_EFORMAT;
        goto out;
    }
    if (z->index_crc) {
        const unsigned char *c = (const unsigned char *)b.data + len - 4;
        uint32_t want =
            (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24;
        if (gsvd_crc32c(b.data, len - 4) != want) {
            gsvd_log_error("%s: corrupt shard '%s' of array '%s': the index's crc32c does not "
                           "match",
                           SHARD_WHERE(a, key));
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

/* The cached slot of shard lin, or NULL; waits (a->lock held) while another reader loads it. */
static struct shard_slot *cached_slot(gsvd_array *a, uint64_t lin)
{
    for (;;) {
        struct shard_slot *hit = NULL;
        for (size_t i = 0; i < SHARD_CACHE && !hit; i++)
            if (a->slots[i].used && a->slots[i].shard == lin)
                hit = &a->slots[i];
        if (!hit || !hit->loading)
            return hit;
        pthread_cond_wait(&a->loaded, &a->lock);
    }
}

/* A slot to load shard lin into (the least recently used one no reader is loading), marked
 * loading, or NULL when every slot is being loaded. */
static struct shard_slot *claim_slot(gsvd_array *a, uint64_t lin)
{
    struct shard_slot *victim = NULL;
    for (size_t i = 0; i < SHARD_CACHE; i++) {
        struct shard_slot *s = &a->slots[i];
        if (s->loading)
            continue;
        if (!victim || !s->used || s->tick < victim->tick)
            victim = s;
        if (!s->used)
            break;
    }
    if (victim) {
        gsvd_free(victim->entries);
        *victim = (struct shard_slot){.used = 1, .shard = lin, .tick = ++a->tick, .loading = 1};
    }
    return victim;
}

/* Offset and length of inner chunk `inner` of shard `lin` (key), through the cache.  Returns 1
 * when present, 0 when the shard or the chunk is absent, or a negative error (logged once: one
 * reader reads a shard's index while the others wait for it, and a corrupt index is remembered,
 * so that the workers of a scan do not each report it). */
static int shard_entry(gsvd_array *a, const char *key, uint64_t lin, uint64_t inner, uint64_t *off,
                       uint64_t *len)
{
    uint64_t *entries = NULL;
    struct shard_slot *s;
    int rc;

    pthread_mutex_lock(&a->lock);
    s = cached_slot(a, lin);
    if (s) {
        s->tick = ++a->tick;
        rc = s->rc < 0 ? s->rc : !s->missing && s->entries[2 * inner] != EMPTY;
        if (rc > 0) {
            *off = s->entries[2 * inner];
            *len = s->entries[2 * inner + 1];
        }
        pthread_mutex_unlock(&a->lock);
        return rc;
    }
    s = claim_slot(a, lin); /* NULL: read without caching */
    pthread_mutex_unlock(&a->lock);
    rc = read_shard_index(a, key, &entries); /* outside the lock: it is I/O */
    if (rc >= 0) {
        rc = entries && entries[2 * inner] != EMPTY;
        if (rc) {
            *off = entries[2 * inner];
            *len = entries[2 * inner + 1];
        }
    }
    if (!s) {
        gsvd_free(entries);
        return rc;
    }
    pthread_mutex_lock(&a->lock);
    s->loading = 0;
    if (rc == GSVD_EFORMAT || rc == GSVD_ECODEC) {
        s->rc = rc; /* the bytes are bad: reading them again would find the same */
    } else if (rc < 0) {
        s->used = 0; /* I/O, network, memory: the next reader tries again */
    } else {
        s->missing = entries == NULL;
        s->entries = entries;
        entries = NULL;
    }
    pthread_cond_broadcast(&a->loaded);
    pthread_mutex_unlock(&a->lock);
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

    *inner = gsvd_array_shard_of(z, idx, sidx);
    *lin = 0;
    for (size_t d = 0; d < z->ndim; d++)
        *lin = *lin * z->shard_grid[d] + sidx[d];
    return key ? gsvd_array_object_key(a, sidx, key) : GSVD_OK;
}

/* Bytes [off, off + len) of shard `key` into dst, exactly. */
static int read_part(gsvd_array *a, const char *key, uint64_t inner, uint64_t off, uint64_t len,
                     struct gsvd_buf *dst)
{
    int rc = gsvd_store_get_range(gsvd_tree_store(a->tree), key, off, len, 0, dst, NULL);
    if (rc < 0)
        return rc;
    if (dst->len != len) {
        gsvd_log_error("%s: corrupt shard '%s' of array '%s': inner chunk %llu (offset %llu, "
                       "length %llu) runs past its end",
                       SHARD_WHERE(a, key), (unsigned long long)inner, (unsigned long long)off,
                       (unsigned long long)len);
        return GSVD_EFORMAT;
    }
    return GSVD_OK;
}

/* Sharded fetch: the inner chunk's bytes by one ranged read, or (with a scan box and a span)
 * from a read that also covers the scan's other chunks in the same shard. */
int gsvd_array_fetch_inner(gsvd_array *a, const uint64_t *idx, const uint64_t *lo,
                           const uint64_t *hi, struct gsvd_chunk_span *span, struct gsvd_buf *raw)
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
        gsvd_log_error("%s: corrupt shard '%s' of array '%s': inner chunk %llu of %llu bytes (at "
                       "most 2 GiB)",
                       SHARD_WHERE(a, key), (unsigned long long)inner, (unsigned long long)len);
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
        while (n_scanned++ < SPAN_LOOKAHEAD && gsvd_nd_next(z->ndim, next, lo, hi)) {
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

/* The scan's chunks in order (odometer over `order`, less the rows along order[0] that skip
 * marks), their shards, and the distinct shards' keys.  GSVD_OK with p->n == 0 when the scan is
 * too big to plan or reads nothing. */
static int plan_chunks(gsvd_array *a, const size_t *order, const uint64_t *lo, const uint64_t *hi,
                       const uint8_t *skip, struct plan *p)
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
    uint64_t total = n;
    n = 0;
    for (uint64_t t = 0; t < total; t++) {
        if (!skip || !skip[idx[order[0]] - lo[order[0]]]) { /* else the row is left out */
            GSVD_TRY(locate_inner(a, idx, &p->lin[n], &p->inner[n], NULL));
            p->shards[n] = p->lin[n];
            n++;
        }
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
        GSVD_TRY(gsvd_array_object_key(a, sidx, &p->keys[i]));
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
int gsvd_array_plan_sharded(gsvd_array *a, const size_t *order, const uint64_t *lo,
                            const uint64_t *hi, const uint8_t *skip)
{
    const struct gsvd_zarray *z = &a->meta;
    gsvd_store *st = gsvd_tree_store(a->tree);
    struct plan p = {0};
    struct gsvd_store_range *r = NULL;
    size_t n = 0;
    int rc;

    GSVD_TRY(plan_chunks(a, order, lo, hi, skip, &p));
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
