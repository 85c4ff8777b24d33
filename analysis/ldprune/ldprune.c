/* analysis/ldprune/ldprune.c - plink2 --indep-pairwise on the genotype scan (see ldprune.h).
 * Each considered variant becomes three bit planes of ceil(N / 64) words: a (dosage >= 1),
 * b (dosage == 2) and m (called); a missing call has a = b = 0; r^2 comes from popcounts of
 * their intersections (analysis/ldprune/ldprune_kernel.c).  Only pairs with at least one variant
 * new to the window are evaluated: two variants that both survived the previous window were
 * compared there (every surviving pair of a window has r^2 <= threshold), which is what makes the
 * sliding window cost O(window x step) per step.
 *
 * Streaming: the windows are run while the scan hands the variants over, so only the variants
 * from the current window's start on are held (a ring, ldprune_internal.h).  A window is run
 * once its end is known: a variant window as soon as it is full, a bp window once a variant
 * beyond its reach (or the contig's end) has been seen; the contig's end is known when a
 * variant of another contig arrives or the scan ends.  Variants before the next window's start
 * are final: their keep flag is written and their slots are reused.  Peak memory is the ring
 * (the largest window, plus the one variant read past a bp window) besides the per-variant
 * result arrays. */
#include "gsvd_config.h"
#include "analysis/ldprune/ldprune.h"

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
#include "analysis/ldprune/ldprune_internal.h"

/* Double the ring, moving the held variants [base, n) to their slots under the new mask. */
static int grow_ring(struct ld_state *st)
{
    size_t cap = st->cap ? 2 * st->cap : 16, stride = 3 * st->words, bytes;
    uint64_t *planes = NULL;
    struct ld_var *v = NULL;

    if (gsvd_mul_size(cap, stride * sizeof(uint64_t), &bytes) < 0)
        return GSVD_ENOMEM;
    planes = gsvd_malloc(bytes);
    v = gsvd_malloc(cap * sizeof *v);
    if (!planes || !v) {
        gsvd_free(planes);
        gsvd_free(v);
        return GSVD_ENOMEM;
    }
    for (size_t k = st->base; k < st->n; k++) {
        memcpy(planes + (k & (cap - 1)) * stride, ld_planes_at(st, k), stride * sizeof *planes);
        v[k & (cap - 1)] = *ld_var_at(st, k);
    }
    gsvd_free(st->planes);
    gsvd_free(st->v);
    st->planes = planes;
    st->v = v;
    st->cap = cap;
    st->mask = cap - 1;
    return GSVD_OK;
}

/* A row's called count, sum and sum of squares from its planes (compiled for several x86-64
 * levels: POPCNT where the CPU has it). */
GSVD_CLONES static void plane_sums(const uint64_t *a, const uint64_t *b, const uint64_t *m,
                                   size_t W, struct ld_var *v)
{
    for (size_t w = 0; w < W; w++) {
        int64_t pa = __builtin_popcountll(a[w]), pb = __builtin_popcountll(b[w]);
        v->n += __builtin_popcountll(m[w]);
        v->s += pa + pb;      /* x = a + b */
        v->ss += pa + 3 * pb; /* x^2 = a + 3 b (b implies a) */
    }
}

/* Append variant n to the ring: planes, sums, monomorphic flag. */
static int add_row(struct ld_state *st, const int8_t *d, uint64_t index, int64_t pos)
{
    size_t W = st->words, N = st->n_samples;
    uint64_t *a, *b, *m;
    struct ld_var *v;
    int rc;

    if (st->n - st->base == st->cap && (rc = grow_ring(st)) < 0)
        return rc;
    a = st->planes + (st->n & st->mask) * 3 * W;
    b = a + W;
    m = b + W;
    memset(a, 0, 3 * W * sizeof *a);
    v = ld_var_at(st, st->n);
    memset(v, 0, sizeof *v);
    v->index = index;
    v->pos = pos;
    st->planes_fn(d, N, a, b, m);
    plane_sums(a, b, m, W, v);
    v->has_missing = v->n < (int64_t)N;
    v->mono = v->n * v->ss - v->s * v->s == 0; /* among the called samples */
    if (v->n > 0) {
        int64_t alleles = (int64_t)st->ploidy * v->n;
        v->maj = (double)(v->s > alleles - v->s ? v->s : alleles - v->s) / (double)alleles;
    }
    v->next = st->n + 1; /* no pair evaluated yet */
    st->n++;
    return GSVD_OK;
}

