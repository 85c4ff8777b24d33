/* analysis/pca_dist.c - the collectives of a distributed PCA run (pca_internal.h): agreeing on
 * failures, summing exact parts and filter counts, gathering the variant rows on rank 0.
 * With no communicator each succeeds at once, which is how one-process runs call them. */
#include "gsvd_config.h"
#include "analysis/pca_internal.h"

#include "common/alloc.h"
#include "common/err.h"
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
    uint64_t v[8] = {c->n_range, c->n_kept,    c->n_no_calls,      c->n_zero_var,
                     c->n_maf,   c->n_missing, c->n_missing_calls, c->n_mask};
    int rc = gsvd_comm_sum_u64(comm, v, 8);
    c->n_range = v[0];
    c->n_kept = v[1];
    c->n_no_calls = v[2];
    c->n_zero_var = v[3];
    c->n_maf = v[4];
    c->n_missing = v[5];
    c->n_missing_calls = v[6];
    c->n_mask = v[7];
    return rc;
}

/* Rank 0 takes every rank's rows of the variant arrays (in rank order, which is variant
 * order); the other ranks keep theirs. */
int gsvd_pca_gather_rows(gsvd_comm *comm, void **arr, size_t row_bytes, uint64_t m_local,
                         uint64_t m_all)
{
    void *all = NULL;
    int rc = GSVD_OK;
    int root = gsvd_comm_rank(comm) == 0;
    if (root)
        all = gsvd_malloc((size_t)m_all * row_bytes + 1);
    /* rank 0 joins the gather even without its buffer: with room for 0 bytes the gather's
     * size check then fails on every rank, instead of the others waiting for rank 0 */
    rc = gsvd_comm_gather(comm, *arr, (size_t)m_local * row_bytes, all,
                          all ? (size_t)m_all * row_bytes : 0, 0);
    if (root && !all)
        rc = GSVD_ENOMEM;
    if (rc == GSVD_OK && all) {
        gsvd_free(*arr);
        *arr = all;
        all = NULL;
    }
    gsvd_free(all);
    return rc;
}
