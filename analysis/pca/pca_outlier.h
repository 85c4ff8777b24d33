/* analysis/pca/pca_outlier.h - iterative outlier removal as EIGENSOFT's smartpca does it
 * (`numoutlieriter`, `numoutlierevec`, `outliersigmathresh`).
 *
 * A round: PCA of the current samples (at least max(k, pcs) components); on each of the top
 * `pcs` PCs the mean and the standard deviation (ddof 0) of the sample scores over the current
 * samples; a sample whose score lies more than `sigma` standard deviations from the mean on any
 * of them is removed, and the PC named for it is the first such one (smartpca prints it 0-based
 * as "evec"; here PCs count from 1).  Every sample flagged in a round goes at once; the next
 * round recomputes the PCA without them.  Removal stops after `n_iter` rounds or at the first
 * round that removes nobody; the PCA of the samples left is the result.  So a run computes at
 * most n_iter + 1 PCAs, as smartpca does (its eigenvalues, scaled to sum to N - 1 of the kept
 * samples, are (N - 1) s^2 / trace here).  Every rank of a distributed run holds the same
 * results and so removes the same samples.
 * Thread safety: calls share no state. */
#ifndef GSVD_ANALYSIS_PCA_PCA_OUTLIER_H
#define GSVD_ANALYSIS_PCA_PCA_OUTLIER_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/pca/pca.h"
#include "analysis/pca/pca_fit.h"
#include "analysis/scan/genotype.h"
#include "common/buf.h"
GSVD_EXTERN_C_BEGIN

/* What removal did, per sample of the starting set (its order: gsvd_geno_sample_ids of the
 * handle the run started with). */
struct gsvd_pca_outliers {
    size_t n;                /* samples of the starting set */
    struct gsvd_strlist ids; /* their IDs; owned */
    int64_t *round;          /* 0: kept; else the round (1..) that removed it; owned */
    int64_t *pc;             /* the PC (1-based) that removed it, 0 kept; owned */
    double *sigma;           /* its signed distance from the mean in standard deviations on
                                that PC, NaN kept; owned */
    size_t n_removed;        /* samples removed */
    size_t n_rounds;         /* rounds that removed someone */
    size_t *by_id;           /* 0..n-1 sorted by ID (gsvd_pca_outliers_find); owned */
};

/* The handle of the samples `keep` (IDs of the starting set, in its order), opened and made
 * ready for gsvd_pca_run as the caller opened the first (input, filters, masks, a distributed
 * run's part, the memory plan).  Returns GSVD_OK and a new handle (the caller of
 * gsvd_pca_outliers_run then owns it), or an error (logged).  Under a communicator every rank
 * calls it, and the ranks agree on the outcome afterwards (so it must not run collectives that
 * a failing rank would skip). */
typedef int (*gsvd_pca_open_fn)(void *ctx, const struct gsvd_strlist *keep, gsvd_geno **out);

/* Run PCA with outlier removal (p->outlier_iter rounds at most, p->outlier_pcs,
 * p->outlier_sigma; with outlier_iter 0 one plain gsvd_pca_run).  *g (owned by the caller) is
 * the starting handle; each round after the first opens its own through reopen(ctx, ...) and
 * closes the one before, so on return *g is the handle of the samples kept (the caller still
 * owns it and closes it; its sample IDs are the result's rows).  On success *out holds the
 * final result with p->n_components components (caller frees it, gsvd_pca_result_free) and ol
 * what was removed (gsvd_pca_outliers_free).  Errors: those of gsvd_pca_run and of reopen;
 * GSVD_EINVAL (logged) when p->outlier_pcs is not below the samples left; GSVD_ENOMEM.  On
 * failure *out is NULL, ol is empty and *g is a handle the caller closes (or NULL). */
GSVD_NODISCARD int gsvd_pca_outliers_run(gsvd_geno **g, gsvd_pca_open_fn reopen, void *ctx,
                                         gsvd_backend *be, const struct gsvd_pca_params *p,
                                         struct gsvd_pca_result **out,
                                         struct gsvd_pca_outliers *ol);
void gsvd_pca_outliers_free(struct gsvd_pca_outliers *ol); /* accepts a zeroed struct */

/* Look up sample `id` in ol: its index in the starting set, or -1 (a sample outside it). */
ptrdiff_t gsvd_pca_outliers_find(const struct gsvd_pca_outliers *ol, const char *id);

/* Every sample of the starting set with r's scores (r: the final result of
 * gsvd_pca_outliers_run, whose rows are the kept samples in the starting set's order) and NaN
 * rows for the removed ones, in out->all (the pointers other than u borrowed from r), with
 * out->ids the starting set's IDs, out->fitted NULL and out->n_fitted the samples kept.  Free
 * with gsvd_pca_fit_join_free.  GSVD_OK, GSVD_ENOMEM, GSVD_EINTERNAL (r does not match ol). */
GSVD_NODISCARD int gsvd_pca_outliers_join(const struct gsvd_pca_outliers *ol,
                                          const struct gsvd_pca_result *r,
                                          struct gsvd_pca_fit_join *out);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_PCA_PCA_OUTLIER_H */
