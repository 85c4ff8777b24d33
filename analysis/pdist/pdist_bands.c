/* analysis/pdist/pdist_bands.c - a band's way out of the engine: its buffers, the sink, and in a
 * distributed run the bands shared out between MPI ranks or job-array parts, with rank 0
 * gathering what the others computed (pdist_run.h). */
#include "gsvd_config.h"

#include <stdlib.h>

#include "analysis/pdist/pdist_run.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "common/comm.h"

/* r->dist, r->n_sites (and r->king) for `cells` pairs. */
int pd_band_buffers(struct pd_run *r, size_t cells)
{
    int king = gsvd_pd_king_metric(r->p->metric);
    if (cells <= r->out_cap)
        return GSVD_OK;
    gsvd_free(r->dist);
    gsvd_free(r->n_sites);
    gsvd_free(r->king);
    r->king = NULL;
    if (king && cells > SIZE_MAX / (GSVD_PDIST_KING_COUNTS * sizeof *r->king))
        return GSVD_ENOMEM;
    r->dist = gsvd_alloc_large(cells * sizeof *r->dist);
    r->n_sites = gsvd_alloc_large(cells * sizeof *r->n_sites);
    if (king)
        r->king = gsvd_alloc_large(cells * GSVD_PDIST_KING_COUNTS * sizeof *r->king);
    r->out_cap = r->dist && r->n_sites && (!king || r->king) ? cells : 0;
    return r->out_cap ? GSVD_OK : GSVD_ENOMEM;
}

/* The band of rows [row0, row0 + nb) in r->dist / r->n_sites to the sink. */
int pd_to_sink(struct pd_run *r, size_t row0, size_t nb, gsvd_pdist_sink_fn sink, void *ctx)
{
    struct gsvd_pdist_band b = {.n = r->env.n,
                                .row0 = row0,
                                .n_rows = nb,
                                .ld = r->env.n - row0,
                                .dist = r->dist,
                                .n_sites = r->n_sites,
                                .king = r->king,
                                .n_missing = r->n_missing};
    return sink(ctx, &b);
}

/* ---- distributed runs: bands shared out between ranks, rank 0 emits -------------------------
 * The plan is refined to at least four bands per rank (boundaries at multiples of the row
 * alignment that split the pairs evenly, added to the memory plan's), and bands go, in row
 * order, to the rank with the fewest pairs so far (band 0 to rank 0: its first pass).  A rank
 * other than 0 first makes a pass over band [0, 1), which reads every item: the kernel's
 * verdict on the data, the called counts and the kept planes are then those of one process. */

static uint64_t band_pairs(size_t n, size_t row0, size_t nb)
{
    return (uint64_t)nb * (uint64_t)(n - row0) - (uint64_t)nb * (uint64_t)(nb + 1) / 2;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

int pd_share_bands(struct pd_run *r)
{
    const struct gsvd_pdist_params *p = r->p;
    int size = p->comm ? gsvd_comm_size(p->comm) : p->n_parts > 1 ? (int)p->n_parts : 1;
    size_t n = r->env.n, align = p->row_align > 1 ? p->row_align : 1, want = 4 * (size_t)size;
    size_t *rows = NULL, k = 0;
    uint64_t total = band_pairs(n, 0, n), *load = NULL;
    int rc = GSVD_OK;

    gsvd_free(r->owner);
    r->owner = NULL;
    if (size <= 1)
        return GSVD_OK;
    /* every rank takes rank 0's plan (ranks on other nodes may see other thread counts); parts
     * of a job array must be started with the same options and the same --threads */
    uint64_t nb = r->n_bands;
    if ((rc = gsvd_comm_bcast(p->comm, &nb, sizeof nb, 0)) < 0)
        return rc;
    if (nb > n + 1)
        return GSVD_EINTERNAL;
    r->n_bands = (size_t)nb;
    if ((rc = gsvd_comm_bcast(p->comm, r->band_rows, (r->n_bands + 1) * sizeof *r->band_rows, 0)) <
        0)
        return rc;
    if (r->n_bands == 0)
        return GSVD_OK;
    rows = gsvd_malloc((r->n_bands + want + 2) * sizeof *rows);
    load = gsvd_calloc((size_t)size, sizeof *load);
    if (!rows || !load) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    /* the memory plan's boundaries, and the aligned rows that split the pairs evenly */
    for (size_t i = 0; i < r->n_bands; i++)
        rows[k++] = r->band_rows[i];
    for (size_t q = 1; q < want; q++) {
        uint64_t target = total / want * q;
        size_t lo = 0, hi = n;
        while (lo < hi) { /* the smallest x with pairs of rows [0, x) >= target */
            size_t mid = lo + (hi - lo) / 2;
            if (band_pairs(n, 0, mid) >= target)
                hi = mid;
            else
                lo = mid + 1;
        }
        lo = (lo + align - 1) / align * align;
        if (lo > 0 && lo < n)
            rows[k++] = lo;
    }
    qsort(rows, k, sizeof *rows, cmp_size);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (u == 0 || rows[i] != rows[u - 1])
            rows[u++] = rows[i];
    rows[u] = n;
    gsvd_free(r->band_rows);
    r->band_rows = rows;
    r->n_bands = u;
    rows = NULL;
    r->owner = gsvd_malloc(r->n_bands * sizeof *r->owner);
    if (!r->owner) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t b = 0; b < r->n_bands; b++) {
        int best = 0;
        for (int t = 1; t < size && b > 0; t++)
            if (load[t] < load[best])
                best = t;
        r->owner[b] = best;
        load[best] += band_pairs(n, r->band_rows[b], r->band_rows[b + 1] - r->band_rows[b]);
    }
out:
    gsvd_free(rows);
    gsvd_free(load);
    return rc;
}

