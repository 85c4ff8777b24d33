/* analysis/pca/pca_store.h - the PCA output schema (the Zarr group `pca -o` writes) and its reader.
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
 *   variant_pca_contig                    strings variants: contig name     } when the input
 *   variant_pca_position                  i8 variants: position             } has VCF-Zarr's
 *   variant_pca_alleles                   strings variants: "REF,ALT[,..]"  } variant arrays
 *   variant_pca_id                        strings variants: the input's variant_id, if any
 * With `pca --tw` (analysis/pca/tracy_widom.h):
 *   sample_pca_tw_statistic               f8 k: the Tracy-Widom statistic (NaN: too few left)
 *   sample_pca_tw_pvalue                  f8 k: P(TW1 > statistic)
 *   sample_pca_tw_effective_n             f8 k: the effective number of markers (estimated,
 *                                         or the one given for every component)
 * With `pca --outlier-iter N` (analysis/pca/pca_outlier.h; rows of removed samples that were
 * not projected are NaN in sample_pca_projection):
 *   sample_pca_outlier                    i8 samples: the round that removed it, 0 kept
 *   sample_pca_outlier_pc                 i8 samples: the PC (1-based) that removed it, 0 kept
 *   sample_pca_outlier_sigma              f8 samples: its distance from the mean on that PC in
 *                                         standard deviations (signed), NaN kept
 * With `pca --fit-samples`:
 *   sample_pca_fitted                     bool samples: 1 for the samples the PCs were fitted
 *                                         on, 0 for those projected onto them
 * (analysis/pca/project.h) Group attributes: version, command, input, method, k, l, iterations,
 * convergence, max_relative_residual, stop, tol, converged, seed, scaler, missing, N, M, M_used,
 * trace, singular_value_error_bound, singular_value_error_estimate, gram_error, ploidy,
 * variant_start (index in the input of the first variant row), with --fit-samples or outlier
 * removal N_fitted, with outlier removal outlier_iter, outlier_pcs, outlier_sigma,
 * outlier_rounds, N_outliers and outlier_projected, with
 * --tw tw_eigenvalues (the eigenvalues counted, the Gram's rank), tw_significant (leading
 * components with p < 0.05) and, with --tw-effective-n, tw_effective_n_given (n').
 * Thread safety: calls share no state. */
#ifndef GSVD_ANALYSIS_PCA_PCA_STORE_H
#define GSVD_ANALYSIS_PCA_PCA_STORE_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/scan/genotype.h"
#include "analysis/pca/pca.h"
#include "analysis/pca/pca_outlier.h"
#include "analysis/scan/variant_ids.h"
#include "common/buf.h"
#include "zarr/result.h"
#include "zarr/writer.h"
GSVD_EXTERN_C_BEGIN

/* What the attributes record of the run besides the result itself (all borrowed). */
struct gsvd_pca_store_info {
    const char *command;                 /* the command line, or NULL */
    const char *input;                   /* the genotype array's name */
    const struct gsvd_pca_params *pca;   /* stop, tol, seed */
    const struct gsvd_geno_params *geno; /* scaler, missing */
    size_t ploidy;                       /* the input's dosage scale */
    uint64_t var_start;                  /* index of the first variant of the range */
    const struct gsvd_variant_ids *vids; /* identity of the r->m_range variants, or NULL */
    const uint8_t *fitted;               /* r->n flags (fitted or projected), or NULL */
    size_t n_fitted;                     /* samples the PCs were fitted on (with fitted: how many
                                            are set), or 0: all r->n */
    const struct gsvd_pca_outliers *outliers; /* removal (pca --outlier-iter), or NULL; the
                                                 rows' samples are looked up in it by ID */
};

/* Name of a scaler as the attributes and --scaler spell it ("patterson", ...). */
const char *gsvd_pca_scaler_name(enum gsvd_scaler s);

