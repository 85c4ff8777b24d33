/* analysis/pca/pca_solver.c - the iterative solver (pca_internal.h): block Krylov and
 * subspace iteration with Rayleigh-Ritz in float64, on an operator A = Z^T Z that the caller
 * supplies (a pass over the data, or the Gram in memory: pca.c), with error bounds and
 * estimates and the thick restart of a bounded basis.
 *
 * The solver keeps a basis K (n x b, orthonormal columns, column-major) on the sample side
 * together with Y = A K, where every column of Y came out of one product with the operator.
 * Rayleigh-Ritz on span(K) needs only H = K^T Y, so each iteration costs exactly one product:
 *   product: Y_new = A Q_last                         (Q_last: the newest block of K)
 *   RR:      H = K^T Y, eigh(H) -> theta, W; Ritz vectors K W, residuals Y W - K W theta
 *   extend:  Q_next = orthonormalise(Y_new against K)  (block Krylov step)
 *   restart: when K is full, K <- K W_top, Y <- Y W_top (exact: Y stays A K)
 * Subspace iteration is the same with K replaced by orthonormalise(Y_new) every iteration.
 * Eigenvalues of A are s^2; Ritz vectors are the sample vectors U. */
#include "gsvd_config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cblas.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/rng.h"
#include "common/scope.h"
#include "analysis/pca/pca_internal.h"

/* ---- small dense helpers (column-major n x b blocks, single-threaded BLAS) ---------------- */

static double dot(const double *a, const double *b, size_t n)
{
    return cblas_ddot((int)n, a, 1, b, 1);
}

/* Gaussian column j of the test matrix (independent of threads and blocks). */
static void gaussian_column(uint64_t seed, uint64_t j, double *col, size_t n)
{
    for (size_t i = 0; i < n; i++)
        col[i] = gsvd_rng_normal(seed, GSVD_RNG_PCA_OMEGA, i, j);
}

/* Orthonormalise columns [from, to) of K (n rows) against columns [0, from) and each other:
 * block classical Gram-Schmidt against the old columns, twice (dgemm), then column by column
 * within the block, twice (and against every column, twice more, when it lost more than half
 * its norm within the block).  A column that vanishes (its span is already in the basis) is
 * replaced by a fresh Gaussian column, numbered from *fresh, and orthogonalised against
 * everything before it.  scratch holds at least to x (to - from) doubles. */
static void orthonormalise(double *k, size_t n, size_t from, size_t to, uint64_t seed,
                           uint64_t *fresh, double *scratch)
{
    size_t m = to - from;
    double *v0 = k + from * n;
    if (from > 0 && m > 0)
        for (int pass = 0; pass < 2; pass++) {
            /* C = K_old^T V (from x m); V -= K_old C */
            cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)from, (int)m, (int)n, 1.0, k,
                        (int)n, v0, (int)n, 0.0, scratch, (int)from);
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)m, (int)from, -1.0,
                        k, (int)n, scratch, (int)from, 1.0, v0, (int)n);
        }
    for (size_t j = from; j < to; j++) {
        double *v = k + j * n;
        for (int attempt = 0; attempt < 4; attempt++) {
            double before = sqrt(dot(v, v, n)), after;
            size_t lo = attempt == 0 ? from : 0; /* a fresh column meets the whole basis */
            for (int pass = 0; pass < 2; pass++)
                for (size_t i = lo; i < j; i++)
                    cblas_daxpy((int)n, -dot(k + i * n, v, n), k + i * n, 1, v, 1);
            after = sqrt(dot(v, v, n));
            /* a column that lost much of its norm within the block carries the rounding of
               those subtractions (eps * before) along the old columns too, which the
               normalisation would magnify by before / after (to ~1e-9 of U's orthonormality
               on a 24-sample store where the basis fills the space): again against all */
            if (lo > 0 && after < 0.5 * before) {
                for (int pass = 0; pass < 2; pass++)
                    for (size_t i = 0; i < j; i++)
                        cblas_daxpy((int)n, -dot(k + i * n, v, n), k + i * n, 1, v, 1);
                after = sqrt(dot(v, v, n));
            }
            if (after > 1e-10 * before && after > 1e-300) {
                cblas_dscal((int)n, 1.0 / after, v, 1);
                break;
            }
            gaussian_column(seed, (*fresh)++, v, n);
        }
    }
}

