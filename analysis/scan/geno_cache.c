/* analysis/scan/geno_cache.c - see geno_cache.h. */
#define _GNU_SOURCE /* mkostemp */
#include "gsvd_config.h"
#include "analysis/scan/geno_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/scan/gblock_std.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "common/scope.h"

/* One block: its metadata in memory, its rows in memory (rows != NULL) or in the file. */
struct cblock {
    struct gsvd_gblock blk; /* row pointer set at replay for spilled rows */
    struct gsvd_geno_info info;
    struct gsvd_geno_counts counts;
    int fmt;                      /* 1 p2, 2 i8, 3 f64 */
    void *rows;                   /* owned, or NULL when spilled */
    uint64_t off, bytes;          /* rows: offset in the spill file, length */
    float *center, *scale, *miss; /* owned, blk.n_rows */
    uint64_t *index;              /* owned, blk.n_rows; NULL when the block had none */
    uint8_t *kept;                /* owned, info.n_variants */
    double *mean, *inv_sd;        /* owned, info.n_variants */
};

struct gsvd_gcache {
    uint64_t budget;  /* bytes of rows allowed in memory */
    char *dir;        /* spill directory (owned), or NULL */
    struct cblock *b; /* blocks, in order */
    size_t n, cap;
    uint64_t mem, file; /* bytes of rows in memory, in the file */
    int fd;             /* spill file (already unlinked), or -1 */
    int usable;         /* 0 after giving up */
    void *buf;          /* replay buffer for spilled rows */
    size_t buf_cap;
};

static void block_free(struct cblock *b)
{
    gsvd_free(b->rows);
    gsvd_free(b->center);
    gsvd_free(b->index);
    gsvd_free(b->scale);
    gsvd_free(b->miss);
    gsvd_free(b->kept);
    gsvd_free(b->mean);
    gsvd_free(b->inv_sd);
}

/* Forget every block and stop caching (the scan goes on uncached). */
static void give_up(gsvd_gcache *c)
{
    for (size_t i = 0; i < c->n; i++)
        block_free(&c->b[i]);
    gsvd_free(c->b);
    c->b = NULL;
    c->n = c->cap = 0;
    c->mem = c->file = 0;
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->usable = 0;
}

int gsvd_gcache_new(uint64_t mem_bytes, const char *spill_dir, gsvd_gcache **out)
{
    gsvd_gcache *c = gsvd_calloc(1, sizeof *c);
    *out = NULL;
    if (!c)
        return GSVD_ENOMEM;
    c->budget = mem_bytes;
    c->fd = -1;
    c->usable = 1;
    if (spill_dir) {
        c->dir = gsvd_strdup(spill_dir);
        if (!c->dir) {
            gsvd_free(c);
            return GSVD_ENOMEM;
        }
    }
    *out = c;
    return GSVD_OK;
}

void gsvd_gcache_free(gsvd_gcache *c)
{
    if (!c)
        return;
    give_up(c);
    gsvd_free(c->dir);
    gsvd_free(c->buf);
    gsvd_free(c);
}

int gsvd_gcache_usable(const gsvd_gcache *c)
{
    return c->usable;
}

uint64_t gsvd_gcache_mem_bytes(const gsvd_gcache *c)
{
    return c->mem;
}

uint64_t gsvd_gcache_file_bytes(const gsvd_gcache *c)
{
    return c->file;
}

/* Create the spill file (unlinked at once).  Returns 0, or -1 with the reason logged. */
static int open_spill(gsvd_gcache *c)
{
    char *path = gsvd_asprintf("%s/gensvd-cache-XXXXXX", c->dir);
    if (!path)
        return -1;
    c->fd = mkostemp(path, O_CLOEXEC);
    if (c->fd < 0) {
        gsvd_log_warn("%s: cannot create the cache spill file: %s; the store is read again on "
                      "every pass",
                      path, strerror(errno));
        gsvd_free(path);
        return -1;
    }
    unlink(path); /* the file lives as long as the descriptor */
    gsvd_log_info("cache beyond --cache spills to %s (unlinked)", path);
    gsvd_free(path);
    return 0;
}