/* plink2's 2^-44: relative slack of the threshold and of the allele frequency comparison. */
#define LD_EPSILON 0.00000000000005684341886080801486968994140625

/* Whether the pair (i, j), i before j, above the threshold removes i rather than j: i's major
 * allele frequency exceeds j's by more than the relative slack (i.e. i has the lower minor
 * allele frequency); a tie removes j. */
static int drops_first(const struct ld_var *i, const struct ld_var *j)
{
    return i->maj > j->maj * (1 + LD_EPSILON);
}

/* The r^2 > threshold flags of every pair (i, j), start <= i < j, j in [new0, end), of one
 * step, computed on several threads before the (sequential) greedy pass reads them; rows of
 * variants removed before the step are not computed. */
struct pair_job {
    struct ld_state *st;
    size_t start, new0, end;
    uint8_t *flags; /* (end - new0) rows of (end - start) */
    size_t flags_cap;
    gsvd_ld_r2_fn r2;
    gsvd_ld_row_fn row; /* NULL: no row kernel */
    size_t n_threads;
    uint64_t pairs[GSVD_PARALLEL_MAX];
};

static int pair_share(void *vctx, size_t t)
{
    struct pair_job *job = vctx;
    struct ld_state *st = job->st;
    size_t len = job->end - job->start;
    uint64_t pairs = 0;
    for (size_t j = job->new0 + t; j < job->end; j += job->n_threads) {
        uint8_t *row = job->flags + (j - job->new0) * len;
        const struct ld_var *vj = ld_var_at(st, j);
        if (vj->removed)
            continue;
        if (job->row && !vj->has_missing) {
            pairs += job->row(st, j, job->start, row, st->t);
            continue;
        }
        for (size_t i = job->start; i < j; i++) {
            const struct ld_var *vi = ld_var_at(st, i);
            row[i - job->start] = 0;
            if (vi->removed)
                continue;
            pairs++;
            row[i - job->start] = (uint8_t)job->r2(ld_planes_at(st, i), ld_planes_at(st, j),
                                                   st->words, vi, vj, st->t);
        }
    }
    job->pairs[t] = pairs;
    return GSVD_OK;
}

/* Steps with fewer new pairs than this are computed inline (starting threads costs more). */
#define LD_PARALLEL_PAIRS 20000
/* Larger steps (huge windows) are computed inline, without a flag matrix. */
#define LD_FLAGS_MAX ((size_t)64 << 20)

/* The sliding window over the current contig, whose variants are held up to st->n. */
struct ld_stream {
    struct ld_state st;
    struct pair_job *job; /* NULL with one thread: pairs computed as the greedy pass needs them */
    gsvd_ld_r2_fn r2;
    const int64_t *contig;   /* per variant of the range (borrowed from the result) */
    const int64_t *position; /* per variant of the range, or NULL */
    uint64_t range_start;
    struct gsvd_ldprune_result *out;
    const char *url;        /* the store, for messages */
    int in_contig;          /* a contig has begun */
    int64_t cur_contig;     /* its index */
    size_t start, prev_end; /* next window's start; the last window's end */
    size_t probe;           /* bp windows: [max(start, prev_end), probe) are within reach */
    size_t n_windows;       /* windows run on this contig */
    int prev_single;        /* the last window held one variant */
    int done;               /* no window is left on this contig */
    uint64_t pairs;         /* r^2 values computed */
};

/* Whether the pair (i, j), i < j, is above the threshold: from the step's flag matrix when
 * there is one (it holds every pair with j in [new0, end)), else computed here. */
static int pair_above(struct ld_stream *ls, size_t i, size_t j, size_t start, size_t end,
                      const uint8_t *flags, size_t new0)
{
    const struct ld_state *st = &ls->st;
    if (flags && j >= new0)
        return flags[(j - new0) * (end - start) + (i - start)];
    ls->pairs++;
    return ls->r2(ld_planes_at(st, i), ld_planes_at(st, j), st->words, ld_var_at(st, i),
                  ld_var_at(st, j), st->t);
}

