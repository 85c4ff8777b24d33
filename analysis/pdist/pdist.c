/* analysis/pdist/pdist.c - the pdist engine: picks a kernel, plans bands of rows under the memory
 * cap, drives one pass over the data per band (or a replay of the kept bit planes), turns each
 * pair's sums into a distance and hands finished bands to the sink.  A kernel that cannot take
 * the data hands over to the next one during the first pass, before any band was emitted.
 * Band buffers, the sink and bands shared between ranks: pdist_bands.c; the sources of the
 * features: pdist_sources.c. */
#include "gsvd_config.h"
#include "analysis/pdist/pdist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pdist/pdist_internal.h"
#include "analysis/pdist/pdist_run.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/parallel.h"
#include "common/scope.h"

static const char *const metric_names[GSVD_PDIST_N_METRICS] = {
    "euclidean", "sqeuclidean", "cityblock", "minkowski", "chebyshev",
    "cosine",    "correlation", "hamming",   "jaccard",   "braycurtis",
    "canberra",  "ibs",         "king",      "ibs0",      "p-distance",
};

int gsvd_pdist_metric_parse(const char *name, enum gsvd_pdist_metric *out)
{
    for (int i = 0; i < GSVD_PDIST_N_METRICS; i++)
        if (strcmp(name, metric_names[i]) == 0) {
            *out = (enum gsvd_pdist_metric)i;
            return 0;
        }
    return -1;
}

const char *gsvd_pdist_metric_name(enum gsvd_pdist_metric m)
{
    return (unsigned)m < GSVD_PDIST_N_METRICS ? metric_names[m] : "unknown";
}

const char *gsvd_pdist_metric_list(void)
{
    return "euclidean, sqeuclidean, cityblock, minkowski, chebyshev, cosine, correlation, "
           "hamming, jaccard, braycurtis, canberra, ibs, king, ibs0, p-distance";
}

const char *gsvd_pdist_missing_name(enum gsvd_pdist_missing m)
{
    return m == GSVD_PDIST_SCALE ? "scale" : m == GSVD_PDIST_ERROR ? "error" : "pairwise";
}

/* ---- the engine ---------------------------------------------------------------------------- */

static void progress(struct pd_run *r, uint64_t features)
{
    char what[64];
    if (!r->p->progress.fn || r->work_total == 0)
        return;
    r->work_done += features;
    /* a band of rows is one pass over the features (or over the bit planes kept from the
     * first): the user sees passes; the kernel's name is -v detail (cli/cmd_pdist.c) */
    snprintf(what, sizeof what, "pass %zu/%zu", r->band + 1, r->n_bands);
    gsvd_progress_report(&r->p->progress, what,
                         r->work_done < r->work_total ? r->work_done : r->work_total,
                         r->work_total);
}

/* called[i] += number of rows r < nf with rows[r * ld + i] >= 0 (int8 dosages, -1 missing). */
GSVD_CLONES static void count_called_rows(const int8_t *rows, size_t nf, size_t ld, size_t n,
                                          uint64_t *called)
{
    for (size_t i0 = 0; i0 < n; i0 += 4096) {
        uint32_t acc[4096];
        size_t ni = n - i0 < 4096 ? n - i0 : 4096;
        for (size_t i = 0; i < ni; i++)
            acc[i] = 0;
        for (size_t f = 0; f < nf; f++) {
            const int8_t *row = rows + f * ld + i0;
            for (size_t i = 0; i < ni; i++)
                acc[i] += row[i] >= 0;
        }
        for (size_t i = 0; i < ni; i++)
            called[i0 + i] += acc[i];
    }
}

/* Count called values of a stripe (first pass only), then give it to the kernel. */
int pd_feed(struct pd_run *r, const struct pd_stripe *s)
{
    size_t n = r->env.n;
    struct pd_stripe fed = *s;
    if (gsvd_scope_cancelled()) /* the caller asked to stop: between stripes (not logged) */
        return GSVD_ECANCELED;
    if (r->first_pass && r->kops->counts_called) {
        fed.called = r->called; /* the kernel counts while it reads the values */
    } else if (r->first_pass) {
        if (s->i8 && s->item_stride == 1) {
            count_called_rows(s->i8, s->n_feat, s->feat_stride, n, r->called);
        } else {
            for (size_t i = 0; i < n; i++)
                for (size_t f = 0; f < s->n_feat; f++)
                    r->called[i] += !isnan(pd_value(s, i, f));
        }
    }
    progress(r, s->n_feat);
    return r->kops->add(r->kst, &fed);
}

