/* analysis/pca/pca.c - backend-agnostic PCA driver.
 *
 * Iterative methods keep a basis K (n x b, orthonormal columns, column-major) on the sample
 * side together with Y = A K for A = Z^T Z, where every column of Y came out of one pass over
 * the data (Y = Z^T (Z X) block by block on the backend).  Rayleigh-Ritz on span(K) needs only
 * H = K^T Y, so each iteration costs exactly one pass:
 *   pass:    Y_new = A Q_last                         (Q_last: the newest block of K)
 *   RR:      H = K^T Y, eigh(H) -> theta, W; Ritz vectors K W, residuals Y W - K W theta
 *   extend:  Q_next = orthonormalise(Y_new against K)  (block Krylov step)
 *   restart: when K is full, K <- K W_top, Y <- Y W_top (exact: Y stays A K)
 * Subspace iteration is the same with K replaced by orthonormalise(Y_new) every pass.
 * Eigenvalues of A are s^2; Ritz vectors are the sample vectors U. */
#include "gsvd_config.h"
#include "analysis/pca/pca.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cblas.h>
#include <lapacke.h>

#include "analysis/cpu/blas_room.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/parallel.h"
#include "common/rng.h"
#include "common/scope.h"
#include "analysis/pca/pca_internal.h"

void gsvd_pca_result_free(struct gsvd_pca_result *r)
{
    if (!r)
        return;
    gsvd_free(r->s);
    gsvd_free(r->u);
    gsvd_free(r->error_bound);
    gsvd_free(r->error_estimate);
    gsvd_free(r->v);
    gsvd_free(r->var_mean);
    gsvd_free(r->var_scale);
    gsvd_free(r->var_included);
    gsvd_free(r);
}

/* ---- passes over the data ---------------------------------------------------------------- */

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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
 * within the block, twice.  A column that vanishes (its span is already in the basis) is
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

struct solver {
    gsvd_geno *g;     /* the data (one pass per product), or NULL when G is set */
    const double *G;  /* n x n Gram in memory (exact method), or NULL */
    size_t n_threads; /* threads for the in-memory products */
    double tol;       /* bound tolerance (the Gram solve uses its own) */
    size_t max_iter;
    gsvd_backend *be;
    const struct gsvd_pca_params *p;
    size_t n, k, l, cap; /* samples, components, block width, basis capacity (columns) */
    size_t b;            /* basis columns in use */
    double *K, *Y;       /* n x cap column-major */
    double *H, *w;       /* cap x cap, cap */
    double *S;           /* cap x cap (leading dimension cap): S(i, j) = K_i^T Y_j */
    size_t sv;           /* S holds the columns and rows [0, sv) of the current K and Y */
    double *X, *Yrow;    /* n x l row-major pass buffers */
    double *U, *Uprev;   /* n x k Ritz vectors (column-major) */
    double *tmp;         /* n x cap scratch */
    double *small;       /* cap x cap scratch */
    size_t *order;       /* Ritz indices, largest first */
    double *theta;       /* Ritz values, largest first */
    double *resid;       /* k: ||A u - theta u|| */
    double *bound;       /* k: relative singular value error bounds */
    double *estimate;    /* k: extrapolated relative singular value errors (estimates()) */
    double *hist;    /* EST_PASSES x k: the top-k Ritz values of the last passes, newest first */
    size_t n_hist;   /* rows of hist filled */
    uint64_t fresh;  /* next Gaussian column number */
    int *told;       /* a failure was shared with the other ranks (agree) */
    double *lo;      /* with a communicator: n x l low parts of a pass, allocated once */
    uint64_t *kept;  /* with a communicator of 2+ ranks: kept rows per Gram group (pass 1) */
    size_t n_groups; /* entries of kept */
};

static void solver_free(struct solver *s)
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
    gsvd_free(s->lo);
    gsvd_free(s->kept);
}

