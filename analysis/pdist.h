/* analysis/pdist.h - pairwise distances between samples of a genotype (or dosage) matrix.
 * Metrics follow scipy.spatial.distance definitions; `ibs` is PLINK 1.9's 1 - IBS.  Missing
 * data: GSVD_PDIST_PAIRWISE uses, for each pair, the sites called in both (NaN when there are
 * none); GSVD_PDIST_SCALE also rescales the additive metrics by M / n_ij (PLINK flat-missing);
 * GSVD_PDIST_ERROR fails on the first missing call.  Per-pair sums are float64, exact for
 * integer dosages (every partial sum is an integer below 2^53), accumulated block by block in
 * variant order, so the result does not depend on chunking or threads.
 * Thread safety: calls share no state. */
#ifndef GSVD_ANALYSIS_PDIST_H
#define GSVD_ANALYSIS_PDIST_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/genotype.h"
GSVD_EXTERN_C_BEGIN

enum gsvd_pdist_metric {
    GSVD_PDIST_EUCLIDEAN = 0,
    GSVD_PDIST_SQEUCLIDEAN,
    GSVD_PDIST_CITYBLOCK,
    GSVD_PDIST_MINKOWSKI,
    GSVD_PDIST_CHEBYSHEV,
    GSVD_PDIST_COSINE,
    GSVD_PDIST_CORRELATION,
    GSVD_PDIST_HAMMING,
    GSVD_PDIST_JACCARD,
    GSVD_PDIST_BRAYCURTIS,
    GSVD_PDIST_CANBERRA,
    GSVD_PDIST_IBS,
    GSVD_PDIST_N_METRICS
};

enum gsvd_pdist_missing {
    GSVD_PDIST_PAIRWISE = 0,
    GSVD_PDIST_SCALE,
    GSVD_PDIST_ERROR,
};

struct gsvd_pdist_params {
    enum gsvd_pdist_metric metric;
    double p; /* minkowski order, > 0 */
    enum gsvd_pdist_missing missing;
    size_t n_threads; /* pair-loop threads (>= 1) */
    int progress;     /* 1: progress on stderr */
};
#define GSVD_PDIST_PARAMS_DEFAULT                                                                  \
    {                                                                                              \
        .metric = GSVD_PDIST_EUCLIDEAN, .p = 2, .missing = GSVD_PDIST_PAIRWISE, .n_threads = 1,    \
        .progress = 0                                                                              \
    }

struct gsvd_pdist_result {
    size_t n;           /* items (samples) */
    uint64_t m;         /* variants in the range */
    double *dist;       /* n x n, row-major, symmetric, zero diagonal */
    uint32_t *n_sites;  /* n x n sites called in both (diagonal: the item's called sites) */
    uint64_t n_missing; /* missing calls seen */
};

/* Parse / name metrics ("euclidean", ..., "ibs").  Parse returns -1 for unknown names. */
int gsvd_pdist_metric_parse(const char *name, enum gsvd_pdist_metric *out);
const char *gsvd_pdist_metric_name(enum gsvd_pdist_metric m);
const char *gsvd_pdist_metric_list(void); /* "euclidean, sqeuclidean, ..." */

/* Distances between the samples of g (borrowed; open it with the NONE scaler and no filters so
 * blocks carry raw dosages).  Returns GSVD_OK and a result (caller owns; free with
 * gsvd_pdist_result_free), GSVD_EINVAL (bad p), GSVD_ENOMEM (the n x n matrices do not fit),
 * or read errors (missing calls with GSVD_PDIST_ERROR come from the genotype reader). */
GSVD_NODISCARD int gsvd_pdist_run(gsvd_geno *g, const struct gsvd_pdist_params *p,
                                  struct gsvd_pdist_result **out);
/* The same for an in-memory matrix: n items x m features, row-major float64, NaN = missing
 * (borrowed).  ploidy is only used by `ibs`. */
GSVD_NODISCARD int gsvd_pdist_run_matrix(const double *x, size_t n, size_t m, size_t ploidy,
                                         const struct gsvd_pdist_params *p,
                                         struct gsvd_pdist_result **out);

void gsvd_pdist_result_free(struct gsvd_pdist_result *r); /* accepts NULL */

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_PDIST_H */
