/* analysis/pdist/pdist_device.h - what pdist asks of a backend (GSVD_AN_PDIST): per-pair
 * accumulators of a band on a device, fed with the host kernels' bit planes or float64 pieces.
 * A backend offers it by returning a struct gsvd_pdist_device_ops from its `analysis` op
 * (analysis/backend_internal.h); the kernels call the wrappers below.  The CPU backend does
 * not offer it: pdist then counts on the host.
 * Thread safety: as analysis/backend.h, one thread per backend handle. */
#ifndef GSVD_ANALYSIS_PDIST_PDIST_DEVICE_H
#define GSVD_ANALYSIS_PDIST_PDIST_DEVICE_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/backend.h"
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* ---- the band protocol and the plane layout -----------------------------------------------------
 * The pdist kernels (analysis/pdist/pdist_*.c) prepare features on the host (bit planes, float64
 * pieces) and may hand the per-pair accumulation of a band to a backend that offers it (a
 * device backend; the CPU backend does not: pdist then counts on the host).  One band at a time:
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

/* The table a backend fills (static storage): all five set.  Fields are appended, never
 * reordered; a wrapper reads a field added in version N only when version >= N. */
#define GSVD_PDIST_DEVICE_VERSION 1
struct gsvd_pdist_device_ops {
    int version; /* GSVD_PDIST_DEVICE_VERSION */
    int (*pd_memory)(gsvd_backend *be, uint64_t *bytes);
    int (*pd_begin)(gsvd_backend *be, const struct gsvd_pd_dev_band *band);
    int (*pd_planes)(gsvd_backend *be, const uint64_t *planes, size_t nw);
    int (*pd_rows)(gsvd_backend *be, const double *x, size_t nf);
    int (*pd_end)(gsvd_backend *be, void *acc);
};

/* ---- wrappers: GSVD_ENOTBUILT (not logged) when the backend offers no table ---------------- */
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

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_PDIST_PDIST_DEVICE_H */
