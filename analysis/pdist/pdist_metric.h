/* analysis/pdist/pdist_metric.h - per-pair statistics and the distance computed from them, shared
 * by every pdist kernel (and written for nvcc too: GSVD_HD functions, no libc beyond math.h).
 *
 * A kernel reduces a pair (u, v) over the features called in both to `struct gsvd_pd_sums`;
 * gsvd_pd_finish turns the sums into the metric's value.  The bit-plane kernel produces three
 * integer counts per pair on genotypes g in {0, 1, 2}, with A = [g >= 1], B = [g >= 2]:
 *   n    features called in both
 *   one  those where exactly one of A, B differs (|u - v| = 1)
 *   two  those where both differ (|u - v| = 2)
 * and every bit-plane metric below derives from them exactly. */
#ifndef GSVD_ANALYSIS_PDIST_PDIST_METRIC_H
#define GSVD_ANALYSIS_PDIST_PDIST_METRIC_H
#include <math.h>
#include <stdint.h>
#include "analysis/pdist/pdist.h"
GSVD_EXTERN_C_BEGIN

/* Sums over the jointly called features: n, and a..e by metric:
 *   euclidean, sqeuclidean: a = sum (u - v)^2      cityblock, ibs: a = sum |u - v|
 *   minkowski: a = sum |u - v|^p                    chebyshev: a = max |u - v|
 *   hamming, p-distance: a = #(u != v)              canberra: a = sum |u - v| / (|u| + |v|)
 *   jaccard: a = #(bool u != bool v), b = #(u or v) braycurtis: a = sum |u - v|, b = sum |u + v|
 *   cosine, correlation: a = sum u, b = sum v, c = sum uv, d = sum u^2, e = sum v^2
 *   king, ibs0: a = #(u = v = 1) (het-het), b = #{u, v} = {0, 2} (IBS0), c = #(u = 1),
 *               d = #(v = 1) (each item's hets over the jointly called sites) */
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
    case GSVD_PDIST_P_DISTANCE:
        return 1;
    default:
        return 0;
    }
}

/* The metrics whose sums come from the bit planes' wide counts (gsvd_pd_wide_to_sums). */
static inline GSVD_HD int gsvd_pd_bitplane_wide_metric(enum gsvd_pdist_metric m)
{
    switch (m) {
    case GSVD_PDIST_JACCARD:
    case GSVD_PDIST_BRAYCURTIS:
    case GSVD_PDIST_CANBERRA:
    case GSVD_PDIST_COSINE:
    case GSVD_PDIST_CORRELATION:
        return 1;
    default:
        return 0;
    }
}

/* The metrics whose sums come from the bit planes' KING counts (gsvd_pd_king_to_sums). */
static inline GSVD_HD int gsvd_pd_king_metric(enum gsvd_pdist_metric m)
{
    return m == GSVD_PDIST_KING || m == GSVD_PDIST_IBS0;
}

/* The value of an item against itself: 0.5 for KING's kinship (a similarity: duplicates and
 * monozygotic twins are 0.5), 0 for every distance. */
static inline GSVD_HD double gsvd_pd_self_value(enum gsvd_pdist_metric m)
{
    return m == GSVD_PDIST_KING ? 0.5 : 0.0;
}

/* KING counts of a pair over its jointly called features, from planes C, A = [g >= 1],
 * P = [g == 1]: k[0] n = |Cx & Cy|, k[1] het-het |Px & Py|, k[2] IBS0 |(Ax ^ Ay) & ~(Px | Py)
 * & Cx & Cy|, k[3] |Px & Cy|, k[4] |Py & Cx|. */
#define GSVD_PD_N_KING 5

static inline GSVD_HD void gsvd_pd_king_to_sums(const uint32_t k[GSVD_PD_N_KING],
                                                struct gsvd_pd_sums *s)
{
    s->n = k[0];
    s->a = k[1];
    s->b = k[2];
    s->c = k[3];
    s->d = k[4];
    s->e = 0;
}

