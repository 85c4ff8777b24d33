/* analysis/scan/geno_scan.c - the scan of a genotype handle (genotype.h): the pipeline of
 * chunk rows (scan_produce on the workers: read, dosages, statistics, filters, packing;
 * scan_consume in order: the cache and the callback), the rows a variant mask leaves out and
 * the read-ahead hint without them, the cached replays and moved ranges, and --mind's counting
 * scan.  Opening the handle and its accessors are genotype.c. */
#include "gsvd_config.h"
#include "analysis/scan/genotype.h"

#include <math.h>
#include <string.h>

#include "analysis/scan/geno_cache.h"
#include "analysis/scan/genotype_internal.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "common/pipeline.h"
#include "common/scope.h"
#include "zarr/array.h"
#include "zarr/reader.h"

uint64_t gsvd_geno_n_blocks(const gsvd_geno *g)
{
    return g->ve == g->vs ? 0 : (g->ve - 1) / g->cv - g->vs / g->cv + 1;
}

uint64_t gsvd_geno_chunk_variants(const gsvd_geno *g)
{
    return g->cv;
}

/* The scan's producers (common/pipeline.h, the caller helping): n_threads - 1 decoding threads
 * beside the consumer, which decodes while it waits; at n_threads 1 one thread decodes beside
 * it as well. */
static size_t scan_producers(const gsvd_geno *g)
{
    return g->p.n_threads > 2 ? g->p.n_threads : 2;
}

uint64_t gsvd_geno_scan_bytes(const gsvd_geno *g)
{
    const struct gsvd_zarray *z = gsvd_array_meta(g->arr);
    uint64_t nw = scan_producers(g), rows = g->cv;
    /* per slot: the decoded chunk row in the array's dtype, the dosages (int8 or float64) and
     * the packed rows; one slot per worker and one more */
    uint64_t per = g->rank == 3 ? (g->haps ? g->haps : g->ploidy) : 1;
    uint64_t raw = rows * g->n_all_samples * per * z->dtype.size +
                   (g->phased ? rows * 8 : 0) * g->n_all_samples;
    uint64_t dos = rows * g->n_samples * (g->is_float ? 8 : 1) + rows * g->n_samples / 4;
    return (nw + 1) * (raw + dos);
}

struct scan_ctx {
    gsvd_geno *g;
    gsvd_reader **readers;
    gsvd_reader **preaders; /* haplotypes: the phase array's, or NULL */
    gsvd_geno_block_fn fn;
    void *fn_ctx;
    uint64_t first_chunk;
    uint64_t a, b;     /* the variants this scan reads: [a, b) inside [g->vs, g->ve) */
    uint8_t *rows_out; /* per block: 1 if the variant mask leaves out all its variants (the
                          chunk row is neither read nor in the read-ahead hint); NULL: no mask */
    gsvd_gcache *fill; /* the cache the blocks go to, or NULL */
    int pack;          /* fill is set and rows can be packed to 2 bits */
    struct gsvd_geno_counts counts;
};

/* 1 if the variant mask leaves out every variant of [v0, v0 + nv): a chunk row not worth
 * reading (`--chr 22` on a whole genome reads chromosome 22's chunks only). */
static int masked_out(const gsvd_geno *g, uint64_t v0, size_t nv)
{
    const uint8_t *m = g->p.variant_mask;
    if (!m)
        return 0;
    for (size_t j = 0; j < nv; j++)
        if (m[v0 + j])
            return 0;
    return 1;
}

/* gsvd_geno_count_missing's part of a block: the missing calls of its selected rows, per
 * sample, into s->smiss (the rows then go to no analysis). */
static int count_missing(const gsvd_geno *g, struct scan_slot *s, uint64_t v0, size_t nv)
{
    const uint8_t *m = g->p.variant_mask;
    size_t N = g->n_samples;

    if (!s->smiss && !(s->smiss = gsvd_calloc(N ? N : 1, sizeof *s->smiss)))
        return GSVD_ENOMEM;
    for (size_t j = 0; j < nv; j++) {
        if (m && !m[v0 + j])
            continue;
        if (s->fdos) {
            const double *row = s->fdos + j * N;
            for (size_t i = 0; i < N; i++)
                s->smiss[i] += isnan(row[i]) != 0;
        } else {
            const int8_t *row = s->dos + j * N;
            uint32_t *restrict sm = s->smiss;
            for (size_t i = 0; i < N; i++) /* branch-free, so it vectorises */
                sm[i] += (uint32_t)((uint8_t)row[i] >> 7);
        }
        s->smiss_rows++;
        s->kept[j] = 0;
    }
    return GSVD_OK;
}