/* Write all of buf at off.  Returns 0, or -1 with the reason logged. */
static int write_all(gsvd_gcache *c, const void *buf, uint64_t len, uint64_t off)
{
    const uint8_t *p = buf;
    while (len > 0) {
        size_t chunk = len > ((size_t)1 << 30) ? (size_t)1 << 30 : (size_t)len;
        ssize_t w = pwrite(c->fd, p, chunk, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            gsvd_log_warn("%s: cannot write the cache spill file: %s; the store is read again "
                          "on every pass",
                          c->dir, w < 0 ? strerror(errno) : "no progress");
            return -1;
        }
        p += w;
        off += (uint64_t)w;
        len -= (uint64_t)w;
    }
    return 0;
}

/* Copy n elements of size sz (plus one, so that empty arrays allocate). */
static void *dup_n(const void *src, size_t n, size_t sz)
{
    void *d = gsvd_malloc((n + 1) * sz);
    if (d && n)
        memcpy(d, src, n * sz);
    return d;
}

int gsvd_gcache_add(gsvd_gcache *c, const struct gsvd_gblock *blk, const uint8_t *p2rows,
                    const struct gsvd_geno_info *info, const struct gsvd_geno_counts *counts)
{
    size_t rows = blk->n_rows, n = blk->n_cols, nv = info->n_variants;
    size_t rb = p2rows || blk->p2 ? gsvd_std_p2_row_bytes(n) : blk->i8 ? n : n * sizeof(double);
    const void *src = p2rows    ? (const void *)p2rows
                      : blk->p2 ? (const void *)blk->p2
                      : blk->i8 ? (const void *)blk->i8
                                : (const void *)blk->f64;
    uint64_t bytes = (uint64_t)rows * rb;
    struct cblock *b;

    if (!c->usable)
        return GSVD_OK;
    if (gsvd_grow(&c->b, &c->cap, c->n + 1, sizeof *c->b, 64) < 0)
        return GSVD_ENOMEM;
    b = &c->b[c->n];
    memset(b, 0, sizeof *b);
    c->n++;
    b->fmt = p2rows || blk->p2 ? 1 : blk->i8 ? 2 : 3;
    b->bytes = bytes;
    b->center = dup_n(blk->center, rows, sizeof *b->center);
    b->scale = dup_n(blk->scale, rows, sizeof *b->scale);
    b->miss = blk->missing ? dup_n(blk->missing, rows, sizeof *b->miss)
                           : gsvd_calloc(rows + 1, sizeof *b->miss);
    b->index = blk->index ? dup_n(blk->index, rows, sizeof *b->index) : NULL;
    b->kept = dup_n(info->kept, nv, 1);
    b->mean = dup_n(info->mean, nv, sizeof *b->mean);
    b->inv_sd = dup_n(info->scale, nv, sizeof *b->inv_sd);
    if (!b->center || !b->scale || !b->miss || !b->kept || !b->mean || !b->inv_sd ||
        (blk->index && rows && !b->index))
        return GSVD_ENOMEM;
    if (c->mem + bytes <= c->budget) {
        b->rows = gsvd_malloc(bytes + 1);
        if (!b->rows)
            return GSVD_ENOMEM;
        memcpy(b->rows, src, bytes);
        c->mem += bytes;
    } else {
        if (!c->dir) {
            gsvd_log_info("not caching: the blocks need more than %llu bytes (--cache)",
                          (unsigned long long)c->budget);
            give_up(c);
            return GSVD_OK;
        }
        if ((c->fd < 0 && open_spill(c) < 0) || write_all(c, src, bytes, c->file) < 0) {
            give_up(c);
            return GSVD_OK;
        }
        b->off = c->file;
        c->file += bytes;
    }
    b->blk = (struct gsvd_gblock){.n_rows = rows,
                                  .n_cols = n,
                                  .center = b->center,
                                  .scale = b->scale,
                                  .missing = b->miss,
                                  .index = b->index};
    b->info = (struct gsvd_geno_info){.first = info->first,
                                      .n_variants = nv,
                                      .kept = b->kept,
                                      .mean = b->mean,
                                      .scale = b->inv_sd};
    b->counts = *counts;
    return GSVD_OK;
}

