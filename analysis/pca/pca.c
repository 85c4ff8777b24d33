/* analysis/pca/pca.c - backend-agnostic PCA driver: the method's choice, the two operators the
 * iterative solver (pca_solver.c) runs on -- a pass over the data per product (the iterative
 * methods: Y = Z^T (Z X) block by block on the backend, summed over the ranks of a distributed
 * run) and the Gram in memory (the exact method's larger orders) -- and the exact method's top
 * level (pca_exact.c has its Gram pass and dense eigensolver). */
#include "gsvd_config.h"
#include "analysis/pca/pca.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cblas.h>

#include "analysis/cpu/blas_room.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/parallel.h"
#include "analysis/pca/pca_internal.h"
#include "analysis/pca/tracy_widom.h"

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
    gsvd_free(r->tw_stat);
    gsvd_free(r->tw_pvalue);
    gsvd_free(r->tw_neff);
    gsvd_free(r->gram_eig);
    gsvd_free(r);
}

/* ---- the operators --------------------------------------------------------------------- */

/* A pass over the data per product (the iterative methods). */
struct data_op {
    gsvd_geno *g;    /* the data */
    int *told;       /* a failure was shared with the other ranks (agree) */
    double *lo;      /* with a communicator: n x l low parts of a pass, allocated once */
    uint64_t *kept;  /* with a communicator of 2+ ranks: kept rows per Gram group (pass 1) */
    size_t n_groups; /* entries of kept */
};

static int data_op_alloc(struct data_op *d, const struct pca_solver *s)
{
    if (s->p->comm) {
        d->lo = gsvd_malloc(s->n * s->l * sizeof *d->lo);
        if (!d->lo)
            return GSVD_ENOMEM;
    }
    if (gsvd_comm_size(s->p->comm) > 1) {
        uint64_t vs, ve, G = gsvd_backend_gram_group_rows(s->n);
        gsvd_geno_open_range(d->g, &vs, &ve);
        d->n_groups = ve > vs ? (size_t)((ve - 1) / G - vs / G + 1) : 0;
        d->kept = gsvd_calloc(d->n_groups + 1, sizeof *d->kept);
        if (!d->kept)
            return GSVD_ENOMEM;
    }
    return GSVD_OK;
}

static void data_op_free(struct data_op *d)
{
    gsvd_free(d->lo);
    gsvd_free(d->kept);
}

/* Y (n x c row-major) = A X (X row-major n x c) in one pass; with a communicator, every rank
 * passes over its own variants and the exact parts of Y (and of the trace) are summed.  With
 * `count` (pass 1 of 2+ ranks) the kept rows per Gram group are counted into d->kept. */
static int data_pass(struct data_op *d, struct pca_solver *s, size_t c, double *sumsq, int count,
                     const char *what)
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
                          .n_variants = pass_variants(d->g)};

    if (count && d->kept) {
        gsvd_geno_open_range(d->g, &vs, &ve);
        pc.group_rows = gsvd_backend_gram_group_rows(n);
        pc.group_first = vs / pc.group_rows;
        pc.group_kept = d->kept;
    }
    if (sumsq)
        *sumsq = 0;
    rc = gsvd_backend_pass_begin(s->be, n, c, s->X);
    if (rc == GSVD_OK)
        rc = gsvd_geno_scan(d->g, pass_cb, &pc);
    if (!p->comm) {
        if (rc == GSVD_OK)
            rc = gsvd_backend_pass_end(s->be, y);
        return rc;
    }
    if (rc == GSVD_OK)
        rc = gsvd_backend_pass_end_parts(s->be, y, d->lo, sumsq ? tr : NULL);
    double t0 = gsvd_pca_seconds_now();
    GSVD_TRY(gsvd_pca_agree(p, rc, d->told));
    GSVD_TRY(gsvd_pca_sum_parts(p->comm, y, d->lo, n * c));
    if (sumsq) {
        GSVD_TRY(gsvd_pca_sum_parts(p->comm, tr, tr + 1, 1));
        *sumsq = tr[0];
    }
    gsvd_log_info("%s: exchange of %zu bytes per rank (the exact parts of Y) in %.3f s "
                  "(waiting for the slowest rank included)",
                  what, 2 * n * c * sizeof *y, gsvd_pca_seconds_now() - t0);
