/* analysis/pca/pca_internal.h - for analysis/pca/pca*.c only: what the PCA driver (pca.c) shares
 * with its lower files.  pca_solver.c holds the iterative solver, which runs on an operator the
 * driver hands it (a pass over the data, or the Gram in memory); pca_exact.c the exact method's
 * Gram pass and its dense eigensolver (larger Grams go to the iterative solver); pca_loadings.c
 * the loadings pass; pca_dist.c the ranks' parts and the collectives of a distributed run (every
 * rank calls them in the same order; with no communicator they succeed at once, see
 * common/comm.h).  Files call downwards only: pca.c -> pca_solver.c, pca.c -> pca_exact.c ->
 * pca_dist.c, pca.c -> pca_loadings.c -> pca_dist.c (and pca.c -> pca_dist.c); the pass
 * callback, used by pca.c and pca_exact.c, is static inline here so that neither calls the
 * other for it.
 * Thread safety: as common/comm.h (one caller per communicator). */
#ifndef GSVD_ANALYSIS_PCA_PCA_INTERNAL_H
#define GSVD_ANALYSIS_PCA_PCA_INTERNAL_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "analysis/pca/pca.h"
#include "analysis/pca/pca_device.h"
#include "common/comm.h"
#include "common/gsvd_defs.h"

/* ---- passes over the data (pca.c, pca_exact.c) ------------------------------------------- */

/* The state of one pass: gsvd_geno_scan(g, pass_cb, &ctx) hands every block to the backend's
 * pass (gram 0) or Gram (gram 1) accumulation, with the trace summed into *sumsq when not NULL,
 * and reports progress per block in variants of the range (n_variants, from gsvd_geno_range).
 * All pointers are borrowed for the scan. */
struct pass_ctx {
    gsvd_backend *be;
    double *sumsq; /* accumulate the trace when not NULL */
    int gram;      /* 1: Gram blocks, 0: pass blocks */
    uint64_t n_variants, done;
    const struct gsvd_progress *progress;
    const char *what;
    uint64_t *group_kept; /* when not NULL: kept rows per Gram group (rebalancing), counted */
    uint64_t group_first; /*   from group group_first, of group_rows variants each */
    size_t group_rows;
};

/* Variants a scan of g covers: the progress total of a pass. */
static inline uint64_t pass_variants(const gsvd_geno *g)
{
    uint64_t a, b;
    gsvd_geno_range(g, &a, &b);
    return b - a;
}

static inline int pass_cb(void *vctx, const struct gsvd_gblock *blk,
                          const struct gsvd_geno_info *info)
{
    struct pass_ctx *c = vctx;
    int rc;
    if (c->group_kept && blk->index)
        for (size_t r = 0; r < blk->n_rows; r++)
            c->group_kept[blk->index[r] / c->group_rows - c->group_first]++;
    rc = c->gram ? gsvd_backend_gram_block(c->be, blk, c->sumsq)
                 : gsvd_backend_pass_block(c->be, blk, c->sumsq);
    c->done += info->n_variants;
    gsvd_progress_report(c->progress, c->what, c->done, c->n_variants);
    return rc;
}

/* ---- the iterative solver (pca_solver.c) ------------------------------------------------ */

/* The solver's state: the basis, its images, the Rayleigh-Ritz and the pass buffers.  The
 * caller sets be, p, tol, max_iter, n, k, l (block width) and cap (basis capacity, columns;
 * l <= cap <= n), then gsvd_pca_solver_alloc; free with gsvd_pca_solver_free. */
struct pca_solver {
    double tol; /* bound tolerance (the Gram solve uses its own) */
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
    double *estimate;    /* k: relative singular value errors as the operator estimates them */
    double *hist;   /* EST_PASSES x k: the top-k Ritz values of the last passes, newest first */
    size_t n_hist;  /* rows of hist filled */
    uint64_t fresh; /* next Gaussian column number */
};

/* The operator A = Z^T Z of the iterative solver, and what differs with it: a pass over the
 * data (the iterative methods: data_operator in pca.c) or a product with the Gram in memory
 * (the exact method's larger orders: gram_operator).  ctx is the operator's own state. */