/* Wide counts of a pair over its jointly called features, from planes C, A = [g >= 1],
 * B = [g >= 2]: w[0] n, w[1] |Ax & Cy|, w[2] |Bx & Cy|, w[3] |Ay & Cx|, w[4] |By & Cx|,
 * w[5] |Ax & Ay|, w[6] |Ax & By| + |Bx & Ay|, w[7] |Bx & By|.  With g = A + B and
 * min(u, v) = [u, v >= 1] + [u, v >= 2]: sum u = w1 + w2, sum u^2 = w1 + 3 w2, sum uv =
 * w5 + w6 + w7, sum |u - v| = sum u + sum v - 2 (w5 + w7), #(bool u != bool v) =
 * w1 + w3 - 2 w5, #(u or v) = w1 + w3 - w5, #{u, v} = {1, 2} = w6 - 2 w7. */
#define GSVD_PD_N_WIDE 8

/* Sums (struct gsvd_pd_sums) of jaccard, braycurtis, canberra, cosine and correlation from the
 * wide counts; exact integers except canberra's thirds (|u - v| / (u + v) is 1 for a zero
 * against a non-zero, 1/3 for {1, 2}). */
static inline GSVD_HD void gsvd_pd_wide_to_sums(enum gsvd_pdist_metric m, const uint32_t w[8],
                                                struct gsvd_pd_sums *s)
{
    double su = (double)w[1] + (double)w[2], sv = (double)w[3] + (double)w[4];
    double amin = (double)w[5] + (double)w[7];
    s->n = w[0];
    s->a = s->b = s->c = s->d = s->e = 0;
    switch (m) {
    case GSVD_PDIST_JACCARD:
        s->a = (double)w[1] + (double)w[3] - 2.0 * (double)w[5];
        s->b = (double)w[1] + (double)w[3] - (double)w[5];
        break;
    case GSVD_PDIST_BRAYCURTIS:
        s->a = su + sv - 2.0 * amin;
        s->b = su + sv;
        break;
    case GSVD_PDIST_CANBERRA:
        s->a = ((double)w[1] + (double)w[3] - 2.0 * (double)w[5]) +
               ((double)w[6] - 2.0 * (double)w[7]) / 3.0;
        break;
    case GSVD_PDIST_COSINE:
    case GSVD_PDIST_CORRELATION:
        s->a = su;
        s->b = sv;
        s->c = (double)w[5] + (double)w[6] + (double)w[7];
        s->d = (double)w[1] + 3.0 * (double)w[2];
        s->e = (double)w[3] + 3.0 * (double)w[4];
        break;
    default:
        break;
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
    case GSVD_PDIST_P_DISTANCE:
        s->a = one + two;
        break;
    default: /* cityblock, ibs */
        s->a = one + 2 * two;
        break;
    }
}

/* One feature of a pair (u, v) added to the pair's running sums s (struct gsvd_pd_sums above),
 * skipped when either value is missing (NaN).  Kernels that sum in float64 (the generic pair
 * loop on the host, its CUDA twin in gpu/pdist_body.h) call this for every feature in order
 * (between gsvd_pd_sums_load and gsvd_pd_sums_store below); the same calls in the same order
 * give the same bits on both, since the float64 products and sums go through GSVD_DMUL /
 * GSVD_DADD (no FMA).  Only minkowski's pow may differ
 * between the host's libm and CUDA's (within 2 ulp). */
