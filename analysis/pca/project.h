/* analysis/pca/project.h - placing samples on principal components saved by `pca --loadings`
 * (analysis/pca/pca_store.h): variants matched to the reference's, the reference's means and
 * scales applied, and the scores on the reference's scale.
 *
 * Matching (gsvd_project_match): a target variant matches a reference variant used in the fit
 * with the same contig name and position and
 *   - the same allele list ("REF,ALT[,...]"): dosage d as it is;
 *   - the two alleles swapped (biallelic, REF,ALT = ALT',REF'): d -> ploidy - d, unless the
 *     pair is strand-ambiguous (A/T or C/G, where a swap cannot be told from a strand flip):
 *     dropped and counted;
 *   - anything else (other alleles, multi-allelic lists that differ): dropped and counted.
 * A reference variant has at most one partner (the first target variant that matches it;
 * later ones count as duplicates).  Unmatched variants on either side are counted.
 *
 * Scores: z = ((float)d - (float)mean_j) * (float)(1 / sigma_j) in float32, exactly as the PCA
 * standardised the reference (analysis/scan/gblock_std.h), a missing call z = 0 (the reference
 * mean: mean imputation), and score_iq = sum_j z_ij V_jq in float64 over matched variants: dgemm
 * on fixed cells of 256 samples x the matched rows of one block inside one aligned run of 256
 * variants, and on integer genotypes the cells' products added exactly (common/xsum.h, grids
 * from a bound of |z| |V| over the matched variants), so the result depends neither on the
 * thread count nor on how the variants are split between processes (float input, which has
 * no such bound, adds the cells in row order and runs as one process).  For a reference
 * sample with every variant matched this is
 * Z^T V = U S: its own PCA score.
 *
 * Least squares (GSVD_PROJ_MISSING_LSQ, smartpca's lsqproject): with O_i the matched variants
 * where sample i has a call and V_O their loadings, a_i = argmin ||z_O - V_O a||^2 =
 * (V_O' V_O)^{-1} V_O' z_O.  V_O' z_O is the score above (a missing call adds 0); the k x k
 * Gram V_O' V_O (its upper triangle, packed) and the count |O_i| are summed per sample in
 * float64 by dgemm of the 0/1 call mask against the rows' packed outer products v_j v_j', on
 * the same cells, added the same way.  Solved by Cholesky (dpotrf, dpotrs); a sample with |O_i| <
 * k, a Gram that is not positive definite or has reciprocal condition number (1-norm, dpocon) below
 * GSVD_PROJ_LSQ_RCOND gets NaN scores (counted in n_singular).  For a complete sample with every
 * reference variant matched V_O' V_O = I and the scores equal the plain ones up to rounding.
 *
 * Shrinkage correction (projected scores of samples outside the fit shrink towards 0 when
 * variants outnumber reference samples):
 *   AP (adjusted projection; Lee, Zou & Wright 2010, as FRAPOSA and hdpca use it): with
 *     n reference samples, p variants used, gamma = p / n, lambda_q = s_q^2 / n, the noise level
 *     sigma2 = (trace - sum_q s_q^2) / (n (p - k)) and l_q = lambda_q / sigma2, the population
 *     spike L_q = ((l_q + 1 - gamma) + sqrt((l_q + 1 - gamma)^2 - 4 l_q)) / 2 and the shrinkage
 *     factor rho_q = (L_q - 1) / (L_q + gamma - 1); corrected score = score / rho_q.  A component
 *     below the detection threshold (l_q <= (1 + sqrt gamma)^2) is left as it is (rho_q = 1).
 *   OADP (online augmentation, decomposition and Procrustes; Zhang, Dey & Lee 2020, FRAPOSA;
 *     bigsnpr's pca_OADP_proj): for each sample, with a = its projected scores (k), r^2 =
 *     ||z||^2 - ||a||^2 its residual over the matched variants (least squares: ||z_O||^2 -
 *     a' V_O'V_O a over the called ones; a sample with NaN scores is left as it is) and Y the
 *     n x k reference scores,
 *     the augmented matrix B = [Y^T a; 0 r] ((k+1) x (n+1)) has the top-k left singular vectors
 *     P_k (from the eigenvectors of B B^T = [Y^T Y + a a^T, r a; r a^T, r^2]); the reference's
 *     augmented scores Y P_k are mapped back onto Y by the Procrustes fit (scale c, rotation R,
 *     shift t) and the sample's augmented scores [a r] P_k go through the same map.  All in
 *     k x k algebra (the Procrustes sums come from Y^T Y and the means of Y).
 * Thread safety: calls share no state. */
