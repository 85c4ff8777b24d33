/* analysis/pca/pca_exact.c - the exact method's two halves below the driver (pca_internal.h): the
 * N x N Gram Z^T Z in one pass over the data (summed over the ranks of a distributed run in
 * exact parts), and the dense symmetric eigensolver for Grams of order up to
 * GSVD_PCA_DENSE_EIG_N.  The driver (pca.c, run_exact) picks the eigensolver by order. */
#include "gsvd_config.h"
#include "analysis/pca/pca_internal.h"

#include <string.h>

#include <lapacke.h>

#include "analysis/cpu/blas_room.h"
#include "common/alloc.h"
#include "common/checked.h"
#include "common/err.h"
#include "common/log.h"

int gsvd_pca_gram(gsvd_geno *g, gsvd_backend *be, const struct gsvd_pca_params *p, size_t n,
                  struct gsvd_pca_result *res, double **out, int *told)
{
    int rc = GSVD_OK;
    size_t nn;
    double *gram = NULL, *lo = NULL, tr[2] = {0, 0};
    struct pass_ctx pc = {.be = be,
                          .sumsq = &res->trace,
                          .gram = 1,
                          .progress = &p->progress,
                          .what = "Gram",
                          .n_variants = pass_variants(g)};

    *out = NULL;
    if (gsvd_mul_size(n, n, &nn) < 0)
        return GSVD_EINVAL;
    gram = gsvd_alloc_large(nn * sizeof *gram);
    rc = gram ? GSVD_OK : GSVD_ENOMEM;
    res->trace = 0;
    if (rc == GSVD_OK)
        rc = gsvd_backend_gram_begin(be, n);
    if (rc == GSVD_OK)
        rc = gsvd_geno_scan(g, pass_cb, &pc);
    res->counts = *gsvd_geno_counts(g);
    if (p->comm) {
        /* each rank's Gram in exact parts, summed over the ranks (once, not per block) */
        if (rc == GSVD_OK) {
            lo = gsvd_alloc_large(nn * sizeof *lo);
            rc = lo ? gsvd_backend_gram_end_parts(be, gram, lo, tr) : GSVD_ENOMEM;
            if (rc == GSVD_EUNSUPPORTED)
                gsvd_log_error("the %s backend cannot sum this Gram (%zu samples) over processes; "
                               "run --method exact on the cpu device or in one process",
                               gsvd_backend_name(be), n);
        }
        GSVD_TRY(gsvd_pca_agree(p, rc, told));
        GSVD_TRY(gsvd_pca_sum_parts(p->comm, gram, lo, nn));
        GSVD_TRY(gsvd_pca_sum_parts(p->comm, tr, tr + 1, 1));
        res->trace = tr[0];
        GSVD_TRY(gsvd_pca_sum_counts(p->comm, &res->counts));
        for (size_t i = 0; i < n; i++) /* the upper triangle's mirror */
            for (size_t j = 0; j < i; j++)
                gram[i * n + j] = gram[j * n + i];
    } else if (rc < 0) {
        goto out;
    }
    if (res->counts.n_kept == 0) {
        gsvd_log_error("%s: no variant left to analyse", gsvd_geno_array_name(g));
        rc = GSVD_EDEGENERATE;
        goto out;
    }
    if (!p->comm)
        GSVD_TRY(gsvd_backend_gram_end(be, gram));
    *out = gram;
    gram = NULL;
out:
    gsvd_free(gram);
    gsvd_free(lo);
    return rc;
}

double gsvd_pca_gram_sumsq(const double *g, size_t n)
{
    double diag = 0, off = 0;
    for (size_t c = 0; c < n; c++) {
        const double *col = g + c * n;
        for (size_t r = 0; r < c; r++)
            off += col[r] * col[r];
        diag += col[c] * col[c];
    }
    return diag + 2 * off;
}