/* plink2's greedy pass over the window [start, end) (its "PLINK 1.x" order, the only one of
 * plink2 2.00a3): sweeps of i ascending; each remaining i scans the remaining j > i it has not
 * been paired with yet (j >= next) and stops at the first pair above the threshold, which
 * removes i or j (drops_first); the next i follows at once, and sweeps repeat until one
 * removes nothing.  A sweep only changes something from the first i with pairs left, so the
 * next one starts there (plink2 sweeps the whole window; the same steps in the same order).  So i
 * removes at most one variant a sweep, and a j that i passed stays passed in later windows.  Every
 * remaining variant ends with next = end: two survivors of a window are never compared again, so
 * the pairs evaluated have j in [new0, end). */
static void greedy_pass(struct ld_stream *ls, size_t start, size_t end, const uint8_t *flags,
                        size_t new0)
{
    struct ld_state *st = &ls->st;
    size_t from = start; /* the sweep starts at the first i with pairs left (next < end) */

    while (from < end) {
        size_t redo = end;
        for (size_t i = from; i < end; i++) {
            struct ld_var *vi = ld_var_at(st, i);
            size_t j = vi->next > i + 1 ? vi->next : i + 1;
            if (vi->removed)
                continue;
            for (; j < end; j++) {
                struct ld_var *vj = ld_var_at(st, j);
                if (vj->removed || !pair_above(ls, i, j, start, end, flags, new0))
                    continue;
                if (drops_first(vi, vj)) {
                    vi->removed = 1;
                } else {
                    vj->removed = 1;
                    vi->next = j + 1;
                    if (j + 1 < end && redo == end)
                        redo = i;
                }
                break;
            }
            if (j >= end)
                vi->next = end;
        }
        from = redo;
    }
}

/* Run the window [start, end): monomorphic variants, then the greedy pass over the pairs with
 * a variant new to the window ([prev_end, end)). */
static int run_window(struct ld_stream *ls, size_t start, size_t end)
{
    struct ld_state *st = &ls->st;
    size_t prev_end = ls->prev_end < start ? start : ls->prev_end;
    struct pair_job *job = ls->job;
    const uint8_t *flags = NULL;
    int rc = GSVD_OK;

    /* plink2 drops a monomorphic variant once it shares a window with another variant;
     * the old part of the window was marked already unless that window held one variant */
    if (end - start >= 2)
        for (size_t k = ls->prev_single ? start : prev_end; k < end; k++)
            if (ld_var_at(st, k)->mono)
                ld_var_at(st, k)->removed = 1;
    ls->prev_single = end - start < 2;
    if (job && (end - prev_end) * (end - start) >= LD_PARALLEL_PAIRS &&
        (end - prev_end) * (end - start) <= LD_FLAGS_MAX) {
        size_t need = (end - prev_end) * (end - start);
        if (need > job->flags_cap) {
            gsvd_free(job->flags);
            job->flags = gsvd_malloc(need);
            job->flags_cap = job->flags ? need : 0;
            if (!job->flags)
                return GSVD_ENOMEM;
        }
        job->start = start;
        job->new0 = prev_end;
        job->end = end;
        GSVD_TRY(gsvd_parallel(job->n_threads, pair_share, job));
        for (size_t k = 0; k < job->n_threads; k++)
            ls->pairs += job->pairs[k];
        flags = job->flags;
    }
    greedy_pass(ls, start, end, flags, prev_end);
out:
    return rc;
}

/* The end of the window starting at ls->start, or 0 while the variants held cannot tell it
 * yet (a window never ends at 0: it holds its first variant). */
static size_t window_end(struct ld_stream *ls, int final)
{
    const struct ld_state *st = &ls->st;
    const struct gsvd_ldprune_params *p = st->p;
    size_t start = ls->start, n = st->n;

    if (p->window_bp) {
        int64_t p0 = ld_var_at(st, start)->pos;
        while (ls->probe < n && (uint64_t)(ld_var_at(st, ls->probe)->pos - p0) <= p->window_bp)
            ls->probe++;
        return ls->probe < n || final ? ls->probe : 0;
    }
    if (n - start >= p->window)
        return start + (size_t)p->window;
    return final ? n : 0;
}