#ifndef GSVD_ANALYSIS_PCA_PROJECT_H
#define GSVD_ANALYSIS_PCA_PROJECT_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/scan/genotype.h"
#include "analysis/pca/pca_store.h"
#include "analysis/scan/variant_ids.h"
#include "common/comm.h"
#include "common/progress.h"
GSVD_EXTERN_C_BEGIN

struct gsvd_project_counts {
    uint64_t ref_used;        /* reference variants used in the fit */
    uint64_t target;          /* target variants (the range) */
    uint64_t matched;         /* pairs used (swapped included) */
    uint64_t swapped;         /* of them, alleles swapped (dosage flipped) */
    uint64_t ambiguous;       /* dropped: swapped strand-ambiguous pair (A/T, C/G) */
    uint64_t allele_mismatch; /* dropped: same contig and position, other alleles */
    uint64_t duplicate;       /* dropped: a second target variant for one reference variant */
    uint64_t not_found;       /* target variants with no reference variant used in the fit at
                                 their contig and position */
    uint64_t ref_unmatched;   /* reference variants used in the fit that found no partner */
};

/* Target variant -> reference row. */
struct gsvd_project_map {
    uint64_t n;    /* target variants */
    int64_t *ref;  /* n: reference row, or -1; owned */
    uint8_t *flip; /* n: 1 when the dosage flips (d -> ploidy - d); owned */
    struct gsvd_project_counts counts;
};

/* Match target variants to the reference's (see above).  ref_included: ref->n flags (only
 * those are matched).  Caller frees *out with gsvd_project_map_free.  GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_project_match(const struct gsvd_variant_ids *ref,
                                      const uint8_t *ref_included,
                                      const struct gsvd_variant_ids *target,
                                      struct gsvd_project_map *out);
/* The identity map of m variants (the target is the reference's own variant range):
 * variant j -> row j where included[j].  GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_project_map_identity(uint64_t m, const uint8_t *included,
                                             struct gsvd_project_map *out);
void gsvd_project_map_free(struct gsvd_project_map *m); /* accepts a zeroed struct */

enum gsvd_shrinkage { GSVD_SHRINK_NONE = 0, GSVD_SHRINK_AP, GSVD_SHRINK_OADP };
/* Missing calls: the reference mean (z = 0), or least squares over the observed variants. */
enum gsvd_proj_missing { GSVD_PROJ_MISSING_MEAN = 0, GSVD_PROJ_MISSING_LSQ };
/* Least squares: a Gram whose reciprocal condition number is below this gives NaN scores. */
#define GSVD_PROJ_LSQ_RCOND 1e-10

struct gsvd_project_params {
    size_t n_threads;               /* >= 1 */
    enum gsvd_shrinkage shrinkage;  /* correction of the scores */
    enum gsvd_proj_missing missing; /* how a missing call counts */
    struct gsvd_progress progress;  /* per block ("projection"), in variants */
    gsvd_comm *comm;                /* distributed run (borrowed), or NULL: one process.  Each
                                       process scans its own part of the variants (g restricted
                                       to gsvd_pca_split_runs' part, GSVD_PROJECT_RUN); the
                                       parts' exact sums are
                                       added on every process, which then holds the result */
};

struct gsvd_project_result {
    size_t n, k;
    double *scores;           /* n x k: the scores (corrected with a shrinkage); owned */
    double *factor;           /* AP: k shrinkage factors rho_q (NULL otherwise); owned */
    uint64_t n_missing_calls; /* calls of matched variants missing (mean: set to the mean) */
    size_t n_singular;        /* least squares: samples left NaN (too few calls) */
};

/* The runs of variants (multiples of this in the array) whose products are added as one term:
 * a distributed projection cuts its processes' parts there (gsvd_pca_split_runs). */