/* Kernels in the order they are tried for this metric and data. */
static size_t kernel_chain(const struct gsvd_pdist_params *p, int is_float, int dev,
                           const struct pd_kernel_ops **chain)
{
    size_t k = 0;
    enum gsvd_pdist_metric m = p->metric;
    int gram_ok = m == GSVD_PDIST_EUCLIDEAN || m == GSVD_PDIST_SQEUCLIDEAN ||
                  m == GSVD_PDIST_COSINE || m == GSVD_PDIST_CORRELATION;
    int bp_ok = gsvd_pd_bitplane_metric(m), wide_ok = gsvd_pd_bitplane_wide_metric(m);
    const struct pd_kernel_ops *bp = bp_ok ? &gsvd_pd_bitplane_ops : &gsvd_pd_bitplane_wide_ops;
    if (gsvd_pd_king_metric(m)) { /* KING's counts, on the host or a device */
        bp_ok = 1;
        bp = &gsvd_pd_bitplane_king_ops;
    }

    switch (p->kernel) {
    case GSVD_PDIST_KERNEL_BITPLANE:
        if (bp_ok || wide_ok)
            chain[k++] = bp;
        break;
    case GSVD_PDIST_KERNEL_GRAM:
        if (gram_ok)
            chain[k++] = &gsvd_pd_gram_ops;
        break;
    case GSVD_PDIST_KERNEL_GENERIC:
        break;
    default:
        /* float input: the Gram first (exact enough, no missing); genotypes: bit planes (the
         * wide counts on the host only).  On a device the generic kernel takes the Gram's
         * place (float64 pair sums there). */
        wide_ok = wide_ok && !dev;
        if (gram_ok && (is_float || !(bp_ok || wide_ok)) && !dev)
            chain[k++] = &gsvd_pd_gram_ops;
        if (bp_ok || wide_ok)
            chain[k++] = bp;
        break;
    }
    chain[k++] = &gsvd_pd_generic_ops;
    return k;
}

/* Device memory for band accumulators when kops accumulates on env.dev (UINT64_MAX when it
 * does not): the device's free memory less two staging copies of the stripe buffers. */
static int device_avail(struct pd_run *r, uint64_t *avail)
{
    uint64_t free_b = 0, fixed;
    int rc;

    *avail = UINT64_MAX;
    if (!r->env.dev || !r->kops->device)
        return GSVD_OK;
    if ((rc = gsvd_backend_pd_memory(r->env.dev, &free_b)) < 0)
        return rc;
    fixed = 2 * (r->env.stripe_bytes + r->kops->fixed_bytes(&r->env));
    if (free_b <= fixed) {
        gsvd_log_error("the %s device has %llu bytes free; pdist needs %llu before any pair",
                       gsvd_backend_name(r->env.dev), (unsigned long long)free_b,
                       (unsigned long long)fixed);
        return GSVD_ENOMEM;
    }
    *avail = free_b - fixed;
    return GSVD_OK;
}

/* Plan the bands for kernel kops: under --memory on the host and, when the kernel accumulates
 * on a device, under the device's free memory; sets env.stripe_bytes and env.cache_bytes. */
