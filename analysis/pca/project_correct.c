/* analysis/pca/project_correct.c - what projection does after its scan (project_internal.h):
 * each sample's least-squares fit on its observed calls (--missing lsq) and the shrinkage
 * corrections of the scores (AP, OADP; their definitions are in project.h). */
#include "gsvd_config.h"
#include "analysis/pca/project_internal.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/log.h"

/* ---- least squares ------------------------------------------------------------------------ */

/* Solve one sample: g its packed Gram and call count, s its V_O'z_O (k), replaced by the
 * solution; A (k x k) and work (3k doubles, k ints) scratch.  0 solved, 1 singular or
 * ill-conditioned (s untouched).  Column-major LAPACK on the full symmetric matrix: no copies,
 * no allocation. */
static int lsq_one(size_t k, const double *g, double *s, double *A, double *work, lapack_int *iw)
{
    double anorm = 0, rcond = 0;
    size_t p = 0;
    lapack_int n = (lapack_int)k;

    if (g[k * (k + 1) / 2] < (double)k)
        return 1;
    for (size_t a = 0; a < k; a++)
        for (size_t b = a; b < k; b++, p++)
            A[a * k + b] = A[b * k + a] = g[p];
    for (size_t b = 0; b < k; b++) {
        double col = 0;
        for (size_t a = 0; a < k; a++)
            col += fabs(A[a * k + b]);
        anorm = col > anorm ? col : anorm;
    }
    if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', n, A, n) != 0)
        return 1;
    if (LAPACKE_dpocon_work(LAPACK_COL_MAJOR, 'U', n, A, n, anorm, &rcond, work, iw) != 0 ||
        !(rcond >= GSVD_PROJ_LSQ_RCOND))
        return 1;
    return LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', n, 1, A, n, s, n) != 0;
}

/* Least squares of every sample (scores: V_O'z_O in, the solutions out; NaN where singular,
 * counted in *n_singular); sumsq (||z_O||^2) becomes the residual ||z_O||^2 - a'V_O'V_O a =
 * ||z_O||^2 - a'(V_O'z_O) that OADP uses.  GSVD_ENOMEM. */
static int lsq_solve(size_t n, size_t k, const double *gram, double *scores, double *sumsq,
                     size_t *n_singular)
{
    size_t kk1 = k * (k + 1) / 2 + 1;
    double *A = gsvd_malloc(k * k * sizeof *A), *work = gsvd_malloc(4 * k * sizeof *work);
    lapack_int *iw = gsvd_malloc(k * sizeof *iw);
    int rc = GSVD_OK;

    *n_singular = 0;
    if (!A || !work || !iw) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        double *s = scores + i * k, *b = work + 3 * k, ab = 0;
        memcpy(b, s, k * sizeof *b);
        if (lsq_one(k, gram + i * kk1, s, A, work, iw)) {
            for (size_t q = 0; q < k; q++)
                s[q] = NAN;
            sumsq[i] = NAN;
            ++*n_singular;
            continue;
        }
        for (size_t q = 0; q < k; q++)
            ab += s[q] * b[q];
        sumsq[i] -= ab;
    }
out:
    gsvd_free(A);
    gsvd_free(work);
    gsvd_free(iw);
    return rc;
}

/* ---- shrinkage corrections -------------------------------------------------------------- */

