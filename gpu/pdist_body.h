/* gpu/pdist_body.h - the per-thread bodies of the CUDA pdist kernels, as plain C functions of
 * explicit (block, thread) indices (the scheme of gpu/kernel_body.h): gpu/kernels.cu wraps them
 * in __global__ functions, tests/unit/test_pdist_body.c runs them from a serial launcher that
 * plays every block's threads phase by phase (load, sync, count, sync, ..., store), so tiling,
 * bounds and accumulation are tested without a GPU.
 *
 * Both kernels add to the accumulators of one band of pairs (r, c), r < nb, c < nc, c > r, in
 * the host kernels' layout (analysis/backend.h, "pdist accumulators on a device"):
 *  - counts: bit planes (called C, A = [g >= 1], B = [g >= 2]) of the band's items, nc x 3 x W
 *    words; with K = Cx & Cy, a = (Ax ^ Ay) & K, b = (Bx ^ By) & K: n = |K|, one = |a ^ b|,
 *    two = |a & b| (l1: n, |a| + |b|, 0): the integers analysis/pdist/pdist_bitplane.c counts.
 *    king: planes C, A, P = [g == 1]: n = |K|, het-het |Px & Py|, IBS0 |(Ax ^ Ay) & K &
 *    ~(Px | Py)|, |Px & Cy|, |Py & Cx| (GSVD_PD_N_KING counts, analysis/pdist/pdist_metric.h).
 *    A block owns a TILE x TILE tile of pairs; its 256 threads (x = column, y = row group)
 *    load CH words of each plane of the tile's rows and columns into shared memory, wait, and
 *    each thread counts its RPT rows against its column from there.  Counts of a launch stay
 *    in registers and are added once to the pair's uint32 accumulators; a pair belongs to one
 *    thread, so no atomics.
 *  - sums: float64 features, feature-major (feature f of item i at f * nc + i), one thread per
 *    pair (consecutive columns in a warp read consecutive addresses), continued with the host's
 *    gsvd_pd_sums_load / _add / _store (analysis/pdist/pdist_metric.h) in feature order.
 * No CUDA type appears here; the file compiles as C11 and as CUDA C++.
 * Thread safety: pure functions of their arguments, except the documented output writes. */
#ifndef GSVD_GPU_PDIST_BODY_H
#define GSVD_GPU_PDIST_BODY_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/pdist/pdist_metric.h"
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

#ifdef __CUDA_ARCH__
#define GSVD_PDK_POPC(x) ((uint32_t)__popcll(x))
#else
#define GSVD_PDK_POPC(x) ((uint32_t)__builtin_popcountll(x))
#endif

#define GSVD_PDK_TILE 32                               /* pairs per side of a block's tile */
#define GSVD_PDK_TY 8                                  /* thread rows: blockDim (TILE, TY) */
#define GSVD_PDK_THREADS (GSVD_PDK_TILE * GSVD_PDK_TY) /* 256 */
#define GSVD_PDK_RPT (GSVD_PDK_TILE / GSVD_PDK_TY)     /* rows per thread */
#define GSVD_PDK_CH 8                                  /* words per plane per shared chunk */
#define GSVD_PDK_GRID_Y_MAX 65535u                     /* CUDA's limit on gridDim.y */
#define GSVD_PDK_SUMS_THREADS 256                      /* sums kernel: blockDim.x */

/* ---- counts ------------------------------------------------------------------------------- */

struct gsvd_pdk_counts_args {
    const uint64_t *planes; /* nc items x 3 planes x W words */
    size_t W;               /* words per plane (a multiple of CH) */
    size_t nw;              /* words counted: a multiple of CH, <= W; zero words count nothing */
    size_t nb, nc;          /* band rows, columns */
    size_t tile_row0;       /* row tile of blockIdx.y == 0 (launches of <= 65535 row tiles) */
    int l1;
    int king;      /* KING's counts (planes C, A, P), GSVD_PD_N_KING per pair */
    uint32_t *cnt; /* nb x nc x gsvd_pdk_counts_per_pair(king), added to */
};

