/* analysis/pca/project_internal.h - for analysis/pca/project*.c only: the step of a projection
 * after its scan (project_correct.c), which project.c's gsvd_project_run calls once the sums are
 * complete on every process.  Nothing here reads the data. */
#ifndef GSVD_ANALYSIS_PCA_PROJECT_INTERNAL_H
#define GSVD_ANALYSIS_PCA_PROJECT_INTERNAL_H
#include "analysis/pca/project.h"

/* The scores of r (n x k, the plain projections V'z, or V_O'z_O with least squares) corrected
 * in place: first, with gram (n x (k (k + 1) / 2 + 1): per sample the packed upper triangle
 * of V_O'V_O and its call count), each sample's least-squares solution (NaN where singular,
 * counted in r->n_singular); then the shrinkage (AP: r->factor allocated and owned by r; OADP).
 * sumsq (n: each sample's ||z_O||^2) becomes the residuals OADP uses; it may be NULL when gram
 * is NULL and the shrinkage is not OADP.  ref is borrowed.  GSVD_OK, GSVD_ENOMEM, or
 * GSVD_EDEGENERATE (AP without a noise level, an OADP fit that fails), logged. */
int gsvd_project_correct(const struct gsvd_pca_model *ref, enum gsvd_shrinkage shrinkage,
                         const double *gram, double *sumsq, struct gsvd_project_result *r);

#endif
