/* analysis/pca.c - backend-agnostic PCA driver.
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
#include "analysis/pca.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"
#include "common/rng.h"

const char *gsvd_pca_method_name(enum gsvd_pca_method m)
{
    switch (m) {
    case GSVD_PCA_RANDOMIZED:
        return "randomized";
    case GSVD_PCA_KRYLOV:
        return "krylov";
    case GSVD_PCA_SUBSPACE:
        return "subspace";
    case GSVD_PCA_EXACT:
        return "exact";
    case GSVD_PCA_AUTO:
        return "auto";
    }
    return "unknown";
}

void gsvd_pca_result_free(struct gsvd_pca_result *r)
{
    if (!r)
        return;
    gsvd_free(r->s);
    gsvd_free(r->u);
    gsvd_free(r->v);
    gsvd_free(r->var_mean);
    gsvd_free(r->var_scale);
    gsvd_free(r->var_included);
    gsvd_free(r);
}

/* ---- passes over the data ---------------------------------------------------------------- */

struct pass_ctx {
    gsvd_backend *be;
    double *sumsq; /* accumulate the trace when not NULL */
    int gram;      /* 1: Gram blocks, 0: pass blocks */
    size_t n_blocks, done;
    int progress;
    const char *what;
};

static int pass_cb(void *vctx, const struct gsvd_gblock *blk, const struct gsvd_geno_info *info)
{
    struct pass_ctx *c = vctx;
    int rc;
    (void)info;
    rc = c->gram ? gsvd_backend_gram_block(c->be, blk, c->sumsq)
                 : gsvd_backend_pass_block(c->be, blk, c->sumsq);
    c->done++;
    if (c->progress && (c->done % 16 == 0 || c->done == c->n_blocks))
        fprintf(stderr, "\r[pca] %s: block %zu", c->what, c->done);
    return rc;
}

/* Y (n x c row-major) = A X (X row-major n x c) in one pass. */
static int apply_a(gsvd_geno *g, gsvd_backend *be, size_t n, size_t c, const double *x, double *y,
                   double *sumsq, int progress, const char *what)
{
    int rc = GSVD_OK;
    struct pass_ctx pc = {.be = be, .sumsq = sumsq, .progress = progress, .what = what};

    if (sumsq)
        *sumsq = 0;
    GSVD_TRY(gsvd_backend_pass_begin(be, n, c, x));
    GSVD_TRY(gsvd_geno_scan(g, pass_cb, &pc));
    GSVD_TRY(gsvd_backend_pass_end(be, y));
    if (progress)
        fputc('\n', stderr);
out:
    return rc;
}

/* ---- small dense helpers (column-major n x b blocks) ------------------------------------- */

static double dot(const double *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

static void axpy(double alpha, const double *x, double *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] += alpha * x[i];
}

/* Gaussian column j of the test matrix (independent of threads and blocks). */
static void gaussian_column(uint64_t seed, uint64_t j, double *col, size_t n)
{
    for (size_t i = 0; i < n; i++)
        col[i] = gsvd_rng_normal(seed, GSVD_RNG_PCA_OMEGA, i, j);
}

/* Orthonormalise columns [from, to) of K (n rows) against columns [0, from) and each other
 * with classical Gram-Schmidt applied twice.  A column that vanishes (its span is already in
 * the basis) is replaced by a fresh Gaussian column, numbered from *fresh. */
