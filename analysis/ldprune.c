/* analysis/ldprune.c - plink2 --indep-pairwise on the genotype scan (see ldprune.h).
 * Each considered variant becomes three bit planes of ceil(N / 64) words: a (dosage >= 1),
 * b (dosage == 2) and m (called); a missing call has a = b = 0; r^2 comes from popcounts of
 * their intersections (analysis/ldprune_kernel.c).  Only pairs with at least one variant new to the
 * window are evaluated: two variants that both survived the previous window were compared there
 * (every surviving pair of a window has r^2 <= threshold), which is what makes the sliding window
 * cost O(window x step) per step. */
#include "gsvd_config.h"
#include "analysis/ldprune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/parallel.h"
#include "zarr/array.h"
#include "zarr/reader.h"
#include "zarr/store.h"
#include "analysis/ldprune_internal.h"

static int grow_vars(struct ld_state *st)
{
    size_t cap = st->cap ? 2 * st->cap : 1024, bytes;
    void *p;
    if (gsvd_mul_size(cap, 3 * st->words * sizeof(uint64_t), &bytes) < 0)
        return GSVD_ENOMEM;
    p = gsvd_realloc(st->planes, bytes);
    if (!p)
        return GSVD_ENOMEM;
    st->planes = p;
    p = gsvd_realloc(st->v, cap * sizeof *st->v);
    if (!p)
        return GSVD_ENOMEM;
    st->v = p;
    st->cap = cap;
    return GSVD_OK;
}

static int add_row(struct ld_state *st, const int8_t *d, uint64_t index)
{
    size_t W = st->words, N = st->n_samples;
    uint64_t *a, *b, *m;
    struct ld_var *v;
    int rc;

    if (st->n == st->cap && (rc = grow_vars(st)) < 0)
        return rc;
    a = st->planes + st->n * 3 * W;
    b = a + W;
    m = b + W;
    memset(a, 0, 3 * W * sizeof *a);
    v = &st->v[st->n];
    memset(v, 0, sizeof *v);
    v->index = index;
    st->planes_fn(d, N, a, b, m);
    for (size_t w = 0; w < W; w++) {
        int64_t pa = __builtin_popcountll(a[w]), pb = __builtin_popcountll(b[w]);
        v->n += __builtin_popcountll(m[w]);
        v->s += pa + pb;      /* x = a + b */
        v->ss += pa + 3 * pb; /* x^2 = a + 3 b (b implies a) */
    }
    v->has_missing = v->n < (int64_t)N;
    st->n++;
    return GSVD_OK;
}

struct scan_ctx {
    struct ld_state *st;
};

static int on_block(void *vctx, const struct gsvd_gblock *blk, const struct gsvd_geno_info *info)
{
    struct ld_state *st = ((struct scan_ctx *)vctx)->st;
    (void)info;
    if (blk->n_rows && !blk->i8) {
        gsvd_log_error("ldprune needs integer dosage blocks (internal: packed or float block)");
        return GSVD_EINTERNAL;
    }
    for (size_t r = 0; r < blk->n_rows; r++) {
        int rc = add_row(st, blk->i8 + r * blk->n_cols, blk->index[r]);
        if (rc < 0)
            return rc;
    }
    return GSVD_OK;
}

/* Minor allele frequency of i strictly below that of j (exact: cross-multiplied counts). */
static int maf_less(const struct ld_var *i, const struct ld_var *j, int64_t ploidy)
{
    int64_t mi = i->s < ploidy * i->n - i->s ? i->s : ploidy * i->n - i->s;
    int64_t mj = j->s < ploidy * j->n - j->s ? j->s : ploidy * j->n - j->s;
    return mi * j->n < mj * i->n; /* <= 2e8 x 1e8: GSVD_GENO_MAX_SAMPLES bounds n */
}

/* The r^2 > threshold flags of every pair (i, j), start <= i < j, j in [new0, end), of one
 * step, computed on several threads before the (sequential) greedy pass reads them; rows of
 * variants removed before the step are not computed. */
struct pair_job {
    struct ld_state *st;
    size_t start, new0, end;
    uint8_t *flags; /* (end - new0) rows of (end - start) */
    gsvd_ld_r2_fn r2;
    gsvd_ld_row_fn row; /* NULL: no row kernel */
    size_t n_threads;
    uint64_t pairs[GSVD_PARALLEL_MAX];
};

