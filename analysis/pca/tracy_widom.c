/* analysis/pca/tracy_widom.c - Tracy-Widom statistics of PCA eigenvalues (tracy_widom.h).
 * The TW1 distribution is computed here, not read from a table file: F1 from the Painleve II
 * transcendent (Tracy and Widom 1996) integrated by RK4, with the Airy function's asymptotic
 * series as the starting value at s = 16 and as the tail beyond 8. */
#include "gsvd_config.h"
#include "analysis/pca/tracy_widom.h"

#include <math.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"

#define TW_X0 (-8.0)
#define TW_DX 0.1
#define TW_S0 16.0        /* start of the integration: Ai(16) ~ 4e-20, the rest is below 1e-38 */
#define TW_STEPS_PER 1000 /* RK4 steps per table step (h = 1e-4) */

static const double sqrt_pi = 1.7724538509055160273;

/* Ai(x) and Ai'(x) for x >= 8 from the asymptotic series (DLMF 9.7.5, 9.7.6): with
 * zeta = 2/3 x^{3/2}, u_0 = 1, u_k = u_{k-1} (6k-5)(6k-3)(6k-1) / (216 k (2k-1)),
 * v_k = -(6k+1)/(6k-1) u_k; the terms fall below 1e-17 of the sum long before they grow
 * (zeta >= 15). */
static void airy_large(double x, double *ai, double *aip)
{
    double zeta = 2.0 / 3.0 * x * sqrt(x), e = exp(-zeta), u = 1, su = 1, sv = 1, zk = 1;
    for (int k = 1; k < 60; k++) {
        u *= (6.0 * k - 5) * (6.0 * k - 3) * (6.0 * k - 1) / (216.0 * k * (2.0 * k - 1));
        zk /= -zeta;
        double tu = u * zk, tv = -(6.0 * k + 1) / (6.0 * k - 1) * u * zk;
        su += tu;
        sv += tv;
        if (fabs(tu) < 1e-17 * fabs(su) && fabs(tv) < 1e-17 * fabs(sv))
            break;
    }
    *ai = e / (2 * sqrt_pi * sqrt(sqrt(x))) * su;
    if (aip)
        *aip = -sqrt(sqrt(x)) * e / (2 * sqrt_pi) * sv;
}

/* 1/2 int_x^inf Ai(t) dt for x > 8: composite Simpson over [x, x + 40 / sqrt(x)] (Ai falls by
 * e^{-40} there) in steps of at most 1e-3 (relative error ~1e-13). */
static double half_airy_tail(double x)
{
    double len = 40.0 / sqrt(x), ai, sum;
    size_t n = (size_t)ceil(len / 1e-3);
    n += n % 2;
    double h = len / (double)n;
    airy_large(x, &ai, NULL);
    sum = ai;
    for (size_t i = 1; i <= n; i++) {
        airy_large(x + (double)i * h, &ai, NULL);
        sum += (i == n ? 1.0 : i % 2 ? 4.0 : 2.0) * ai;
    }
    return 0.5 * sum * h / 3.0;
}

/* y = (q, q', u, u', v): q'' = s q + 2 q^3; u'' = q^2 (u = int_s^inf (x - s) q^2);
 * v' = -q (v = int_s^inf q). */
static void pii(double s, const double y[5], double f[5])
{
    f[0] = y[1];
    f[1] = s * y[0] + 2 * y[0] * y[0] * y[0];
    f[2] = y[3];
    f[3] = y[0] * y[0];
    f[4] = -y[0];
}

void gsvd_tw1_table_init(struct gsvd_tw1_table *t)
{
    const double h = -TW_DX / TW_STEPS_PER;
    const size_t steps = (size_t)((TW_S0 - TW_X0) / TW_DX + 0.5) * TW_STEPS_PER;
    double y[5] = {0, 0, 0, 0, 0}, k1[5], k2[5], k3[5], k4[5], tmp[5];

    airy_large(TW_S0, &y[0], &y[1]);
    for (size_t i = 0;; i++) {
        double s = TW_S0 + (double)i * h;
        if (i % TW_STEPS_PER == 0 && steps - i < GSVD_TW1_TABLE_N * TW_STEPS_PER) {
            size_t j = (steps - i) / TW_STEPS_PER; /* s = -8 + 0.1 j */
            double e = 0.5 * (y[2] + y[4]);
            t->sf[j] = -expm1(-e);
            t->density[j] = exp(-e) * 0.5 * (y[0] - y[3]);
        }
        if (i == steps)
            break;
        pii(s, y, k1);
        for (int c = 0; c < 5; c++)
            tmp[c] = y[c] + 0.5 * h * k1[c];
        pii(s + 0.5 * h, tmp, k2);
        for (int c = 0; c < 5; c++)
            tmp[c] = y[c] + 0.5 * h * k2[c];
        pii(s + 0.5 * h, tmp, k3);
        for (int c = 0; c < 5; c++)
            tmp[c] = y[c] + h * k3[c];
        pii(s + h, tmp, k4);
        for (int c = 0; c < 5; c++)
            y[c] += h / 6 * (k1[c] + 2 * k2[c] + 2 * k3[c] + k4[c]);
    }
}