/* What a rank sends rank 0 ahead of each of its bands. */
struct band_head {
    int64_t status; /* GSVD_OK, or the rank's error: no data follows */
    uint64_t band, nb, nc;
};

int pd_send_band(struct pd_run *r, int status, size_t nb, size_t nc)
{
    gsvd_comm *c = r->p->comm;
    struct band_head h = {.status = status, .band = r->band, .nb = nb, .nc = nc};
    int rc = gsvd_comm_send(c, &h, sizeof h, 0);
    if (rc == GSVD_OK && status == GSVD_OK)
        rc = gsvd_comm_send(c, r->dist, nb * nc * sizeof *r->dist, 0);
    if (rc == GSVD_OK && status == GSVD_OK)
        rc = gsvd_comm_send(c, r->n_sites, nb * nc * sizeof *r->n_sites, 0);
    if (rc == GSVD_OK && status == GSVD_OK && r->king)
        rc = gsvd_comm_send(c, r->king, nb * nc * GSVD_PDIST_KING_COUNTS * sizeof *r->king, 0);
    return rc;
}

/* Rank 0: band r->band, computed by rank `from`, to the sink. */
int pd_receive_band(struct pd_run *r, int from, gsvd_pdist_sink_fn sink, void *ctx)
{
    gsvd_comm *c = r->p->comm;
    size_t row0 = r->band_rows[r->band], nb = r->band_rows[r->band + 1] - row0;
    size_t nc = r->env.n - row0;
    struct band_head h;
    int rc = gsvd_comm_recv(c, &h, sizeof h, from);
    if (rc < 0)
        return rc;
    if (h.status < 0) {
        gsvd_log_error("rank %d of %d failed (%s); stopping the run", from, gsvd_comm_size(c),
                       gsvd_strerror((int)h.status));
        return GSVD_EPEER;
    }
    if (h.band != r->band || h.nb != nb || h.nc != nc) {
        gsvd_log_error("internal error: rank %d sent rows block %llu (%llu x %llu) for block %zu "
                       "(%zu x %zu)",
                       from, (unsigned long long)h.band, (unsigned long long)h.nb,
                       (unsigned long long)h.nc, r->band, nb, nc);
        return GSVD_EINTERNAL;
    }
    if ((rc = pd_band_buffers(r, nb * nc)) < 0 ||
        (rc = gsvd_comm_recv(c, r->dist, nb * nc * sizeof *r->dist, from)) < 0 ||
        (rc = gsvd_comm_recv(c, r->n_sites, nb * nc * sizeof *r->n_sites, from)) < 0)
        return rc;
    if (r->king && (rc = gsvd_comm_recv(
                        c, r->king, nb * nc * GSVD_PDIST_KING_COUNTS * sizeof *r->king, from)) < 0)
        return rc;
    return pd_to_sink(r, row0, nb, sink, ctx);
}
