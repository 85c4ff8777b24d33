/* analysis/pca_store.h - the PCA output schema (the Zarr group `pca -o` writes) and its reader.
 * Arrays (sgkit names; samples x components unless noted):
 *   sample_id                             strings (samples)
 *   sample_pca_projection                 f8 samples x k: the scores U S
 *   sample_pca_explained_variance         f8 k: s^2 / N
 *   sample_pca_explained_variance_ratio   f8 k: s^2 / trace
 *   sample_pca_singular_value             f8 k: s
 *   sample_pca_eigenvalue                 f8 k: s^2 / M_used (plink2's eigenvalues)
 * With loadings (`pca --loadings`; variants = the analysed variant range):
 *   sample_pca_component                  f8 variants x k: V, unit columns (NaN rows: dropped)
 *   variant_pca_mean                      f8 variants: mean called dosage (NaN: no calls)
 *   variant_pca_scale                     f8 variants: sigma (NaN: dropped)
 *   variant_pca_included                  bool variants: used in the fit
 * Group attributes: version, command, input, method, k, l, iterations, convergence,
 * max_relative_residual, stop, tol, converged, seed, scaler, missing, N, M, M_used, trace,
 * singular_value_error_bound.
 * Thread safety: calls share no state. */
#ifndef GSVD_ANALYSIS_PCA_STORE_H
#define GSVD_ANALYSIS_PCA_STORE_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/genotype.h"
#include "analysis/pca.h"
#include "common/buf.h"
#include "zarr/writer.h"
GSVD_EXTERN_C_BEGIN

/* What the attributes record of the run besides the result itself (all borrowed). */
struct gsvd_pca_store_info {
    const char *command;                 /* the command line, or NULL */
    const char *input;                   /* the genotype array's name */
    const struct gsvd_pca_params *pca;   /* stop, tol, seed */
    const struct gsvd_geno_params *geno; /* scaler, missing */
};

/* Name of a scaler as the attributes and --scaler spell it ("patterson", ...). */
const char *gsvd_pca_scaler_name(enum gsvd_scaler s);

/* Write r (with ids: r->n sample IDs) as a Zarr group at url (through the staged writer: a
 * new directory renamed into place; `overwrite` replaces an existing one).  GSVD_OK, or
 * writer / store errors (logged), GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_pca_store_write(const char *url, int overwrite,
                                        const struct gsvd_writer_params *wp,
                                        const struct gsvd_pca_store_info *info,
                                        const struct gsvd_pca_result *r,
                                        const struct gsvd_strlist *ids);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_PCA_STORE_H */