static int solver_alloc(struct solver *s)
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
    if (s->g && s->p->comm) {
        s->lo = gsvd_malloc(s->n * s->l * sizeof *s->lo);
        if (!s->lo)
            return GSVD_ENOMEM;
    }
    if (s->g && gsvd_comm_size(s->p->comm) > 1) {
        uint64_t vs, ve, G = gsvd_backend_gram_group_rows(s->n);
        gsvd_geno_open_range(s->g, &vs, &ve);
        s->n_groups = ve > vs ? (size_t)((ve - 1) / G - vs / G + 1) : 0;
        s->kept = gsvd_calloc(s->n_groups + 1, sizeof *s->kept);
        if (!s->kept)
            return GSVD_ENOMEM;
    }
    return GSVD_OK;
}

/* Y (n x c row-major) = A X (X row-major n x c) in one pass; with a communicator, every rank
 * passes over its own variants and the exact parts of Y (and of the trace) are summed.  With
 * `count` (pass 1 of 2+ ranks) the kept rows per Gram group are counted into s->kept. */
static int apply_a(struct solver *s, size_t c, double *sumsq, int count, const char *what)
{
    const struct gsvd_pca_params *p = s->p;
    size_t n = s->n;
    int rc = GSVD_OK;
    double tr[2] = {0, 0}, *y = s->Yrow;
    uint64_t vs, ve;
    struct pass_ctx pc = {.be = s->be,
                          .sumsq = sumsq,
                          .progress = &p->progress,
                          .what = what,
                          .n_blocks = gsvd_geno_n_blocks(s->g)};

    if (count && s->kept) {
        gsvd_geno_open_range(s->g, &vs, &ve);
        pc.group_rows = gsvd_backend_gram_group_rows(n);
        pc.group_first = vs / pc.group_rows;
        pc.group_kept = s->kept;
    }
    if (sumsq)
        *sumsq = 0;
    rc = gsvd_backend_pass_begin(s->be, n, c, s->X);
    if (rc == GSVD_OK)
        rc = gsvd_geno_scan(s->g, pass_cb, &pc);
    if (!p->comm) {
        if (rc == GSVD_OK)
            rc = gsvd_backend_pass_end(s->be, y);
        return rc;
    }
    if (rc == GSVD_OK)
        rc = gsvd_backend_pass_end_parts(s->be, y, s->lo, sumsq ? tr : NULL);
    double t0 = seconds_now();
    GSVD_TRY(gsvd_pca_agree(p, rc, s->told));
    GSVD_TRY(gsvd_pca_sum_parts(p->comm, y, s->lo, n * c));
    if (sumsq) {
        GSVD_TRY(gsvd_pca_sum_parts(p->comm, tr, tr + 1, 1));
        *sumsq = tr[0];
    }
    gsvd_log_info("%s: exchange of %zu bytes per rank (the exact parts of Y) in %.3f s "
                  "(waiting for the slowest rank included)",
                  what, 2 * n * c * sizeof *y, seconds_now() - t0);
out:
    return rc;
}

/* Rayleigh-Ritz on the first b columns: theta/order (descending) and H = eigenvectors.
 * K^T Y is kept in S between passes: only the rows and columns of the columns past s->sv
 * (the newest block, or everything after a restart) are computed, so a pass of a growing
 * basis costs 2 n b l flops here, not n b^2. */
static int rayleigh_ritz(struct solver *s)
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
static double residuals(struct solver *s)
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

static double max_of(const double *v, size_t k)
{
    double m = 0;
    for (size_t q = 0; q < k; q++)
        m = fmax(m, v[q]);
    return m;
}

/* Extrapolated relative errors of the top-k singular values (estimates, not bounds; the
 * bounds come first, so an estimate never exceeds its bound).  Each Ritz value rises towards
 * its eigenvalue pass by pass (the basis grows, and a restart keeps the leading Ritz
 * vectors), and once the basis holds its neighbourhood the rise shrinks by a nearly constant
 * factor rho a pass: what is left is then d rho / (1 - rho), d the last rise.  rho is the
 * largest of the last three ratios of rises (convergence in a Marchenko-Pastur bulk slows and
 * speeds up by turns).  None (the bound alone) before EST_PASSES + 1 passes, after a value
 * fell (a restart, or rounding once converged) or with rho >= EST_RHO_MAX. */
static void estimates(struct solver *s)
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