static void orthonormalise(double *k, size_t n, size_t from, size_t to, uint64_t seed,
                           uint64_t *fresh)
{
    for (size_t j = from; j < to; j++) {
        double *v = k + j * n;
        for (int attempt = 0; attempt < 4; attempt++) {
            double before = sqrt(dot(v, v, n)), after;
            for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < j; i++)
                    axpy(-dot(k + i * n, v, n), k + i * n, v, n);
            after = sqrt(dot(v, v, n));
            if (after > 1e-10 * before && after > 1e-300) {
                for (size_t i = 0; i < n; i++)
                    v[i] /= after;
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
 * columns) and cols lists r column indices. */
static void combine(const double *k, size_t n, size_t b, const double *w, const size_t *cols,
                    size_t r, double *out)
{
    memset(out, 0, n * r * sizeof *out);
    for (size_t q = 0; q < r; q++)
        for (size_t j = 0; j < b; j++) {
            double c = w[j * b + cols[q]];
            if (c != 0)
                axpy(c, k + j * n, out + q * n, n);
        }
}

/* 1 - MEV between orthonormal n x k column sets a and b. */
static double one_minus_mev(const double *a, const double *b, size_t n, size_t k)
{
    double mev = 0;
    for (size_t i = 0; i < k; i++) {
        double s2 = 0;
        for (size_t j = 0; j < k; j++) {
            double d = dot(a + j * n, b + i * n, n);
            s2 += d * d;
        }
        mev += sqrt(s2);
    }
    double r = 1 - mev / (double)k;
    return r > 0 ? r : 0;
}

/* ---- the iterative solver ------------------------------------------------------------------ */

struct solver {
    gsvd_geno *g;
    gsvd_backend *be;
    const struct gsvd_pca_params *p;
    size_t n, k, l, cap; /* samples, components, block width, basis capacity (columns) */
    size_t b;            /* basis columns in use */
    double *K, *Y;       /* n x cap column-major */
    double *H, *w;       /* cap x cap, cap */
    double *X, *Yrow;    /* n x l row-major pass buffers */
    double *U, *Uprev;   /* n x k Ritz vectors (column-major) */
    double *tmp;         /* n x cap scratch */
    size_t *order;       /* Ritz indices, largest first */
    double *theta;       /* Ritz values, largest first */
    uint64_t fresh;      /* next Gaussian column number */
};

static void solver_free(struct solver *s)
{
    gsvd_free(s->K);
    gsvd_free(s->Y);
    gsvd_free(s->H);
    gsvd_free(s->w);
    gsvd_free(s->X);
    gsvd_free(s->Yrow);
    gsvd_free(s->U);
    gsvd_free(s->Uprev);
    gsvd_free(s->tmp);
    gsvd_free(s->order);
    gsvd_free(s->theta);
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
    s->w = gsvd_malloc(s->cap * sizeof *s->w);
    s->X = gsvd_malloc(s->n * s->l * sizeof *s->X);
    s->Yrow = gsvd_malloc(s->n * s->l * sizeof *s->Yrow);
    s->U = gsvd_calloc(s->n * s->k, sizeof *s->U);
    s->Uprev = gsvd_calloc(s->n * s->k, sizeof *s->Uprev);
    s->order = gsvd_malloc(s->cap * sizeof *s->order);
    s->theta = gsvd_malloc(s->cap * sizeof *s->theta);
    if (!s->K || !s->Y || !s->tmp || !s->H || !s->w || !s->X || !s->Yrow || !s->U || !s->Uprev ||
        !s->order || !s->theta)
        return GSVD_ENOMEM;
    return GSVD_OK;
}

/* Rayleigh-Ritz on the first b columns: theta/order (descending) and H = eigenvectors. */
static int rayleigh_ritz(struct solver *s)
{
    size_t b = s->b, n = s->n;
    int rc;
    for (size_t i = 0; i < b; i++)
        for (size_t j = i; j < b; j++) {
            double h =
                0.5 * (dot(s->K + i * n, s->Y + j * n, n) + dot(s->K + j * n, s->Y + i * n, n));
            s->H[i * b + j] = s->H[j * b + i] = h;
        }
    rc = gsvd_backend_eigh(s->be, b, s->H, s->w);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < b; i++) {
        s->order[i] = b - 1 - i; /* eigh returns ascending */
        s->theta[i] = s->w[b - 1 - i];
    }
    return GSVD_OK;
}

/* Max relative residual ||A u - theta u|| / theta over the top k Ritz pairs. */
static double residual(struct solver *s)
{
    size_t n = s->n;
    double worst = 0;
    double *ku = s->tmp, *yu = s->tmp + n;
    for (size_t q = 0; q < s->k; q++) {
        combine(s->K, n, s->b, s->H, &s->order[q], 1, ku);
        combine(s->Y, n, s->b, s->H, &s->order[q], 1, yu);
        double th = s->theta[q], r2 = 0;
        for (size_t i = 0; i < n; i++) {
            double d = yu[i] - th * ku[i];
            r2 += d * d;
        }
        double rel = th > 0 ? sqrt(r2) / th : INFINITY;
        if (rel > worst)
            worst = rel;
    }
    return worst;
}

static int run_iterative(struct solver *s, struct gsvd_pca_result *res)
{
    const struct gsvd_pca_params *p = s->p;
    size_t n = s->n, l = s->l, last = 0, it;
    double conv = 1, trace = 0;
    int rc = GSVD_OK;

    /* start: l Gaussian columns */
    for (size_t j = 0; j < l; j++)
        gaussian_column(p->seed, j, s->K + j * n, n);
    s->fresh = l;
    orthonormalise(s->K, n, 0, l, p->seed, &s->fresh);
    s->b = l;
    for (it = 1;; it++) {
        size_t width = s->b - last;
        char what[32];
        snprintf(what, sizeof what, "pass %zu", it);
        to_row_major(s->K, n, last, width, s->X);
        GSVD_TRY(apply_a(s->g, s->be, n, width, s->X, s->Yrow, it == 1 ? &trace : NULL, p->progress,
                         what));
        if (it == 1) {
            res->trace = trace;
            res->counts = *gsvd_geno_counts(s->g);
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
        }
        from_row_major(s->Yrow, n, width, s->Y, last);
        GSVD_TRY(rayleigh_ritz(s));
        memcpy(s->Uprev, s->U, n * s->k * sizeof *s->U);
        combine(s->K, n, s->b, s->H, s->order, s->k, s->U);
        conv = it > 1 ? one_minus_mev(s->Uprev, s->U, n, s->k) : 1;
        res->max_residual = residual(s);
        gsvd_log_info("iteration %zu: basis %zu, 1-MEV %.3g, max relative residual %.3g, "
                      "s1 %.6g, s%zu %.6g",
                      it, s->b, conv, res->max_residual, sqrt(fmax(s->theta[0], 0)), s->k,
                      sqrt(fmax(s->theta[s->k - 1], 0)));
        if (p->power_iter ? it >= p->power_iter : (it >= 2 && conv < p->tol))
            break;
        if (it >= p->max_iter) {
            if (!p->power_iter)
                gsvd_log_warn("no convergence after %zu passes (1-MEV %.3g > tol %.3g); "
                              "results may be inaccurate: raise --max-iter",
                              it, conv, p->tol);
            break;
        }
        if (s->b >= n)
            break; /* the basis spans every sample direction: the decomposition is exact */
        /* next block: the newest images, orthogonalised against the basis */
        if (p->method == GSVD_PCA_SUBSPACE) {
            memcpy(s->K, s->Y + last * n, width * n * sizeof *s->K);
            s->b = width;
            last = 0;
            orthonormalise(s->K, n, 0, width, p->seed, &s->fresh);
            continue;
        }
        /* the residuals A u - theta u of the leading Ritz pairs are the new Krylov directions
         * (without a restart they span the same block as A Q_last); after a thick restart
         * they keep the iteration a Krylov method on the kept Ritz vectors */
        size_t add = s->l, ncols = s->b;
        if (add > ncols)
            add = ncols;
        double *rblk = s->Yrow; /* n x add, column-major here */
        combine(s->K, n, ncols, s->H, s->order, add, s->tmp);
        combine(s->Y, n, ncols, s->H, s->order, add, rblk);
        for (size_t q = 0; q < add; q++)
            axpy(-s->theta[q], s->tmp + q * n, rblk + q * n, n);
        if (s->b + add > s->cap) {
            /* thick restart: keep the leading Ritz vectors and their exact images */
            size_t keep = s->cap > add + s->k ? s->cap - add : s->k;
            combine(s->K, n, s->b, s->H, s->order, keep, s->tmp);
            memcpy(s->K, s->tmp, keep * n * sizeof *s->K);
            combine(s->Y, n, s->b, s->H, s->order, keep, s->tmp);
            memcpy(s->Y, s->tmp, keep * n * sizeof *s->Y);
            s->b = keep;
            if (s->b + add > s->cap)
                add = s->cap - s->b;
        }
        if (s->b + add > n)
            add = n - s->b;
        memcpy(s->K + s->b * n, rblk, add * n * sizeof *s->K);
        last = s->b;
        orthonormalise(s->K, n, s->b, s->b + add, p->seed, &s->fresh);
        s->b += add;
    }
    res->iterations = it;
    res->convergence = conv;
out:
    return rc;
}

/* ---- exact --------------------------------------------------------------------------------- */

static int run_exact(gsvd_geno *g, gsvd_backend *be, const struct gsvd_pca_params *p, size_t n,
                     struct gsvd_pca_result *res, double **evec, double **eval)
{
    int rc = GSVD_OK;
    size_t nn;
    struct pass_ctx pc = {
        .be = be, .sumsq = &res->trace, .gram = 1, .progress = p->progress, .what = "Gram"};

    *evec = *eval = NULL;
    if (gsvd_mul_size(n, n, &nn) < 0)
        return GSVD_EINVAL;
    *evec = gsvd_malloc(nn * sizeof **evec);
    *eval = gsvd_malloc(n * sizeof **eval);
    if (!*evec || !*eval)
        return GSVD_ENOMEM;
    res->trace = 0;
    GSVD_TRY(gsvd_backend_gram_begin(be, n));
    GSVD_TRY(gsvd_geno_scan(g, pass_cb, &pc));
    if (p->progress)
        fputc('\n', stderr);
    res->counts = *gsvd_geno_counts(g);
    if (res->counts.n_kept == 0) {
        gsvd_log_error("%s: no variant left to analyse", gsvd_geno_array_name(g));
        rc = GSVD_EDEGENERATE;
        goto out;
    }
    GSVD_TRY(gsvd_backend_gram_end(be, *evec));
    GSVD_TRY(gsvd_backend_eigh(be, n, *evec, *eval));
    res->iterations = 1;
    res->convergence = 0;
out:
    return rc;
}

/* ---- loadings ------------------------------------------------------------------------------ */

struct load_ctx {
    gsvd_backend *be;
    struct gsvd_pca_result *res;
    const double *us; /* n x k row-major: U / s */
    double *rows;     /* scratch: kept rows x k */
    size_t rows_cap;
};

static int load_cb(void *vctx, const struct gsvd_gblock *blk, const struct gsvd_geno_info *info)
{
    struct load_ctx *c = vctx;
    struct gsvd_pca_result *r = c->res;
    size_t k = r->k, kept = 0;
    int rc = GSVD_OK;

    if (blk->n_rows * k > c->rows_cap) {
        gsvd_free(c->rows);
        c->rows_cap = blk->n_rows * k;
        c->rows = gsvd_malloc(c->rows_cap * sizeof *c->rows);
        if (!c->rows) {
            c->rows_cap = 0;
            return GSVD_ENOMEM;
        }
    }
    GSVD_TRY(gsvd_backend_project(c->be, blk, k, c->us, c->rows));
    for (size_t j = 0; j < info->n_variants; j++) {
        uint64_t v = info->first + j;
        r->var_mean[v] = info->mean[j];
        r->var_scale[v] = info->scale[j];
        r->var_included[v] = info->kept[j];
        for (size_t q = 0; q < k; q++)
            r->v[v * k + q] = info->kept[j] ? c->rows[kept * k + q] : NAN;
        kept += info->kept[j];
    }
out:
    return rc;
}

static int compute_loadings(gsvd_geno *g, gsvd_backend *be, struct gsvd_pca_result *r)
{
    struct load_ctx c = {.be = be, .res = r};
    size_t n = r->n, k = r->k;
    uint64_t m = r->m_range;
    double *us = gsvd_malloc(n * k * sizeof *us);
    int rc = GSVD_OK;

    r->v = gsvd_malloc((size_t)m * k * sizeof *r->v);
    r->var_mean = gsvd_malloc((size_t)m * sizeof *r->var_mean);
    r->var_scale = gsvd_malloc((size_t)m * sizeof *r->var_scale);
    r->var_included = gsvd_malloc((size_t)m);
    if (!us || !r->v || !r->var_mean || !r->var_scale || !r->var_included) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t q = 0; q < k; q++)
            us[i * k + q] = r->u[i * k + q] / r->s[q];
    c.us = us;
    GSVD_TRY(gsvd_geno_scan(g, load_cb, &c));
out:
    gsvd_free(c.rows);
    gsvd_free(us);
    return rc;
}