static int scan_produce(void *vctx, size_t worker, uint64_t block, void *vslot)
{
    struct scan_ctx *c = vctx;
    struct scan_slot *s = vslot;
    gsvd_geno *g = c->g;
    uint64_t chunk = c->first_chunk + block;
    uint64_t v0 = chunk * g->cv, v1 = v0 + g->cv;
    size_t N = g->n_samples, nv, kept = 0, nv_skip = 0;
    int rc = GSVD_OK;

    if (v0 < c->a)
        v0 = c->a;
    if (v1 > c->b)
        v1 = c->b;
    nv = (size_t)(v1 - v0);
    memset(&s->counts, 0, sizeof s->counts);
    if (nv > s->rows_cap) {
        gsvd_free(s->center);
        gsvd_free(s->scale);
        gsvd_free(s->miss);
        gsvd_free(s->kept);
        gsvd_free(s->vidx);
        gsvd_free(s->mean);
        gsvd_free(s->inv_sd);
        gsvd_free(s->rsums);
        s->rsums = gsvd_malloc(3 * nv * sizeof *s->rsums);
        s->vidx = gsvd_malloc(nv * sizeof *s->vidx);
        s->center = gsvd_malloc(nv * sizeof *s->center);
        s->scale = gsvd_malloc(nv * sizeof *s->scale);
        s->miss = gsvd_malloc(nv * sizeof *s->miss);
        s->kept = gsvd_malloc(nv);
        s->mean = gsvd_malloc(nv * sizeof *s->mean);
        s->inv_sd = gsvd_malloc(nv * sizeof *s->inv_sd);
        s->rows_cap = nv;
        if (!s->center || !s->scale || !s->miss || !s->kept || !s->mean || !s->inv_sd ||
            !s->rsums || !s->vidx) {
            s->rows_cap = 0;
            return GSVD_ENOMEM;
        }
    }
    if (c->rows_out && c->rows_out[block]) {
        /* no variant selected: the chunk row is not read at all */
        for (size_t j = 0; j < nv; j++) {
            s->mean[j] = NAN;
            s->inv_sd[j] = 0;
            s->kept[j] = 0;
        }
        s->counts.n_mask = nv;
        nv_skip = nv;
    } else if (g->haps) {
        GSVD_TRY(gsvd_geno_make_haplotypes(g, c->readers[worker],
                                           c->preaders ? c->preaders[worker] : NULL, v0, nv, s));
    } else {
        GSVD_TRY(gsvd_geno_make_dosages(g, c->readers[worker], v0, nv, s));
    }
    if (g->count_miss) { /* no analysis: only the missing calls are counted */
        memset(s->kept, 0, nv);
        GSVD_TRY(count_missing(g, s, v0, nv));
        nv_skip = nv;
    }
    for (size_t j = nv_skip; j < nv; j++) {
        int k = gsvd_geno_judge_row(g, s, j, v0 + j);
        if (k < 0) {
            rc = GSVD_EFORMAT;
            goto out;
        }
        s->kept[j] = (uint8_t)k;
        if (!k)
            continue;
        /* compact kept rows to the front */
        if (kept != j) {
            if (s->fdos)
                memmove(s->fdos + kept * N, s->fdos + j * N, N * sizeof *s->fdos);
            else
                memmove(s->dos + kept * N, s->dos + j * N, N);
        }
        s->center[kept] = g->p.scaler == GSVD_SCALER_NONE ? 0.0f : (float)s->mean[j];
        s->scale[kept] = (float)s->inv_sd[j];
        /* mean imputation: a missing call standardises to (mean - centre) * scale */
        s->miss[kept] = g->p.scaler == GSVD_SCALER_NONE ? (float)s->mean[j] : 0.0f;
        s->vidx[kept] = v0 + j;
        kept++;
    }
    if (c->pack && !s->fdos && kept > 0)
        GSVD_TRY(gsvd_geno_pack_rows(s, kept, N));
    s->packed = 0;
    s->counts.n_range = nv;
    s->counts.n_kept = kept;
    /* with the packed rows at hand, the callback gets them too: 4x fewer bytes to move */
    s->packed = c->pack && !s->fdos && kept > 0;
    s->blk = (struct gsvd_gblock){.n_rows = kept,
                                  .n_cols = N,
                                  .p2 = s->packed ? s->p2 : NULL,
                                  .i8 = s->fdos || s->packed ? NULL : s->dos,
                                  .f64 = s->fdos,
                                  .center = s->center,
                                  .scale = s->scale,
                                  .missing = s->miss,
                                  .index = s->vidx};
    s->info = (struct gsvd_geno_info){.first = v0 - g->vs,
                                      .n_variants = nv,
                                      .kept = s->kept,
                                      .mean = s->mean,
                                      .scale = s->inv_sd};
out:
    return rc;
}