double gsvd_tw1_sf(const struct gsvd_tw1_table *t, double x)
{
    if (isnan(x))
        return NAN;
    if (x < TW_X0)
        return 1;
    if (x > -TW_X0)
        return half_airy_tail(x);
    double pos = (x - TW_X0) / TW_DX;
    size_t i = (size_t)floor(pos);
    if (i > GSVD_TW1_TABLE_N - 2)
        i = GSVD_TW1_TABLE_N - 2;
    double u = pos - (double)i, u2 = u * u, u3 = u2 * u;
    /* cubic Hermite on [x_i, x_i+1] with the slopes -density (sf' = -f) */
    return (2 * u3 - 3 * u2 + 1) * t->sf[i] - (u3 - 2 * u2 + u) * TW_DX * t->density[i] +
           (-2 * u3 + 3 * u2) * t->sf[i + 1] - (u3 - u2) * TW_DX * t->density[i + 1];
}

void gsvd_tw_stats(const struct gsvd_tw1_table *t, const double *lam, size_t k, size_t m,
                   double sum, double sumsq, double given_n, double *stat, double *pvalue,
                   double *neff)
{
    double s = sum, s2 = sumsq;
    for (size_t q = 0; q < k; q++) {
        double mq = (double)(m - q), n1, a, mu, sd, x = NAN, ne = NAN;
        if (q < m && m - q >= GSVD_TW_MIN_EIGENVALUES) {
            ne = given_n > 0 ? given_n : (mq + 2) * s * s / (mq * s2 - s * s);
            if (given_n > 0 || ne > 1) {
                /* Johnstone's centring and scale for the larger dimension big and the smaller
                 * small: the "- 1" goes with the larger one (twstats swaps them so when n' < m) */
                double big = ne > mq ? ne : mq, small = ne > mq ? mq : ne;
                n1 = sqrt(big - 1);
                a = n1 + sqrt(small);
                mu = a * a / ne;
                sd = a / ne * cbrt(1 / n1 + 1 / sqrt(small));
                x = (mq * lam[q] / s - mu) / sd;
            } else {
                ne = NAN;
            }
        }
        stat[q] = x;
        pvalue[q] = gsvd_tw1_sf(t, x);
        neff[q] = ne;
        s -= lam[q];
        s2 -= lam[q] * lam[q];
    }
}

int gsvd_pca_tw(struct gsvd_pca_result *r, int centred, double given_n)
{
    struct gsvd_tw1_table t;
    double *lam = NULL;
    size_t k = r->k, m = centred ? r->n - 1 : r->n;
    int rc = GSVD_OK;

    if (r->method != GSVD_PCA_EXACT || !isfinite(r->gram_sumsq)) {
        gsvd_log_error("Tracy-Widom statistics need the sum of every squared eigenvalue, which "
                       "only the exact method's Gram gives (method %s)",
                       gsvd_pca_method_name(r->method));
        return GSVD_EINVAL;
    }
    if (r->gram_error > 0) {
        gsvd_log_error("Tracy-Widom statistics need a Gram of exact products; this one's "
                       "eigenvalues are within %.2g (an int8 or bf16 Gram kernel)",
                       r->gram_error);
        return GSVD_EINVAL;
    }
    if (r->m_used < m)
        m = (size_t)r->m_used;
    lam = gsvd_malloc(k * sizeof *lam);
    r->tw_stat = gsvd_malloc(k * sizeof *r->tw_stat);
    r->tw_pvalue = gsvd_malloc(k * sizeof *r->tw_pvalue);
    r->tw_neff = gsvd_malloc(k * sizeof *r->tw_neff);
    if (!lam || !r->tw_stat || !r->tw_pvalue || !r->tw_neff) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t q = 0; q < k; q++)
        lam[q] = r->s[q] * r->s[q];
    gsvd_tw1_table_init(&t);
    gsvd_tw_stats(&t, lam, k, m, r->trace, r->gram_sumsq, given_n, r->tw_stat, r->tw_pvalue,
                  r->tw_neff);
    r->tw_m = m;
out:
    gsvd_free(lam);
    return rc;
}
