/* gpu/kernel_body.h - the per-thread bodies of the CUDA backend's kernels, as plain C functions
 * of explicit (block, thread) indices.  gpu/kernels.cu wraps each in a __global__ function that
 * passes blockIdx/threadIdx; the CPU tests (tests/unit/test_kernel_body.c) call the same bodies
 * from a serial launcher that loops over every block and thread, so indexing, bounds and
 * accumulation are tested on machines without a GPU.  A body never synchronises with other
 * threads: work that needs an order (sums) is given to one thread.  Counters shared between
 * threads are only ever incremented with GSVD_KB_ATOMIC_ADD (atomicAdd on the device, a plain
 * add in the serial launcher), so integer results do not depend on the schedule.
 * Values come from analysis/scan/gblock_std.h, the definitions the CPU backend uses.
 * No CUDA type appears here; the file compiles as C11 and as CUDA C++.
 * Thread safety: pure functions of their arguments, except the documented output writes. */
#ifndef GSVD_GPU_KERNEL_BODY_H
#define GSVD_GPU_KERNEL_BODY_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/scan/gblock_std.h"
#include "common/gsvd_defs.h"
#include "common/rng.h"
GSVD_EXTERN_C_BEGIN

#ifdef __CUDA_ARCH__
#define GSVD_KB_ATOMIC_ADD(p, v) atomicAdd((p), (v))
#else
#define GSVD_KB_ATOMIC_ADD(p, v) (*(p) += (v))
#endif

#define GSVD_KB_THREADS 256       /* threads per block of every kernel (blockDim.x) */
#define GSVD_KB_STD_PER_THREAD 16 /* calls per thread in the standardise kernel */
#define GSVD_KB_GRID_Y_MAX 65535u /* CUDA's limit on gridDim.y */

/* Blocks of GSVD_KB_THREADS needed for `count` one-thread items. */
GSVD_HD static inline size_t gsvd_kb_blocks(size_t count)
{
    return (count + GSVD_KB_THREADS - 1) / GSVD_KB_THREADS;
}

/* ---- standardise: compact rows -> float32 Z, optional per-row histograms ---------------------
 * Grid: x = gsvd_kb_std_grid_x(n) blocks along the samples, y = rows.  Thread (bx, tx) of row by
 * handles calls i = (bx * PER + j) * THREADS + tx, j < PER (coalesced across the threads of a
 * block).  With hist set it also counts the row's byte values: codes 0, 1, 2 and missing in
 * registers, added once per thread; any other value directly. */
struct gsvd_kb_std_args {
    const int8_t *i8;     /* rows x n dosages, or NULL */
    const uint8_t *p2;    /* rows x gsvd_std_p2_row_bytes(n) packed codes, or NULL */
    const double *f64;    /* rows x n float input, or NULL */
    const float *center;  /* per row */
    const float *scale;   /* per row */
    const float *missing; /* per row, or NULL for 0 */
    size_t n;             /* samples: columns of every row */
    size_t rows;          /* rows of this launch */
    float *z;             /* out: rows x n float32, row-major */
    uint32_t *hist;       /* out (added to): rows x GSVD_STD_BINS counts, or NULL */
};

GSVD_HD static inline size_t gsvd_kb_std_grid_x(size_t n)
{
    size_t per_block = (size_t)GSVD_KB_THREADS * GSVD_KB_STD_PER_THREAD;
    return (n + per_block - 1) / per_block;
}