static inline GSVD_HD void gsvd_pd_sums_add(enum gsvd_pdist_metric m, double pw, double u, double v,
                                            struct gsvd_pd_sums *s)
{
    double diff, au, av;
    if (isnan(u) || isnan(v))
        return;
    s->n = GSVD_DADD(s->n, 1.0);
    diff = fabs(u - v);
    switch (m) {
    case GSVD_PDIST_EUCLIDEAN:
    case GSVD_PDIST_SQEUCLIDEAN:
        s->a = GSVD_DADD(s->a, GSVD_DMUL(diff, diff));
        break;
    case GSVD_PDIST_CITYBLOCK:
    case GSVD_PDIST_IBS:
        s->a = GSVD_DADD(s->a, diff);
        break;
    case GSVD_PDIST_MINKOWSKI:
        s->a = GSVD_DADD(s->a, pow(diff, pw));
        break;
    case GSVD_PDIST_CHEBYSHEV:
        s->a = diff > s->a ? diff : s->a;
        break;
    case GSVD_PDIST_HAMMING:
    case GSVD_PDIST_P_DISTANCE:
        s->a = GSVD_DADD(s->a, u != v ? 1.0 : 0.0);
        break;
    case GSVD_PDIST_JACCARD:
        s->a = GSVD_DADD(s->a, (u != 0) != (v != 0) ? 1.0 : 0.0);
        s->b = GSVD_DADD(s->b, (u != 0) || (v != 0) ? 1.0 : 0.0);
        break;
    case GSVD_PDIST_BRAYCURTIS:
        s->a = GSVD_DADD(s->a, diff);
        s->b = GSVD_DADD(s->b, fabs(u + v));
        break;
    case GSVD_PDIST_CANBERRA:
        au = fabs(u);
        av = fabs(v);
        if (au + av > 0)
            s->a = GSVD_DADD(s->a, diff / (au + av));
        break;
    case GSVD_PDIST_KING:
    case GSVD_PDIST_IBS0:
        s->a = GSVD_DADD(s->a, u == 1 && v == 1 ? 1.0 : 0.0);
        s->b = GSVD_DADD(s->b, diff == 2 ? 1.0 : 0.0);
        s->c = GSVD_DADD(s->c, u == 1 ? 1.0 : 0.0);
        s->d = GSVD_DADD(s->d, v == 1 ? 1.0 : 0.0);
        break;
    case GSVD_PDIST_COSINE:
    case GSVD_PDIST_CORRELATION:
        s->a = GSVD_DADD(s->a, u);
        s->b = GSVD_DADD(s->b, v);
        s->c = GSVD_DADD(s->c, GSVD_DMUL(u, v));
        s->d = GSVD_DADD(s->d, GSVD_DMUL(u, u));
        s->e = GSVD_DADD(s->e, GSVD_DMUL(v, v));
        break;
    default:
        break;
    }
}

/* Elements of a pair's float64 accumulator: n, a, b, c, d, e. */
#define GSVD_PD_N_SUMS 6

/* A pair's running sums from / back to its accumulator acc[GSVD_PD_N_SUMS]: kernels load them,
 * add a run of features in order and store them back, so the result is the same additions in
 * feature order however the features are split into stripes or pieces. */
static inline GSVD_HD void gsvd_pd_sums_load(const double *acc, struct gsvd_pd_sums *s)
{
    s->n = acc[0];
    s->a = acc[1];
    s->b = acc[2];
    s->c = acc[3];
    s->d = acc[4];
    s->e = acc[5];
}

static inline GSVD_HD void gsvd_pd_sums_store(const struct gsvd_pd_sums *s, double *acc)
{
    acc[0] = s->n;
    acc[1] = s->a;
    acc[2] = s->b;
    acc[3] = s->c;
    acc[4] = s->d;
    acc[5] = s->e;
}

/* KING-robust between-family kinship (Manichaikul et al. 2010, as plink2 --make-king computes
 * it) from the KING sums: with h_min = min(het_x, het_y) over the jointly called sites,
 *   phi = 0.5 - (4 IBS0 + het1hom2 + het2hom1) / (4 h_min),
 * het1hom2 = het_x - hethet (x het, y hom), het2hom1 = het_y - hethet; the same as KING's
 * (hethet - 2 IBS0) / (2 h_min) + 1/2 - (het_x + het_y) / (4 h_min).  The numerator and
 * denominator are exact integers, so the result is one correctly rounded division and a
 * subtraction.  An item without hets gives -inf (or NaN when the numerator is 0 too), as
 * plink2's arithmetic does. */
static inline GSVD_HD double gsvd_pd_king_kinship(const struct gsvd_pd_sums *s)
{
    double hmin = s->c < s->d ? s->c : s->d;
    double num = 4.0 * s->b + (s->c - s->a) + (s->d - s->a);
    return 0.5 - num / (4.0 * hmin);
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
    case GSVD_PDIST_P_DISTANCE:
        return a / n;
    case GSVD_PDIST_IBS:
        return a / (ploidy * n);
    case GSVD_PDIST_JACCARD:
        return s->b > 0 ? a / s->b : 0;
    case GSVD_PDIST_BRAYCURTIS:
        return a / s->b;
    case GSVD_PDIST_KING:
        return gsvd_pd_king_kinship(s);
    case GSVD_PDIST_IBS0:
        return s->b / n;
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
#endif /* GSVD_ANALYSIS_PDIST_PDIST_METRIC_H */