static int pair_share(void *vctx, size_t t)
{
    struct pair_job *job = vctx;
    struct ld_state *st = job->st;
    size_t len = job->end - job->start, stride = 3 * st->words;
    uint64_t pairs = 0;
    for (size_t j = job->new0 + t; j < job->end; j += job->n_threads) {
        uint8_t *row = job->flags + (j - job->new0) * len;
        const struct ld_var *vj = &st->v[j];
        if (vj->removed)
            continue;
        if (job->row && !vj->has_missing) {
            pairs += job->row(st, j, job->start, row, st->p->r2);
            continue;
        }
        for (size_t i = job->start; i < j; i++) {
            const struct ld_var *vi = &st->v[i];
            row[i - job->start] = 0;
            if (vi->removed)
                continue;
            pairs++;
            row[i - job->start] = job->r2(st->planes + i * stride, st->planes + j * stride,
                                          st->words, vi, vj) > st->p->r2;
        }
    }
    job->pairs[t] = pairs;
    return GSVD_OK;
}

/* Steps with fewer new pairs than this are computed inline (starting threads costs more). */
#define LD_PARALLEL_PAIRS 20000
/* Larger steps (huge windows) are computed inline, without a flag matrix. */
#define LD_FLAGS_MAX ((size_t)64 << 20)

/* One contig: variants [s0, s1) of the state, with `threads` threads for each step's pairs. */
static int prune_segment(struct ld_state *st, size_t t, size_t threads)
{
    const struct gsvd_ldprune_params *p = st->p;
    size_t s0 = st->seg[t], s1 = st->seg[t + 1], start = s0, prev_end = s0, W = st->words;
    size_t stride = 3 * W;
    gsvd_ld_r2_fn r2 = gsvd_ldprune_pick_r2();
    uint64_t pairs = 0;
    int prev_single = 0, rc = GSVD_OK;
    struct pair_job *job = NULL;
    size_t flags_cap = 0;

    if (threads > 1) {
        job = gsvd_calloc(1, sizeof *job);
        if (!job)
            return GSVD_ENOMEM;
        job->st = st;
        job->r2 = r2;
        job->row = gsvd_ldprune_pick_row();
        job->n_threads = threads > GSVD_PARALLEL_MAX ? GSVD_PARALLEL_MAX : threads;
    }
    while (start < s1) {
        size_t end;
        const uint8_t *flags = NULL;
        if (p->window_bp) {
            end = start > prev_end ? start : prev_end;
            while (end < s1 && (uint64_t)(st->pos[end] - st->pos[start]) <= p->window_bp)
                end++;
        } else {
            end = s1 - start > p->window ? start + (size_t)p->window : s1;
        }
        if (prev_end < start)
            prev_end = start;
        /* plink2 drops a monomorphic variant once it shares a window with another variant;
         * the old part of the window was marked already unless that window held one variant */
        if (end - start >= 2)
            for (size_t k = prev_single ? start : prev_end; k < end; k++)
                if (st->v[k].mono)
                    st->v[k].removed = 1;
        prev_single = end - start < 2;
        if (job && (end - prev_end) * (end - start) >= LD_PARALLEL_PAIRS &&
            (end - prev_end) * (end - start) <= LD_FLAGS_MAX) {
            size_t need = (end - prev_end) * (end - start);
            if (need > flags_cap) {
                gsvd_free(job->flags);
                job->flags = gsvd_malloc(need);
                flags_cap = job->flags ? need : 0;
                if (!job->flags) {
                    rc = GSVD_ENOMEM;
                    goto out;
                }
            }
            job->start = start;
            job->new0 = prev_end;
            job->end = end;
            GSVD_TRY(gsvd_parallel(job->n_threads, pair_share, job));
            for (size_t k = 0; k < job->n_threads; k++)
                pairs += job->pairs[k];
            flags = job->flags;
        }
        for (size_t i = start; i < end && prev_end < end; i++) {
            struct ld_var *vi = &st->v[i];
            if (vi->removed)
                continue;
            for (size_t j = i + 1 > prev_end ? i + 1 : prev_end; j < end; j++) {
                struct ld_var *vj = &st->v[j];
                int above;
                if (vj->removed)
                    continue;
                if (flags) {
                    above = flags[(j - prev_end) * (end - start) + (i - start)];
                } else {
                    pairs++;
                    above = r2(st->planes + i * stride, st->planes + j * stride, W, vi, vj) > p->r2;
                }
                if (!above)
                    continue;
                if (maf_less(vi, vj, (int64_t)st->ploidy)) {
                    vi->removed = 1;
                    break;
                }
                vj->removed = 1;
            }
        }
        prev_end = end;
        if (end >= s1)
            break;
        start += (size_t)p->step;
    }
out:
    st->pairs[t] = pairs;
    if (job)
        gsvd_free(job->flags);
    gsvd_free(job);
    return rc;
}

