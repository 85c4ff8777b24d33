/* analysis/pca/pca_dist.c - a distributed PCA run: the ranks' parts of the variants (pca.h:
 * gsvd_pca_split, gsvd_pca_split_runs, gsvd_pca_split_kept; a projection's, gsvd_project_restrict)
 * and the collectives (pca_internal.h): agreeing on failures, summing exact parts and filter
 * counts, rebalancing the parts after the first pass, gathering the variant rows on rank 0. With no
 * communicator each succeeds at once, which is how one-process runs call them; the rebalancing
 * after the first pass is called under a communicator only. */
#include "gsvd_config.h"
#include "analysis/pca/pca_internal.h"
#include "analysis/pca/project.h"

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"
#include "common/xsum.h"

/* Agree with the other ranks on rc (common/comm.h); *told records that a failure was shared,
 * so that the exit path does not share it twice. */
int gsvd_pca_agree(const struct gsvd_pca_params *p, int rc, int *told)
{
    if (!p->comm)
        return rc;
    rc = gsvd_comm_agree(p->comm, rc, NULL);
    if (rc < 0)
        *told = 1;
    return rc;
}

/* Sum exact parts over the ranks and turn them into values: hi[i] = hi[i] + lo[i]. */
int gsvd_pca_sum_parts(gsvd_comm *comm, double *hi, double *lo, size_t n)
{
    int rc = GSVD_OK;
    GSVD_TRY(gsvd_comm_sum_f64(comm, hi, n));
    GSVD_TRY(gsvd_comm_sum_f64(comm, lo, n));
    for (size_t i = 0; i < n; i++)
        hi[i] = gsvd_xsum_value(hi[i], lo[i]);
out:
    return rc;
}

/* The filter counts of every rank's variants. */
int gsvd_pca_sum_counts(gsvd_comm *comm, struct gsvd_geno_counts *c)
{
    uint64_t v[9] = {c->n_range,   c->n_kept,          c->n_no_calls, c->n_zero_var, c->n_maf,
                     c->n_missing, c->n_missing_calls, c->n_mask,     c->n_hwe};
    int rc = gsvd_comm_sum_u64(comm, v, 9);
    c->n_range = v[0];
    c->n_kept = v[1];
    c->n_no_calls = v[2];
    c->n_zero_var = v[3];
    c->n_maf = v[4];
    c->n_missing = v[5];
    c->n_missing_calls = v[6];
    c->n_mask = v[7];
    c->n_hwe = v[8];
    return rc;
}

/* Rank 0 takes every rank's rows of the variant arrays (in rank order, which is variant
 * order); the other ranks keep theirs.  Rank 0 allocates before anything moves and every rank
 * learns whether it could. */
int gsvd_pca_gather_rows(const struct gsvd_pca_params *p, void **arr, size_t row_bytes,
                         uint64_t m_local, uint64_t m_all, int *told)
{
    void *all = NULL;
    int rc = GSVD_OK;
    int root = gsvd_comm_rank(p->comm) == 0;
    size_t bytes = (size_t)m_all * row_bytes;
    if (root) {
        all = gsvd_malloc(bytes + 1);
        if (!all) {
            gsvd_log_error("no memory for the %zu bytes of variant rows that rank 0 gathers",
                           bytes);
            rc = GSVD_ENOMEM;
        }
    }
    GSVD_TRY(gsvd_pca_agree(p, rc, told));
    GSVD_TRY(
        gsvd_comm_gather(p->comm, *arr, (size_t)m_local * row_bytes, all, root ? bytes : 0, 0));
    if (root) {
        gsvd_free(*arr);
        *arr = all;
        all = NULL;
    }
out:
    gsvd_free(all);
    return rc;
}

/* ---- the ranks' parts (pca.h) ---- */

void gsvd_pca_split(size_t n_samples, uint64_t start, uint64_t stop, int rank, int size,
                    uint64_t *part_start, uint64_t *part_stop)
{
    gsvd_pca_split_runs(gsvd_backend_gram_group_rows(n_samples), start, stop, rank, size,
                        part_start, part_stop);
}

void gsvd_pca_split_runs(uint64_t G, uint64_t start, uint64_t stop, int rank, int size,
                         uint64_t *part_start, uint64_t *part_stop)
{
    uint64_t first = start / G, last = stop > start ? (stop - 1) / G + 1 : first;
    uint64_t groups = last - first, a, b;
    if (size < 1)
        size = 1;
    /* groups [first, last) in `size` runs; runs hold floor or ceil of groups / size */
    a = first + groups * (uint64_t)rank / (uint64_t)size;
    b = first + groups * (uint64_t)(rank + 1) / (uint64_t)size;
    a = a * G < start ? start : a * G;
    b = b * G > stop ? stop : b * G;
    *part_start = a;
    *part_stop = b > a ? b : a;
}

void gsvd_pca_log_split(uint64_t run, uint64_t start, uint64_t stop, int size)
{
    uint64_t a, b;
    for (int r = 0; r < size; r++) {
        gsvd_pca_split_runs(run, start, stop, r, size, &a, &b);
        gsvd_log_info("  rank %d: variants %llu:%llu (%llu)", r, (unsigned long long)a,
                      (unsigned long long)b, (unsigned long long)(b - a));
    }
}