/* Y = G X for the in-memory Gram (both n x width, row-major s->X / s->Yrow): rows of Y in
 * fixed tiles, one dgemm each, spread over the threads; a tile's rows come out the same
 * whichever thread computes them. */
#define GRAM_ROW_TILE 256

struct gram_prod {
    const struct solver *s;
    size_t width, n_tiles, n_shares;
};

static int gram_prod_share(void *ctx, size_t t)
{
    const struct gram_prod *gp = ctx;
    const struct solver *s = gp->s;
    size_t n = s->n, c = gp->width;
    for (size_t tile = t; tile < gp->n_tiles; tile += gp->n_shares) {
        size_t r0 = tile * GRAM_ROW_TILE, rows = n - r0 < GRAM_ROW_TILE ? n - r0 : GRAM_ROW_TILE;
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)c, (int)n, 1.0,
                    s->G + r0 * n, (int)n, s->X, (int)c, 0.0, s->Yrow + r0 * c, (int)c);
    }
    return GSVD_OK;
}

static int gram_product(struct solver *s, size_t width)
{
    struct gram_prod gp = {.s = s, .width = width};
    gp.n_tiles = (s->n + GRAM_ROW_TILE - 1) / GRAM_ROW_TILE;
    gp.n_shares = s->n_threads < 1 ? 1 : s->n_threads;
    if (gp.n_shares > gp.n_tiles)
        gp.n_shares = gp.n_tiles;
    return gsvd_blas_parallel(gp.n_shares, gram_prod_share, &gp);
}

static int run_iterative(struct solver *s, struct gsvd_pca_result *res)
{
    const struct gsvd_pca_params *p = s->p;
    size_t n = s->n, l = s->l, last = 0, it;
    double conv = 1, trace = 0, bnd = INFINITY, est = INFINITY;
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
        double t0 = seconds_now();
        if (s->G)
            GSVD_TRY(gram_product(s, width));
        else
            GSVD_TRY(apply_a(s, width, it == 1 ? &trace : NULL, it == 1, what));
        if (it == 1 && !s->G) {
            res->trace = trace;
            res->counts = *gsvd_geno_counts(s->g);
            GSVD_TRY(gsvd_pca_sum_counts(p->comm, &res->counts));
            if (res->counts.n_kept == 0) {
                gsvd_log_error("%s: no variant left to analyse (%llu without calls, %llu with "
                               "zero variance, %llu by --maf, %llu by --max-missing)",
                               gsvd_geno_array_name(s->g),
                               (unsigned long long)res->counts.n_no_calls,
                               (unsigned long long)res->counts.n_zero_var,
                               (unsigned long long)res->counts.n_maf,
                               (unsigned long long)res->counts.n_missing);
                rc = GSVD_EDEGENERATE;
                goto out;
            }
            if (s->kept) /* the next passes: parts balanced by kept variants */
                GSVD_TRY(gsvd_pca_rebalance(p, s->g, s->kept, s->n_groups, s->told));
        }
        from_row_major(s->Yrow, n, width, s->Y, last);
        GSVD_TRY(rayleigh_ritz(s));
        memcpy(s->Uprev, s->U, n * s->k * sizeof *s->U);
        combine(s->K, n, s->b, s->H, s->order, s->k, s->U, s->small);
        conv = it > 1 ? one_minus_mev(s->Uprev, s->U, n, s->k, s->small) : 1;
        res->max_residual = residuals(s);
        bnd = max_of(s->bound, s->k);
        if (!s->G)
            estimates(s);
        est = max_of(s->estimate, s->k);
        if (s->G)
            gsvd_log_debug("Gram iteration %zu: basis %zu, max singular value error bound %.3g", it,
                           s->b, bnd);
        else
            gsvd_log_info("pass %zu (%.2f s): basis %zu, max singular value error bound %.3g "
                          "(estimate %.3g), 1-MEV %.3g, s1 %.6g, s%zu %.6g",
                          it, seconds_now() - t0, s->b, bnd, est, conv, sqrt(fmax(s->theta[0], 0)),
                          s->k, sqrt(fmax(s->theta[s->k - 1], 0)));
        if (gsvd_log_get_level() >= GSVD_LOG_DEBUG) {
            char line[1024];
            size_t o = 0;
            for (size_t q = 0; q < s->k && o + 32 < sizeof line; q++)
                o += (size_t)snprintf(line + o, sizeof line - o, " %.12g",
                                      sqrt(fmax(s->theta[q], 0)));
            gsvd_log_debug("pass %zu singular values:%s", it, line);
        }
        if (p->power_iter && !s->G) {
            done = it >= p->power_iter;
        } else if (p->stop == GSVD_PCA_STOP_SUBSPACE && !s->G) {
            done = it >= 2 && conv < s->tol;
        } else if (p->stop == GSVD_PCA_STOP_ESTIMATE && !s->G) {
            done = est <= s->tol;
        } else {
            done = bnd <= s->tol;
        }
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
    res->converged = p->power_iter && !s->G ? -1 : done || s->b >= n;
    memcpy(res->error_bound, s->bound, s->k * sizeof *s->bound);
    memcpy(res->error_estimate, s->G ? s->bound : s->estimate, s->k * sizeof *s->bound);
    if (s->G && !res->converged)
        gsvd_log_warn("exact: the top-%zu eigensolver of the Gram matrix stopped after %zu "
                      "iterations with a singular value error bound of %.3g",
                      s->k, it, bnd);
    else if (!res->converged) {
        size_t met = 0;
        int by_est = p->stop == GSVD_PCA_STOP_ESTIMATE;
        for (size_t q = 0; q < s->k; q++)
            met += (by_est ? s->estimate[q] : s->bound[q]) <= s->tol;
        gsvd_log_warn("stopped after %zu passes (--max-iter) with %zu of %zu components within "
                      "--tol %.3g (largest singular value error bound %.3g, estimate %.3g)",
                      it, met, s->k, s->tol, bnd, est);
    }
out:
    return rc;
}