/* uint32 counts per pair of a counts band. */
GSVD_HD static inline size_t gsvd_pdk_counts_per_pair(int king)
{
    return king ? GSVD_PD_N_KING : 3;
}

/* Shared memory of a block: chunk [plane][word][item] of the tile's rows (x) and columns (y). */
struct gsvd_pdk_tile {
    uint64_t x[3][GSVD_PDK_CH][GSVD_PDK_TILE];
    uint64_t y[3][GSVD_PDK_CH][GSVD_PDK_TILE];
};

/* Per-thread counts of a launch. */
struct gsvd_pdk_acc {
    uint32_t v[GSVD_PDK_RPT][GSVD_PD_N_KING];
};

/* Grid of a band: x = column tiles, y = row tiles (split into launches of <= 65535). */
GSVD_HD static inline size_t gsvd_pdk_tiles(size_t items)
{
    return (items + GSVD_PDK_TILE - 1) / GSVD_PDK_TILE;
}

/* 1 when block (bx, by) holds no pair above the diagonal (all its threads leave at once). */
GSVD_HD static inline int gsvd_pdk_counts_skip(const struct gsvd_pdk_counts_args *a, uint32_t bx,
                                               uint32_t by)
{
    size_t r0 = (a->tile_row0 + by) * GSVD_PDK_TILE, c0 = (size_t)bx * GSVD_PDK_TILE;
    return r0 >= a->nb || c0 >= a->nc || c0 + GSVD_PDK_TILE <= r0 + 1;
}

/* Thread tid (0..THREADS-1) of block (bx, by) loads its share of words [w0, w0 + CH) of the
 * tile's planes into t; items past nb (rows) or nc (columns) load zeros. */
GSVD_HD static inline void gsvd_pdk_counts_load(const struct gsvd_pdk_counts_args *a,
                                                struct gsvd_pdk_tile *t, uint32_t bx, uint32_t by,
                                                uint32_t tid, size_t w0)
{
    const size_t per_item = 3 * GSVD_PDK_CH, per_side = per_item * GSVD_PDK_TILE;
    size_t r0 = (a->tile_row0 + by) * GSVD_PDK_TILE, c0 = (size_t)bx * GSVD_PDK_TILE;

    for (size_t q = tid; q < 2 * per_side; q += GSVD_PDK_THREADS) {
        size_t side = q / per_side, rem = q % per_side;
        size_t item = rem / per_item, pw = rem % per_item;
        size_t plane = pw / GSVD_PDK_CH, w = pw % GSVD_PDK_CH;
        size_t i = (side ? c0 : r0) + item, limit = side ? a->nc : a->nb;
        uint64_t v = i < limit ? a->planes[i * 3 * a->W + plane * a->W + w0 + w] : 0;
        if (side)
            t->y[plane][w][item] = v;
        else
            t->x[plane][w][item] = v;
    }
}