#define GSVD_PROJECT_RUN 256

/* A distributed projection: restrict g to this rank's part of its variants (runs of
 * GSVD_PROJECT_RUN, gsvd_pca_split_runs), every rank's part logged (info) when log_plan.  No
 * communicator or one rank: g as it is.  GSVD_OK, or gsvd_geno_restrict's error. */
GSVD_NODISCARD int gsvd_project_restrict(gsvd_geno *g, gsvd_comm *comm, int log_plan);

/* Project the samples of g onto `ref` (both borrowed).  g must be opened with scaler
 * GSVD_SCALER_NONE and no filters (every variant with a call comes through as dosages), its
 * ploidy equal ref->ploidy.  Caller frees *out with
 * gsvd_project_result_free.  map->n is the variant count of the range g was opened with; a
 * distributed run restricts g to its part (gsvd_geno_restrict) before.  GSVD_EINVAL (logged: a
 * map or ploidy that does not fit), GSVD_EDEGENERATE (logged: no matched variant; or AP
 * without the trace), GSVD_EUNSUPPORTED (logged on rank 0: float input in a distributed run),
 * read errors; in a distributed run a failure of another process is GSVD_EPEER (logged).
 * Least squares: singular samples are NaN rows, counted in n_singular and in one warning. */
GSVD_NODISCARD int gsvd_project_run(gsvd_geno *g, const struct gsvd_pca_model *ref,
                                    const struct gsvd_project_map *map,
                                    const struct gsvd_project_params *p,
                                    struct gsvd_project_result **out);
void gsvd_project_result_free(struct gsvd_project_result *r); /* accepts NULL */

const char *gsvd_shrinkage_name(enum gsvd_shrinkage s);       /* "none", "ap", "oadp" */
const char *gsvd_proj_missing_name(enum gsvd_proj_missing m); /* "mean", "lsq" */

/* ---- around the projection (analysis/pca/project_store.c) ---- */

/* Check a reference read with loadings for projection (`pcs` names it in messages): it must
 * carry its variants' identity, and hold at least k components; keep the first k (0: all).
 * GSVD_OK, GSVD_ENOTFOUND (no variant identity), GSVD_EINCONSIST (k too large), logged. */
GSVD_NODISCARD int gsvd_project_model_check(struct gsvd_pca_model *ref, size_t k, const char *pcs);

/* Match the variants of g (opened on node `node` of t) to the reference's: the ploidies must
 * agree, and some variant must match (else the counts and a hint on contig names or alleles are
 * logged).  `input` and `pcs` name the two in messages; array_given says the input is a 2-D
 * array named by the caller (the ploidy message then mentions --ploidy).  Caller frees *map
 * (gsvd_project_map_free).  GSVD_OK, GSVD_EINCONSIST (ploidy), GSVD_EDEGENERATE (no match),
 * the readers' errors. */
GSVD_NODISCARD int gsvd_project_target(gsvd_tree *t, const char *node, gsvd_geno *g,
                                       const struct gsvd_pca_model *ref, const char *input,
                                       const char *pcs, int array_given,
                                       struct gsvd_project_map *map);

/* The output group of a projection (`gensvd project -o`; gsvd_project_store_build) with the
 * attributes version, command, pcs, k, N, N_reference, scaler, ploidy, shrinkage_correction,
 * the match counts (variants_*), missing_calls, with AP shrinkage_factor and with least squares
 * missing ("lsq") and samples_singular. */
struct gsvd_project_store_info {
    const char *command;            /* the command line, or NULL */
    const char *pcs;                /* the reference as the caller named it */
    enum gsvd_shrinkage shrinkage;  /* the correction applied */
    enum gsvd_proj_missing missing; /* lsq adds the attributes missing and samples_singular */
};
GSVD_NODISCARD int gsvd_project_store_result(const struct gsvd_project_store_info *info,
                                             const struct gsvd_pca_model *ref,
                                             const struct gsvd_project_map *map,
                                             const struct gsvd_project_result *r,
                                             const struct gsvd_strlist *ids, gsvd_result **out);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_PCA_PROJECT_H */
