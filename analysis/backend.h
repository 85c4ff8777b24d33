/* analysis/backend.h - compute backends (cpu, cuda) behind one handle.
 * The analyses hand a backend compact genotype blocks and small dense float64 matrices; the
 * backend standardises blocks and runs the large products (float32 inside a block, float64
 * across blocks) and the small eigen/QR problems.  Which backends exist is decided by
 * cli/backend_registry.c; analyses receive a backend and never name one.
 * Thread safety: a backend handle is used by one thread at a time. */
#ifndef GSVD_ANALYSIS_BACKEND_H
#define GSVD_ANALYSIS_BACKEND_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/gblock.h" /* struct gsvd_gblock, struct gsvd_zbound, row groups */
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

typedef struct gsvd_backend gsvd_backend;
struct gsvd_backend_ops;

struct gsvd_backend_params {
    size_t n_threads;  /* BLAS threads for this backend; 0 = all cores */
    size_t local_rank; /* distributed runs: this process's rank among those of its node; a
                          device backend takes its (local_rank mod count)-th usable device,
                          so ranks on one node use different GPUs (0: the first) */
    int gram_f64;      /* CPU: the Gram (pca --method exact) from float64 products (dsyrk)
                          at every N, not float32 tiles below 24,576 samples: about twice
                          the time, eigenpairs to float64 rounding.  Device backends ignore it
                          (the caller warns) */
};

/* The CPU backend's vtable (opaque here; cli/backend_registry.c lists it). */
extern const struct gsvd_backend_ops gsvd_backend_cpu_ops;

/* Registry built by cli/backend_registry.c: NULL-terminated, best first. */
extern const struct gsvd_backend_ops *const gsvd_backend_registry[];

/* Choose and create a backend: name "auto" (highest probe score), "cpu", "cuda"/"gpu".
 * Returns GSVD_OK, GSVD_EINVAL (unknown name), GSVD_ENOTBUILT (not compiled in),
 * GSVD_ENODEVICE (compiled in, no usable device; the reason is logged) or GSVD_ENOMEM.
 * Caller owns *out; free with gsvd_backend_destroy. */
GSVD_NODISCARD int gsvd_backend_open(const char *name, const struct gsvd_backend_params *p,
                                     gsvd_backend **out);
/* Create a specific backend (tests pass one explicitly). */
GSVD_NODISCARD int gsvd_backend_create(const struct gsvd_backend_ops *ops,
                                       const struct gsvd_backend_params *p, gsvd_backend **out);
void gsvd_backend_destroy(gsvd_backend *be); /* accepts NULL */
const char *gsvd_backend_name(const gsvd_backend *be);

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

/* ---- pdist accumulators on a device ------------------------------------------------------------
 * The pdist kernels (analysis/pdist/pdist_*.c) prepare features on the host (bit planes, float64
 * pieces) and may hand the per-pair accumulation of a band to a backend that offers it (the
 * CUDA backend; the CPU backend does not: pdist then counts on the host).  One band at a time:
 * pd_begin zeroes the device accumulators of pairs (row0 + r, row0 + c), r < nb, c < nc,
 * pd_planes / pd_rows add features to every pair with c > r (asynchronously: the data is
 * copied before the call returns), and pd_end waits and copies the accumulators into the
 * host array, in the layout the host kernels use (pair (r, c) at (r * nc + c) * per_pair),
 * every element written (0 where c <= r).
 *  - GSVD_PD_DEV_COUNTS: planes of items row0 .. row0 + nc - 1, n_items x 3 x W words
 *    (called, >= 1, >= 2; analysis/pdist/pdist_bitplane.c), the first nw words of each plane valid;
 *    3 uint32 per pair: n, one, two as pdist_bitplane.c counts them (l1: n, one + 2 two, 0);
 *    with `king` the third plane is P = [g == 1] and there are GSVD_PD_N_KING (5) uint32 per
 *    pair: n, het-het, IBS0, |Px & Cy|, |Py & Cx| (analysis/pdist/pdist_metric.h).
 *  - GSVD_PD_DEV_SUMS: float64 pieces of nf features, feature-major (feature f of item
 *    row0 + i at f * nc + i, NaN missing); GSVD_PD_N_SUMS float64 per pair, continued in
 *    feature order by gsvd_pd_sums_add (analysis/pdist/pdist_metric.h), as the host does.
 * Integer counts are identical to the host's; float64 sums too, except minkowski's pow. */
enum gsvd_pd_dev_kind { GSVD_PD_DEV_COUNTS = 1, GSVD_PD_DEV_SUMS };

struct gsvd_pd_dev_band {
    enum gsvd_pd_dev_kind kind;
    size_t nb, nc; /* rows and columns of the band (nb <= nc) */
    size_t W;      /* COUNTS: words per plane */
    int l1;        /* COUNTS: the metric needs only n and sum |u - v| */
    int king;      /* COUNTS: KING's five counts from planes C, A, P (king, ibs0) */
    int metric;    /* SUMS: enum gsvd_pdist_metric */
    double p;      /* SUMS: minkowski order */
};

/* 1 when the backend accumulates pdist bands itself (be may be NULL: 0). */
int gsvd_backend_has_pdist(const gsvd_backend *be);
/* Device memory pdist may use now (free memory less a reserve), in bytes. */
GSVD_NODISCARD int gsvd_backend_pd_memory(gsvd_backend *be, uint64_t *bytes);
GSVD_NODISCARD int gsvd_backend_pd_begin(gsvd_backend *be, const struct gsvd_pd_dev_band *band);
GSVD_NODISCARD int gsvd_backend_pd_planes(gsvd_backend *be, const uint64_t *planes, size_t nw);
GSVD_NODISCARD int gsvd_backend_pd_rows(gsvd_backend *be, const double *x, size_t nf);
/* acc: nb x nc x 3 (or 5 with king) uint32 (COUNTS) or nb x nc x GSVD_PD_N_SUMS double (SUMS), host
 * memory. */
GSVD_NODISCARD int gsvd_backend_pd_end(gsvd_backend *be, void *acc);

/* ---- small dense float64 algebra (host memory, row-major) ----------------------------------- */
/* All eigenpairs of the symmetric n x n matrix a (overwritten): w ascending, eigenvectors in
 * the columns of a.  GSVD_EDEGENERATE (logged) if the solver fails to converge. */
GSVD_NODISCARD int gsvd_backend_eigh(gsvd_backend *be, size_t n, double *a, double *w);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_BACKEND_H */