/* Row-major n x c copy of columns [c0, c0 + c) of the column-major matrix k. */
static void to_row_major(const double *k, size_t n, size_t c0, size_t c, double *x)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < c; j++)
            x[i * c + j] = k[(c0 + j) * n + i];
}

static void from_row_major(const double *x, size_t n, size_t c, double *k, size_t c0)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < c; j++)
            k[(c0 + j) * n + i] = x[i * c + j];
}

/* out (n x r, column-major) = K (n x b) * W[:, cols] where W is b x b row-major (eigenvectors in
 * columns) and cols lists r column indices; wsel: b x r scratch. */
static void combine(const double *k, size_t n, size_t b, const double *w, const size_t *cols,
                    size_t r, double *out, double *wsel)
{
    for (size_t q = 0; q < r; q++)
        for (size_t j = 0; j < b; j++)
            wsel[q * b + j] = w[j * b + cols[q]];
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)r, (int)b, 1.0, k, (int)n,
                wsel, (int)b, 0.0, out, (int)n);
}

/* 1 - MEV between orthonormal n x k column sets a and b; c: k x k scratch. */
static double one_minus_mev(const double *a, const double *b, size_t n, size_t k, double *c)
{
    double mev = 0;
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)k, (int)k, (int)n, 1.0, a, (int)n, b,
                (int)n, 0.0, c, (int)k);
    for (size_t i = 0; i < k; i++) {
        double s2 = 0;
        for (size_t j = 0; j < k; j++)
            s2 += c[i * k + j] * c[i * k + j];
        mev += sqrt(s2);
    }
    double r = 1 - mev / (double)k;
    return r > 0 ? r : 0;
}

/* ---- the iterative solver ------------------------------------------------------------------ */

/* error estimates (estimates()): passes of Ritz values kept, and the largest rate trusted */
#define EST_PASSES 4
#define EST_RHO_MAX 0.95

void gsvd_pca_solver_free(struct pca_solver *s)
{
    gsvd_free(s->K);
    gsvd_free(s->Y);
    gsvd_free(s->H);
    gsvd_free(s->S);
    gsvd_free(s->w);
    gsvd_free(s->X);
    gsvd_free(s->Yrow);
    gsvd_free(s->U);
    gsvd_free(s->Uprev);
    gsvd_free(s->tmp);
    gsvd_free(s->small);
    gsvd_free(s->order);
    gsvd_free(s->theta);
    gsvd_free(s->resid);
    gsvd_free(s->bound);
    gsvd_free(s->estimate);
    gsvd_free(s->hist);
}

