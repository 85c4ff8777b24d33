/* gpu/pdist_cuda.h - the CUDA backend's pdist accumulators (its struct gsvd_pdist_device_ops;
 * contract in analysis/pdist/pdist_device.h).  gpu/backend_cuda.c owns one gsvd_cuda_pd per
 * backend, made on the first band.
 *
 * Data path: each piece (a segment of bit planes, or a float64 piece) is copied into the next
 * of two pinned staging slots, uploaded on a copy stream and consumed by a kernel on the
 * compute stream, which waits for that upload only; the call then returns and the host packs
 * the next piece while the device copies and counts.  A slot is refilled after its previous
 * upload finished and its device copy is overwritten only after the kernel that read it ran
 * (events), as in the PCA path.  The band's accumulators stay on the device until pd_end.
 * Thread safety: one thread per handle. */
#ifndef GSVD_GPU_PDIST_CUDA_H
#define GSVD_GPU_PDIST_CUDA_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/pdist/pdist_device.h"
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

typedef struct gsvd_cuda_pd gsvd_cuda_pd;

/* Free device memory pdist may plan with: what cudaMemGetInfo reports free, less a reserve of
 * 5% of the device (at least 256 MiB) for the runtime, cuBLAS and fragmentation. */
GSVD_NODISCARD int gsvd_cuda_pd_memory(uint64_t *bytes);

/* Open a band on the current device; creates *pd (caller owns; gsvd_cuda_pd_destroy) the first
 * time.  GSVD_ENOMEM when the band's accumulators do not fit, GSVD_EGPU (logged). */
GSVD_NODISCARD int gsvd_cuda_pd_begin(gsvd_cuda_pd **pd, const struct gsvd_pd_dev_band *band);
GSVD_NODISCARD int gsvd_cuda_pd_planes(gsvd_cuda_pd *pd, const uint64_t *planes, size_t nw);
GSVD_NODISCARD int gsvd_cuda_pd_rows(gsvd_cuda_pd *pd, const double *x, size_t nf);
GSVD_NODISCARD int gsvd_cuda_pd_end(gsvd_cuda_pd *pd, void *acc);
/* Waits for queued work, logs the transfer statistics (-v), frees everything.  Accepts NULL. */
void gsvd_cuda_pd_destroy(gsvd_cuda_pd *pd);

GSVD_EXTERN_C_END
#endif /* GSVD_GPU_PDIST_CUDA_H */