void gsvd_pca_split_kept(const uint64_t *kept, size_t n_groups, int size, size_t *cuts)
{
    uint64_t total = 0, R = (uint64_t)(size < 1 ? 1 : size), prefix = 0;
    size_t c = 0;
    for (size_t j = 0; j < n_groups; j++)
        total += kept[j];
    cuts[0] = 0;
    for (uint64_t r = 1; r < R; r++) {
        if (total == 0) {
            cuts[r] = (size_t)((uint64_t)n_groups * r / R);
            continue;
        }
        /* the largest cut whose prefix is at most r / R of the total, or the next one when
         * that is nearer (times R: integers only) */
        uint64_t want = total * r;
        while (c < n_groups && (prefix + kept[c]) * R <= want)
            prefix += kept[c++];
        if (c < n_groups && prefix * R < want && (prefix + kept[c]) * R - want < want - prefix * R)
            prefix += kept[c++];
        cuts[r] = c;
    }
    cuts[R] = n_groups;
}

/* The parts of every rank for the group cuts (gsvd_pca_split_kept), as variant ranges. */
static void part_of(uint64_t vs, uint64_t ve, size_t G, const size_t *cuts, int r, uint64_t *a,
                    uint64_t *b)
{
    uint64_t g0 = vs / G;
    *a = (g0 + cuts[r]) * G < vs ? vs : (g0 + cuts[r]) * G;
    *b = (g0 + cuts[r + 1]) * G > ve ? ve : (g0 + cuts[r + 1]) * G;
    if (*b < *a)
        *b = *a;
}

static uint64_t kept_in(const uint64_t *kept, size_t from, size_t to)
{
    uint64_t k = 0;
    for (size_t j = from; j < to; j++)
        k += kept[j];
    return k;
}

/* Rank 0's plan at info level: every rank's variants and kept rows. */
static void log_plan(const struct gsvd_pca_params *p, const char *what, uint64_t vs, uint64_t ve,
                     size_t G, const size_t *cuts, const uint64_t *kept)
{
    int size = gsvd_comm_size(p->comm);
    if (gsvd_comm_rank(p->comm) != 0)
        return;
    gsvd_log_info("%s", what);
    for (int r = 0; r < size; r++) {
        uint64_t a, b;
        part_of(vs, ve, G, cuts, r, &a, &b);
        gsvd_log_info("  rank %d: variants %llu:%llu (%llu), kept %llu", r, (unsigned long long)a,
                      (unsigned long long)b, (unsigned long long)(b - a),
                      (unsigned long long)kept_in(kept, cuts[r], cuts[r + 1]));
    }
}

/* The most kept rows any run of the cuts holds. */
static uint64_t max_load(const uint64_t *kept, const size_t *cuts, int size)
{
    uint64_t m = 0;
    for (int r = 0; r < size; r++) {
        uint64_t k = kept_in(kept, cuts[r], cuts[r + 1]);
        m = k > m ? k : m;
    }
    return m;
}

/* Sum the kept rows per group, cut the groups anew and move g to this rank's run, unless the
 * new cuts would leave the busiest rank no lighter (moving rows costs a read). */
int gsvd_pca_rebalance(const struct gsvd_pca_params *p, gsvd_geno *g, uint64_t *kept,
                       size_t n_groups, int *told)
{
    int size = gsvd_comm_size(p->comm), me = gsvd_comm_rank(p->comm), rc = GSVD_OK;
    size_t G = gsvd_backend_gram_group_rows(gsvd_geno_n_samples(g));
    size_t *cuts = gsvd_malloc(2 * ((size_t)size + 1) * sizeof *cuts), *now;
    uint64_t vs, ve, a, b, cur_a, cur_b;

    if (!cuts)
        rc = GSVD_ENOMEM;
    GSVD_TRY(gsvd_pca_agree(p, rc, told));
    GSVD_TRY(gsvd_comm_sum_u64(p->comm, kept, n_groups));
    gsvd_geno_open_range(g, &vs, &ve);
    gsvd_geno_range(g, &cur_a, &cur_b);
    /* the parts of the first pass as group cuts (gsvd_pca_split cuts at group multiples) */
    now = cuts + size + 1;
    for (int r = 0; r <= size; r++) {
        gsvd_pca_split(gsvd_geno_n_samples(g), vs, ve, r < size ? r : size - 1, size, &a, &b);
        uint64_t at = r < size ? a : b;
        now[r] = at >= ve ? n_groups : (size_t)(at / G - vs / G);
    }
    now[0] = 0;
    log_plan(p, "parts of the first pass (by variants):", vs, ve, G, now, kept);
    gsvd_pca_split_kept(kept, n_groups, size, cuts);
    if (max_load(kept, cuts, size) >= max_load(kept, now, size)) {
        if (me == 0)
            gsvd_log_info("parts kept for the next passes: rebalancing by kept variants would "
                          "leave the busiest rank no lighter");
        goto out;
    }
    log_plan(p, "rebalanced by kept variants for the next passes:", vs, ve, G, cuts, kept);
    part_of(vs, ve, G, cuts, me, &a, &b);
    rc = a == cur_a && b == cur_b ? GSVD_OK : gsvd_geno_move(g, a, b);
    rc = gsvd_pca_agree(p, rc, told);
out:
    gsvd_free(cuts);
    return rc;
}

int gsvd_project_restrict(gsvd_geno *g, gsvd_comm *comm, int log_plan)
{
    int size = gsvd_comm_size(comm);
    uint64_t vs, ve, a, b;

    if (size < 2)
        return GSVD_OK;
    gsvd_geno_range(g, &vs, &ve);
    if (log_plan) {
        gsvd_log_info("distributed: %d ranks, variants %llu:%llu cut at multiples of %d", size,
                      (unsigned long long)vs, (unsigned long long)ve, GSVD_PROJECT_RUN);
        gsvd_pca_log_split(GSVD_PROJECT_RUN, vs, ve, size);
    }
    gsvd_pca_split_runs(GSVD_PROJECT_RUN, vs, ve, gsvd_comm_rank(comm), size, &a, &b);
    return gsvd_geno_restrict(g, a, b);
}