out:
    return rc;
}

/* The pass; after the first one, the trace and the filters' counts into res (every rank's
 * summed), a run with no variant left refused, and the ranks' parts rebalanced. */
static int data_apply(void *ctx, struct pca_solver *s, size_t width, size_t it, const char *what,
                      struct gsvd_pca_result *res)
{
    struct data_op *d = ctx;
    const struct gsvd_pca_params *p = s->p;
    double trace = 0;
    int rc = GSVD_OK;

    GSVD_TRY(data_pass(d, s, width, it == 1 ? &trace : NULL, it == 1, what));
    if (it == 1) {
        res->trace = trace;
        res->counts = *gsvd_geno_counts(d->g);
        GSVD_TRY(gsvd_pca_sum_counts(p->comm, &res->counts));
        if (res->counts.n_kept == 0) {
            gsvd_log_error(
                "%s: no variant left to analyse (%llu without calls, %llu with "
                "zero variance, %llu by --maf, %llu by --max-missing, %llu by --hwe)",
                gsvd_geno_array_name(d->g), (unsigned long long)res->counts.n_no_calls,
                (unsigned long long)res->counts.n_zero_var, (unsigned long long)res->counts.n_maf,
                (unsigned long long)res->counts.n_missing, (unsigned long long)res->counts.n_hwe);
            rc = GSVD_EDEGENERATE;
            goto out;
        }
        if (d->kept) /* the next passes: parts balanced by kept variants */
            GSVD_TRY(gsvd_pca_rebalance(p, d->g, d->kept, d->n_groups, d->told));
    }
out:
    return rc;
}

static void data_estimate(void *ctx, struct pca_solver *s)
{
    (void)ctx;
    gsvd_pca_solver_extrapolate(s);
}

static void data_report(void *ctx, const struct pca_solver *s, size_t it, double secs, double conv,
                        double bnd, double est)
{
    (void)ctx;
    gsvd_log_info("pass %zu (%.2f s): basis %zu, max singular value error bound %.3g "
                  "(estimate %.3g), 1-MEV %.3g, s1 %.6g, s%zu %.6g",
                  it, secs, s->b, bnd, est, conv, sqrt(fmax(s->theta[0], 0)), s->k,
                  sqrt(fmax(s->theta[s->k - 1], 0)));
}

/* The stop rule: a fixed number of passes (--power-iter), the subspace's change, the
 * estimate or (the default) the bound within --tol. */
static int data_done(void *ctx, const struct pca_solver *s, size_t it, double conv, double bnd,
                     double est)
{
    const struct gsvd_pca_params *p = s->p;
    (void)ctx;
    if (p->power_iter)
        return it >= p->power_iter;
    if (gsvd_pca_stop_for(p) == GSVD_PCA_STOP_SUBSPACE)
        return it >= 2 && conv < s->tol;
    if (gsvd_pca_stop_for(p) == GSVD_PCA_STOP_ESTIMATE)
        return est <= s->tol;
    return bnd <= s->tol;
}

static void data_finish(void *ctx, const struct pca_solver *s, size_t it, int done, double bnd,
                        double est, struct gsvd_pca_result *res)
{
    const struct gsvd_pca_params *p = s->p;
    (void)ctx;
    res->converged = p->power_iter ? -1 : done || s->b >= s->n;
    if (!res->converged) {
        size_t met = 0;
        int by_est = gsvd_pca_stop_for(p) == GSVD_PCA_STOP_ESTIMATE;
        for (size_t q = 0; q < s->k; q++)
            met += (by_est ? s->estimate[q] : s->bound[q]) <= s->tol;
        /* fast: the summary names the converged components and the estimates (the bulk of a
         * PCA is expected not to converge in a few passes); bulk promised them all */
        gsvd_log_msg(p->accuracy == GSVD_PCA_ACCURACY_BULK ? GSVD_LOG_WARN : GSVD_LOG_INFO,
                     __func__,
                     "stopped after %zu passes (--max-iter) with %zu of %zu components within "
                     "--tol %.3g (largest singular value error bound %.3g, estimate %.3g)",
                     it, met, s->k, s->tol, bnd, est);
    }
}