static int scan_consume(void *vctx, uint64_t block, void *vslot)
{
    struct scan_ctx *c = vctx;
    struct scan_slot *s = vslot;
    int rc;
    (void)block;
    if (gsvd_scope_cancelled()) /* the caller asked to stop: between blocks (not logged) */
        return GSVD_ECANCELED;
    if (c->g->count_miss && s->smiss) {
        for (size_t i = 0; i < c->g->n_samples; i++) {
            c->g->count_miss[i] += s->smiss[i];
            s->smiss[i] = 0;
        }
        c->g->count_rows += s->smiss_rows;
        s->smiss_rows = 0;
    }
    if (c->fill && gsvd_gcache_usable(c->fill)) {
        rc = gsvd_gcache_add(c->fill, &s->blk, s->blk.n_rows && s->p2 ? s->p2 : NULL, &s->info,
                             &s->counts);
        if (rc < 0)
            return rc;
    }
    gsvd_geno_counts_add(&c->counts, &s->counts);
    return c->fn(c->fn_ctx, &s->blk, &s->info);
}

/* The scan's chunk rows that the variant mask leaves out entirely, one byte per block, into
 * c->rows_out (left NULL without a mask or when every row has a selected variant). */
static int rows_left_out(struct scan_ctx *c, uint64_t n_blocks)
{
    const gsvd_geno *g = c->g;
    size_t n_out = 0;

    if (!g->p.variant_mask)
        return GSVD_OK;
    c->rows_out = gsvd_malloc((size_t)n_blocks);
    if (!c->rows_out)
        return GSVD_ENOMEM;
    for (uint64_t i = 0; i < n_blocks; i++) {
        uint64_t v0 = (c->first_chunk + i) * g->cv, v1 = v0 + g->cv;
        v0 = v0 > c->a ? v0 : c->a;
        v1 = v1 < c->b ? v1 : c->b;
        c->rows_out[i] = (uint8_t)masked_out(g, v0, (size_t)(v1 - v0));
        n_out += c->rows_out[i];
    }
    if (n_out == 0) {
        gsvd_free(c->rows_out);
        c->rows_out = NULL;
    }
    return GSVD_OK;
}

/* Read-ahead hint: the chunks of the variants [a, b) less the rows left out, in the order the
 * blocks are consumed, so a remote store keeps many requests in flight while the workers
 * decode. */
static int prefetch_range(const struct scan_ctx *c)
{
    const gsvd_geno *g = c->g;
    const struct gsvd_zarray *z = gsvd_array_meta(g->arr);
    uint64_t start[GSVD_MAX_DIMS] = {0}, count[GSVD_MAX_DIMS];
    size_t axis = g->rank == 2 && g->p.transpose ? 1 : 0;

    memcpy(count, z->shape, z->ndim * sizeof *count);
    start[axis] = c->a;
    count[axis] = c->b - c->a;
    return gsvd_array_prefetch(g->arr, axis, start, count, c->rows_out);
}

/* Read the variants [a, b) of the range from the store, hand their blocks to fn in order and,
 * when fill is not NULL, add them to that cache; *counts = their counts. */