/* Thread (tx, ty) counts the chunk in t for rows ty + k TY (k < RPT) against column tx. */
GSVD_HD static inline void gsvd_pdk_counts_chunk(const struct gsvd_pdk_counts_args *a,
                                                 const struct gsvd_pdk_tile *t, uint32_t tx,
                                                 uint32_t ty, struct gsvd_pdk_acc *acc)
{
    for (int w = 0; w < GSVD_PDK_CH; w++) {
        uint64_t yc = t->y[0][w][tx], ya = t->y[1][w][tx], yb = t->y[2][w][tx];
        for (int k = 0; k < GSVD_PDK_RPT; k++) {
            size_t r = ty + (size_t)k * GSVD_PDK_TY;
            uint64_t kk = t->x[0][w][r] & yc;
            if (a->king) { /* the third planes are P */
                uint64_t xc = t->x[0][w][r], xa = t->x[1][w][r], xp = t->x[2][w][r];
                acc->v[k][0] += GSVD_PDK_POPC(kk);
                acc->v[k][1] += GSVD_PDK_POPC(xp & yb);
                acc->v[k][2] += GSVD_PDK_POPC((xa ^ ya) & kk & ~(xp | yb));
                acc->v[k][3] += GSVD_PDK_POPC(xp & yc);
                acc->v[k][4] += GSVD_PDK_POPC(yb & xc);
                continue;
            }
            uint64_t da = (t->x[1][w][r] ^ ya) & kk, db = (t->x[2][w][r] ^ yb) & kk;
            acc->v[k][0] += GSVD_PDK_POPC(kk);
            if (a->l1) {
                acc->v[k][1] += GSVD_PDK_POPC(da) + GSVD_PDK_POPC(db);
            } else {
                acc->v[k][1] += GSVD_PDK_POPC(da ^ db);
                acc->v[k][2] += GSVD_PDK_POPC(da & db);
            }
        }
    }
}

/* Thread (tx, ty) of block (bx, by) adds its counts to the pairs above the diagonal. */
GSVD_HD static inline void gsvd_pdk_counts_store(const struct gsvd_pdk_counts_args *a, uint32_t bx,
                                                 uint32_t by, uint32_t tx, uint32_t ty,
                                                 const struct gsvd_pdk_acc *acc)
{
    size_t r0 = (a->tile_row0 + by) * GSVD_PDK_TILE, c = (size_t)bx * GSVD_PDK_TILE + tx;
    if (c >= a->nc)
        return;
    for (int k = 0; k < GSVD_PDK_RPT; k++) {
        size_t r = r0 + ty + (size_t)k * GSVD_PDK_TY;
        uint32_t *p;
        if (r >= a->nb || c <= r)
            continue;
        size_t per = gsvd_pdk_counts_per_pair(a->king);
        p = a->cnt + (r * a->nc + c) * per;
        for (size_t q = 0; q < per; q++)
            p[q] += acc->v[k][q];
    }
}

/* ---- float64 sums --------------------------------------------------------------------------- */

struct gsvd_pdk_sums_args {
    const double *x; /* nf x nc, feature-major, NaN missing */
    size_t nf, nb, nc;
    size_t row_first; /* band row of blockIdx.y == 0 (launches of <= 65535 rows) */
    int metric;       /* enum gsvd_pdist_metric */
    double p;
    double *sums; /* nb x nc x GSVD_PD_N_SUMS, added to */
};

/* Grid: x = column blocks of SUMS_THREADS, y = rows. */
GSVD_HD static inline size_t gsvd_pdk_sums_blocks(size_t nc)
{
    return (nc + GSVD_PDK_SUMS_THREADS - 1) / GSVD_PDK_SUMS_THREADS;
}

GSVD_HD static inline void gsvd_pdk_sums(const struct gsvd_pdk_sums_args *a, uint32_t bx,
                                         uint32_t by, uint32_t tx)
{
    size_t r = a->row_first + by, c = (size_t)bx * GSVD_PDK_SUMS_THREADS + tx;
    enum gsvd_pdist_metric m = (enum gsvd_pdist_metric)a->metric;
    double *acc;
    struct gsvd_pd_sums s;

    if (r >= a->nb || c >= a->nc || c <= r)
        return;
    acc = a->sums + (r * a->nc + c) * GSVD_PD_N_SUMS;
    gsvd_pd_sums_load(acc, &s);
    for (size_t f = 0; f < a->nf; f++)
        gsvd_pd_sums_add(m, a->p, a->x[f * a->nc + r], a->x[f * a->nc + c], &s);
    gsvd_pd_sums_store(&s, acc);
}

GSVD_EXTERN_C_END
#endif /* GSVD_GPU_PDIST_BODY_H */