/* ---- exact --------------------------------------------------------------------------------- */

/* Top-k eigenpairs of the in-memory Gram g (n x n, overwritten) into the solver-shaped
 * outputs: values descending in theta[0..k), unit vectors in the columns of u (n x k,
 * column-major).  Small orders: LAPACK dsyevr for the index range n-k+1..n only.  Larger ones:
 * the block Krylov solver on G in memory (a product costs 2 n^2 l flops, no pass over the
 * data), run to an eigenvalue error bound of GSVD_PCA_GRAM_TOL. */
#define GSVD_PCA_GRAM_TOL 1e-12

static int gram_top_k(const struct gsvd_pca_params *p, gsvd_backend *be, size_t n, size_t k,
                      double *g, double *theta, double *u, struct gsvd_pca_result *res)
{
    int rc = GSVD_OK;
    if (n <= GSVD_PCA_DENSE_EIG_N)
        return gsvd_pca_gram_eig_dense(n, k, g, theta, u);
    struct solver s = {.G = g,
                       .be = be,
                       .p = p,
                       .n = n,
                       .k = k,
                       .n_threads = p->n_threads,
                       .tol = GSVD_PCA_GRAM_TOL,
                       .max_iter = 100000};
    struct gsvd_pca_result tmp = {.error_bound = res->error_bound,
                                  .error_estimate = res->error_estimate};
    s.l = k + (k > 10 ? k : 10);
    s.cap = s.l * 8;
    if (s.l > n)
        s.l = n;
    if (s.cap > n)
        s.cap = n;
    GSVD_TRY(solver_alloc(&s));
    GSVD_TRY(run_iterative(&s, &tmp));
    memcpy(theta, s.theta, k * sizeof *theta);
    memcpy(u, s.U, n * k * sizeof *u);
    gsvd_log_info("exact: top-%zu eigenpairs of the Gram matrix in %zu block Krylov iterations "
                  "(singular value error bound %.3g)",
                  k, tmp.iterations, max_of(s.bound, s.k));
out:
    solver_free(&s);
    return rc;
}

