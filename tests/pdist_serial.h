/* tests/pdist_serial.h - serial launchers of the CUDA pdist kernels' bodies (gpu/pdist_body.h)
 * for tests: every block in turn (or in reverse), each block's threads phase by phase as the
 * kernel's barriers separate them (load all, count all, ..., store all).  Used by
 * tests/unit/test_pdist_body.c (no GPU) and tests/gpu/test_backend_cuda.c (the device's
 * results against these).  Thread safety: none (a static accumulator array). */
#ifndef GSVD_TESTS_PDIST_SERIAL_H
#define GSVD_TESTS_PDIST_SERIAL_H
#include <string.h>
#include "gpu/pdist_body.h"

/* The counts kernel over grid_y row tiles from a->tile_row0; reverse: blocks and threads in
 * reverse order. */
static inline void gsvd_serial_pd_counts(const struct gsvd_pdk_counts_args *a, size_t grid_y,
                                         int reverse)
{
    size_t gx = gsvd_pdk_tiles(a->nc);
    static struct gsvd_pdk_acc acc[GSVD_PDK_THREADS];
    struct gsvd_pdk_tile t;

    for (size_t q = 0; q < gx * grid_y; q++) {
        size_t blk = reverse ? gx * grid_y - 1 - q : q;
        uint32_t bx = (uint32_t)(blk % gx), by = (uint32_t)(blk / gx);
        if (gsvd_pdk_counts_skip(a, bx, by))
            continue;
        memset(acc, 0, sizeof acc);
        for (size_t w0 = 0; w0 < a->nw; w0 += GSVD_PDK_CH) {
            memset(&t, 0xA5, sizeof t); /* stale shared memory must not matter */
            for (uint32_t k = 0; k < GSVD_PDK_THREADS; k++)
                gsvd_pdk_counts_load(a, &t, bx, by, reverse ? GSVD_PDK_THREADS - 1 - k : k, w0);
            for (uint32_t k = 0; k < GSVD_PDK_THREADS; k++) {
                uint32_t tid = reverse ? GSVD_PDK_THREADS - 1 - k : k;
                gsvd_pdk_counts_chunk(a, &t, tid % GSVD_PDK_TILE, tid / GSVD_PDK_TILE, &acc[tid]);
            }
        }
        for (uint32_t tid = 0; tid < GSVD_PDK_THREADS; tid++)
            gsvd_pdk_counts_store(a, bx, by, tid % GSVD_PDK_TILE, tid / GSVD_PDK_TILE, &acc[tid]);
    }
}

/* The sums kernel over every row of the band. */
static inline void gsvd_serial_pd_sums(const struct gsvd_pdk_sums_args *a, int reverse)
{
    size_t gx = gsvd_pdk_sums_blocks(a->nc), total = gx * a->nb * GSVD_PDK_SUMS_THREADS;
    for (size_t q = 0; q < total; q++) {
        size_t k = reverse ? total - 1 - q : q;
        uint32_t tx = (uint32_t)(k % GSVD_PDK_SUMS_THREADS);
        size_t blk = k / GSVD_PDK_SUMS_THREADS;
        gsvd_pdk_sums(a, (uint32_t)(blk % gx), (uint32_t)(blk / gx), tx);
    }
}

#endif /* GSVD_TESTS_PDIST_SERIAL_H */