/* AP factors rho_q (project.h); 1 where a component is below the detection threshold. */
static int ap_factors(const struct gsvd_pca_model *ref, double *rho)
{
    double n = (double)ref->n, p = (double)ref->m_used, k = (double)ref->k, top = 0, sigma2;
    if (!isfinite(ref->trace) || ref->m_used <= ref->k) {
        gsvd_log_error("--shrinkage-correction ap needs the reference's \"trace\" and "
                       "\"M_used\" attributes (a `gensvd pca` output with more variants than "
                       "components)");
        return GSVD_EDEGENERATE;
    }
    for (size_t q = 0; q < ref->k; q++)
        top += ref->s[q] * ref->s[q];
    sigma2 = (ref->trace - top) / (n * (p - k));
    if (!(sigma2 > 0)) {
        gsvd_log_error("--shrinkage-correction ap: no variance outside the %zu components "
                       "(trace %g), so no noise level to correct with",
                       ref->k, ref->trace);
        return GSVD_EDEGENERATE;
    }
    double gamma = p / n;
    for (size_t q = 0; q < ref->k; q++) {
        double l = ref->s[q] * ref->s[q] / n / sigma2, b = l + 1 - gamma, disc = b * b - 4 * l;
        rho[q] = 1.0;
        if (l > (1 + sqrt(gamma)) * (1 + sqrt(gamma)) && disc >= 0) {
            double L = (b + sqrt(disc)) / 2;
            rho[q] = (L - 1) / (L + gamma - 1);
        }
        gsvd_log_info("AP: PC%zu sample eigenvalue / noise %.6g, spike %.6g, shrinkage factor "
                      "%.6g",
                      q + 1, l, rho[q] == 1.0 ? l : (b + sqrt(disc)) / 2, rho[q]);
    }
    return GSVD_OK;
}

/* r2 = ||z||^2 - ||a||^2, in place over sumsq: the residual of the plain projection. */
static void plain_residuals(size_t n, size_t k, const double *scores, double *sumsq)
{
    for (size_t i = 0; i < n; i++) {
        const double *s = scores + i * k;
        double aa = 0;
        for (size_t a = 0; a < k; a++)
            aa += s[a] * s[a];
        sumsq[i] -= aa;
    }
}

/* OADP (project.h) of every sample, in place; resid2: each sample's squared residual.  A
 * sample with NaN scores (least squares, singular) is left as it is. */
static int oadp(const struct gsvd_pca_model *ref, size_t n, double *scores, const double *resid2)
{
    size_t k = ref->k, k1 = k + 1;
    double *G = gsvd_calloc(k * k, sizeof *G), *mu = gsvd_calloc(k, sizeof *mu),
           *C = gsvd_malloc(k1 * k1 * sizeof *C), *w = gsvd_malloc(k1 * sizeof *w),
           *M = gsvd_malloc(k * k * sizeof *M), *U = gsvd_malloc(k * k * sizeof *U),
           *VT = gsvd_malloc(k * k * sizeof *VT), *sv = gsvd_malloc(k * sizeof *sv),
           *sup = gsvd_malloc(k * sizeof *sup), *Gc = gsvd_malloc(k * k * sizeof *Gc),
           *y = gsvd_malloc(k * sizeof *y), *P = gsvd_malloc(k1 * k * sizeof *P);
    int rc = GSVD_OK;

    if (!G || !mu || !C || !w || !M || !U || !VT || !sv || !sup || !Gc || !y || !P) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < ref->n; i++) {
        const double *s = ref->scores + i * k;
        for (size_t a = 0; a < k; a++) {
            mu[a] += s[a];
            for (size_t b = 0; b < k; b++)
                G[a * k + b] += s[a] * s[b];
        }
    }
    for (size_t a = 0; a < k; a++)
        mu[a] /= (double)ref->n;
    for (size_t a = 0; a < k; a++)
        for (size_t b = 0; b < k; b++)
            Gc[a * k + b] = G[a * k + b] - (double)ref->n * mu[a] * mu[b];
    for (size_t i = 0; i < n; i++) {
        double *s = scores + i * k, r2 = resid2[i], r, c, norm = 0, tr = 0;
        lapack_int info;
        if (isnan(s[0]))
            continue;
        r = r2 > 0 ? sqrt(r2) : 0;
        for (size_t a = 0; a < k; a++) {
            for (size_t b = 0; b < k; b++)
                C[a * k1 + b] = G[a * k + b] + s[a] * s[b];
            C[a * k1 + k] = C[k * k1 + a] = r * s[a];
        }
        C[k * k1 + k] = r * r;
        info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'U', (lapack_int)k1, C, (lapack_int)k1, w);
        if (info != 0) {
            gsvd_log_error("OADP: symmetric eigensolver failed (info %d)", (int)info);
            rc = GSVD_EDEGENERATE;
            goto out;
        }
        /* P: the top-k eigenvectors (columns k1-1 .. 1 of C, ascending order), descending */
        for (size_t row = 0; row < k1; row++)
            for (size_t q = 0; q < k; q++)
                P[row * k + q] = C[row * k1 + (k1 - 1 - q)];
        /* M = P_k^T Gc; ||Ytilde_c||^2 = trace(P_k^T Gc P_k) */
        for (size_t a = 0; a < k; a++)
            for (size_t b = 0; b < k; b++) {
                double m = 0;
                for (size_t t = 0; t < k; t++)
                    m += P[t * k + a] * Gc[t * k + b];
                M[a * k + b] = m;
            }
        for (size_t a = 0; a < k; a++)
            for (size_t t = 0; t < k; t++)
                norm += M[a * k + t] * P[t * k + a];
        memcpy(U, M, k * k * sizeof *M); /* dgesvd overwrites its input: reuse U's space */
        {
            double *A = gsvd_malloc(k * k * sizeof *A);
            if (!A) {
                rc = GSVD_ENOMEM;
                goto out;
            }
            memcpy(A, M, k * k * sizeof *A);
            info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'A', 'A', (lapack_int)k, (lapack_int)k, A,
                                  (lapack_int)k, sv, U, (lapack_int)k, VT, (lapack_int)k, sup);
            gsvd_free(A);
        }
        if (info != 0 || !(norm > 0)) {
            gsvd_log_error("OADP: Procrustes fit failed for sample %zu (info %d)", i, (int)info);
            rc = GSVD_EDEGENERATE;
            goto out;
        }
        for (size_t q = 0; q < k; q++)
            tr += sv[q];
        c = tr / norm;
        /* augmented score of the sample, centred: [s r] P - mu^T P_k */
        for (size_t q = 0; q < k; q++) {
            double v = r * P[k * k + q];
            for (size_t t = 0; t < k; t++)
                v += (s[t] - mu[t]) * P[t * k + q];
            y[q] = v;
        }
        /* corrected = c y R + mu, R = U VT */
        for (size_t q = 0; q < k; q++) {
            double v = 0;
            for (size_t a = 0; a < k; a++) {
                double rq = 0;
                for (size_t t = 0; t < k; t++)
                    rq += U[a * k + t] * VT[t * k + q];
                v += y[a] * rq;
            }
            s[q] = c * v + mu[q];
        }
    }