/* The output group of r (with ids: r->n sample IDs) as a result (zarr/result.h; caller frees
 * *out with gsvd_result_free).  GSVD_OK or GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_pca_store_build(const struct gsvd_pca_store_info *info,
                                        const struct gsvd_pca_result *r,
                                        const struct gsvd_strlist *ids, gsvd_result **out);

/* What `gensvd pca` prints besides its output group, as arrays held beside it (found by name,
 * never listed nor written; include/gensvd.h, GENSVD_PCA): fit_sample_id (strings, the r->n
 * samples the PCs are of, in their order: a --fit-samples file's, the kept ones after outlier
 * removal) and fit_sample_vector (float64, r->n x r->k: their unit eigenvectors U),
 * singular_value_error_bound and singular_value_error_estimate (float64, r->k each,
 * unrounded), gram_error (float64, 1), converged (int64, 1: 1, 0, or -1 for a fixed pass
 * count), variant_counts (uint64, 9: used, of the range, dropped without calls, zero variance,
 * maf, max-missing, variant mask, then the missing calls set to the mean, then dropped by hwe),
 * with r->gram_eig gram_eigenvalue (float64, r->n: every eigenvalue of the Gram, descending) and,
 * with `ol` (outlier removal, else NULL), outlier_sample_id, outlier_round, outlier_pc (int64) and
 * outlier_sigma (float64): the starting set in its order (struct gsvd_pca_outliers).  ids: the
 * r->n IDs.  Caller frees *out.  GSVD_OK or GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_pca_table_build(const struct gsvd_pca_result *r,
                                        const struct gsvd_strlist *ids,
                                        const struct gsvd_pca_outliers *ol, gsvd_result **out);
/* Add smartpca's .evec rows (gsvd_pca_smartpca_rows) to a table of gsvd_pca_table_build:
 * smartpca_sample_id (strings, ids->n) and smartpca_row (float64, ids->n x k).  GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_pca_table_add_smartpca(gsvd_result *table, const struct gsvd_strlist *ids,
                                               size_t k, const double *rows);

/* Write r (with ids: r->n sample IDs) as a Zarr group at url (through the staged writer: a
 * new directory renamed into place; `overwrite` replaces an existing one).  GSVD_OK, or
 * writer / store errors (logged), GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_pca_store_write(const char *url, int overwrite,
                                        const struct gsvd_writer_params *wp,
                                        const struct gsvd_pca_store_info *info,
                                        const struct gsvd_pca_result *r,
                                        const struct gsvd_strlist *ids);

/* A projection output (`gensvd project -o`) as a result: sample_id, sample_pca_projection (n x
 * k scores), sample_pca_singular_value and sample_pca_explained_variance_ratio of the
 * reference, with the group attributes in attrs_json.  Caller frees *out.  GSVD_OK,
 * GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_project_store_build(const char *attrs_json, size_t n, size_t k,
                                            const double *scores, const double *s, double trace,
                                            const struct gsvd_strlist *ids, gsvd_result **out);

/* A projection output (`gensvd project -o`): sample_id, sample_pca_projection (n x k scores),
 * sample_pca_singular_value and sample_pca_explained_variance_ratio of the reference (so that
 * `gensvd plot` draws it), with the group attributes in attrs_json (a JSON object text).  Staged
 * and renamed like gsvd_pca_store_write. */
GSVD_NODISCARD int gsvd_project_store_write(const char *url, int overwrite,
                                            const struct gsvd_writer_params *wp,
                                            const char *attrs_json, size_t n, size_t k,
                                            const double *scores, const double *s, double trace,
                                            const struct gsvd_strlist *ids);

/* A PCA group read back (a reference for `project`). */
struct gsvd_pca_model {
    size_t k;                     /* components */
    size_t n;                     /* reference samples */
    uint64_t m;                   /* variant rows of the loadings (0 without loadings) */
    size_t ploidy;                /* attribute "ploidy" (2 when absent: groups before it) */
    enum gsvd_scaler scaler;      /* attribute "scaler" */
    double trace;                 /* attribute "trace" (NaN when absent) */
    uint64_t m_used;              /* attribute "M_used" */
    double *s;                    /* k singular values; owned */
    double *scores;               /* n x k: sample_pca_projection; owned */
    struct gsvd_strlist ids;      /* n reference sample IDs; owned */
    double *v;                    /* m x k loadings; owned (NULL without) */
    double *mean;                 /* m means; owned */
    double *scale;                /* m multipliers 1 / sigma (0 where dropped); owned */
    uint8_t *included;            /* m flags; owned */
    struct gsvd_variant_ids vids; /* identity of the m variants (vids.n = 0 when not saved) */
};

/* Read the PCA group `node` of t.  need_loadings: fail unless it was written with --loadings.
 * Caller frees *out with gsvd_pca_model_free.  GSVD_ENOTFOUND (logged: not a pca output, or no
 * loadings, naming the store and key), GSVD_EFORMAT / GSVD_EINCONSIST (logged: wrong dtypes,
 * shapes that disagree, an unknown scaler), GSVD_ENOMEM, or a store error. */
GSVD_NODISCARD int gsvd_pca_model_read(gsvd_tree *t, const char *node, int need_loadings,
                                       struct gsvd_pca_model *out);
void gsvd_pca_model_free(struct gsvd_pca_model *m); /* accepts a zeroed struct */

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_PCA_PCA_STORE_H */
