/* gpu/staging.h - pinned staging slots for host-to-device uploads that overlap compute: the
 * host fills a slot's pinned buffer, the copy stream uploads it to the slot's device buffer and
 * the compute stream waits for that copy only.  Two slots used in turn let the host prepare the
 * next piece while the device copies and computes the previous one.  Events guard reuse: a
 * slot's host buffer is refilled only after its last upload finished (`uploaded`), its device
 * buffer overwritten only after the kernels that read it ran (`consumed`, recorded by the
 * caller with gsvd_cuda_slot_consumed after its last such kernel).  Copy times are measured
 * with events and summed into a struct gsvd_cuda_xfer for the -v report.
 * Thread safety: one thread per slot. */
#ifndef GSVD_GPU_STAGING_H
#define GSVD_GPU_STAGING_H
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

struct gsvd_cuda_xfer {
    uint64_t bytes; /* uploaded */
    double ms;      /* time the copies took on the copy stream */
    size_t n;       /* uploads */
};

struct gsvd_cuda_slot {
    unsigned char *host;  /* pinned */
    unsigned char *dev;   /* device copy of host */
    size_t cap;           /* bytes of each */
    cudaEvent_t uploaded; /* copy stream: dev holds the piece, host may be refilled */
    cudaEvent_t consumed; /* compute stream: the kernels have read dev */
    cudaEvent_t t0, t1;   /* around the last copy */
    int timed;            /* 1: t0/t1 hold a copy not yet counted */
};

/* Create the slot's events (buffers come with the first acquire).  GSVD_EGPU (logged). */
GSVD_NODISCARD int gsvd_cuda_slot_init(struct gsvd_cuda_slot *s);
/* Free buffers and events (the caller has synchronised the streams); counts a pending copy
 * into x when not NULL.  Accepts a zeroed slot. */
void gsvd_cuda_slot_fini(struct gsvd_cuda_slot *s, struct gsvd_cuda_xfer *x);
/* Add the slot's last copy, if finished and not yet counted, to x. */
void gsvd_cuda_slot_count(struct gsvd_cuda_slot *s, struct gsvd_cuda_xfer *x);
/* Wait until the host buffer is free again and make both buffers hold `bytes` (regrowing
 * waits for `consumed` first).  GSVD_ENOMEM / GSVD_EGPU (logged). */
GSVD_NODISCARD int gsvd_cuda_slot_acquire(struct gsvd_cuda_slot *s, size_t bytes,
                                          struct gsvd_cuda_xfer *x);
/* Upload the first `bytes` of host on `copy` once `consumed` has passed; `compute` waits for
 * the copy.  GSVD_EGPU (logged). */
GSVD_NODISCARD int gsvd_cuda_slot_upload(struct gsvd_cuda_slot *s, size_t bytes, cudaStream_t copy,
                                         cudaStream_t compute, struct gsvd_cuda_xfer *x);
/* The work queued on `compute` so far is the last to read the device buffer. */
GSVD_NODISCARD int gsvd_cuda_slot_consumed(struct gsvd_cuda_slot *s, cudaStream_t compute);

GSVD_EXTERN_C_END
#endif /* GSVD_GPU_STAGING_H */