static const struct pca_operator data_operator = {
    .apply = data_apply,
    .estimate = data_estimate,
    .report = data_report,
    .done = data_done,
    .finish = data_finish,
};

/* The exact method's Gram in memory (a product costs 2 n^2 l flops, no pass over the data). */
struct gram_op {
    const double *G;  /* n x n */
    size_t n_threads; /* threads for the products */
};

/* Y = G X for the in-memory Gram (both n x width, row-major s->X / s->Yrow): rows of Y in
 * fixed tiles, one dgemm each, spread over the threads; a tile's rows come out the same
 * whichever thread computes them. */
#define GRAM_ROW_TILE 256

struct gram_prod {
    const struct pca_solver *s;
    const double *G; /* n x n */
    size_t width, n_tiles, n_shares;
};

static int gram_prod_share(void *ctx, size_t t)
{
    const struct gram_prod *gp = ctx;
    const struct pca_solver *s = gp->s;
    size_t n = s->n, c = gp->width;
    for (size_t tile = t; tile < gp->n_tiles; tile += gp->n_shares) {
        size_t r0 = tile * GRAM_ROW_TILE, rows = n - r0 < GRAM_ROW_TILE ? n - r0 : GRAM_ROW_TILE;
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)c, (int)n, 1.0,
                    gp->G + r0 * n, (int)n, s->X, (int)c, 0.0, s->Yrow + r0 * c, (int)c);
    }
    return GSVD_OK;
}

static int gram_product(const struct gram_op *go, struct pca_solver *s, size_t width)
{
    struct gram_prod gp = {.s = s, .G = go->G, .width = width};
    gp.n_tiles = (s->n + GRAM_ROW_TILE - 1) / GRAM_ROW_TILE;
    gp.n_shares = go->n_threads < 1 ? 1 : go->n_threads;
    if (gp.n_shares > gp.n_tiles)
        gp.n_shares = gp.n_tiles;
    return gsvd_blas_parallel(gp.n_shares, gram_prod_share, &gp);
}

static int gram_apply(void *ctx, struct pca_solver *s, size_t width, size_t it, const char *what,
                      struct gsvd_pca_result *res)
{
    (void)it;
    (void)what;
    (void)res;
    return gram_product(ctx, s, width);
}

/* No extrapolation: the bounds are the estimates. */
static void gram_estimate(void *ctx, struct pca_solver *s)
{
    (void)ctx;
    memcpy(s->estimate, s->bound, s->k * sizeof *s->bound);
}

static void gram_report(void *ctx, const struct pca_solver *s, size_t it, double secs, double conv,
                        double bnd, double est)
{
    (void)ctx;
    (void)secs;
    (void)conv;
    (void)est;
    gsvd_log_debug("Gram iteration %zu: basis %zu, max singular value error bound %.3g", it, s->b,
                   bnd);
}

static int gram_done(void *ctx, const struct pca_solver *s, size_t it, double conv, double bnd,
                     double est)
{
    (void)ctx;
    (void)it;
    (void)conv;
    (void)est;
    return bnd <= s->tol;
}

static void gram_finish(void *ctx, const struct pca_solver *s, size_t it, int done, double bnd,
                        double est, struct gsvd_pca_result *res)
{
    (void)ctx;
    (void)est;
    res->converged = done || s->b >= s->n;
    if (!res->converged)
        gsvd_log_warn("exact: the top-%zu eigensolver of the Gram matrix stopped after %zu "
                      "iterations with a singular value error bound of %.3g",
                      s->k, it, bnd);
}