int gsvd_pca_solver_alloc(struct pca_solver *s)
{
    size_t ncap, cc;
    if (gsvd_mul_size(s->n, s->cap < 2 ? 2 : s->cap, &ncap) < 0 ||
        gsvd_mul_size(s->cap, s->cap, &cc) < 0)
        return GSVD_EINVAL;
    s->K = gsvd_calloc(ncap, sizeof *s->K);
    s->Y = gsvd_calloc(ncap, sizeof *s->Y);
    s->tmp = gsvd_calloc(ncap, sizeof *s->tmp);
    s->H = gsvd_malloc(cc * sizeof *s->H);
    s->S = gsvd_malloc(cc * sizeof *s->S);
    s->small = gsvd_malloc(cc * sizeof *s->small);
    s->w = gsvd_malloc(s->cap * sizeof *s->w);
    s->X = gsvd_malloc(s->n * s->l * sizeof *s->X);
    s->Yrow = gsvd_malloc(s->n * s->l * sizeof *s->Yrow);
    s->U = gsvd_calloc(s->n * s->k, sizeof *s->U);
    s->Uprev = gsvd_calloc(s->n * s->k, sizeof *s->Uprev);
    s->order = gsvd_malloc(s->cap * sizeof *s->order);
    s->theta = gsvd_malloc(s->cap * sizeof *s->theta);
    s->resid = gsvd_malloc(s->k * sizeof *s->resid);
    s->bound = gsvd_malloc(s->k * sizeof *s->bound);
    s->estimate = gsvd_malloc(s->k * sizeof *s->estimate);
    s->hist = gsvd_malloc(EST_PASSES * s->k * sizeof *s->hist);
    if (!s->K || !s->Y || !s->tmp || !s->H || !s->S || !s->small || !s->w || !s->X || !s->Yrow ||
        !s->U || !s->Uprev || !s->order || !s->theta || !s->resid || !s->bound || !s->estimate ||
        !s->hist)
        return GSVD_ENOMEM;
    return GSVD_OK;
}

/* Rayleigh-Ritz on the first b columns: theta/order (descending) and H = eigenvectors.
 * K^T Y is kept in S between passes: only the rows and columns of the columns past s->sv
 * (the newest block, or everything after a restart) are computed, so a pass of a growing
 * basis costs 2 n b l flops here, not n b^2. */
static int rayleigh_ritz(struct pca_solver *s)
{
    size_t b = s->b, n = s->n, cap = s->cap, from = s->sv < b ? s->sv : b, w = b - from;
    double *S = s->S;
    int rc;
    if (w > 0) /* S(0:b, from:b) = K^T Y_new; S(from:b, 0:from) = K_new^T Y_old */
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)b, (int)w, (int)n, 1.0, s->K,
                    (int)n, s->Y + from * n, (int)n, 0.0, S + from * cap, (int)cap);
    if (w > 0 && from > 0)
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)w, (int)from, (int)n, 1.0,
                    s->K + from * n, (int)n, s->Y, (int)n, 0.0, S + from, (int)cap);
    s->sv = b;
    /* symmetrised (A is symmetric; rounding is not) */
    for (size_t i = 0; i < b; i++)
        for (size_t j = i; j < b; j++)
            s->H[i * b + j] = s->H[j * b + i] = 0.5 * (S[i + j * cap] + S[j + i * cap]);
    rc = gsvd_backend_eigh(s->be, b, s->H, s->w);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < b; i++) {
        s->order[i] = b - 1 - i; /* eigh returns ascending */
        s->theta[i] = s->w[b - 1 - i];
    }
    return GSVD_OK;
}

/* Residual norms ||A u - theta u|| of the top k Ritz pairs (U already combined) and the
 * relative error bounds of their singular values sqrt(theta).  With r_i the residual, an eigenvalue
 * of A lies within r_i of theta_i; when theta_i is separated from the other Ritz values by more
 * than the residuals (gap_i = distance to the nearest neighbour's interval), the quadratic bound
 * r_i^2 / gap_i holds too.  Returns the largest relative residual r_i / theta_i. */