/* Thread t of n_threads prunes contigs t, t + n_threads, ... */
static int prune_share(void *vctx, size_t t)
{
    struct ld_state *st = vctx;
    for (size_t s = t; s < st->n_seg; s += st->n_threads) {
        int rc = prune_segment(st, s, 1);
        if (rc < 0)
            return rc;
    }
    return GSVD_OK;
}

int gsvd_ldprune_read_ints(gsvd_tree *t, const char *path, uint64_t start, uint64_t n, int64_t *dst)
{
    int rc = GSVD_OK, kind = gsvd_tree_node_kind(t, path);
    gsvd_array *a = NULL;
    gsvd_reader *r = NULL;
    uint8_t *raw = NULL;
    const struct gsvd_zarray *z;

    if (kind < 0)
        return kind;
    if (kind != GSVD_NODE_ARRAY)
        return GSVD_ENOTFOUND;
    GSVD_TRY(gsvd_array_open(t, path, &a));
    z = gsvd_array_meta(a);
    if (z->ndim != 1 || z->shape[0] < start + n ||
        (z->dtype.kind != 'i' && z->dtype.kind != 'u' && z->dtype.kind != 'b')) {
        gsvd_log_error("%s: want a 1-D integer or bool array of at least %llu entries",
                       gsvd_array_name(a), (unsigned long long)(start + n));
        rc = GSVD_EFORMAT;
        goto out;
    }
    raw = gsvd_malloc(n ? n * z->dtype.size : 1);
    if (!raw) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_reader_new(a, &r));
    if (n)
        GSVD_TRY(gsvd_reader_read(r, &start, &n, raw));
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *e = raw + i * z->dtype.size;
        int64_t v = 0;
        switch (z->dtype.size) {
        case 1:
            v = z->dtype.kind == 'i' ? (int64_t)(int8_t)e[0] : (int64_t)e[0];
            break;
        case 2: {
            uint16_t x;
            memcpy(&x, e, 2);
            v = z->dtype.kind == 'i' ? (int64_t)(int16_t)x : (int64_t)x;
            break;
        }
        case 4: {
            uint32_t x;
            memcpy(&x, e, 4);
            v = z->dtype.kind == 'i' ? (int64_t)(int32_t)x : (int64_t)x;
            break;
        }
        default: {
            uint64_t x;
            memcpy(&x, e, 8);
            v = (int64_t)x;
            break;
        }
        }
        dst[i] = v;
    }
out:
    gsvd_reader_free(r);
    gsvd_array_close(a);
    gsvd_free(raw);
    return rc;
}

/* Contig and position of every variant of the range, beside the genotype array. */
static int load_coords(gsvd_geno *g, gsvd_tree *t, const struct gsvd_ldprune_params *p,
                       struct gsvd_ldprune_result *out)
{
    int rc = GSVD_OK;
    char *dir = gsvd_strdup(gsvd_geno_array_path(g)), *path = NULL, *slash;
    uint64_t n = out->range_stop - out->range_start;

    if (!dir)
        return GSVD_ENOMEM;
    slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';
    out->contig = gsvd_calloc(n ? n : 1, sizeof *out->contig);
    out->position = gsvd_malloc((n ? n : 1) * sizeof *out->position);
    if (!out->contig || !out->position) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    GSVD_TRY(gsvd_key_join(dir, "variant_contig", &path));
    rc = gsvd_ldprune_read_ints(t, path, out->range_start, n, out->contig);
    if (rc == GSVD_ENOTFOUND && p->window_bp) {
        gsvd_log_error("%s: no variant_contig array; a window in kb or bp needs contigs and "
                       "positions",
                       gsvd_store_url(gsvd_tree_store(t)));
        goto out;
    }
    if (rc == GSVD_ENOTFOUND)
        rc = GSVD_OK; /* one contig */
    if (rc < 0)
        goto out;
    gsvd_free(path);
    path = NULL;
    GSVD_TRY(gsvd_key_join(dir, "variant_position", &path));
    rc = gsvd_ldprune_read_ints(t, path, out->range_start, n, out->position);
    if (rc == GSVD_ENOTFOUND && p->window_bp)
        gsvd_log_error("%s: no variant_position array; a window in kb or bp needs positions",
                       gsvd_store_url(gsvd_tree_store(t)));
    if (rc == GSVD_ENOTFOUND && !p->window_bp) {
        rc = GSVD_OK;
        gsvd_free(out->position);
        out->position = NULL;
    }
out:
    gsvd_free(dir);
    gsvd_free(path);
    return rc;
}