/* auto's Gram may take the backend's fast kernel (the CPU's int8 tiles) when the product is
 * large enough to matter (GSVD_PCA_FAST_GRAM_WORK) and its singular value bound is within
 * --tol; the ranks of a distributed run agree, so that they all run the same kernel. */
static int pick_fast_gram(gsvd_geno *g, gsvd_backend *be, const struct gsvd_pca_params *p, size_t n)
{
    uint64_t m = p->comm ? p->n_variants_all : gsvd_geno_n_variants(g), ok = 0;
    double err = 0;
    int rc = GSVD_OK;

    if (p->method == GSVD_PCA_AUTO && (double)m * (double)n * (double)n >= GSVD_PCA_FAST_GRAM_WORK)
        err = gsvd_backend_gram_fast(be, 1);
    ok = err > 0 && 1 - sqrt(1 - err) <= p->tol;
    if (p->comm)
        GSVD_TRY(gsvd_comm_sum_u64(p->comm, &ok, 1));
    if (ok != (p->comm ? (uint64_t)gsvd_comm_size(p->comm) : 1))
        gsvd_backend_gram_fast(be, 0);
out:
    return rc;
}

static int run_exact(gsvd_geno *g, gsvd_backend *be, const struct gsvd_pca_params *p, size_t n,
                     size_t k, struct gsvd_pca_result *res, double *theta, double *u, int *told)
{
    int rc = GSVD_OK;
    double *gram = NULL, err;

    GSVD_TRY(pick_fast_gram(g, be, p, n));
    GSVD_TRY(gsvd_pca_gram(g, be, p, n, res, &gram, told));
    GSVD_TRY(gram_top_k(p, be, n, k, gram, theta, u, res));
    res->iterations = 1;
    res->convergence = 0;
    res->converged = 1;
    /* an inexact Gram kernel: eigenvalues within (1 +- err) of Z^T Z's */
    err = gsvd_backend_gram_error(be);
    res->gram_error = err;
    for (size_t q = 0; q < k; q++)
        res->error_bound[q] = res->error_estimate[q] = err > 0 ? 1 - sqrt(1 - err) : 0;
out:
    gsvd_free(gram);
    return rc;
}

/* ---- driver -------------------------------------------------------------------------------- */

/* Copy the top k eigenpairs (values descending, vectors in the columns of the column-major
 * n x k vecs) into the result (U row-major), check rank, apply the sign rule. */
static int finish(struct gsvd_pca_result *r, const double *vecs, const double *vals, size_t n,
                  size_t k)
{
    for (size_t q = 0; q < k; q++) {
        double th = vals[q];
        if (!(th > 1e-10 * fmax(vals[0], 1e-300))) {
            gsvd_log_error("the data have only %zu nonzero eigenvalues; ask for at most %zu "
                           "components",
                           q, q);
            return GSVD_EDEGENERATE;
        }
        r->s[q] = sqrt(th);
        double big = 0;
        size_t at = 0;
        for (size_t i = 0; i < n; i++) {
            double x = vecs[q * n + i];
            r->u[i * k + q] = x;
            if (fabs(x) > big) {
                big = fabs(x);
                at = i;
            }
        }
        if (r->u[at * k + q] < 0)
            for (size_t i = 0; i < n; i++)
                r->u[i * k + q] = -r->u[i * k + q];
    }
    return GSVD_OK;
}

int gsvd_pca_run(gsvd_geno *g, gsvd_backend *be, const struct gsvd_pca_params *p,
                 struct gsvd_pca_result **out)
{
    int rc = GSVD_OK;
    struct gsvd_pca_result *r = NULL;
    struct solver s = {0};
    double *evec = NULL, *eval = NULL;
    size_t n = gsvd_geno_n_samples(g), k = p->n_components;
    enum gsvd_pca_method method = p->method;
    int told = 0;