static double residuals(struct pca_solver *s)
{
    size_t n = s->n, k = s->k;
    double *yu = s->tmp, worst = 0;
    combine(s->Y, n, s->b, s->H, s->order, k, yu, s->small);
    for (size_t q = 0; q < k; q++) {
        double th = s->theta[q], r2 = 0;
        const double *u = s->U + q * n, *y = yu + q * n;
        for (size_t i = 0; i < n; i++) {
            double d = y[i] - th * u[i];
            r2 += d * d;
        }
        s->resid[q] = sqrt(r2);
    }
    for (size_t q = 0; q < k; q++) {
        double th = s->theta[q], r = s->resid[q], gap = INFINITY, err = r;
        /* neighbours: the Ritz values above and below (q + 1 exists: b > k), with their own
         * residual intervals; the lower neighbour's residual is estimated by its own */
        if (q > 0)
            gap = fmin(gap, (s->theta[q - 1] - s->resid[q - 1]) - (th + r));
        if (q + 1 < s->b) {
            double rn = q + 1 < k ? s->resid[q + 1] : r;
            gap = fmin(gap, (th - r) - (s->theta[q + 1] + rn));
        }
        if (gap > 0 && r * r / gap < err)
            err = r * r / gap;
        /* theta <= lambda <= theta + err, so s = sqrt(lambda) is within sqrt(1 + err/theta) - 1
         * of sqrt(theta), relatively (written so that tiny bounds do not cancel) */
        s->bound[q] = th > 0 ? (err / th) / (sqrt(1 + err / th) + 1) : INFINITY;
        if (th > 0 && r / th > worst)
            worst = r / th;
        else if (!(th > 0))
            worst = INFINITY;
    }
    return worst;
}

/* Extrapolated relative errors of the top-k singular values (estimates, not bounds; the
 * bounds come first, so an estimate never exceeds its bound).  Each Ritz value rises towards
 * its eigenvalue pass by pass (the basis grows, and a restart keeps the leading Ritz
 * vectors), and once the basis holds its neighbourhood the rise shrinks by a nearly constant
 * factor rho a pass: what is left is then d rho / (1 - rho), d the last rise.  rho is the
 * largest of the last three ratios of rises (convergence in a Marchenko-Pastur bulk slows and
 * speeds up by turns).  None (the bound alone) before EST_PASSES + 1 passes, after a value
 * fell (a restart, or rounding once converged) or with rho >= EST_RHO_MAX. */
void gsvd_pca_solver_extrapolate(struct pca_solver *s)
{
    size_t k = s->k;
    double *h = s->hist;
    for (size_t q = 0; q < k; q++) {
        double th = s->theta[q], e = INFINITY;
        if (s->n_hist == EST_PASSES && th > 0) {
            double d[EST_PASSES], rho = 0;
            int ok = 1;
            d[0] = th - h[q];
            for (size_t j = 1; j < EST_PASSES; j++)
                d[j] = h[(j - 1) * k + q] - h[j * k + q];
            for (size_t j = 0; j < EST_PASSES && ok; j++)
                ok = d[j] > 0;
            for (size_t j = 0; j + 1 < EST_PASSES && ok; j++)
                rho = fmax(rho, d[j] / d[j + 1]);
            if (ok && rho < EST_RHO_MAX) {
                double rise = d[0] * rho / (1 - rho);
                e = (rise / th) / (sqrt(1 + rise / th) + 1); /* as the bound's */
            }
        }
        s->estimate[q] = fmin(e, s->bound[q]);
    }
    memmove(h + k, h, (EST_PASSES - 1) * k * sizeof *h);
    memcpy(h, s->theta, k * sizeof *h);
    if (s->n_hist < EST_PASSES)
        s->n_hist++;
}

/* ---- the loop ---------------------------------------------------------------------------- */

int gsvd_pca_solver_run(struct pca_solver *s, const struct pca_operator *op, void *ctx,
                        struct gsvd_pca_result *res)
{
    const struct gsvd_pca_params *p = s->p;
    size_t n = s->n, l = s->l, last = 0, it;
    double conv = 1, bnd = INFINITY, est = INFINITY;
    int rc = GSVD_OK, done = 0;