GSVD_HD static inline void gsvd_kb_std(const struct gsvd_kb_std_args *a, uint32_t bx, uint32_t by,
                                       uint32_t tx)
{
    size_t r = by, n = a->n;
    float c, s, m, *z;
    uint32_t cnt[4] = {0, 0, 0, 0}; /* bins 0, 1, 2 and GSVD_STD_BIN_MISSING */

    if (r >= a->rows)
        return;
    c = a->center[r];
    s = a->scale[r];
    m = a->missing ? a->missing[r] : 0.0f;
    z = a->z + r * n;
    for (uint32_t j = 0; j < GSVD_KB_STD_PER_THREAD; j++) {
        size_t i = ((size_t)bx * GSVD_KB_STD_PER_THREAD + j) * GSVD_KB_THREADS + tx;
        unsigned bin;
        if (i >= n)
            break;
        if (a->i8) {
            int8_t v = a->i8[r * n + i];
            z[i] = gsvd_std_i8(v, c, s, m);
            bin = (uint8_t)v;
        } else if (a->p2) {
            unsigned code = gsvd_std_p2_code(a->p2 + r * gsvd_std_p2_row_bytes(n), i);
            z[i] = gsvd_std_p2(code, c, s, m);
            bin = gsvd_std_p2_bin(code);
        } else {
            z[i] = gsvd_std_f64(a->f64[r * n + i], c, s, m);
            continue; /* float rows are summed from z, not counted */
        }
        if (!a->hist)
            continue;
        if (bin < 3)
            cnt[bin]++;
        else if (bin == GSVD_STD_BIN_MISSING)
            cnt[3]++;
        else
            GSVD_KB_ATOMIC_ADD(&a->hist[r * GSVD_STD_BINS + bin], 1u);
    }
    if (!a->hist)
        return;
    for (unsigned q = 0; q < 4; q++)
        if (cnt[q])
            GSVD_KB_ATOMIC_ADD(&a->hist[r * GSVD_STD_BINS + (q < 3 ? q : GSVD_STD_BIN_MISSING)],
                               cnt[q]);
}

/* ---- row sums of squares: one thread per row ------------------------------------------------
 * rs[r] = gsvd_std_sumsq_hist(hist row r) when hist is set (int8 / 2-bit rows), else
 * gsvd_std_sumsq_f32(z row r) (float rows).  Grid: x = gsvd_kb_blocks(rows). */
struct gsvd_kb_rowsq_args {
    const uint32_t *hist;                  /* rows x GSVD_STD_BINS, or NULL */
    const float *z;                        /* rows x n (used when hist is NULL) */
    const float *center, *scale, *missing; /* per row; missing may be NULL */
    size_t n, rows;
    double *rs; /* out: rows */
};

GSVD_HD static inline void gsvd_kb_rowsq(const struct gsvd_kb_rowsq_args *a, uint32_t bx,
                                         uint32_t tx)
{
    size_t r = (size_t)bx * GSVD_KB_THREADS + tx;
    if (r >= a->rows)
        return;
    if (a->hist)
        a->rs[r] = gsvd_std_sumsq_hist(a->hist + r * GSVD_STD_BINS, a->center[r], a->scale[r],
                                       a->missing ? a->missing[r] : 0.0f);
    else
        a->rs[r] = gsvd_std_sumsq_f32(a->z + r * a->n, a->n);
}

/* ---- ordered sum: *acc += rs[0] + rs[1] + ... in row order, by thread (0, 0) only ------------
 * The same additions, in the same order, as the CPU backend's running *sumsq. */
GSVD_HD static inline void gsvd_kb_sum_ordered(const double *rs, size_t rows, double *acc,
                                               uint32_t bx, uint32_t tx)
{
    double s;
    if (bx != 0 || tx != 0)
        return;
    s = *acc;
    for (size_t r = 0; r < rows; r++)
        s = GSVD_DADD(s, rs[r]);
    *acc = s;
}

/* ---- exact grid sums (common/xsum.h) on the device --------------------------------------------
 * The same roundings and additions as gsvd_xsum_add, through GSVD_DADD so that nvcc neither
 * fuses nor reorders them: every term is split onto the grids q and q 2^-40 and the parts are
 * added exactly, so the sum (hi + lo) is the host's whatever the order of the terms. */
struct gsvd_kb_grid {
    double c_hi;  /* 1.5 * 2^52 * q */
    double c_lo;  /* 1.5 * 2^52 * q 2^-40 */
    double bound; /* terms and partial sums are at most this in magnitude */
};

GSVD_HD static inline double gsvd_kb_round(double v, double c)
{
    return GSVD_DADD(GSVD_DADD(v, c), -c);
}

GSVD_HD static inline void gsvd_kb_xadd(double *hi, double *lo, double v,
                                        const struct gsvd_kb_grid *g)
{
    double h = gsvd_kb_round(v, g->c_hi), t;
    *hi = GSVD_DADD(*hi, h);
    *lo = GSVD_DADD(*lo, gsvd_kb_round(GSVD_DADD(v, -h), g->c_lo));
    t = gsvd_kb_round(*lo, g->c_hi); /* the carry: keeps |lo| <= q / 2 */
    *hi = GSVD_DADD(*hi, t);
    *lo = GSVD_DADD(*lo, -t);
}

