/* analysis/related/related.h - a maximal unrelated sample set from KING kinship, with plink2
 * --king-cutoff's semantics: every pair of samples whose KING-robust kinship (pdist's `king`
 * metric, the value plink2 --make-king computes) is greater than the cutoff is "related"; samples
 * are removed one at a time until no related pair is left, in plink2's greedy order:
 *   1. while some sample has exactly one related sample left, the relative of the first such
 *      sample (lowest index) is removed (so of an isolated pair the second sample goes);
 *   2. otherwise the first sample (lowest index) with the most related samples left is removed.
 * The order was established from plink2 2.00a3.5's behaviour on crafted kinship matrices and on
 * the bundled HapMap3 data (tests/related/); no plink2 code was used.  The kept set is maximal:
 * every removed sample has a kept relative.
 * Memory: the pairs above the cutoff (8 bytes each) and per-sample state; the N x N matrix is
 * streamed in bands (the pdist engine, under params.pd.memory).
 * Thread safety: calls share no state. */
#ifndef GSVD_ANALYSIS_RELATED_RELATED_H
#define GSVD_ANALYSIS_RELATED_RELATED_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/scan/genotype.h"
#include "analysis/pdist/pdist.h"
#include "common/buf.h"
#include "zarr/result.h"
GSVD_EXTERN_C_BEGIN

struct gsvd_related_params {
    double cutoff;               /* pairs with kinship > cutoff are related; in [-1, 0.5) */
    struct gsvd_pdist_params pd; /* threads, memory, progress, comm ...; metric is set to king */
};

struct gsvd_related_result {
    size_t n;            /* samples */
    uint8_t *unrelated;  /* n flags: 1 kept (caller owns; gsvd_related_result_clear) */
    size_t n_unrelated;  /* kept samples */
    uint64_t n_pairs;    /* related pairs (kinship > cutoff) */
    size_t n_related;    /* samples in at least one related pair */
    uint64_t n_variants; /* variants in the range (features of the kinship) */
    uint64_t n_missing;  /* missing calls seen */
};

/* Kinship of every pair of samples of g (borrowed; opened with the NONE scaler, genotype calls
 * of ploidy 2), then the greedy selection.  Returns GSVD_OK with *out filled, GSVD_EINVAL
 * (logged: a cutoff outside [-1, 0.5)), GSVD_EUNSUPPORTED (logged: float input or a ploidy
 * other than 2), GSVD_ENOMEM, or the pdist engine's errors (read errors, memory).  On failure
 * *out is left empty.  A distributed run (p->pd.comm): the ranks compute their bands of the
 * kinship (the pdist engine), rank 0 collects the pairs in row order and selects, and every
 * rank receives its selection, so each holds the one-process result; a failure on rank 0
 * ends the run (gsvd_comm_abort: the others may wait in a send), one elsewhere is GSVD_EPEER
 * (logged) on the others. */
GSVD_NODISCARD int gsvd_related_run(gsvd_geno *g, const struct gsvd_related_params *p,
                                    struct gsvd_related_result *out);

/* The greedy selection alone: n samples, n_pairs related pairs (pairs[2k], pairs[2k + 1], two
 * different indices < n; a pair may not repeat) -> unrelated[n] (1 kept, 0 removed).  Returns
 * the number of removed samples (>= 0), GSVD_EINVAL (not logged) for an index out of range or a
 * self pair, or GSVD_ENOMEM. */
GSVD_NODISCARD int64_t gsvd_related_select(size_t n, const uint32_t *pairs, uint64_t n_pairs,
                                           uint8_t *unrelated);

void gsvd_related_result_clear(struct gsvd_related_result *r); /* accepts NULL; cannot fail */

/* The output group (`gensvd related -o`, analysis/related/related_store.c): sample_id (the r->n
 * IDs), sample_unrelated (bool: 1 kept) with attribute king_cutoff, and the group attributes
 * version, command, metric, king_cutoff, N, M, n_missing, n_unrelated, n_removed, n_related_pairs,
 * n_related_samples.  Caller frees *out.  GSVD_OK or GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_related_store_build(const char *command, double cutoff,
                                            const struct gsvd_related_result *r,
                                            const struct gsvd_strlist *ids, gsvd_result **out);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_RELATED_RELATED_H */