struct pca_operator {
    /* Y = A X: s->Yrow (n x width, row-major) from s->X, the product of iteration `it` (from
     * 1), named `what` in progress and logs */
    int (*apply)(void *ctx, struct pca_solver *s, size_t width, size_t it, const char *what,
                 struct gsvd_pca_result *res);
    /* s->estimate from the pass's Ritz values and bounds */
    void (*estimate)(void *ctx, struct pca_solver *s);
    /* where iteration it left the run: seconds since it began, 1 - MEV against the previous
     * Ritz vectors, the largest error bound and estimate */
    void (*report)(void *ctx, const struct pca_solver *s, size_t it, double secs, double conv,
                   double bnd, double est);
    /* whether to stop after iteration it (the caller stops at max_iter or a full basis too) */
    int (*done)(void *ctx, const struct pca_solver *s, size_t it, double conv, double bnd,
                double est);
    /* res->converged after the last iteration, and the warning when the run stopped short */
    void (*finish)(void *ctx, const struct pca_solver *s, size_t it, int done, double bnd,
                   double est, struct gsvd_pca_result *res);
};

/* The solver's arrays for s's sizes.  GSVD_OK, GSVD_EINVAL (n x cap overflows) or GSVD_ENOMEM;
 * on failure what was allocated stays for gsvd_pca_solver_free. */
GSVD_NODISCARD int gsvd_pca_solver_alloc(struct pca_solver *s);
void gsvd_pca_solver_free(struct pca_solver *s); /* the arrays; accepts a zeroed solver */

/* Extrapolated relative errors of the top-k singular values from the Ritz values of the last
 * passes into s->estimate (estimates, never above the bounds s->bound); the data pass's
 * estimate (struct pca_operator). */
void gsvd_pca_solver_extrapolate(struct pca_solver *s);

/* Block Krylov (or subspace, p->method) iteration on the operator op (ctx its state, borrowed)
 * until op->done, s->max_iter or a full basis: the top k Ritz pairs in s->theta / s->U, their
 * bounds and estimates in res->error_bound / error_estimate (k each, allocated by the caller),
 * and res->iterations, convergence, converged (op->finish).  Returns GSVD_OK or the code of the
 * operator or of the eigensolver. */
GSVD_NODISCARD int gsvd_pca_solver_run(struct pca_solver *s, const struct pca_operator *op,
                                       void *ctx, struct gsvd_pca_result *res);

/* The largest of v[0..k). */
static inline double gsvd_pca_max_of(const double *v, size_t k)
{
    double m = 0;
    for (size_t q = 0; q < k; q++)
        m = fmax(m, v[q]);
    return m;
}

/* A monotonic clock in seconds, for the logs' timings. */
static inline double gsvd_pca_seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- distributed runs (pca_dist.c) --------------------------------------------------------- */

/* Agree with the other ranks on rc (gsvd_comm_agree).  Returns rc unchanged without p->comm,
 * else the agreed code (GSVD_OK, or the failure of the lowest failing rank); on a failure sets
 * *told (borrowed) to 1, so that the driver's exit path does not share it a second time. */
GSVD_NODISCARD int gsvd_pca_agree(const struct gsvd_pca_params *p, int rc, int *told);

/* Sum the exact parts hi[0..n) and lo[0..n) (both borrowed, summed in place) over the ranks
 * and leave the values in hi: hi[i] = gsvd_xsum_value(hi[i], lo[i]).  Returns GSVD_OK or the
 * communicator's code (logged). */
GSVD_NODISCARD int gsvd_pca_sum_parts(gsvd_comm *comm, double *hi, double *lo, size_t n);

/* Sum the filter counts of every rank's variants into *c (borrowed).  Returns GSVD_OK or the
 * communicator's code (logged). */
GSVD_NODISCARD int gsvd_pca_sum_counts(gsvd_comm *comm, struct gsvd_geno_counts *c);

/* After the first pass of a distributed run: kept[0..n_groups) (borrowed; this rank's kept rows
 * per Gram group of the whole range, zero outside its part) is summed over the ranks, the
 * groups are cut into contiguous runs balanced by kept rows (gsvd_pca_split_kept) and g moves
 * to this rank's run (gsvd_geno_move), unless the busiest rank would carry no fewer kept rows
 * than now (the parts then stay); rank 0 logs the parts before and after (info level).
 * Returns GSVD_OK or the agreed failure (*told as gsvd_pca_agree). */
GSVD_NODISCARD int gsvd_pca_rebalance(const struct gsvd_pca_params *p, gsvd_geno *g, uint64_t *kept,
                                      size_t n_groups, int *told);

/* Rank 0 takes every rank's rows (row_bytes each, m_local on this rank, m_all on all ranks) of
 * the variant array *arr in rank order, which is variant order: *arr (owned by the caller,
 * allocated with gsvd_malloc) is then replaced by a new buffer of m_all rows and the old one
 * freed; the other ranks keep theirs.  Rank 0 allocates first and every rank agrees on that
 * (gsvd_pca_agree), so rank 0's GSVD_ENOMEM (logged there with the size) reaches the others as
 * "rank 0 failed (out of memory)".  Returns GSVD_OK, the agreed failure (*told as
 * gsvd_pca_agree), or the communicator's code (logged); *arr is unchanged on failure. */
