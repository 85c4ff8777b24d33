/* analysis/pca/pca.h - principal components of a genotype matrix, streamed by variant block.
 * Samples are the observations: X = Z^T (N samples x M variants) = U S V^T for the
 * standardised matrix Z.  Iterative methods work on the sample side with the N x N operator
 * Z^T Z, applied in one pass over the data per iteration (Y = Z^T (Z X) block by block), and
 * extract eigenpairs by Rayleigh-Ritz in float64:
 *   GSVD_PCA_RANDOMIZED  randomized block Krylov with a bounded basis (restarted with the top
 *                        Ritz vectors when full): memory O(N (k + oversampling) window);
 *   GSVD_PCA_KRYLOV      block Krylov keeping every iterate (basis grows each pass);
 *   GSVD_PCA_SUBSPACE    block subspace (power) iteration with Rayleigh-Ritz, re-orthonormalised
 *                        every pass;
 *   GSVD_PCA_EXACT       the N x N Gram Z^T Z, then a symmetric eigensolver (N <= 50,000);
 *   GSVD_PCA_AUTO        exact up to GSVD_PCA_AUTO_EXACT_N samples (one pass, exact, and
 *                        cheaper than repeated passes at that size), randomized above; from
 *                        GSVD_PCA_FAST_GRAM_WORK on, its Gram takes the backend's fast kernel
 *                        when that kernel's bound is within tol (the bound is reported).
 * Convergence (GSVD_PCA_STOP_BOUND, the default): every top-k Ritz value theta_i has a relative
 * error bound below tol, from its residual r_i = ||A u_i - theta_i u_i||: an eigenvalue of A
 * lies within r_i of theta_i, and within r_i^2 / gap_i when theta_i's interval is separated from
 * its neighbours' by gap_i; with e_i = min(r_i, r_i^2 / gap_i) and Ritz values never above the
 * eigenvalues they approximate, the singular value sqrt(theta_i) is within sqrt(1 + e_i /
 * theta_i) - 1 (about e_i / 2 theta_i) of the true one, relatively: that is the bound.
 * GSVD_PCA_STOP_SUBSPACE: 1 - MEV between the top-k Ritz vectors of consecutive iterations below
 * tol (for vectors in degenerate clusters).  GSVD_PCA_STOP_ESTIMATE: every top-k singular
 * value's error *estimate* below tol: the rise of its Ritz value over the last passes,
 * extrapolated geometrically (analysis/pca/pca.c, estimates()); inside a flat cluster the bounds
 * are ~100x above the true errors and the estimates within a few times of them, both ways. Test
 * matrix: Gaussian from the counter-based generator keyed by (seed, sample, column), so the result
 * does not depend on thread count, block size or device.  Sign rule: the entry of largest magnitude
 * of each sample vector (column of U) is positive. Thread safety: calls share no state. */
#ifndef GSVD_ANALYSIS_PCA_PCA_H
#define GSVD_ANALYSIS_PCA_PCA_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/backend.h"
#include "analysis/scan/genotype.h"
#include "common/comm.h"
#include "common/progress.h"
GSVD_EXTERN_C_BEGIN

/* When the iterative methods stop (unless power_iter fixes the pass count). */
enum gsvd_pca_stop {
    GSVD_PCA_STOP_BOUND = 0, /* every top-k singular value's relative error bound <= tol */
    GSVD_PCA_STOP_SUBSPACE,  /* 1 - MEV between the top-k Ritz vectors of two passes < tol */
    GSVD_PCA_STOP_ESTIMATE,  /* every top-k singular value's error estimate <= tol */
};

/* What the singular values are promised to (pca --accuracy).  FAST (the default) runs the
 * method and stop rule as given, within max_iter passes: the components whose error bound
 * reaches tol are converged, the rest (a flat noise bulk, typically) are reported with their
 * error estimates.  BULK promises every top-k singular value within tol by its error estimate:
 * the estimate stop rule (p->stop is not used), auto's iterative method is krylov (which needs
 * the fewest passes for a flat bulk: ~33 at 100,000 x 20,000), and the caller gives max_iter
 * room (GSVD_PCA_BULK_MAX_ITER); the exact method is unchanged (its values are within the Gram
 * kernel's bound). */
enum gsvd_pca_accuracy {
    GSVD_PCA_ACCURACY_FAST = 0,
    GSVD_PCA_ACCURACY_BULK,
};
#define GSVD_PCA_MAX_ITER 8       /* passes cap of --accuracy fast unless --max-iter is given */
#define GSVD_PCA_BULK_MAX_ITER 60 /* passes cap of --accuracy bulk unless --max-iter is given */

enum gsvd_pca_method {
    GSVD_PCA_RANDOMIZED = 0,
    GSVD_PCA_KRYLOV,
    GSVD_PCA_SUBSPACE,
    GSVD_PCA_EXACT,
    GSVD_PCA_AUTO,
};

#define GSVD_PCA_EXACT_MAX_N 50000
#define GSVD_PCA_AUTO_EXACT_N 5000
/* auto's Gram takes a backend's fast kernel from variants x samples^2 of this on (~1 s of
 * float32 products on a few cores; below, the exact products cost little) */