/* ---- driver -------------------------------------------------------------------------------- */

/* Copy the top k eigenpairs into the result (U row-major), check rank, apply the sign rule. */
static int finish(struct gsvd_pca_result *r, const double *vecs, size_t stride_vec, int colmajor,
                  const double *vals, size_t n, size_t k)
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
            double x = colmajor ? vecs[q * n + i] : vecs[i * stride_vec + (stride_vec - 1 - q)];
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

    *out = NULL;
    if (method == GSVD_PCA_AUTO)
        method = n <= GSVD_PCA_AUTO_EXACT_N ? GSVD_PCA_EXACT : GSVD_PCA_RANDOMIZED;
    if (method == GSVD_PCA_EXACT && !p->loadings)
        gsvd_geno_set_cache(g, 0); /* a single pass: keeping the blocks would only cost time */
    if (k == 0 || k >= n) {
        gsvd_log_error("%zu components requested for %zu samples (need 1 <= k < samples)", k, n);
        return GSVD_EINVAL;
    }
    if (method == GSVD_PCA_EXACT && n > GSVD_PCA_EXACT_MAX_N) {
        gsvd_log_error("--method exact needs an N x N matrix; %zu samples is over the %d limit "
                       "(use the default randomized method)",
                       n, GSVD_PCA_EXACT_MAX_N);
        return GSVD_EINVAL;
    }
    r = gsvd_calloc(1, sizeof *r);
    if (!r)
        return GSVD_ENOMEM;
    r->k = k;
    r->n = n;
    r->method = method;
    r->m_range = gsvd_geno_n_variants(g);
    r->s = gsvd_malloc(k * sizeof *r->s);
    r->u = gsvd_malloc(n * k * sizeof *r->u);
    if (!r->s || !r->u) {
        rc = GSVD_ENOMEM;
        goto out;
    }
    if (method == GSVD_PCA_EXACT) {
        GSVD_TRY(run_exact(g, be, p, n, r, &evec, &eval));
        /* ascending eigenvalues: the top k, largest first */
        for (size_t q = 0; q < n / 2; q++) {
            double t = eval[q];
            eval[q] = eval[n - 1 - q];
            eval[n - 1 - q] = t;
        }
        GSVD_TRY(finish(r, evec, n, 0, eval, n, k));
    } else {
        s.g = g;
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
        GSVD_TRY(solver_alloc(&s));
        GSVD_TRY(run_iterative(&s, r));
        GSVD_TRY(finish(r, s.U, 0, 1, s.theta, n, k));
    }
    r->m_used = r->counts.n_kept;
    if (p->loadings)
        GSVD_TRY(compute_loadings(g, be, r));
    *out = r;
    r = NULL;
out:
    solver_free(&s);
    gsvd_free(evec);
    gsvd_free(eval);
    gsvd_pca_result_free(r);
    return rc;
}
