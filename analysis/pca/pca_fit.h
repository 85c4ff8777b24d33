/* analysis/pca/pca_fit.h - `pca --fit-samples`: after the fit on a subset, the other samples are
 * projected onto its PCs (analysis/pca/project.h, identity variant map: same store, same range)
 * and the two sets' scores are joined into one result in the order of the whole sample set;
 * `pca --eigensoft`'s rows.  In a distributed run every rank takes part (comm: each scans its
 * part of the variants, after gsvd_pca_share_loadings) and every rank gets the result, the
 * bytes of one process.  Thread safety: calls share no state. */
#ifndef GSVD_ANALYSIS_PCA_PCA_FIT_H
#define GSVD_ANALYSIS_PCA_PCA_FIT_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/scan/genotype.h"
#include "analysis/pca/pca.h"
#include "common/buf.h"
#include "common/comm.h"
#include "zarr/tree.h"
GSVD_EXTERN_C_BEGIN

struct gsvd_pca_fit_join {
    struct gsvd_pca_result all; /* r with n = every sample and u = the joined U (projected rows:
                                   score / s); other pointers borrowed from r */
    struct gsvd_strlist ids;    /* every sample's ID, in the set's order; owned */
    uint8_t *fitted;            /* per sample: 1 fitted, 0 projected; owned */
    size_t n_fitted;
};

/* After a distributed gsvd_pca_run with loadings (rank 0 gathered them): rank 0's loadings,
 * means, scales and kept flags of every variant onto every rank (the other ranks' own parts
 * replaced, r->m_range the whole range), so that the ranks can project together.  One process
 * (or comm of size 1): nothing to do.  GSVD_ENOMEM (logged), GSVD_EPEER, comm errors; every
 * rank returns the same success or failure. */
GSVD_NODISCARD int gsvd_pca_share_loadings(gsvd_comm *comm, struct gsvd_pca_result *r);

/* The samples of `universe` (the --samples list, or NULL: every sample of the store at node)
 * outside the fit set (gsvd_geno_sample_ids(gfit)), projected onto r (computed with
 * loadings) with the genotype parameters of the fit (`fitp`: array, range, ploidy).  Every fit
 * sample must belong to the universe.  comm: NULL, or every rank calls (see above).  Caller
 * frees *out with gsvd_pca_fit_join_free.  GSVD_EINCONSIST (logged: a fit sample outside the
 * set), read errors, GSVD_EPEER.  No sample left to project is not an error (every row is then
 * a fitted one). */
GSVD_NODISCARD int gsvd_pca_fit_join(gsvd_tree *t, const char *node,
                                     const struct gsvd_geno_params *fitp,
                                     const struct gsvd_strlist *universe, gsvd_geno *gfit,
                                     const struct gsvd_pca_result *r, size_t threads,
                                     gsvd_comm *comm, struct gsvd_pca_fit_join *out);
void gsvd_pca_fit_join_free(struct gsvd_pca_fit_join *j); /* accepts a zeroed struct */

/* smartpca's .evec rows (`pca --eigensoft`; smartpca 8 writes its lsqproject fits, reference
 * samples and projected ones alike): for each sample of `ids` (the fit's samples, or the whole
 * set of a --fit-samples run, in its order) its least-squares fit a_i over its called variants
 * (analysis/pca/project.h, GSVD_PROJ_MISSING_LSQ; one more pass over the data) times f_q / s_q,
 * where f_q = sum_i a_iq y_iq / sum_i a_iq^2 over the fit samples, y = U S (their scores with
 * missing calls at the mean): smartpca's scale, which lines the fits up with its eigenvectors.
 * When `ids` are the fit's samples and the fit had no missing call the rows are U itself (no
 * pass: there a = U S up to rounding and f = 1).  r must hold loadings; the other parameters as
 * gsvd_pca_fit_join's.  *rows: ids->n x r->k, caller frees (gsvd_free).  A sample whose fit is
 * singular gets NaN (counted in project's warning).  GSVD_ENOMEM, read errors, GSVD_EPEER. */
GSVD_NODISCARD int gsvd_pca_smartpca_rows(gsvd_tree *t, const char *node,
                                          const struct gsvd_geno_params *fitp,
                                          const struct gsvd_strlist *ids, gsvd_geno *gfit,
                                          const struct gsvd_pca_result *r, size_t threads,
                                          gsvd_comm *comm, double **rows);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_PCA_PCA_FIT_H */
