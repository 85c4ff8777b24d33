/* gpu/timer.c - device time and memory of the CUDA backend's work (contract in gpu/timer.h). */
#include "gsvd_config.h"
#include "gpu/timer.h"

#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "gpu/cuda_check.h"

void gsvd_cuda_timer_init(struct gsvd_cuda_timer *t)
{
    size_t made = 0;

    memset(t, 0, sizeof *t);
    if (gsvd_log_get_level() < GSVD_LOG_INFO)
        return;
    for (; made < 2 * GSVD_CUDA_TIMER_PAIRS; made++)
        if (gsvd_cuda_tolerate(cudaEventCreate(&t->ev[made])) != cudaSuccess)
            break;
    if (made < 2 * GSVD_CUDA_TIMER_PAIRS) { /* stay off */
        while (made > 0)
            cudaEventDestroy(t->ev[--made]);
        return;
    }
    t->on = 1;
}

/* Sum the oldest pair (waits for its end). */
static void sum_oldest(struct gsvd_cuda_timer *t)
{
    size_t h = t->head;
    float ms = 0;

    if (gsvd_cuda_tolerate(cudaEventSynchronize(t->ev[2 * h + 1])) == cudaSuccess &&
        gsvd_cuda_tolerate(cudaEventElapsedTime(&ms, t->ev[2 * h], t->ev[2 * h + 1])) ==
            cudaSuccess) {
        t->ms[t->work[h]] += ms;
        t->n_pieces[t->work[h]]++;
        t->flop += t->pair_flop[h];
    }
    t->head = (h + 1) % GSVD_CUDA_TIMER_PAIRS;
    t->count--;
}

void gsvd_cuda_timer_drain(struct gsvd_cuda_timer *t)
{
    while (t->on && t->count > 0)
        sum_oldest(t);
}

void gsvd_cuda_timer_fini(struct gsvd_cuda_timer *t)
{
    if (!t->on)
        return;
    gsvd_cuda_timer_drain(t);
    for (size_t i = 0; i < 2 * GSVD_CUDA_TIMER_PAIRS; i++)
        cudaEventDestroy(t->ev[i]);
    t->on = 0;
}

void gsvd_cuda_timer_start(struct gsvd_cuda_timer *t, cudaStream_t stream)
{
    size_t slot;

    if (!t->on)
        return;
    if (t->count == GSVD_CUDA_TIMER_PAIRS)
        sum_oldest(t);
    slot = (t->head + t->count) % GSVD_CUDA_TIMER_PAIRS;
    t->started = gsvd_cuda_tolerate(cudaEventRecord(t->ev[2 * slot], stream)) == cudaSuccess;
}

void gsvd_cuda_timer_stop(struct gsvd_cuda_timer *t, cudaStream_t stream, enum gsvd_cuda_work w,
                          double flop)
{
    size_t slot;

    if (!t->on || !t->started)
        return;
    t->started = 0;
    slot = (t->head + t->count) % GSVD_CUDA_TIMER_PAIRS;
    if (gsvd_cuda_tolerate(cudaEventRecord(t->ev[2 * slot + 1], stream)) != cudaSuccess)
        return;
    t->work[slot] = (unsigned char)w;
    t->pair_flop[slot] = flop;
    t->count++;
}

void gsvd_cuda_timer_memory(struct gsvd_cuda_timer *t)
{
    size_t free_b = 0, total_b = 0;

    if (!t->on || gsvd_cuda_tolerate(cudaMemGetInfo(&free_b, &total_b)) != cudaSuccess)
        return;
    t->total = total_b;
    if (total_b - free_b > t->peak_used)
        t->peak_used = total_b - free_b;
}

void gsvd_cuda_timer_format(const struct gsvd_cuda_timer *t, char *buf, size_t len)
{
    double p = t->ms[GSVD_CUDA_PRODUCTS];

    snprintf(buf, len,
             "products %.1f ms in %zu (%.2f TFLOP/s), kernels %.1f ms in %zu, eigensolver %.1f ms "
             "in %zu; peak device memory in use %.2f GiB of %.2f GiB",
             p, t->n_pieces[GSVD_CUDA_PRODUCTS], p > 0 ? t->flop / (p * 1e9) : 0.0,
             t->ms[GSVD_CUDA_KERNELS], t->n_pieces[GSVD_CUDA_KERNELS], t->ms[GSVD_CUDA_SOLVER],
             t->n_pieces[GSVD_CUDA_SOLVER], (double)t->peak_used / 1073741824.0,
             (double)t->total / 1073741824.0);
}