static int plan_bands(struct pd_run *r, uint64_t features_hint)
{
    const struct gsvd_pdist_params *p = r->p;
    size_t n = r->env.n, align = p->row_align > 1 ? p->row_align : 1;
    uint64_t budget = p->memory, per_pair, fixed, avail = UINT64_MAX, dev_avail, cache = 0;
    int rc;

    r->env.stripe_bytes = budget ? budget / 8 : (uint64_t)256 << 20;
    if (r->env.stripe_bytes > (uint64_t)256 << 20)
        r->env.stripe_bytes = (uint64_t)256 << 20;
    if (r->env.stripe_bytes < (uint64_t)1 << 20)
        r->env.stripe_bytes = (uint64_t)1 << 20;
    /* KING: the pair counts kept for the table; KING and L1 on the host: the totals of the
     * missing calls counted apart (pdist_bitplane_apart.c: at most 10 bytes a pair) */
    int apart = (r->kops == &gsvd_pd_bitplane_king_ops || r->kops == &gsvd_pd_bitplane_ops) &&
                gsvd_pd_bitplane_apart(&r->env);
    per_pair = r->kops->pair_bytes + sizeof(double) + sizeof(uint32_t) +
               (gsvd_pd_king_metric(p->metric) ? GSVD_PDIST_KING_COUNTS * 4 : 0) + (apart ? 10 : 0);
    fixed = p->sink_bytes + r->env.stripe_bytes + r->kops->fixed_bytes(&r->env) +
            (uint64_t)n * (sizeof(uint64_t) + 64);
    gsvd_free(r->band_rows);
    r->band_rows = gsvd_malloc((n + 2) * sizeof *r->band_rows);
    if (!r->band_rows)
        return GSVD_ENOMEM;
    r->env.cache_bytes = 0;
    if ((rc = device_avail(r, &dev_avail)) < 0)
        return rc;
    int shared = gsvd_comm_size(p->comm) > 1 || p->n_parts > 1;
    if (budget == 0 && dev_avail == UINT64_MAX && !shared) {
        r->band_rows[0] = 0;
        r->band_rows[1] = n;
        r->n_bands = n ? 1 : 0;
        r->sum.peak_bytes = fixed + (uint64_t)n * n * per_pair;
        return GSVD_OK;
    }
    if (budget) {
        if (fixed >= budget) {
            gsvd_log_error("--memory %llu bytes is below the %llu bytes needed before any pair "
                           "(%zu rows of the distance matrix)",
                           (unsigned long long)budget, (unsigned long long)fixed, n);
            return GSVD_ENOMEM;
        }
        avail = budget - fixed;
    }
    /* the bit planes of the whole input, if a later band can replay them instead of reading
     * the input again and they leave at least half of the budget to the bands */
    if (r->kops->replay && r->kops->replay_bytes &&
        (shared || (double)n * (double)n * (double)per_pair > (double)avail ||
         (double)n * (double)n * (double)r->kops->pair_bytes > (double)dev_avail)) {
        uint64_t planes = r->kops->replay_bytes(n, features_hint, r->env.stripe_bytes);
        if (avail == UINT64_MAX || planes <= avail / 2)
            cache = planes;
    }
    r->env.cache_bytes = cache;
    if (avail != UINT64_MAX)
        avail -= cache;
    size_t row = 0, k = 0;
    while (row < n) {
        uint64_t per_row = (uint64_t)(n - row) * per_pair;
        uint64_t rows = avail == UINT64_MAX ? n - row : avail / per_row;
        uint64_t dev_rows = dev_avail / ((uint64_t)(n - row) * r->kops->pair_bytes);
        int on_dev = dev_rows < rows;
        if (on_dev)
            rows = dev_rows;
        if (rows < align && rows < n - row) {
            if (on_dev)
                gsvd_log_error("the %s device's free memory (%llu bytes for pairs) cannot hold "
                               "%zu row(s) of %zu pairs (%llu bytes each)",
                               gsvd_backend_name(r->env.dev), (unsigned long long)dev_avail, align,
                               n - row,
                               (unsigned long long)((uint64_t)(n - row) * r->kops->pair_bytes));
            else
                gsvd_log_error("--memory %llu bytes cannot hold %zu row(s) of %zu pairs (%llu "
                               "bytes each); raise --memory",
                               (unsigned long long)budget, align, n - row,
                               (unsigned long long)per_row);
            return GSVD_ENOMEM;
        }
        if (rows >= n - row)
            rows = n - row;
        else
            rows = rows / align * align;
        r->band_rows[k++] = row;
        row += (size_t)rows;
    }
    r->band_rows[k] = n;
    r->n_bands = k;
    r->sum.peak_bytes =
        fixed + cache + (uint64_t)(r->band_rows[1] - r->band_rows[0]) * n * per_pair;
    return GSVD_OK;
}

/* Distances of the current band from the kernel's sums. */
struct fin_job {
    struct pd_run *r;
    size_t row0, nb, nc;
};

