/* gpu/timer.h - what the CUDA backend's work cost on the device, for the -v report: device time
 * per kind of work (cuBLAS products, the backend's own kernels, the eigensolver) measured with
 * pairs of CUDA events recorded on the stream around each piece, the products' floating-point
 * operations (so a rate), and the peak device memory in use (total less free, read with
 * cudaMemGetInfo after each allocation step; another process's memory counts too).
 * Measuring is on only when the log level is info or more (-v), so other runs record no event.
 * Nothing here fails the computation: a failed event or query drops that measurement (and
 * clears the error it left, gpu/cuda_check.h).
 * Thread safety: one thread per timer; the timed work is on the caller's stream(s). */
#ifndef GSVD_GPU_TIMER_H
#define GSVD_GPU_TIMER_H
#include <stddef.h>
#include <cuda_runtime_api.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

enum gsvd_cuda_work {
    GSVD_CUDA_PRODUCTS, /* cuBLAS GEMM / SYRK */
    GSVD_CUDA_KERNELS,  /* gpu/kernels.cu */
    GSVD_CUDA_SOLVER,   /* cuSOLVER's eigensolver and the transpose of its vectors */
    GSVD_CUDA_N_WORK
};

#define GSVD_CUDA_TIMER_PAIRS 64 /* pieces in flight before the oldest is waited for */

struct gsvd_cuda_timer {
    int on;                                    /* measuring (events created) */
    cudaEvent_t ev[2 * GSVD_CUDA_TIMER_PAIRS]; /* start, stop of each pair */
    unsigned char work[GSVD_CUDA_TIMER_PAIRS]; /* enum gsvd_cuda_work of each pair */
    double pair_flop[GSVD_CUDA_TIMER_PAIRS];   /* operations of each pair */
    size_t head, count;                        /* ring of recorded, unsummed pairs */
    int started;                               /* a start is recorded at head + count */
    double ms[GSVD_CUDA_N_WORK];               /* summed device time */
    double flop;                               /* the products' operations, summed */
    size_t n_pieces[GSVD_CUDA_N_WORK];         /* pieces summed */
    size_t peak_used, total;                   /* bytes: peak in use, the device's memory */
};

/* Zero the timer and, when the log level is info or more, create its events.  Cannot fail
 * (without events it stays off). */
void gsvd_cuda_timer_init(struct gsvd_cuda_timer *t);
/* Wait for and sum the pairs still pending, then destroy the events.  Accepts a zeroed timer. */
void gsvd_cuda_timer_fini(struct gsvd_cuda_timer *t);
/* Record the start of a piece on `stream` (waits for the oldest pair when the ring is full). */
void gsvd_cuda_timer_start(struct gsvd_cuda_timer *t, cudaStream_t stream);
/* Record the end of the piece started last, of kind `w`, with `flop` operations (0 if none). */
void gsvd_cuda_timer_stop(struct gsvd_cuda_timer *t, cudaStream_t stream, enum gsvd_cuda_work w,
                          double flop);
/* Sum every recorded pair (waits for them). */
void gsvd_cuda_timer_drain(struct gsvd_cuda_timer *t);
/* Note the device memory in use now (when on). */
void gsvd_cuda_timer_memory(struct gsvd_cuda_timer *t);
/* "products 812.3 ms in 40 (2.41 TFLOP/s), kernels 95.1 ms in 300, eigensolver 0.0 ms in 0;
 * peak device memory in use 3.20 GiB of 139.80 GiB" into buf (NUL-terminated, truncated to
 * len); the caller drains first. */
void gsvd_cuda_timer_format(const struct gsvd_cuda_timer *t, char *buf, size_t len);

GSVD_EXTERN_C_END
#endif /* GSVD_GPU_TIMER_H */