int gsvd_pca_gram_eigvals(size_t n, double *g, double *w, int centred)
{
    lapack_int m = 0, info = -1;
    double *diag = gsvd_malloc(n * sizeof *diag), *sum = gsvd_malloc(n * sizeof *sum), all = 0;
    int saved;

    if (!diag || !sum) {
        gsvd_free(diag);
        gsvd_free(sum);
        return GSVD_ENOMEM;
    }
    for (size_t c = 0; c < n; c++) /* the strict lower triangle (column-major) from the upper */
        for (size_t r = c + 1; r < n; r++)
            g[c * n + r] = g[r * n + c];
    for (size_t i = 0; i < n; i++) {
        double t = 0;
        for (size_t j = 0; j < n; j++)
            t += g[j * n + i];
        sum[i] = centred ? t : 0;
        all += sum[i];
        diag[i] = g[i * n + i];
    }
    /* centred data: P G P (P = I - 1 1'/n) in the lower triangle, so that the products' rounding
     * leaves no spurious eigenvalue where the centring put an exact zero */
    for (size_t c = 0; c < n; c++)
        for (size_t r = c; r < n; r++)
            g[c * n + r] += (all / (double)n - sum[r] - sum[c]) / (double)n;
    saved = gsvd_blas_region_begin(n >= 1024 ? GSVD_PCA_EIG_THREADS : 1);
    info = LAPACKE_dsyevr(LAPACK_COL_MAJOR, 'N', 'A', 'L', (lapack_int)n, g, (lapack_int)n, 0.0,
                          0.0, 0, 0, 0.0, &m, w, NULL, 1, NULL);
    gsvd_blas_region_end(saved);
    /* the diagonal back, the strict lower triangle (column-major) from the upper one */
    for (size_t c = 0; c < n; c++) {
        g[c * n + c] = diag[c];
        for (size_t r = c + 1; r < n; r++)
            g[c * n + r] = g[r * n + c];
    }
    gsvd_free(diag);
    gsvd_free(sum);
    if (info != 0 || (size_t)m != n) {
        gsvd_log_error("symmetric eigensolver failed (LAPACKE_dsyevr info %d, %d of %zu "
                       "eigenvalues)",
                       (int)info, (int)m, n);
        return info < 0 ? GSVD_EINTERNAL : GSVD_EDEGENERATE;
    }
    for (size_t i = 0; i < n / 2; i++) { /* ascending -> descending */
        double t = w[i];
        w[i] = w[n - 1 - i];
        w[n - 1 - i] = t;
    }
    return GSVD_OK;
}

int gsvd_pca_gram_eig_dense(size_t n, size_t k, double *g, double *theta, double *u)
{
    int rc = GSVD_OK;
    lapack_int m = 0, *isuppz = gsvd_malloc(2 * k * sizeof *isuppz);
    double *w = gsvd_malloc(n * sizeof *w), *z = gsvd_malloc(n * k * sizeof *z);
    lapack_int info = -1;
    /* the tridiagonal reduction (dsymv, dsyr2k) on GSVD_PCA_EIG_THREADS BLAS threads whatever
     * --threads is, so the bytes do not depend on it: 0.54 -> 0.30 s at n = 2,000 */
    int saved = gsvd_blas_region_begin(n >= 1024 ? GSVD_PCA_EIG_THREADS : 1);
    if (isuppz && w && z)
        info = LAPACKE_dsyevr(LAPACK_COL_MAJOR, 'V', 'I', 'U', (lapack_int)n, g, (lapack_int)n, 0.0,
                              0.0, (lapack_int)(n - k + 1), (lapack_int)n, 0.0, &m, w, z,
                              (lapack_int)n, isuppz);
    gsvd_blas_region_end(saved);
    if (!isuppz || !w || !z) {
        rc = GSVD_ENOMEM;
    } else if (info != 0 || (size_t)m != k) {
        gsvd_log_error("symmetric eigensolver failed (LAPACKE_dsyevr info %d, %d of %zu "
                       "eigenpairs, n %zu)",
                       (int)info, (int)m, k, n);
        rc = info < 0 ? GSVD_EINTERNAL : GSVD_EDEGENERATE;
    } else {
        for (size_t q = 0; q < k; q++) { /* ascending -> descending */
            theta[q] = w[k - 1 - q];
            memcpy(u + q * n, z + (k - 1 - q) * n, n * sizeof *u);
        }
    }
    gsvd_free(isuppz);
    gsvd_free(w);
    gsvd_free(z);
    return rc;
}
