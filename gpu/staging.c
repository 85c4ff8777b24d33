/* gpu/staging.c - pinned staging slots (contract in gpu/staging.h). */
#include "gsvd_config.h"
#include "gpu/staging.h"

#include <string.h>

#include "common/err.h"
#include "gpu/cuda_check.h"

int gsvd_cuda_slot_init(struct gsvd_cuda_slot *s)
{
    int rc = GSVD_OK;
    memset(s, 0, sizeof *s);
    GSVD_CUDA_TRY(cudaEventCreateWithFlags(&s->uploaded, cudaEventDisableTiming));
    GSVD_CUDA_TRY(cudaEventCreateWithFlags(&s->consumed, cudaEventDisableTiming));
    GSVD_CUDA_TRY(cudaEventCreate(&s->t0));
    GSVD_CUDA_TRY(cudaEventCreate(&s->t1));
out:
    return rc;
}

void gsvd_cuda_slot_count(struct gsvd_cuda_slot *s, struct gsvd_cuda_xfer *x)
{
    float ms = 0;
    if (s->timed && x && gsvd_cuda_tolerate(cudaEventElapsedTime(&ms, s->t0, s->t1)) == cudaSuccess)
        x->ms += ms;
    s->timed = 0;
}

static void slot_free_buffers(struct gsvd_cuda_slot *s)
{
    cudaFreeHost(s->host);
    cudaFree(s->dev);
    s->host = s->dev = NULL;
    s->cap = 0;
}

void gsvd_cuda_slot_fini(struct gsvd_cuda_slot *s, struct gsvd_cuda_xfer *x)
{
    gsvd_cuda_slot_count(s, x);
    slot_free_buffers(s);
    if (s->uploaded)
        cudaEventDestroy(s->uploaded);
    if (s->consumed)
        cudaEventDestroy(s->consumed);
    if (s->t0)
        cudaEventDestroy(s->t0);
    if (s->t1)
        cudaEventDestroy(s->t1);
    memset(s, 0, sizeof *s);
}

int gsvd_cuda_slot_acquire(struct gsvd_cuda_slot *s, size_t bytes, struct gsvd_cuda_xfer *x)
{
    int rc = GSVD_OK;
    GSVD_CUDA_TRY(cudaEventSynchronize(s->uploaded)); /* the host buffer is free again */
    gsvd_cuda_slot_count(s, x);
    if (bytes <= s->cap && s->host)
        goto out;
    /* the old device copy may still be read by queued kernels */
    GSVD_CUDA_TRY(cudaEventSynchronize(s->consumed));
    slot_free_buffers(s);
    bytes += bytes / 4; /* fewer regrowths when piece sizes vary */
    GSVD_CUDA_TRY(cudaHostAlloc((void **)&s->host, bytes ? bytes : 1, cudaHostAllocDefault));
    GSVD_CUDA_TRY(cudaMalloc((void **)&s->dev, bytes ? bytes : 1));
    s->cap = bytes;
out:
    return rc;
}

int gsvd_cuda_slot_upload(struct gsvd_cuda_slot *s, size_t bytes, cudaStream_t copy,
                          cudaStream_t compute, struct gsvd_cuda_xfer *x)
{
    int rc = GSVD_OK;
    GSVD_CUDA_TRY(cudaStreamWaitEvent(copy, s->consumed, 0));
    GSVD_CUDA_TRY(cudaEventRecord(s->t0, copy));
    GSVD_CUDA_TRY(cudaMemcpyAsync(s->dev, s->host, bytes, cudaMemcpyHostToDevice, copy));
    GSVD_CUDA_TRY(cudaEventRecord(s->t1, copy));
    GSVD_CUDA_TRY(cudaEventRecord(s->uploaded, copy));
    GSVD_CUDA_TRY(cudaStreamWaitEvent(compute, s->uploaded, 0));
    s->timed = 1;
    if (x) {
        x->bytes += bytes;
        x->n++;
    }
out:
    return rc;
}

int gsvd_cuda_slot_consumed(struct gsvd_cuda_slot *s, cudaStream_t compute)
{
    int rc = GSVD_OK;
    GSVD_CUDA_TRY(cudaEventRecord(s->consumed, compute));
out:
    return rc;
}