GSVD_NODISCARD int gsvd_pca_gather_rows(const struct gsvd_pca_params *p, void **arr,
                                        size_t row_bytes, uint64_t m_local, uint64_t m_all,
                                        int *told);

/* ---- loadings (pca_loadings.c) ------------------------------------------------------------- */

/* One more pass over g (borrowed, as be and p): r->v (m x k row-major, NaN rows for dropped
 * variants), r->var_mean, r->var_scale and r->var_included for the m variants of this rank's
 * part (r->m_range = m), from U / s; with p->comm rank 0 then holds every rank's rows in variant
 * order (r->m_range = p->n_variants_all there) and the others keep theirs.  The arrays are
 * owned by r (gsvd_pca_result_free).  Returns GSVD_OK, GSVD_ENOMEM, or a code from the scan,
 * the backend or the communicator (*told as gsvd_pca_agree). */
GSVD_NODISCARD int gsvd_pca_loadings(gsvd_geno *g, gsvd_backend *be,
                                     const struct gsvd_pca_params *p, struct gsvd_pca_result *r,
                                     int *told);

/* ---- the exact method (pca_exact.c) -------------------------------------------------------- */

/* Gram orders up to this are solved by gsvd_pca_gram_eig_dense, larger ones by the block Krylov
 * solver on the Gram in memory (pca.c, pca_solver.c). */
#define GSVD_PCA_DENSE_EIG_N 4096
#define GSVD_PCA_EIG_THREADS 2 /* BLAS threads of the dense eigensolver from n = 1,024 */

/* The N x N Gram Z^T Z of the kept variants in one pass over g (with p->comm, each rank's Gram
 * in exact parts, summed over the ranks, both triangles filled); sets res->trace and
 * res->counts (summed over the ranks).  Returns GSVD_OK and the Gram in *out (n x n; caller
 * owns, free with gsvd_free), else *out is NULL and the return is GSVD_EINVAL (n x n overflows),
 * GSVD_ENOMEM, GSVD_EDEGENERATE (no variant kept, logged), GSVD_EUNSUPPORTED (the backend
 * cannot sum a Gram over processes, logged), or a code from the scan, the backend or the
 * communicator; *told as gsvd_pca_agree. */
GSVD_NODISCARD int gsvd_pca_gram(gsvd_geno *g, gsvd_backend *be, const struct gsvd_pca_params *p,
                                 size_t n, struct gsvd_pca_result *res, double **out, int *told);

/* ||G||_F^2 of the Gram g (n x n column-major, upper triangle read: g[c n + r], r <= c), the sum
 * of its squared eigenvalues, in a fixed order (the same bytes on every rank). */
double gsvd_pca_gram_sumsq(const double *g, size_t n);

/* Every eigenvalue of the Gram g (n x n column-major, upper triangle read), descending into
 * w[0..n), by LAPACK dsyevr on the lower triangle (first mirrored from the upper), values only;
 * `centred` (the scaler centres every variant, so the Gram's rows sum to zero but for rounding): of
 * P g P, P = I - 1 1'/n, whose smallest is then zero to double rounding as the data's is, not the
 * products' rounding.  g's upper triangle and diagonal are left as they were (the diagonal saved
 * and restored) and its lower triangle is their mirror, so the top-k solvers after it see the same
 * bytes where the Gram came symmetric.  Returns GSVD_OK, GSVD_ENOMEM, GSVD_EDEGENERATE (the solver
 * failed, logged) or GSVD_EINTERNAL (LAPACK rejected an argument, logged). */
GSVD_NODISCARD int gsvd_pca_gram_eigvals(size_t n, double *g, double *w, int centred);

/* Top-k eigenpairs of the Gram g (n x n column-major, upper triangle read; overwritten) by
 * LAPACK dsyevr for the index range n-k+1..n: values descending in theta[0..k), unit vectors in
 * the columns of u (n x k column-major); all borrowed.  Returns GSVD_OK, GSVD_ENOMEM,
 * GSVD_EDEGENERATE (the solver failed or found fewer than k pairs, logged) or GSVD_EINTERNAL
 * (LAPACK rejected an argument, logged). */
GSVD_NODISCARD int gsvd_pca_gram_eig_dense(size_t n, size_t k, double *g, double *theta, double *u);

#endif /* GSVD_ANALYSIS_PCA_PCA_INTERNAL_H */
