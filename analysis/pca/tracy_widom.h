/* analysis/pca/tracy_widom.h - Tracy-Widom statistics of PCA eigenvalues (Patterson, Price and
 * Reich 2006, "Population structure and eigenanalysis"), computed as EIGENSOFT's twstats does.
 *
 * For component q (0-based) of the m eigenvalues of the sample Gram (m = N - 1 for centred
 * data: the rank), with the q leading ones removed: m_q = m - q, S = the sum and S2 = the sum
 * of squares of the remaining eigenvalues,
 *   n'  = (m_q + 2) S^2 / (m_q S2 - S^2)        the effective number of markers,
 *   L   = m_q lambda_q / S,
 *   mu  = (sqrt(A - 1) + sqrt(B))^2 / n',  with A = max(n', m_q), B = min(n', m_q),
 *   sd  = (sqrt(A - 1) + sqrt(B)) / n' * (1 / sqrt(A - 1) + 1 / sqrt(B))^(1/3),
 *   x   = (L - mu) / sd,
 * and the p-value P(TW1 > x) of the largest-eigenvalue law of the real Gaussian ensemble.  The
 * statistic is scale-free (any normalisation of the eigenvalues gives the same x), but it needs
 * S and S2 over *every* eigenvalue: the trace and ||Z^T Z||_F^2, which only the exact method's
 * Gram gives.  Fewer than GSVD_TW_MIN_EIGENVALUES remaining eigenvalues give NaN (twstats' NA).
 *
 * P(TW1 > x): on [-8, 8] cubic Hermite interpolation in a table of the distribution and its
 * density at steps of 0.1 (twstats interpolates its own table the same way); the table is
 * computed here from the Hastings-McLeod solution of Painleve II, q'' = s q + 2 q^3 with q ~
 * Ai(s) as s -> inf (F1(s) = exp(-1/2 int_s^inf [q(x) + (x - s) q(x)^2] dx)), by classical RK4
 * from s = 16 down to -8 in steps of 1e-4; it agrees with EIGENSOFT's 9-decimal twtable to
 * 7e-10.  Below -8 the p-value is 1.  Above 8 it is 1/2 int_x^inf Ai(t) dt, the tail of F1 to a
 * relative O(e^{-2/3 x^{3/2}}) (< 3e-7); twstats' tail formula there is e^{-2/3 x^{3/2}} /
 * (4 sqrt(pi) x^{1/4}), about sqrt(x) times larger (both are below 1e-8).
 * Thread safety: pure functions; a table is read-only once initialised. */
#ifndef GSVD_ANALYSIS_PCA_TRACY_WIDOM_H
#define GSVD_ANALYSIS_PCA_TRACY_WIDOM_H
#include <stddef.h>
#include "analysis/pca/pca.h"
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

#define GSVD_TW_MIN_EIGENVALUES 10 /* twstats' default minlen */
#define GSVD_TW1_TABLE_N 161       /* x = -8, -7.9, ..., 8 */

/* P(TW1 > x) and the density of TW1 at x = -8 + 0.1 i. */
struct gsvd_tw1_table {
    double sf[GSVD_TW1_TABLE_N];
    double density[GSVD_TW1_TABLE_N];
};

/* Fill t (about 1 ms of arithmetic).  Cannot fail. */
void gsvd_tw1_table_init(struct gsvd_tw1_table *t);

/* P(TW1 > x) as described above; NaN for NaN. */
double gsvd_tw1_sf(const struct gsvd_tw1_table *t, double x);

/* The statistics of the first k of the m eigenvalues lam[0..k) (descending; m >= k) whose sum
 * over all m is `sum` and sum of squares `sumsq`: x in stat[q], P(TW1 > x) in pvalue[q] and
 * n' in neff[q] (NaN where fewer than GSVD_TW_MIN_EIGENVALUES remain or n' is not above 1).
 * given_n > 0 is n' for every component instead of the estimate (twstats -n); 0 estimates. */
void gsvd_tw_stats(const struct gsvd_tw1_table *t, const double *lam, size_t k, size_t m,
                   double sum, double sumsq, double given_n, double *stat, double *pvalue,
                   double *neff);

/* A PCA result's statistics (the exact method's r->trace and r->gram_sumsq, the eigenvalues
 * s^2, m = the Gram's rank: min(N - 1, M_used), or min(N, M_used) with the none scaler, which
 * does not centre): allocates and fills r->tw_stat, r->tw_pvalue, r->tw_neff and sets r->tw_m;
 * given_n as gsvd_tw_stats'.  GSVD_OK, GSVD_ENOMEM, or GSVD_EINVAL (logged) when r has no exact
 * Gram sums (an iterative method) or the Gram was inexact (r->gram_error > 0). */
GSVD_NODISCARD int gsvd_pca_tw(struct gsvd_pca_result *r, int centred, double given_n);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_PCA_TRACY_WIDOM_H */