out:
    gsvd_free(G);
    gsvd_free(mu);
    gsvd_free(C);
    gsvd_free(w);
    gsvd_free(M);
    gsvd_free(U);
    gsvd_free(VT);
    gsvd_free(sv);
    gsvd_free(sup);
    gsvd_free(Gc);
    gsvd_free(y);
    gsvd_free(P);
    return rc;
}

int gsvd_project_correct(const struct gsvd_pca_model *ref, enum gsvd_shrinkage shrinkage,
                         const double *gram, double *sumsq, struct gsvd_project_result *r)
{
    size_t n = r->n, k = r->k;
    int rc = GSVD_OK;

    if (gram) {
        GSVD_TRY(lsq_solve(n, k, gram, r->scores, sumsq, &r->n_singular));
        if (r->n_singular)
            gsvd_log_warn("%zu of %zu samples have too few calls at the matched variants for "
                          "--missing lsq (fewer than k = %zu, or an ill-conditioned fit): "
                          "their scores are NaN",
                          r->n_singular, n, k);
    } else if (shrinkage == GSVD_SHRINK_OADP) {
        plain_residuals(n, k, r->scores, sumsq);
    }
    if (shrinkage == GSVD_SHRINK_AP) {
        if (!(r->factor = gsvd_malloc(k * sizeof *r->factor)))
            return GSVD_ENOMEM;
        GSVD_TRY(ap_factors(ref, r->factor));
        for (size_t i = 0; i < n; i++)
            for (size_t q = 0; q < k; q++)
                r->scores[i * k + q] /= r->factor[q];
    } else if (shrinkage == GSVD_SHRINK_OADP) {
        GSVD_TRY(oadp(ref, n, r->scores, sumsq));
    }
out:
    return rc;
}
