/* analysis/pca/pca_device.h - what PCA asks of a backend (GSVD_AN_PCA): passes Y = Z^T Z X,
 * projections and the exact Gram over standardised genotype blocks, with optional exact
 * reductions.  A backend offers it by returning a struct gsvd_pca_device_ops from its
 * `analysis` op (analysis/backend_internal.h); the PCA code (analysis/pca/pca*.c) calls the
 * wrappers below, which forward to that table.  Every backend built today offers it; the
 * wrappers return GSVD_EUNSUPPORTED (not logged) for one that does not.
 * Thread safety: as analysis/backend.h, one thread per backend handle. */
#ifndef GSVD_ANALYSIS_PCA_PCA_DEVICE_H
#define GSVD_ANALYSIS_PCA_PCA_DEVICE_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/backend.h"
#include "analysis/scan/gblock.h" /* struct gsvd_gblock, struct gsvd_zbound, row groups */
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

#define GSVD_PCA_DEVICE_VERSION 2

/* The table a backend fills (static storage).  Fields are appended, never reordered; a wrapper
 * reads a field added in version N only when version >= N.  set_bound, pass_end_parts and
 * gram_end_parts are all NULL (no exact reductions) or all set; the rest are all set. */
struct gsvd_pca_device_ops {
    int version; /* GSVD_PCA_DEVICE_VERSION */
    int (*pass_begin)(gsvd_backend *be, size_t n, size_t c, const double *x);
    int (*pass_block)(gsvd_backend *be, const struct gsvd_gblock *b, double *sumsq);
    int (*pass_end)(gsvd_backend *be, double *y);
    int (*project)(gsvd_backend *be, const struct gsvd_gblock *b, size_t c, const double *u,
                   double *out);
    int (*gram_begin)(gsvd_backend *be, size_t n);
    int (*gram_block)(gsvd_backend *be, const struct gsvd_gblock *b, double *sumsq);
    int (*gram_end)(gsvd_backend *be, double *g);
    int (*set_bound)(gsvd_backend *be, const struct gsvd_zbound *z);
    int (*pass_end_parts)(gsvd_backend *be, double *y_hi, double *y_lo, double *tr);
    int (*gram_end_parts)(gsvd_backend *be, double *g_hi, double *g_lo, double *tr);
    /* version 2 */
    double (*gram_fast)(gsvd_backend *be, int on);
    double (*gram_error)(gsvd_backend *be);
};

/* ---- PCA products on the sample side ----------------------------------------------------------
 * A pass computes Y = Z^T Z X for an N x c matrix X (row-major float64, host), block by block:
 * pass_begin(X), pass_block(block) for each block, pass_end(Y).  Z is the standardised block:
 * Z_ji = (G_ji - center_j) * scale_j, missing -> missing_j.  pass_block also adds sum(Z^2) of
 * the block to *sumsq (the trace of Z^T Z) when sumsq is not NULL.
 * Reproducibility: a backend groups rows into fixed-size groups counted from the first row of
 * the pass, whatever the block boundaries, and reduces in a fixed order, so results do not
 * depend on chunking or thread count. */
GSVD_NODISCARD int gsvd_backend_pass_begin(gsvd_backend *be, size_t n, size_t c, const double *x);
/* Exact reductions: with a bound set (before pass_begin / gram_begin; kept until changed),
 * the backend rounds every row group's float32 product, the Gram tiles and the rows' sums of
 * squares onto fixed grids derived from the bound and adds them exactly, so Y, G and the trace
 * are the same whatever the order of the groups, and the sums of several processes' results
 * (gsvd_backend_pass_end_parts) are byte-identical to one process's.  Backends without exact
 * reductions return GSVD_EUNSUPPORTED (not logged); z NULL turns them off.  A product that
 * exceeds the bound fails with GSVD_EINTERNAL (logged). */
GSVD_NODISCARD int gsvd_backend_set_bound(gsvd_backend *be, const struct gsvd_zbound *z);
GSVD_NODISCARD int gsvd_backend_pass_block(gsvd_backend *be, const struct gsvd_gblock *b,
                                           double *sumsq);
GSVD_NODISCARD int gsvd_backend_pass_end(gsvd_backend *be, double *y);
/* With a bound set: the exact sums' parts instead of their value, y_hi and y_lo (n x c each,
 * row-major) with Y = y_hi + y_lo, and the trace's parts in tr[2] (when tr is not NULL), for
 * a sum over processes; the value is then gsvd_xsum_value(hi, lo) of the summed parts.  Ends
 * the pass like pass_end.  GSVD_EUNSUPPORTED (not logged) without a bound. */
GSVD_NODISCARD int gsvd_backend_pass_end_parts(gsvd_backend *be, double *y_hi, double *y_lo,
                                               double *tr);

/* Z times an N x c matrix: out (n_rows x c, row-major float64) = Z_block * U. */
GSVD_NODISCARD int gsvd_backend_project(gsvd_backend *be, const struct gsvd_gblock *b, size_t c,
                                        const double *u, double *out);

/* Exact Gram: gram_begin(n), gram_block(block)..., gram_end(G) with G = Z^T Z (n x n,
 * row-major float64, full symmetric). */
GSVD_NODISCARD int gsvd_backend_gram_begin(gsvd_backend *be, size_t n);
GSVD_NODISCARD int gsvd_backend_gram_block(gsvd_backend *be, const struct gsvd_gblock *b,
                                           double *sumsq);
GSVD_NODISCARD int gsvd_backend_gram_end(gsvd_backend *be, double *g);
/* With a bound set: G's parts (n x n each, upper triangle: entries below the diagonal are 0)
 * and the trace's parts in tr[2], as pass_end_parts. */
GSVD_NODISCARD int gsvd_backend_gram_end_parts(gsvd_backend *be, double *g_hi, double *g_lo,
                                               double *tr);

/* Fast Gram: on = 1 lets the next gram_begin use a faster, inexact kernel (the CPU's int8
 * products, AMX tiles or AVX-512 VNNI, under --gram-kernel auto) when it can run here with the
 * bound set (before: integer dosages); returns the relative eigenvalue error bound it will have, or
 * 0 when the Gram stays exact (the kernel cannot run, or the backend has none).  on = 0 takes it
 * back; returns 0. */
double gsvd_backend_gram_fast(gsvd_backend *be, int on);
/* The relative eigenvalue error bound of the last Gram's kernel: every eigenvalue of the Gram
 * it returned is within that factor of Z^T Z's (0: exact products). */
double gsvd_backend_gram_error(gsvd_backend *be);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_PCA_PCA_DEVICE_H */