/* Write variant base's result and release its slot. */
static void emit_one(struct ld_stream *ls)
{
    const struct ld_var *v = ld_var_at(&ls->st, ls->st.base);
    if (!v->removed) {
        ls->out->keep[v->index] = 1;
        ls->out->n_kept++;
    } else if (v->mono) {
        ls->out->n_monomorphic++;
    }
    ls->st.base++;
}

/* Run every window of the current contig that the held variants determine (all that remain
 * when `final`), then release the variants no later window holds. */
static int advance(struct ld_stream *ls, int final)
{
    struct ld_state *st = &ls->st;
    int rc = GSVD_OK;

    while (!ls->done) {
        size_t end;
        /* the last window reached the contig's end, or the step left it */
        if (final && ((ls->n_windows && ls->prev_end >= st->n) || ls->start >= st->n)) {
            ls->done = 1;
            break;
        }
        if (ls->start >= st->n)
            break; /* the next window starts at a variant not read yet */
        end = window_end(ls, final);
        if (!end)
            break;
        GSVD_TRY(run_window(ls, ls->start, end));
        ls->n_windows++;
        ls->prev_end = end;
        ls->start += (size_t)st->p->step;
        ls->probe = ls->start > end ? ls->start : end;
    }
    while (st->base < st->n && (ls->done || st->base < ls->start))
        emit_one(ls);
out:
    return rc;
}

/* One considered variant from the scan: close the contig it leaves, check the order of the
 * positions, hold it and run the windows it completes. */
static int on_row(struct ld_stream *ls, const int8_t *d, uint64_t index)
{
    struct ld_state *st = &ls->st;
    uint64_t k = index - ls->range_start;
    int64_t c = ls->contig[k], pos = ls->position ? ls->position[k] : 0;
    int rc = GSVD_OK;

    if (ls->in_contig && c != ls->cur_contig) {
        GSVD_TRY(advance(ls, 1));
        ls->in_contig = 0;
    } else if (ls->in_contig && st->p->window_bp && pos < ld_var_at(st, st->n - 1)->pos) {
        gsvd_log_error("%s: variant_position is not sorted within contig %lld (variant %llu "
                       "at %lld after %lld); a bp window needs sorted positions",
                       ls->url, (long long)c, (unsigned long long)index, (long long)pos,
                       (long long)ld_var_at(st, st->n - 1)->pos);
        return GSVD_EFORMAT;
    }
    if (!ls->in_contig) {
        ls->in_contig = 1;
        ls->cur_contig = c;
        ls->start = ls->prev_end = ls->probe = st->n;
        ls->n_windows = 0;
        ls->prev_single = ls->done = 0;
    }
    GSVD_TRY(add_row(st, d, index, pos));
    GSVD_TRY(advance(ls, 0));
out:
    return rc;
}