static int finish_worker(void *ctx, size_t t)
{
    struct fin_job *f = ctx;
    struct pd_run *r = f->r;
    const struct gsvd_pdist_params *p = r->p;
    double m_total = (double)r->env.m;

    for (size_t row = t; row < f->nb; row += r->env.n_threads) {
        double *d = r->dist + row * f->nc;
        uint32_t *ns = r->n_sites + row * f->nc;
        uint32_t *kc = r->king ? r->king + row * f->nc * GSVD_PDIST_KING_COUNTS : NULL;
        for (size_t c = row + 1; c < f->nc; c++) {
            struct gsvd_pd_sums s;
            r->kops->pair_sums(r->kst, row, c, &s);
            d[c] = gsvd_pd_finish(p->metric, p->p, p->missing, &s, m_total, r->ploidy);
            ns[c] = s.n > UINT32_MAX ? UINT32_MAX : (uint32_t)s.n;
            if (kc) { /* exact integers below 2^32 (the engine caps the features) */
                uint32_t *k = kc + c * GSVD_PDIST_KING_COUNTS;
                k[0] = (uint32_t)s.a;
                k[1] = (uint32_t)s.b;
                k[2] = (uint32_t)s.c;
                k[3] = (uint32_t)s.d;
            }
        }
        d[row] = gsvd_pd_self_value(p->metric);
        ns[row] =
            r->called[f->row0 + row] > UINT32_MAX ? UINT32_MAX : (uint32_t)r->called[f->row0 + row];
        if (kc) /* not counted for an item against itself */
            memset(kc + row * GSVD_PDIST_KING_COUNTS, 0, GSVD_PDIST_KING_COUNTS * sizeof *kc);
    }
    return GSVD_OK;
}

/* The current band's distances to the sink, or, on a rank other than 0, to rank 0. */
static int emit_band(struct pd_run *r, gsvd_pdist_sink_fn sink, void *ctx)
{
    size_t row0 = r->band_rows[r->band], nb = r->band_rows[r->band + 1] - row0;
    size_t nc = r->env.n - row0, cells;
    struct fin_job f = {.r = r, .row0 = row0, .nb = nb, .nc = nc};
    int rc;

    if (gsvd_mul_size(nb, nc, &cells) < 0)
        return GSVD_ENOMEM;
    if ((rc = pd_band_buffers(r, cells)) < 0)
        return rc;
    if ((rc = gsvd_parallel(r->env.n_threads, finish_worker, &f)) < 0)
        return rc;
    for (size_t row = 0; row < nb; row++) /* lower half of the band's own square */
        for (size_t c = 0; c < row; c++) {
            r->dist[row * nc + c] = r->dist[c * nc + row];
            r->n_sites[row * nc + c] = r->n_sites[c * nc + row];
            if (r->king) { /* the mirror pair: x and y swap their hets */
                const uint32_t *from = r->king + (c * nc + row) * GSVD_PDIST_KING_COUNTS;
                uint32_t *to = r->king + (row * nc + c) * GSVD_PDIST_KING_COUNTS;
                to[0] = from[0];
                to[1] = from[1];
                to[2] = from[3];
                to[3] = from[2];
            }
        }
    if (gsvd_comm_rank(r->p->comm) != 0) /* (job-array parts have no comm: their own sink) */
        return pd_send_band(r, GSVD_OK, nb, nc);
    return pd_to_sink(r, row0, nb, sink, ctx);
}

void pd_run_clear(struct pd_run *r)
{
    if (r->kops && r->kst)
        r->kops->destroy(r->kst);
    r->kst = NULL;
    gsvd_free(r->band_rows);
    gsvd_free(r->owner);
    gsvd_free(r->called);
    gsvd_free(r->dist);
    gsvd_free(r->n_sites);
    gsvd_free(r->king);
    gsvd_free(r->hrows);
}

static int first_pass(struct pd_run *r, struct pd_source *src, size_t row0, size_t nb);

