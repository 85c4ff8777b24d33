/* analysis/pca_internal.h - for analysis/pca*.c only: what the PCA driver (pca.c) shares with
 * its lower files.  pca_dist.c holds the collectives of a distributed run (every rank calls
 * them in the same order; with no communicator they succeed at once, see common/comm.h).
 * Files call downwards only: pca.c -> pca_dist.c.
 * Thread safety: as common/comm.h (one caller per communicator). */
#ifndef GSVD_ANALYSIS_PCA_INTERNAL_H
#define GSVD_ANALYSIS_PCA_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/pca.h"
#include "common/comm.h"
#include "common/gsvd_defs.h"

/* Agree with the other ranks on rc (gsvd_comm_agree).  Returns rc unchanged without p->comm,
 * else the agreed code (GSVD_OK, or the failure of the lowest failing rank); on a failure sets
 * *told (borrowed) to 1, so that the driver's exit path does not share it a second time. */
GSVD_NODISCARD int gsvd_pca_agree(const struct gsvd_pca_params *p, int rc, int *told);

/* Sum the exact parts hi[0..n) and lo[0..n) (both borrowed, summed in place) over the ranks
 * and leave the values in hi: hi[i] = gsvd_xsum_value(hi[i], lo[i]).  Returns GSVD_OK or the
 * communicator's code (logged). */
GSVD_NODISCARD int gsvd_pca_sum_parts(gsvd_comm *comm, double *hi, double *lo, size_t n);

/* Sum the filter counts of every rank's variants into *c (borrowed).  Returns GSVD_OK or the
 * communicator's code (logged). */
GSVD_NODISCARD int gsvd_pca_sum_counts(gsvd_comm *comm, struct gsvd_geno_counts *c);

/* Rank 0 takes every rank's rows (row_bytes each, m_local on this rank, m_all on all ranks) of
 * the variant array *arr in rank order, which is variant order: *arr (owned by the caller,
 * allocated with gsvd_malloc) is then replaced by a new buffer of m_all rows and the old one
 * freed; the other ranks keep theirs.  Returns GSVD_OK, GSVD_ENOMEM on rank 0 (which still
 * joins the gather, so the others fail in its size check instead of waiting), or the
 * communicator's code (logged); *arr is unchanged on failure. */
GSVD_NODISCARD int gsvd_pca_gather_rows(gsvd_comm *comm, void **arr, size_t row_bytes,
                                        uint64_t m_local, uint64_t m_all);

#endif /* GSVD_ANALYSIS_PCA_INTERNAL_H */