    *out = NULL;
    if (method == GSVD_PCA_AUTO)
        method = n <= GSVD_PCA_AUTO_EXACT_N ? GSVD_PCA_EXACT : GSVD_PCA_RANDOMIZED;
    if (method == GSVD_PCA_EXACT && !p->loadings)
        gsvd_geno_set_cache(g, 0); /* a single pass: keeping the blocks would only cost time */
    if (k == 0 || k >= n) {
        gsvd_log_error("%zu components requested for %zu samples (need 1 <= k < samples)", k, n);
        return GSVD_EINVAL; /* (the same on every rank: nothing to agree on) */
    }
    if (method == GSVD_PCA_EXACT && n > GSVD_PCA_EXACT_MAX_N) {
        gsvd_log_error("--method exact needs an N x N matrix; %zu samples is over the %d limit "
                       "(use the default randomized method)",
                       n, GSVD_PCA_EXACT_MAX_N);
        return GSVD_EINVAL;
    }
    /* exact, order-free reductions where the data have a bound (integer genotypes): the bytes
     * then do not depend on how rows are split between threads, blocks or processes */
    struct gsvd_zbound zb;
    uint64_t rows = p->comm ? p->n_variants_all : gsvd_geno_n_variants(g);
    int bounded = gsvd_geno_zbound(g, rows, &zb) == GSVD_OK;
    rc = gsvd_backend_set_bound(be, bounded ? &zb : NULL);
    if (rc == GSVD_EUNSUPPORTED && p->comm && gsvd_comm_size(p->comm) > 1) {
        gsvd_log_error("a distributed run needs the %s backend's exact reductions, which it "
                       "does not have; run it as one process",
                       gsvd_backend_name(be));
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    if (!bounded && p->comm && gsvd_comm_size(p->comm) > 1) {
        gsvd_log_error("%s: float input has no bound for exact reductions; a distributed run "
                       "needs integer genotypes (run it as one process)",
                       gsvd_geno_array_name(g));
        rc = GSVD_EUNSUPPORTED;
        goto out;
    }
    rc = GSVD_OK;
    r = gsvd_calloc(1, sizeof *r);
    if (!r) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    r->k = k;
    r->n = n;
    r->method = method;
    r->m_range = gsvd_geno_n_variants(g);
    r->s = gsvd_malloc(k * sizeof *r->s);
    r->u = gsvd_malloc(n * k * sizeof *r->u);
    r->error_bound = gsvd_calloc(k, sizeof *r->error_bound);
    r->error_estimate = gsvd_calloc(k, sizeof *r->error_estimate);
    if (!r->s || !r->u || !r->error_bound || !r->error_estimate) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (method == GSVD_PCA_EXACT) {
        evec = gsvd_malloc(n * k * sizeof *evec);
        eval = gsvd_malloc(k * sizeof *eval);
        if (!evec || !eval) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        GSVD_TRY(run_exact(g, be, p, n, k, r, eval, evec, &told));
        GSVD_TRY(finish(r, evec, eval, n, k));
    } else {
        s.tol = p->tol;
        s.max_iter = p->max_iter;
        s.n_threads = p->n_threads;
        s.g = g;
        s.be = be;
        s.p = p;
        s.told = &told;
        s.n = n;
        s.k = k;
        s.l = k + p->oversampling;
        if (s.l > n)
            s.l = n;
        r->l = s.l;
        switch (method) {
        case GSVD_PCA_SUBSPACE:
            s.cap = s.l;
            break;
        case GSVD_PCA_KRYLOV:
            s.cap = s.l * ((p->power_iter ? p->power_iter : p->max_iter) + 1);
            break;
        default:
            s.cap = s.l * (p->window < 2 ? 2 : p->window);
            break;
        }
        if (s.cap > n)
            s.cap = n;
        GSVD_TRY(solver_alloc(&s));
        GSVD_TRY(run_iterative(&s, r));
        GSVD_TRY(finish(r, s.U, s.theta, n, k));
    }
    r->m_used = r->counts.n_kept;
    if (p->loadings)
        GSVD_TRY(gsvd_pca_loadings(g, be, p, r, &told));
    *out = r;
    r = NULL;
out:
    if (rc < 0 && p->comm && !told && gsvd_comm_agree(p->comm, rc, NULL) < 0) {
        /* the others waited in their next agree and now fail too; rc stays this rank's */
    }
    solver_free(&s);
    gsvd_free(evec);
    gsvd_free(eval);
    gsvd_pca_result_free(r);
    return rc;
}