static const struct pca_operator gram_operator = {
    .apply = gram_apply,
    .estimate = gram_estimate,
    .report = gram_report,
    .done = gram_done,
    .finish = gram_finish,
};

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
    struct pca_solver s = {
        .be = be, .p = p, .n = n, .k = k, .tol = GSVD_PCA_GRAM_TOL, .max_iter = 100000};
    struct gram_op go = {.G = g, .n_threads = p->n_threads};
    struct gsvd_pca_result tmp = {.error_bound = res->error_bound,
                                  .error_estimate = res->error_estimate};
    s.l = k + (k > 10 ? k : 10);
    s.cap = s.l * 8;
    if (s.l > n)
        s.l = n;
    if (s.cap > n)
        s.cap = n;
    GSVD_TRY(gsvd_pca_solver_alloc(&s));
    GSVD_TRY(gsvd_pca_solver_run(&s, &gram_operator, &go, &tmp));
    memcpy(theta, s.theta, k * sizeof *theta);
    memcpy(u, s.U, n * k * sizeof *u);
    gsvd_log_info("exact: top-%zu eigenpairs of the Gram matrix in %zu block Krylov iterations "
                  "(singular value error bound %.3g)",
                  k, tmp.iterations, gsvd_pca_max_of(s.bound, s.k));
out:
    gsvd_pca_solver_free(&s);
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
    res->gram_sumsq = gsvd_pca_gram_sumsq(gram, n);
    if (p->all_eigvals) { /* values only, g left as it was: the same top-k pairs after */
        res->gram_eig = gsvd_malloc(n * sizeof *res->gram_eig);
        if (!res->gram_eig) {
            rc = GSVD_ENOMEM;
            goto out;
        }
        GSVD_TRY(
            gsvd_pca_gram_eigvals(n, gram, res->gram_eig, gsvd_geno_scaler(g) != GSVD_SCALER_NONE));
    }
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
    struct pca_solver s = {0};
    int told = 0;
    struct data_op dop = {.g = g, .told = &told};
    double *evec = NULL, *eval = NULL;
    size_t n = gsvd_geno_n_samples(g), k = p->n_components;
    enum gsvd_pca_method method = gsvd_pca_method_for(p, n);

    *out = NULL;
    if (p->tw && method != GSVD_PCA_EXACT) { /* they need the Gram (tracy_widom.h) */
        gsvd_log_error("Tracy-Widom statistics need every eigenvalue's sum of squares, which only "
                       "the exact method's Gram gives; --method %s cannot give them",
                       gsvd_pca_method_name(method));
        return GSVD_EINVAL;
    }
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
    r->gram_sumsq = NAN;
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
        /* power_iter fixes the count alone: max_iter caps the stop rules only */
        s.max_iter = p->power_iter ? p->power_iter : p->max_iter;
        s.be = be;
        s.p = p;
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
        GSVD_TRY(gsvd_pca_solver_alloc(&s));
        GSVD_TRY(data_op_alloc(&dop, &s));
        GSVD_TRY(gsvd_pca_solver_run(&s, &data_operator, &dop, r));
        GSVD_TRY(finish(r, s.U, s.theta, n, k));
    }
    r->m_used = r->counts.n_kept;
    if (p->tw)
        GSVD_TRY(gsvd_pca_tw(r, gsvd_geno_scaler(g) != GSVD_SCALER_NONE, p->tw_effective_n));
    if (p->loadings)
        GSVD_TRY(gsvd_pca_loadings(g, be, p, r, &told));
    *out = r;
    r = NULL;
out:
    if (rc < 0 && p->comm && !told && gsvd_comm_agree(p->comm, rc, NULL) < 0) {
        /* the others waited in their next agree and now fail too; rc stays this rank's */
    }
    gsvd_pca_solver_free(&s);
    data_op_free(&dop);
    gsvd_free(evec);
    gsvd_free(eval);
    gsvd_pca_result_free(r);
    return rc;
}