    /* start: l Gaussian columns */
    for (size_t j = 0; j < l; j++)
        gaussian_column(p->seed, j, s->K + j * n, n);
    s->fresh = l;
    orthonormalise(s->K, n, 0, l, p->seed, &s->fresh, s->small);
    s->b = l;
    for (it = 1;; it++) {
        size_t width = s->b - last;
        char what[32];
        if (gsvd_scope_cancelled()) { /* the caller asked to stop: between passes */
            rc = GSVD_ECANCELED;
            goto out;
        }
        snprintf(what, sizeof what, "pass %zu", it);
        to_row_major(s->K, n, last, width, s->X);
        double t0 = gsvd_pca_seconds_now();
        GSVD_TRY(op->apply(ctx, s, width, it, what, res));
        from_row_major(s->Yrow, n, width, s->Y, last);
        GSVD_TRY(rayleigh_ritz(s));
        memcpy(s->Uprev, s->U, n * s->k * sizeof *s->U);
        combine(s->K, n, s->b, s->H, s->order, s->k, s->U, s->small);
        conv = it > 1 ? one_minus_mev(s->Uprev, s->U, n, s->k, s->small) : 1;
        res->max_residual = residuals(s);
        bnd = gsvd_pca_max_of(s->bound, s->k);
        op->estimate(ctx, s);
        est = gsvd_pca_max_of(s->estimate, s->k);
        op->report(ctx, s, it, gsvd_pca_seconds_now() - t0, conv, bnd, est);
        if (gsvd_log_get_level() >= GSVD_LOG_DEBUG) {
            char line[1024];
            size_t o = 0;
            for (size_t q = 0; q < s->k && o + 32 < sizeof line; q++)
                o += (size_t)snprintf(line + o, sizeof line - o, " %.12g",
                                      sqrt(fmax(s->theta[q], 0)));
            gsvd_log_debug("pass %zu singular values:%s", it, line);
        }
        done = op->done(ctx, s, it, conv, bnd, est);
        if (done)
            break;
        if (it >= s->max_iter || s->b >= n)
            break; /* s->b >= n: the basis spans every sample direction, so it is exact */
        /* next block: the newest images, orthogonalised against the basis */
        if (p->method == GSVD_PCA_SUBSPACE) {
            memcpy(s->K, s->Y + last * n, width * n * sizeof *s->K);
            s->b = width;
            s->sv = 0;
            last = 0;
            orthonormalise(s->K, n, 0, width, p->seed, &s->fresh, s->small);
            continue;
        }
        /* the residuals A u - theta u of the leading Ritz pairs are the new Krylov directions
         * (without a restart they span the same block as A Q_last); after a thick restart
         * they keep the iteration a Krylov method on the kept Ritz vectors */
        size_t add = s->l, ncols = s->b;
        if (add > ncols)
            add = ncols;
        double *rblk = s->Yrow; /* n x add, column-major here */
        combine(s->K, n, ncols, s->H, s->order, add, s->tmp, s->small);
        combine(s->Y, n, ncols, s->H, s->order, add, rblk, s->small);
        for (size_t q = 0; q < add; q++)
            cblas_daxpy((int)n, -s->theta[q], s->tmp + q * n, 1, rblk + q * n, 1);
        if (s->b + add > s->cap) {
            /* thick restart: keep the leading Ritz vectors and their exact images */
            size_t keep = s->cap > add + s->k ? s->cap - add : s->k;
            combine(s->K, n, s->b, s->H, s->order, keep, s->tmp, s->small);
            memcpy(s->K, s->tmp, keep * n * sizeof *s->K);
            combine(s->Y, n, s->b, s->H, s->order, keep, s->tmp, s->small);
            memcpy(s->Y, s->tmp, keep * n * sizeof *s->Y);
            s->b = keep;
            s->sv = 0;
            if (s->b + add > s->cap)
                add = s->cap - s->b;
        }
        if (s->b + add > n)
            add = n - s->b;
        memcpy(s->K + s->b * n, rblk, add * n * sizeof *s->K);
        last = s->b;
        orthonormalise(s->K, n, s->b, s->b + add, p->seed, &s->fresh, s->small);
        s->b += add;
    }
    res->iterations = it;
    res->convergence = conv;
    memcpy(res->error_bound, s->bound, s->k * sizeof *s->bound);
    memcpy(res->error_estimate, s->estimate, s->k * sizeof *s->estimate);
    op->finish(ctx, s, it, done, bnd, est, res);
out:
    return rc;
}