static int scan_store(gsvd_geno *g, uint64_t a, uint64_t b, gsvd_gcache *fill,
                      gsvd_geno_block_fn fn, void *ctx, struct gsvd_geno_counts *counts)
{
    struct scan_ctx c = {.g = g, .fn = fn, .fn_ctx = ctx, .a = a, .b = b, .fill = fill};
    size_t nw = scan_producers(g), depth;
    uint64_t n_blocks;
    struct scan_slot *slots = NULL;
    void **ptrs = NULL;
    int rc = GSVD_OK;

    memset(counts, 0, sizeof *counts);
    if (b <= a) /* no variants */
        return GSVD_OK;
    c.pack = fill != NULL && g->ploidy <= 2;
    c.first_chunk = a / g->cv;
    n_blocks = (b - 1) / g->cv - c.first_chunk + 1;
    if (nw > n_blocks)
        nw = (size_t)n_blocks;
    depth = nw + 1;
    slots = gsvd_calloc(depth, sizeof *slots);
    ptrs = gsvd_calloc(depth, sizeof *ptrs);
    if (!slots || !ptrs) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_reader_pool_new(g->arr, nw, &c.readers));
    if (g->phased)
        GSVD_TRY(gsvd_reader_pool_new(g->phased, nw, &c.preaders));
    GSVD_TRY(rows_left_out(&c, n_blocks));
    GSVD_TRY(prefetch_range(&c));
    for (size_t i = 0; i < depth; i++)
        ptrs[i] = &slots[i];
    struct gsvd_pipeline_params pp = {
        .n_workers = nw, .depth = depth, .slots = ptrs, .caller_helps = 1};
    GSVD_TRY(gsvd_pipeline_run(&pp, n_blocks, scan_produce, scan_consume, &c));
    *counts = c.counts;
out:
    gsvd_reader_pool_free(c.readers, nw);
    gsvd_reader_pool_free(c.preaders, nw);
    for (size_t i = 0; slots && i < depth; i++) {
        gsvd_free(slots[i].raw);
        gsvd_free(slots[i].praw);
        gsvd_free(slots[i].dos);
        gsvd_free(slots[i].fdos);
        gsvd_free(slots[i].center);
        gsvd_free(slots[i].scale);
        gsvd_free(slots[i].miss);
        gsvd_free(slots[i].kept);
        gsvd_free(slots[i].vidx);
        gsvd_free(slots[i].mean);
        gsvd_free(slots[i].inv_sd);
        gsvd_free(slots[i].rsums);
        gsvd_free(slots[i].p2);
        gsvd_free(slots[i].smiss);
    }
    gsvd_free(slots);
    gsvd_free(ptrs);
    gsvd_free(c.rows_out);
    return rc;
}

/* Drop every cache: later scans read the store. */
static void cache_off(gsvd_geno *g)
{
    gsvd_gcache_free(g->pre);
    gsvd_gcache_free(g->cache);
    gsvd_gcache_free(g->post);
    g->pre = g->cache = g->post = NULL;
    g->cache_state = -1;
}

/* Replay every cached block in order (pre, cache, post); g->counts = their counts. */
static int replay(gsvd_geno *g, gsvd_geno_block_fn fn, void *ctx)
{
    gsvd_gcache *parts[3] = {g->pre, g->cache, g->post};
    struct gsvd_geno_counts c;
    int rc = GSVD_OK;
    memset(&g->counts, 0, sizeof g->counts);
    for (size_t i = 0; i < 3; i++) {
        if (!parts[i])
            continue;
        GSVD_TRY(gsvd_gcache_replay(parts[i], fn, ctx, &c));
        gsvd_geno_counts_add(&g->counts, &c);
    }
out:
    return rc;
}

/* Bytes of cache budget left beside what the caches hold in memory. */
static uint64_t budget_left(const gsvd_geno *g)
{
    uint64_t used = (g->cache ? gsvd_gcache_mem_bytes(g->cache) : 0) +
                    (g->pre ? gsvd_gcache_mem_bytes(g->pre) : 0);
    return used < g->p.cache_bytes ? g->p.cache_bytes - used : 0;
}

/* The first scan after a move: the new variants before the kept cache blocks from the store
 * (cached into pre), the kept blocks replayed, the new ones after them (cached into post). */