#define GSVD_PCA_FAST_GRAM_WORK 2e11

struct gsvd_pca_params {
    size_t n_components; /* k, 1 .. N-1 */
    enum gsvd_pca_method method;
    size_t oversampling; /* extra columns: block width l = k + oversampling */
    enum gsvd_pca_stop stop;
    double tol;                      /* the stop rule's tolerance */
    size_t max_iter;                 /* passes cap of the stop rules (not with power_iter) */
    size_t power_iter;               /* > 0: exactly this many passes (fewer only once the basis
                                        spans every sample); stop, tol and max_iter ignored */
    size_t window;                   /* randomized: basis blocks kept before a restart (>= 2) */
    enum gsvd_pca_accuracy accuracy; /* FAST, or BULK (see the enum) */
    uint64_t seed;                   /* test matrix seed */
    int loadings;                    /* 1: one more pass for V (variant loadings) */
    size_t n_threads;              /* threads for in-memory products (exact's eigensolver); 0 = 1 */
    struct gsvd_progress progress; /* per block of each pass ("pass 3", "Gram"), in variants */
    gsvd_comm *comm;               /* distributed run (borrowed), or NULL: one process.  Each
                                      rank's genotype handle covers its own part of the
                                      variants (gsvd_pca_split); results are on every rank */
    uint64_t n_variants_all;       /* with comm: variants of every rank together */
    int tw; /* 1: Tracy-Widom statistics of the k eigenvalues (analysis/pca/tracy_widom.h).  They
               need every eigenvalue's sum of squares, which only the exact method's Gram gives:
               AUTO then runs EXACT (up to GSVD_PCA_EXACT_MAX_N samples), the iterative methods
               are refused, and so is an inexact Gram kernel */
    double tw_effective_n; /* > 0: n' for every component (twstats -n); 0: estimated from the
                              eigenvalues */
    int all_eigvals; /* 1: the exact method also computes every eigenvalue of its Gram (one more
                        dense tridiagonal reduction of it, values only: smartpca's .eval); the
                        iterative methods ignore it (they compute k) */
    /* smartpca's outlier removal (analysis/pca/pca_outlier.h; gsvd_pca_run ignores these) */
    size_t outlier_iter;  /* rounds at most (smartpca's numoutlieriter); 0: none */
    size_t outlier_pcs;   /* PCs looked at (numoutlierevec) */
    double outlier_sigma; /* standard deviations beyond which a sample goes (outliersigmathresh) */
    int outlier_loo;      /* 1: each sample against the mean and sd of the others (smartpca's
                             outliermode 1, for small samples); 0: of all (outliermode 0) */
};
#define GSVD_PCA_PARAMS_DEFAULT                                                                    \
    {                                                                                              \
        .n_components = 10, .method = GSVD_PCA_AUTO, .oversampling = 10,                           \
        .stop = GSVD_PCA_STOP_BOUND, .tol = 1e-4, .max_iter = GSVD_PCA_MAX_ITER, .power_iter = 0,  \
        .window = 8, .accuracy = GSVD_PCA_ACCURACY_FAST, .seed = 42, .loadings = 0,                \
        .n_threads = 1, .progress = {NULL, NULL}, .comm = NULL, .n_variants_all = 0, .tw = 0,      \
        .tw_effective_n = 0, .all_eigvals = 0, .outlier_iter = 0, .outlier_pcs = 10,               \
        .outlier_sigma = 6.0, .outlier_loo = 0                                                     \
    }

struct gsvd_pca_result {
    size_t k;                    /* components */
    enum gsvd_pca_method method; /* the method that ran (auto resolved) */
    size_t l;                    /* block width of the iterative methods (0 for exact) */
    size_t n;                    /* samples */
    uint64_t m_range;            /* variants in the range */
    uint64_t m_used;             /* variants kept */
    double *s;                   /* k singular values, descending */
    double *u;                   /* n x k row-major, unit columns (sample vectors) */
    double trace;                /* ||Z||_F^2 */
    size_t iterations;           /* passes for the eigenvectors (1 for exact) */
    double convergence;          /* final 1 - MEV (0 for exact) */
    int converged;               /* 1 stop rule met (or exact), 0 stopped at max_iter, -1 fixed
                                    pass count (power_iter) */
    double *error_bound;         /* k relative singular value error bounds (0 for exact with
                                    exact products) */
    double *error_estimate;      /* k extrapolated relative errors, each at most its bound
                                    (iterative methods; exact: the bounds) */
    double gram_error;           /* exact: the Gram kernel's relative eigenvalue bound (0: exact
                                    products; the CPU's int8 tiles: 2^-14) */
    double max_residual;         /* max over components of ||Z^T Z u - s^2 u|| / s^2 */
    double *v;                   /* with loadings: m_range x k, unit columns; rows of dropped
                                    variants are NaN; NULL otherwise */
    double *var_mean;            /* with loadings: m_range means (NaN when no calls) */
    double *var_scale;           /* with loadings: m_range 1/sigma (0 when dropped) */
    uint8_t *var_included;       /* with loadings: m_range flags */
    struct gsvd_geno_counts counts;
    double gram_sumsq; /* exact: ||Z^T Z||_F^2, the sum of every squared eigenvalue; NaN for
                          the iterative methods */
    size_t tw_m;       /* with params.tw: the eigenvalues the statistics count (the rank) */
    double *tw_stat;   /* with params.tw: k Tracy-Widom statistics (NaN: too few left) */
    double *tw_pvalue; /* with params.tw: k p-values P(TW1 > stat) */
    double *tw_neff;   /* with params.tw: k effective numbers of markers */
    double *gram_eig;  /* with params.all_eigvals and the exact method: the n eigenvalues of
                          Z^T Z, descending (the top k equal s^2 to its rounding); else NULL */
};