void gsvd_gcache_trim(gsvd_gcache *c, uint64_t base, uint64_t lo, uint64_t hi, uint64_t new_base,
                      uint64_t *cov_lo, uint64_t *cov_hi)
{
    size_t kept = 0;
    *cov_lo = *cov_hi = lo;
    for (size_t i = 0; i < c->n; i++) {
        struct cblock *b = &c->b[i];
        uint64_t a = base + b->info.first, z = a + b->info.n_variants;
        if (a < lo || z > hi) {
            if (b->rows)
                c->mem -= b->bytes;
            block_free(b);
            continue;
        }
        if (kept == 0)
            *cov_lo = a;
        *cov_hi = z;
        b->info.first = a - new_base;
        c->b[kept++] = *b;
    }
    c->n = kept;
}

/* Read block b's spilled rows into *buf.  Returns GSVD_OK, GSVD_ENOMEM or GSVD_EIO (logged). */
static int read_rows(gsvd_gcache *c, const struct cblock *b, void **buf, size_t *cap)
{
    uint64_t done = 0;
    if (b->bytes + 1 > *cap) {
        gsvd_free(*buf);
        *buf = gsvd_alloc_large((size_t)b->bytes + 1);
        *cap = *buf ? (size_t)b->bytes + 1 : 0;
        if (!*buf)
            return GSVD_ENOMEM;
    }
    while (done < b->bytes) {
        size_t chunk =
            b->bytes - done > ((uint64_t)1 << 30) ? (size_t)1 << 30 : (size_t)(b->bytes - done);
        ssize_t r = pread(c->fd, (uint8_t *)*buf + done, chunk, (off_t)(b->off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            gsvd_log_error("cache spill file in %s: read failed at offset %llu: %s", c->dir,
                           (unsigned long long)(b->off + done),
                           r < 0 ? strerror(errno) : "unexpected end of file");
            return GSVD_EIO;
        }
        done += (uint64_t)r;
    }
    return GSVD_OK;
}

static void set_rows(struct gsvd_gblock *g, int fmt, const void *rows)
{
    g->p2 = fmt == 1 ? rows : NULL;
    g->i8 = fmt == 2 ? rows : NULL;
    g->f64 = fmt == 3 ? rows : NULL;
}

int gsvd_gcache_replay(gsvd_gcache *c, gsvd_geno_block_fn fn, void *ctx,
                       struct gsvd_geno_counts *counts)
{
    int rc = GSVD_OK;
    memset(counts, 0, sizeof *counts);
    for (size_t i = 0; i < c->n; i++) {
        struct cblock *b = &c->b[i];
        struct gsvd_gblock blk = b->blk;
        if (gsvd_scope_cancelled()) { /* the caller asked to stop: between blocks */
            rc = GSVD_ECANCELED;
            goto out;
        }
        if (b->rows) {
            set_rows(&blk, b->fmt, b->rows);
        } else {
            /* read this block, and let the kernel fetch the next spilled one meanwhile */
            GSVD_TRY(read_rows(c, b, &c->buf, &c->buf_cap));
            for (size_t j = i + 1; j < c->n; j++)
                if (!c->b[j].rows) {
#ifdef POSIX_FADV_WILLNEED
                    (void)posix_fadvise(c->fd, (off_t)c->b[j].off, (off_t)c->b[j].bytes,
                                        POSIX_FADV_WILLNEED);
#endif
                    break;
                }
            set_rows(&blk, b->fmt, c->buf);
        }
        GSVD_TRY(fn(ctx, &blk, &b->info));
        gsvd_geno_counts_add(counts, &b->counts);
    }
out:
    return rc;
}
