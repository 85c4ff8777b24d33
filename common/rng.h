/* common/rng.h - counter-based random numbers: Philox4x32-10 (Salmon et al., SC'11).
 * A value depends only on (seed, stream, row, column), never on call order, so results do not
 * depend on thread count, block size or device; nor on the CPU: the normals' log and cos are
 * common/detmath.h's, not libm's.  Header-only and GSVD_HD so CUDA kernels run the same code.
 * Thread safety: pure functions. */
#ifndef GSVD_COMMON_RNG_H
#define GSVD_COMMON_RNG_H
#include <math.h>
#include <stdint.h>
#include "common/detmath.h"
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* Streams keep independent uses of one seed apart. */
enum gsvd_rng_stream {
    GSVD_RNG_SIM_ANCESTRAL = 1, /* simulate: ancestral allele frequency per variant */
    GSVD_RNG_SIM_POPFREQ = 2,   /* simulate: population frequency per (variant, population) */
    GSVD_RNG_SIM_GENOTYPE = 3,  /* simulate: alleles and missingness per (variant, sample) */
    GSVD_RNG_PCA_OMEGA = 4,     /* pca: Gaussian test matrix per (sample, column) */
};

struct gsvd_rng4 {
    uint32_t v[4];
};

GSVD_HD static inline void gsvd_philox_round(uint32_t *x, uint32_t k0, uint32_t k1)
{
    uint64_t p0 = (uint64_t)0xD2511F53u * x[0];
    uint64_t p1 = (uint64_t)0xCD9E8D57u * x[2];
    uint32_t y0 = (uint32_t)(p1 >> 32) ^ x[1] ^ k0;
    uint32_t y2 = (uint32_t)(p0 >> 32) ^ x[3] ^ k1;
    x[0] = y0;
    x[1] = (uint32_t)p1;
    x[2] = y2;
    x[3] = (uint32_t)p0;
}

/* Four independent 32-bit words for counter (row, col) under (seed, stream). */
GSVD_HD static inline struct gsvd_rng4 gsvd_rng_words(uint64_t seed, uint32_t stream, uint64_t row,
                                                      uint64_t col)
{
    struct gsvd_rng4 r;
    uint32_t k0 = (uint32_t)seed ^ (stream * 0x9E3779B9u);
    uint32_t k1 = (uint32_t)(seed >> 32) + stream;
    r.v[0] = (uint32_t)row;
    r.v[1] = (uint32_t)(row >> 32);
    r.v[2] = (uint32_t)col;
    r.v[3] = (uint32_t)(col >> 32);
    for (int i = 0; i < 10; i++) {
        gsvd_philox_round(r.v, k0, k1);
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return r;
}

/* Uniform double in (0, 1] from two words (53 random bits, never 0; 1 only for the largest
 * bits, 2^53 - 1, whose + 0.5 rounds to 2^53: once in 2^53 draws). */
GSVD_HD static inline double gsvd_rng_unit(uint32_t hi, uint32_t lo)
{
    uint64_t bits = ((uint64_t)hi << 21) ^ (lo >> 11);
    bits &= ((uint64_t)1 << 53) - 1;
    return ((double)bits + 0.5) * (1.0 / 9007199254740992.0);
}

/* Standard normal for (row, col) by Box-Muller on one Philox call:
 * sqrt(-2 log u1) cos(2 pi u2), with common/detmath.h's log and cos rather than libm's, so
 * the value is the same bits on every CPU and on the GPU (2.3 ulp from the true value at most
 * on 500,000 draws: tests/unit/test_detmath.c). */
GSVD_HD static inline double gsvd_rng_normal(uint64_t seed, uint32_t stream, uint64_t row,
                                             uint64_t col)
{
    struct gsvd_rng4 r = gsvd_rng_words(seed, stream, row, col);
    double u1 = gsvd_rng_unit(r.v[0], r.v[1]);
    double u2 = gsvd_rng_unit(r.v[2], r.v[3]);
    double radius = GSVD_DSQRT(GSVD_DMUL(-2.0, gsvd_detmath_log(u1)));
    return GSVD_DMUL(radius, gsvd_detmath_cos_2pi(u2));
}

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_RNG_H */