/* Run every band through the chain of kernels. */
int pd_run_engine(struct pd_run *r, struct pd_source *src, int is_float, gsvd_pdist_sink_fn sink,
                  void *ctx)
{
    const struct gsvd_pdist_params *p = r->p;
    const struct pd_kernel_ops *chain[4];
    size_t n_chain, k = 0;
    size_t n = r->env.n;
    int rc = GSVD_OK, me = p->comm          ? gsvd_comm_rank(p->comm)
                           : p->n_parts > 1 ? (int)p->part - 1
                                            : 0;

    if (p->n_parts > 1 && (p->comm || p->part < 1 || p->part > p->n_parts)) {
        gsvd_log_error("part %zu of %zu: parts are 1..N, and not under MPI", p->part, p->n_parts);
        return GSVD_EINVAL;
    }
    if (p->metric == GSVD_PDIST_MINKOWSKI && !(p->p > 0 && isfinite(p->p))) {
        gsvd_log_error("minkowski needs p > 0 (got %g)", p->p);
        return GSVD_EINVAL;
    }
    r->env.p = p;
    r->env.n_threads = p->n_threads ? p->n_threads : 1;
    r->env.dev = gsvd_backend_has_pdist(p->device) ? p->device : NULL;
    n_chain = kernel_chain(p, is_float, r->env.dev != NULL, chain);
    r->called = gsvd_calloc(n ? n : 1, sizeof *r->called);
    if (!r->called)
        return GSVD_ENOMEM;
    for (;;) {
        r->kops = chain[k];
        GSVD_TRY(plan_bands(r, r->env.m));
        GSVD_TRY(pd_share_bands(r));
        GSVD_TRY(r->kops->create(&r->env, &r->kst));
        r->work_total = (uint64_t)r->n_bands * r->env.m;
        r->work_done = 0;
        r->sum.n_bands = r->n_bands;
        if (r->owner && me != 0 && n > 0) {
            /* the probe: band [0, 1) reads every item, as rank 0's band 0 does */
            r->band = 0;
            rc = first_pass(r, src, 0, 1);
            if (rc == PD_HANDOVER)
                goto handover;
            if (rc < 0)
                goto out;
        }
        for (r->band = 0; r->band < r->n_bands; r->band++) {
            size_t row0 = r->band_rows[r->band], nb = r->band_rows[r->band + 1] - row0;
            int replayed = 0;
            if (gsvd_scope_cancelled()) { /* between bands */
                rc = GSVD_ECANCELED;
                goto out;
            }
            if (r->owner && r->owner[r->band] != me) {
                if (p->comm && me == 0)
                    GSVD_TRY(pd_receive_band(r, r->owner[r->band], sink, ctx));
                continue;
            }
            if (r->band > 0 && r->kops->replay) {
                GSVD_TRY(replayed = r->kops->replay(r->kst, row0, nb));
                if (replayed)
                    progress(r, r->env.m);
            }
            if (!replayed) {
                rc = first_pass(r, src, row0, nb);
                if (rc == PD_HANDOVER)
                    break;
                if (rc < 0)
                    goto out;
            }
            rc = emit_band(r, sink, ctx);
            if (rc < 0)
                goto out;
        }
        if (rc != PD_HANDOVER)
            break;
    handover:
        /* the data does not suit this kernel: start again with the next one */
        gsvd_log_debug("pdist: %s kernel hands over to %s", r->kops->name, chain[k + 1]->name);
        r->kops->destroy(r->kst);
        r->kst = NULL;
        rc = GSVD_OK;
        k++;
        if (k >= n_chain) {
            rc = GSVD_EINTERNAL;
            goto out;
        }
    }
    r->sum.n = n;
    r->sum.m = r->m_used;
    r->sum.n_missing = r->n_missing;
    r->sum.kernel = r->kops->name;
    if (r->kops->report)
        r->kops->report(r->kst, &r->sum);
    r->sum.device = r->env.dev && r->kops->device ? gsvd_backend_name(r->env.dev) : "cpu";
out:
    /* a rank other than 0 tells rank 0 at the band it would have sent next (rank 0 then ends
     * the run); rank 0 returns the error to its caller, which ends it */
    if (rc < 0 && p->comm && r->owner && me != 0 && rc != GSVD_EPEER &&
        pd_send_band(r, rc, 0, 0) < 0)
        gsvd_log_error("could not tell rank 0 of the failure");
    return rc;
}

/* One pass over the data for the band [row0, row0 + nb) (the first pass when row0 is 0, which
 * counts the called values).  Returns GSVD_OK, PD_HANDOVER or an error. */
static int first_pass(struct pd_run *r, struct pd_source *src, size_t row0, size_t nb)
{
    size_t n = r->env.n;
    int rc;
    r->first_pass = row0 == 0;
    if (r->first_pass) {
        memset(r->called, 0, n * sizeof *r->called);
        r->n_missing = 0;
    }
    if ((rc = r->kops->band_begin(r->kst, row0, nb)) < 0)
        return rc;
    rc = src->pass(src, r);
    r->sum.n_scans++;
    if (rc == PD_HANDOVER || rc < 0)
        return rc;
    if ((rc = r->kops->band_end(r->kst)) < 0)
        return rc;
    if (r->first_pass) {
        uint64_t calls = 0;
        for (size_t i = 0; i < n; i++)
            calls += r->called[i];
        /* variants the reader dropped for having no call count as missing; those a mask left
         * out (--variant-mask, KING's autosome rule) do not count at all */
        r->m_used = src->used ? src->used(src) : r->env.m;
        r->n_missing = (uint64_t)n * r->m_used - calls;
    }
    return GSVD_OK;
}