/* Fit a run into `memory` bytes (0: no cap): the solver's basis (window), the pass buffers,
 * the decode pipeline (gsvd_geno_scan_bytes) and the in-memory part of the 2-bit cache, in that
 * order; for exact, the Gram and the buffers of the CPU Gram kernel bp asks for (its threads,
 * kernel and gram_f64).  Sets p->window and *cache_bytes (the cache's memory budget, at most
 * its value on entry) and logs the plan (info level).  Returns GSVD_OK, or GSVD_EINVAL
 * (logged) when the fixed parts alone exceed memory. */
GSVD_NODISCARD int gsvd_pca_plan(gsvd_geno *g, uint64_t memory,
                                 const struct gsvd_backend_params *bp, struct gsvd_pca_params *p,
                                 uint64_t *cache_bytes);

/* Run PCA on g with backend be (both borrowed).  Returns GSVD_OK and a result in *out (caller
 * owns; free with gsvd_pca_result_free), or
 *   GSVD_EINVAL       k is 0 or >= N, or exact requested with N > 50,000,
 *   GSVD_EDEGENERATE  no variant left after filtering, or fewer than k nonzero eigenvalues,
 *   any error of the reads (I/O, codec, format) or the backend. */
GSVD_NODISCARD int gsvd_pca_run(gsvd_geno *g, gsvd_backend *be, const struct gsvd_pca_params *p,
                                struct gsvd_pca_result **out);
void gsvd_pca_result_free(struct gsvd_pca_result *r); /* accepts NULL */

const char *gsvd_pca_method_name(enum gsvd_pca_method m);
const char *gsvd_pca_accuracy_name(enum gsvd_pca_accuracy a); /* "fast", "bulk" */
/* The method p asks for, with auto resolved for n samples: exact up to GSVD_PCA_AUTO_EXACT_N
 * or with p->tw (Tracy-Widom statistics need the Gram), above that randomized (krylov with
 * GSVD_PCA_ACCURACY_BULK). */
enum gsvd_pca_method gsvd_pca_method_for(const struct gsvd_pca_params *p, size_t n);
/* The stop rule the iterative methods apply: p->stop, or the estimate rule for BULK. */
enum gsvd_pca_stop gsvd_pca_stop_for(const struct gsvd_pca_params *p);
const char *gsvd_pca_stop_name(enum gsvd_pca_stop r); /* "bound", "subspace", "estimate" */

/* The part of the variant range [start, stop) that rank `rank` of `size` analyses: contiguous,
 * in rank order, cut at multiples of the Gram row group for n samples (so that every product
 * group lies on one rank and the results are the same bytes for any size), as even as those
 * cuts allow.  A rank may get an empty part when there are more ranks than groups. */
void gsvd_pca_split(size_t n_samples, uint64_t start, uint64_t stop, int rank, int size,
                    uint64_t *part_start, uint64_t *part_stop);
/* The same cut at multiples of `run` (> 0) variants: gsvd_pca_split with the Gram row group,
 * a distributed projection with GSVD_PROJECT_RUN (analysis/pca/project.h). */
void gsvd_pca_split_runs(uint64_t run, uint64_t start, uint64_t stop, int rank, int size,
                         uint64_t *part_start, uint64_t *part_stop);
/* The parts gsvd_pca_split_runs gives every rank of `size`, one info line each ("  rank R:
 * variants A:B (count)"): the plan a distributed run logs on rank 0. */
void gsvd_pca_log_split(uint64_t run, uint64_t start, uint64_t stop, int size);

/* Cut n_groups groups holding kept[j] kept variants each into `size` contiguous runs, balanced
 * by kept variants: run r is groups [cuts[r], cuts[r + 1]) (cuts has size + 1 entries; cuts[0]
 * = 0, cuts[size] = n_groups), with cuts[r] the cut whose kept prefix is nearest to r / size of
 * the total (the lower one on a tie).  With no kept variant at all the groups are cut evenly.
 * A run may be empty.  A distributed run's parts after its first pass (the groups are the Gram
 * groups of gsvd_pca_split, so the bytes stay those of one process). */
void gsvd_pca_split_kept(const uint64_t *kept, size_t n_groups, int size, size_t *cuts);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_PCA_PCA_H */