static int on_block(void *vctx, const struct gsvd_gblock *blk, const struct gsvd_geno_info *info)
{
    struct ld_stream *ls = vctx;
    (void)info;
    if (blk->n_rows && !blk->i8) {
        gsvd_log_error("internal error: LD pruning was given packed or float rows");
        return GSVD_EINTERNAL;
    }
    for (size_t r = 0; r < blk->n_rows; r++) {
        int rc = on_row(ls, blk->i8 + r * blk->n_cols, blk->index[r]);
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

/* ---- ranks: whole contigs per rank ---------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int gsvd_ldprune_split(const int64_t *contig, uint64_t n, int size, uint64_t *cuts)
{
    uint64_t nr = n ? 1 : 0, nb = 0, j = 0, *bounds = NULL;
    int64_t *vals = NULL;
    int rc = GSVD_OK, repeats = 0;

    for (uint64_t k = 1; k < n; k++)
        nr += contig[k] != contig[k - 1];
    vals = gsvd_malloc((nr ? nr : 1) * sizeof *vals);
    bounds = gsvd_malloc((nr + 1) * sizeof *bounds);
    if (!vals || !bounds) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    /* the cut points: the range's ends and the starts of the runs after the first */
    bounds[nb++] = 0;
    for (uint64_t k = 0, r = 0; k < n; k++) {
        if (k && contig[k] == contig[k - 1])
            continue;
        vals[r++] = contig[k];
        if (k)
            bounds[nb++] = k;
    }
    /* a contig in two runs is one contig to the pass when the variants between are filtered
     * out: such a store is not cut */
    qsort(vals, (size_t)nr, sizeof *vals, cmp_i64);
    for (uint64_t r = 1; r < nr; r++)
        repeats |= vals[r] == vals[r - 1];
    if (repeats)
        nb = 1;
    if (n)
        bounds[nb++] = n;
    cuts[0] = 0;
    for (int r = 1; r < size; r++) {
        /* the cut point nearest to x = n r / size (the lower one on a tie), compared exactly
         * in units of 1 / size: k <= x when k size <= n r (a range holds far fewer than 2^40
         * variants and size < 2^20: no overflow) */
        uint64_t s = (uint64_t)size, x = n * (uint64_t)r;
        while (j + 1 < nb && bounds[j + 1] * s <= x)
            j++;
        cuts[r] = j + 1 < nb && (bounds[j + 1] + bounds[j]) * s < 2 * x ? bounds[j + 1] : bounds[j];
        if (repeats)
            cuts[r] = n;
    }
    cuts[size] = n;
out:
    gsvd_free(vals);
    gsvd_free(bounds);
    return rc;
}

/* This rank's part [*a, *b) of the range (array indices), the plan of every rank at info level. */
static int rank_part(const struct gsvd_ldprune_params *p, const struct gsvd_ldprune_result *out,
                     uint64_t *a, uint64_t *b, int log)
{
    int size = gsvd_comm_size(p->comm), rank = gsvd_comm_rank(p->comm);
    uint64_t *cuts = gsvd_malloc(((size_t)size + 1) * sizeof *cuts);
    int rc = GSVD_OK;

    if (!cuts)
        return GSVD_ENOMEM;
    GSVD_TRY(gsvd_ldprune_split(out->contig, out->range_stop - out->range_start, size, cuts));
    *a = out->range_start + cuts[rank];
    *b = out->range_start + cuts[rank + 1];
    if (!log)
        goto out;
    gsvd_log_info("distributed: %d ranks, variants %llu:%llu cut between contigs", size,
                  (unsigned long long)out->range_start, (unsigned long long)out->range_stop);
    for (int r = 0; r < size; r++)
        gsvd_log_info("  rank %d: variants %llu:%llu (%llu)", r,
                      (unsigned long long)(out->range_start + cuts[r]),
                      (unsigned long long)(out->range_start + cuts[r + 1]),
                      (unsigned long long)(cuts[r + 1] - cuts[r]));
out:
    gsvd_free(cuts);
    return rc;
}

/* Every rank's keep flags (of its part) and counts onto every rank, in variant order. */
static int gather_parts(const struct gsvd_ldprune_params *p, struct gsvd_ldprune_result *out)
{
    uint64_t a = 0, b = 0, n = out->range_stop - out->range_start;
    uint64_t counts[5] = {out->n_considered, out->n_monomorphic, out->n_pruned, out->n_kept,
                          out->n_pairs};
    int root = gsvd_comm_rank(p->comm) == 0, rc = GSVD_OK;
    uint8_t *all = NULL;

    rc = rank_part(p, out, &a, &b, 0);
    if (rc == GSVD_OK && root && !(all = gsvd_malloc(n ? n : 1)))
        rc = GSVD_ENOMEM;
    GSVD_TRY(gsvd_comm_agree(p->comm, rc, NULL)); /* rank 0's buffer, before anything is sent */
    GSVD_TRY(gsvd_comm_gather(p->comm, out->keep + a, b - a, all, n, 0));
    if (root)
        memcpy(out->keep + out->range_start, all, n);
    GSVD_TRY(gsvd_comm_bcast(p->comm, out->keep + out->range_start, n, 0));
    GSVD_TRY(gsvd_comm_sum_u64(p->comm, counts, 5));
    out->n_considered = counts[0];
    out->n_monomorphic = counts[1];
    out->n_pruned = counts[2];
    out->n_kept = counts[3];
    out->n_pairs = counts[4];
out:
    gsvd_free(all);
    return rc;
}

/* The pass over g (in a distributed run over this rank's part of the range). */
static int prune_part(gsvd_geno *g, gsvd_tree *t, const struct gsvd_ldprune_params *p,
                      struct gsvd_ldprune_result *out)
{
    struct ld_stream ls = {.st = {.p = p}, .out = out};
    struct ld_state *st = &ls.st;
    size_t n_threads = p->n_threads ? p->n_threads : 1;
    int rc = GSVD_OK;

    memset(out, 0, sizeof *out);
    if (!(p->r2 >= 0 && p->r2 < 1) || p->step < 1 || (!p->window_bp && p->window < 2)) {
        gsvd_log_error("invalid LD pruning parameters (--r2 %g, --window %llu, --step %llu)", p->r2,
                       (unsigned long long)p->window, (unsigned long long)p->step);
        return GSVD_EINVAL;
    }
    if (gsvd_geno_is_float(g) || gsvd_geno_ploidy(g) > 2) {
        gsvd_log_error("%s: LD pruning needs integer genotypes of ploidy 1 or 2 (this array: %s, "
                       "ploidy %zu)",
                       gsvd_geno_array_name(g), gsvd_geno_is_float(g) ? "float" : "integer",
                       gsvd_geno_ploidy(g));
        return GSVD_EUNSUPPORTED;
    }
    gsvd_geno_range(g, &out->range_start, &out->range_stop);
    out->n_array = gsvd_geno_n_array_variants(g);
    GSVD_TRY(load_coords(g, t, p, out));
    if (gsvd_comm_size(p->comm) > 1) {
        uint64_t a, b;
        GSVD_TRY(rank_part(p, out, &a, &b, gsvd_comm_rank(p->comm) == 0));
        GSVD_TRY(gsvd_geno_restrict(g, a, b));
    }
    out->keep = gsvd_calloc(out->n_array ? out->n_array : 1, 1);
    if (!out->keep) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    st->n_samples = gsvd_geno_n_samples(g);
    st->words = (st->n_samples + 63) / 64;
    st->ploidy = gsvd_geno_ploidy(g);
    st->planes_fn = gsvd_ldprune_pick_planes();
    /* a variant window holds `window` variants at most: start with them (grown when needed) */
    while (!p->window_bp && st->cap < p->window && st->cap < ((size_t)1 << 20))
        GSVD_TRY(grow_ring(st));
    st->t = p->r2 * (1 + LD_EPSILON);
    ls.r2 = gsvd_ldprune_pick_r2();
    ls.contig = out->contig;
    ls.position = out->position;
    ls.range_start = out->range_start;
    ls.url = gsvd_store_url(gsvd_tree_store(t));
    if (n_threads > 1) {
        ls.job = gsvd_calloc(1, sizeof *ls.job);
        if (!ls.job) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        ls.job->st = st;
        ls.job->r2 = ls.r2;
        ls.job->row = gsvd_ldprune_pick_row();
        ls.job->n_threads = gsvd_parallel_workers(n_threads);
    }
    GSVD_TRY(gsvd_geno_scan(g, on_block, &ls));
    if (ls.in_contig)
        GSVD_TRY(advance(&ls, 1)); /* the last contig ends with the scan */
    out->n_considered = st->n;
    out->n_pairs = ls.pairs;
    out->n_pruned = out->n_considered - out->n_kept - out->n_monomorphic;
out:
    if (rc < 0)
        gsvd_ldprune_result_free(out);
    gsvd_free(st->planes);
    gsvd_free(st->v);
    if (ls.job)
        gsvd_free(ls.job->flags);
    gsvd_free(ls.job);
    return rc;
}

int gsvd_ldprune_run(gsvd_geno *g, gsvd_tree *t, const struct gsvd_ldprune_params *p,
                     struct gsvd_ldprune_result *out)
{
    int rc = prune_part(g, t, p, out);

    if (gsvd_comm_size(p->comm) < 2)
        return rc;
    /* every rank reaches this with its own rc: one rank's failure stops them all */
    rc = gsvd_comm_agree(p->comm, rc, NULL);
    if (rc == GSVD_OK)
        rc = gather_parts(p, out);
    if (rc < 0)
        gsvd_ldprune_result_free(out);
    return rc;
}