static int scan_moved(gsvd_geno *g, gsvd_geno_block_fn fn, void *ctx)
{
    struct gsvd_geno_counts c;
    int rc = GSVD_OK;

    memset(&g->counts, 0, sizeof g->counts);
    GSVD_TRY(gsvd_gcache_new(budget_left(g), g->p.cache_dir, &g->pre));
    GSVD_TRY(scan_store(g, g->vs, g->keep_lo, g->pre, fn, ctx, &c));
    gsvd_geno_counts_add(&g->counts, &c);
    GSVD_TRY(gsvd_gcache_replay(g->cache, fn, ctx, &c));
    gsvd_geno_counts_add(&g->counts, &c);
    GSVD_TRY(gsvd_gcache_new(budget_left(g), g->p.cache_dir, &g->post));
    GSVD_TRY(scan_store(g, g->keep_hi, g->ve, g->post, fn, ctx, &c));
    gsvd_geno_counts_add(&g->counts, &c);
    if (gsvd_gcache_usable(g->pre) && gsvd_gcache_usable(g->post)) {
        g->cache_state = 1;
        gsvd_log_info(
            "after the move: %llu bytes of new blocks cached in memory, %llu in the "
            "spill file",
            (unsigned long long)(gsvd_gcache_mem_bytes(g->pre) + gsvd_gcache_mem_bytes(g->post)),
            (unsigned long long)(gsvd_gcache_file_bytes(g->pre) + gsvd_gcache_file_bytes(g->post)));
    } else {
        cache_off(g);
    }
out:
    if (rc < 0)
        cache_off(g); /* a partial cache is useless; later scans read the store */
    return rc;
}

int gsvd_geno_scan(gsvd_geno *g, gsvd_geno_block_fn fn, void *ctx)
{
    int rc = GSVD_OK;

    if (g->cache_state == 1)
        return replay(g, fn, ctx); /* the first scan's blocks */
    if (g->cache_state == 2)
        return scan_moved(g, fn, ctx);
    if (g->cache_state == 0) {
        gsvd_gcache_free(g->cache);
        g->cache = NULL;
        GSVD_TRY(gsvd_gcache_new(g->p.cache_bytes, g->p.cache_dir, &g->cache));
    }
    GSVD_TRY(
        scan_store(g, g->vs, g->ve, g->cache_state == 0 ? g->cache : NULL, fn, ctx, &g->counts));
    if (g->cache_state == 0) {
        if (gsvd_gcache_usable(g->cache)) {
            g->cache_state = 1;
            gsvd_log_info("blocks cached for the next passes: %llu bytes in memory, %llu in the "
                          "spill file",
                          (unsigned long long)gsvd_gcache_mem_bytes(g->cache),
                          (unsigned long long)gsvd_gcache_file_bytes(g->cache));
        } else {
            g->cache_state = -1;
            gsvd_gcache_free(g->cache);
            g->cache = NULL;
        }
    }
out:
    if (rc < 0 && g->cache_state == 0) {
        gsvd_gcache_free(g->cache); /* a partial cache is useless; the next scan fills it */
        g->cache = NULL;
    }
    return rc;
}

static int no_block(void *ctx, const struct gsvd_gblock *blk, const struct gsvd_geno_info *info)
{
    (void)ctx;
    (void)blk;
    (void)info;
    return GSVD_OK;
}

int gsvd_geno_count_missing(gsvd_geno *g, uint64_t *miss, uint64_t *n_variants)
{
    struct gsvd_geno_counts counts;
    int rc;

    if (g->haps) {
        gsvd_log_error("%s: sample missingness (--mind) is counted per call, not per haplotype",
                       gsvd_array_name(g->arr));
        return GSVD_EUNSUPPORTED;
    }
    memset(miss, 0, g->n_samples * sizeof *miss);
    g->count_miss = miss;
    g->count_rows = 0;
    rc = scan_store(g, g->vs, g->ve, NULL, no_block, NULL, &counts);
    g->count_miss = NULL;
    *n_variants = g->count_rows;
    return rc;
}

void gsvd_geno_open_range(const gsvd_geno *g, uint64_t *start, uint64_t *stop)
{
    *start = g->open_vs;
    *stop = g->open_ve;
}

int gsvd_geno_move(gsvd_geno *g, uint64_t start, uint64_t stop)
{
    if (start < g->open_vs || stop > g->open_ve || start > stop || g->cache_state == 2) {
        gsvd_log_error(
            "internal error: variant range %llu:%llu is not inside %llu:%llu, or the last "
            "move has "
            "not been scanned yet",
            (unsigned long long)start, (unsigned long long)stop, (unsigned long long)g->open_vs,
            (unsigned long long)g->open_ve);
        return GSVD_EINTERNAL;
    }
    if (g->cache_state == 1) {
        /* one cache again: pre and post (of an earlier move) would need renumbering too */
        if (g->pre || g->post) {
            cache_off(g);
        } else {
            gsvd_gcache_trim(g->cache, g->vs, start, stop, start, &g->keep_lo, &g->keep_hi);
            g->cache_state = 2;
        }
    }
    g->vs = start;
    g->ve = stop;
    return GSVD_OK;
}