/* hi[i], lo[i] += src[i] exactly on grid[i % c], i < count; *over counts values beyond their
 * grid's bound (an error for the caller).  Grid: x = gsvd_kb_blocks(count). */
GSVD_HD static inline void gsvd_kb_acc_xsum(double *hi, double *lo, const float *src, size_t count,
                                            size_t c, const struct gsvd_kb_grid *grid,
                                            uint32_t *over, uint32_t bx, uint32_t tx)
{
    size_t i = (size_t)bx * GSVD_KB_THREADS + tx;
    if (i >= count)
        return;
    const struct gsvd_kb_grid *g = &grid[c > 1 ? i % c : 0];
    double v = (double)src[i];
    if (!(v <= g->bound && -v <= g->bound))
        GSVD_KB_ATOMIC_ADD(over, 1u);
    gsvd_kb_xadd(&hi[i], &lo[i], v, g);
}

/* acc[0], acc[1] (hi, lo) += rs[0..rows) exactly, by thread (0, 0) only; *over as above. */
GSVD_HD static inline void gsvd_kb_sum_xsum(const double *rs, size_t rows, double *acc,
                                            struct gsvd_kb_grid g, uint32_t *over, uint32_t bx,
                                            uint32_t tx)
{
    double hi, lo;
    if (bx != 0 || tx != 0)
        return;
    hi = acc[0];
    lo = acc[1];
    for (size_t r = 0; r < rows; r++) {
        if (!(rs[r] <= g.bound))
            GSVD_KB_ATOMIC_ADD(over, 1u);
        gsvd_kb_xadd(&hi, &lo, rs[r], &g);
    }
    acc[0] = hi;
    acc[1] = lo;
}

/* ---- elementwise: dst (float64) += src (float32); dst = (double)src ---------------------------
 * Grid: x = gsvd_kb_blocks(count). */
GSVD_HD static inline void gsvd_kb_acc_f32(double *dst, const float *src, size_t count, uint32_t bx,
                                           uint32_t tx)
{
    size_t i = (size_t)bx * GSVD_KB_THREADS + tx;
    if (i < count)
        dst[i] = GSVD_DADD(dst[i], (double)src[i]);
}

GSVD_HD static inline void gsvd_kb_widen(double *dst, const float *src, size_t count, uint32_t bx,
                                         uint32_t tx)
{
    size_t i = (size_t)bx * GSVD_KB_THREADS + tx;
    if (i < count)
        dst[i] = (double)src[i];
}

/* ---- symmetrise an n x n matrix whose lower triangle (column-major) holds the values ---------
 * Column-major lower = row-major upper, so this is also "copy row-major upper to lower".
 * Grid: x = gsvd_kb_blocks(n) over rows i, y over columns j = col0 + by; a launch covers at
 * most GSVD_KB_GRID_Y_MAX columns, so n above that takes several launches (col0 steps). */
GSVD_HD static inline void gsvd_kb_symmetrise(double *g, size_t n, size_t col0, uint32_t bx,
                                              uint32_t by, uint32_t tx)
{
    size_t i = (size_t)bx * GSVD_KB_THREADS + tx, j = col0 + by;
    if (i < n && j < n && i < j)
        g[j * n + i] = g[i * n + j]; /* (i, j) above the diagonal <- (j, i) below */
}

/* ---- Philox words of common/rng.h: out[4 t + w] = word w of counter (row0 + t / cols,
 * t % cols) for t < count.  Grid: x = gsvd_kb_blocks(count).  The device test compares these
 * with the host's words, bit for bit. */
GSVD_HD static inline void gsvd_kb_rng_words(uint64_t seed, uint32_t stream, uint64_t row0,
                                             uint64_t cols, size_t count, uint32_t *out,
                                             uint32_t bx, uint32_t tx)
{
    size_t t = (size_t)bx * GSVD_KB_THREADS + tx;
    struct gsvd_rng4 w;
    if (t >= count)
        return;
    w = gsvd_rng_words(seed, stream, row0 + t / cols, t % cols);
    for (int q = 0; q < 4; q++)
        out[4 * t + q] = w.v[q];
}

GSVD_EXTERN_C_END
#endif /* GSVD_GPU_KERNEL_BODY_H */
