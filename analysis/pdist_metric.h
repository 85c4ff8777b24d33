/* analysis/pdist_metric.h - per-pair statistics and the distance computed from them, shared by
 * every pdist kernel (and written for nvcc too: GSVD_HD functions, no libc beyond math.h).
 *
 * A kernel reduces a pair (u, v) over the features called in both to `struct gsvd_pd_sums`;
 * gsvd_pd_finish turns the sums into the metric's value.  The bit-plane kernel produces three
 * integer counts per pair on genotypes g in {0, 1, 2}, with A = [g >= 1], B = [g >= 2]:
 *   n    features called in both
 *   one  those where exactly one of A, B differs (|u - v| = 1)
 *   two  those where both differ (|u - v| = 2)
 * and every bit-plane metric below derives from them exactly. */
#ifndef GSVD_ANALYSIS_PDIST_METRIC_H
#define GSVD_ANALYSIS_PDIST_METRIC_H
#include <math.h>
#include <stdint.h>
#include "analysis/pdist.h"
GSVD_EXTERN_C_BEGIN

/* Sums over the jointly called features: n, and a..e by metric:
 *   euclidean, sqeuclidean: a = sum (u - v)^2      cityblock, ibs: a = sum |u - v|
 *   minkowski: a = sum |u - v|^p                    chebyshev: a = max |u - v|
 *   hamming: a = #(u != v)                          canberra: a = sum |u - v| / (|u| + |v|)
 *   jaccard: a = #(bool u != bool v), b = #(u or v) braycurtis: a = sum |u - v|, b = sum |u + v|
 *   cosine, correlation: a = sum u, b = sum v, c = sum uv, d = sum u^2, e = sum v^2 */
struct gsvd_pd_sums {
    double n, a, b, c, d, e;
};

/* Whether the bit-plane counts carry everything the metric needs. */
static inline GSVD_HD int gsvd_pd_bitplane_metric(enum gsvd_pdist_metric m)
{
    switch (m) {
    case GSVD_PDIST_EUCLIDEAN:
    case GSVD_PDIST_SQEUCLIDEAN:
    case GSVD_PDIST_CITYBLOCK:
    case GSVD_PDIST_MINKOWSKI:
    case GSVD_PDIST_CHEBYSHEV:
    case GSVD_PDIST_HAMMING:
    case GSVD_PDIST_IBS:
        return 1;
    default:
        return 0;
    }
}

/* Sums from the bit-plane counts (n, one, two); exact: every value is an integer below 2^53
 * except minkowski's 2^p. */
static inline GSVD_HD void gsvd_pd_counts_to_sums(enum gsvd_pdist_metric m, double p,
                                                  const uint32_t cnt[3], struct gsvd_pd_sums *s)
{
    double n = cnt[0], one = cnt[1], two = cnt[2];
    s->n = n;
    s->b = s->c = s->d = s->e = 0;
    switch (m) {
    case GSVD_PDIST_EUCLIDEAN:
    case GSVD_PDIST_SQEUCLIDEAN:
        s->a = one + 4 * two;
        break;
    case GSVD_PDIST_MINKOWSKI:
        s->a = one + pow(2.0, p) * two;
        break;
    case GSVD_PDIST_CHEBYSHEV:
        s->a = two > 0 ? 2 : one > 0 ? 1 : 0;
        break;
    case GSVD_PDIST_HAMMING:
        s->a = one + two;
        break;
    default: /* cityblock, ibs */
        s->a = one + 2 * two;
        break;
    }
}

/* The metric's value from the sums; m_total: all features (for the scale policy). */
static inline GSVD_HD double gsvd_pd_finish(enum gsvd_pdist_metric metric, double p,
                                            enum gsvd_pdist_missing missing,
                                            const struct gsvd_pd_sums *s, double m_total,
                                            double ploidy)
{
    double n = s->n, a = s->a, scale = 1;

    if (n == 0)
        return NAN;
    if (missing == GSVD_PDIST_SCALE)
        scale = m_total / n;
    switch (metric) {
    case GSVD_PDIST_EUCLIDEAN:
        return sqrt(a * scale);
    case GSVD_PDIST_SQEUCLIDEAN:
    case GSVD_PDIST_CITYBLOCK:
        return a * scale;
    case GSVD_PDIST_MINKOWSKI:
        return pow(a * scale, 1.0 / p);
    case GSVD_PDIST_CHEBYSHEV:
    case GSVD_PDIST_CANBERRA:
        return a;
    case GSVD_PDIST_HAMMING:
        return a / n;
    case GSVD_PDIST_IBS:
        return a / (ploidy * n);
    case GSVD_PDIST_JACCARD:
        return s->b > 0 ? a / s->b : 0;
    case GSVD_PDIST_BRAYCURTIS:
        return a / s->b;
    case GSVD_PDIST_COSINE: {
        double d = 1 - s->c / sqrt(s->d * s->e);
        return d < 0 ? 0 : d > 2 ? 2 : d; /* scipy clips */
    }
    case GSVD_PDIST_CORRELATION: {
        double sxy = s->c - s->a * s->b / n;
        double sxx = s->d - s->a * s->a / n, syy = s->e - s->b * s->b / n;
        double d = 1 - sxy / sqrt(sxx * syy);
        return d < 0 ? 0 : d > 2 ? 2 : d;
    }
    default:
        return NAN;
    }
}

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_PDIST_METRIC_H */