void gsvd_ldprune_result_free(struct gsvd_ldprune_result *r)
{
    if (!r)
        return;
    gsvd_free(r->keep);
    gsvd_free(r->contig);
    gsvd_free(r->position);
    memset(r, 0, sizeof *r);
}

int gsvd_ldprune_run(gsvd_geno *g, gsvd_tree *t, const struct gsvd_ldprune_params *p,
                     struct gsvd_ldprune_result *out)
{
    struct ld_state st = {.p = p};
    struct scan_ctx sc = {.st = &st};
    int64_t *pos = NULL;
    int rc = GSVD_OK;

    memset(out, 0, sizeof *out);
    if (!(p->r2 >= 0 && p->r2 < 1) || p->step < 1 || (!p->window_bp && p->window < 2)) {
        gsvd_log_error("ldprune: bad parameters (r2 %g, window %llu, step %llu)", p->r2,
                       (unsigned long long)p->window, (unsigned long long)p->step);
        return GSVD_EINVAL;
    }
    if (gsvd_geno_is_float(g) || gsvd_geno_ploidy(g) > 2) {
        gsvd_log_error("%s: ldprune needs integer genotypes of ploidy 1 or 2 (this array: %s, "
                       "ploidy %zu)",
                       gsvd_geno_array_name(g), gsvd_geno_is_float(g) ? "float" : "integer",
                       gsvd_geno_ploidy(g));
        return GSVD_EUNSUPPORTED;
    }
    gsvd_geno_range(g, &out->range_start, &out->range_stop);
    out->n_array = gsvd_geno_n_array_variants(g);
    GSVD_TRY(load_coords(g, t, p, out));
    st.n_samples = gsvd_geno_n_samples(g);
    st.words = (st.n_samples + 63) / 64;
    st.ploidy = gsvd_geno_ploidy(g);
    st.range_start = out->range_start;
    st.planes_fn = gsvd_ldprune_pick_planes();
    GSVD_TRY(gsvd_geno_scan(g, on_block, &sc));
    out->n_considered = st.n;
    /* segments: runs of one contig; positions sorted inside each for a bp window */
    st.seg = gsvd_malloc((st.n + 1) * sizeof *st.seg);
    pos = gsvd_malloc((st.n ? st.n : 1) * sizeof *pos);
    st.pairs = gsvd_calloc(st.n + 1, sizeof *st.pairs);
    out->keep = gsvd_calloc(out->n_array ? out->n_array : 1, 1);
    if (!st.seg || !pos || !st.pairs || !out->keep) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < st.n; i++) {
        uint64_t k = st.v[i].index - out->range_start;
        pos[i] = out->position ? out->position[k] : 0;
        if (i == 0 || out->contig[k] != out->contig[st.v[i - 1].index - out->range_start]) {
            st.seg[st.n_seg++] = i;
        } else if (p->window_bp && pos[i] < pos[i - 1]) {
            gsvd_log_error("%s: variant_position is not sorted within contig %lld (variant %llu "
                           "at %lld after %lld); a bp window needs sorted positions",
                           gsvd_store_url(gsvd_tree_store(t)), (long long)out->contig[k],
                           (unsigned long long)st.v[i].index, (long long)pos[i],
                           (long long)pos[i - 1]);
            rc = GSVD_EFORMAT;
            goto out;
        }
        struct ld_var *v = &st.v[i];
        v->mono = v->n * v->ss - v->s * v->s == 0; /* among the called samples */
    }
    st.seg[st.n_seg] = st.n;
    st.pos = pos;
    st.n_threads = p->n_threads ? p->n_threads : 1;
    if (st.n_seg >= st.n_threads) { /* contigs on parallel threads */
        GSVD_TRY(gsvd_parallel(st.n_threads, prune_share, &st));
    } else { /* few contigs: each step's pairs on parallel threads */
        for (size_t s = 0; s < st.n_seg; s++)
            GSVD_TRY(prune_segment(&st, s, st.n_threads));
    }
    for (size_t s = 0; s < st.n_seg; s++)
        out->n_pairs += st.pairs[s];
    for (size_t i = 0; i < st.n; i++) {
        if (!st.v[i].removed) {
            out->keep[st.v[i].index] = 1;
            out->n_kept++;
        } else if (st.v[i].mono) {
            out->n_monomorphic++;
        }
    }
    out->n_pruned = out->n_considered - out->n_kept - out->n_monomorphic;
out:
    if (rc < 0)
        gsvd_ldprune_result_free(out);
    gsvd_free(st.planes);
    gsvd_free(st.v);
    gsvd_free(st.seg);
    gsvd_free(st.pairs);
    gsvd_free(pos);
    return rc;
}
