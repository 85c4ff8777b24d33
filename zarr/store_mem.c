/* zarr/store_mem.c - in-memory store ("mem:"), so tests and fuzz targets drive the real reader
 * without a file system.  Each open makes a new, empty, writable store; values live until close.
 * A mutex serialises access, so workers may share it as they share any store. */
#include "gsvd_config.h"
#include "zarr/store.h"

#include <pthread.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "zarr/store_internal.h"

struct mem_entry {
    char *key;
    struct gsvd_buf val;
};

struct store_mem {
    struct gsvd_store base;
    pthread_mutex_t lock;
    struct mem_entry *items; /* owned; unsorted, linear lookup (test-sized stores) */
    size_t n, cap;
};

static void mem_close(gsvd_store *st)
{
    struct store_mem *ms = (struct store_mem *)st;
    if (!ms)
        return;
    for (size_t i = 0; i < ms->n; i++) {
        gsvd_free(ms->items[i].key);
        gsvd_buf_free(&ms->items[i].val);
    }
    gsvd_free(ms->items);
    pthread_mutex_destroy(&ms->lock);
    gsvd_free(ms);
}

static int mem_open(const char *name, unsigned flags, gsvd_store **out)
{
    struct store_mem *ms = gsvd_calloc(1, sizeof *ms);
    (void)name;
    (void)flags;
    *out = NULL;
    if (!ms)
        return GSVD_ENOMEM;
    ms->base.ops = &gsvd_store_mem_ops;
    pthread_mutex_init(&ms->lock, NULL);
    *out = &ms->base;
    return GSVD_OK;
}

static struct mem_entry *find(struct store_mem *ms, const char *key)
{
    for (size_t i = 0; i < ms->n; i++)
        if (strcmp(ms->items[i].key, key) == 0)
            return &ms->items[i];
    return NULL;
}

static int mem_get(gsvd_store *st, const char *key, struct gsvd_buf *dst)
{
    struct store_mem *ms = (struct store_mem *)st;
    struct mem_entry *e;
    int rc = GSVD_ENOTFOUND;

    pthread_mutex_lock(&ms->lock);
    e = find(ms, key);
    if (e)
        rc = gsvd_buf_append(dst, e->val.data ? e->val.data : "", e->val.len);
    pthread_mutex_unlock(&ms->lock);
    return rc;
}

static int mem_get_range(gsvd_store *st, const char *key, uint64_t offset, uint64_t length,
                         int suffix, struct gsvd_buf *dst, uint64_t *size)
{
    struct store_mem *ms = (struct store_mem *)st;
    struct mem_entry *e;
    int rc = GSVD_ENOTFOUND;

    pthread_mutex_lock(&ms->lock);
    e = find(ms, key);
    if (e) {
        uint64_t total = e->val.len;
        uint64_t start =
            suffix ? (length < total ? total - length : 0) : (offset < total ? offset : total);
        uint64_t n = length < total - start ? length : total - start;
        *size = total;
        rc = gsvd_buf_append(dst, n ? e->val.data + start : "", (size_t)n);
    }
    pthread_mutex_unlock(&ms->lock);
    return rc;
}

static int mem_put(gsvd_store *st, const char *key, const void *p, size_t n)
{
    struct store_mem *ms = (struct store_mem *)st;
    struct mem_entry *e;
    int rc = GSVD_OK;

    pthread_mutex_lock(&ms->lock);
    e = find(ms, key);
    if (!e) {
        GSVD_TRY(gsvd_grow(&ms->items, &ms->cap, ms->n + 1, sizeof *ms->items, 16));
        e = &ms->items[ms->n];
        memset(e, 0, sizeof *e);
        e->key = gsvd_strdup(key);
        if (!e->key) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        ms->n++;
    }
    gsvd_buf_clear(&e->val);
    rc = gsvd_buf_append(&e->val, p, n);
out:
    pthread_mutex_unlock(&ms->lock);
    return rc;
}

static int mem_list(gsvd_store *st, const char *prefix, struct gsvd_strlist *names)
{
    struct store_mem *ms = (struct store_mem *)st;
    size_t plen = strlen(prefix);
    int rc = GSVD_OK;

    pthread_mutex_lock(&ms->lock);
    for (size_t i = 0; i < ms->n && rc >= 0; i++) {
        const char *k = ms->items[i].key, *rest, *slash;
        int seen = 0;
        if (plen && (strncmp(k, prefix, plen) != 0 || k[plen] != '/'))
            continue;
        rest = plen ? k + plen + 1 : k;
        slash = strchr(rest, '/');
        size_t len = slash ? (size_t)(slash - rest) : strlen(rest);
        for (size_t j = 0; j < names->n && !seen; j++)
            seen = strlen(names->items[j]) == len && memcmp(names->items[j], rest, len) == 0;
        if (!seen)
            rc = gsvd_strlist_pushn(names, rest, len);
    }
    pthread_mutex_unlock(&ms->lock);
    return rc;
}

const struct gsvd_store_ops gsvd_store_mem_ops = {
    .version = GSVD_STORE_OPS_VERSION,
    .name = "mem",
    .open = mem_open,
    .close = mem_close,
    .get = mem_get,
    .put = mem_put,
    .list = mem_list,
    .commit = NULL,
    .size = NULL,
    .prefetch = NULL,
    .get_range = mem_get_range,
};
