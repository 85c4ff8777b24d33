/* analysis/scan/gblock_std.h - standardisation of genotype block values (struct gsvd_gblock), the
 * one definition shared by the CPU backend (compiled as C) and the CUDA kernels (compiled by nvcc,
 * where GSVD_HD makes every function __host__ __device__).  Both therefore produce bit-identical
 * float32 values Z and bit-identical float64 row sums of squares.
 *
 * Value of a call: a dosage v standardises to ((float)v - center) * scale in float32; a missing
 * call (int8 < 0, 2-bit code 3, float NaN) takes the row's `missing` value.  Float input is
 * standardised in float64 and rounded once to float32.
 * Row sum of squares of int8 / 2-bit rows: from a histogram of the row's 256 byte values (2-bit
 * codes 0..2 count in bins 0..2, code 3 in bin 255 = (uint8_t)-1), summed over the bins in
 * increasing order, so the result does not depend on the order the calls were counted in.
 * Float rows: the float64 sum of the float32 values squared, in column order.
 * The float64 arithmetic goes through GSVD_DMUL / GSVD_DADD (common/gsvd_defs.h), which nvcc
 * never fuses into an FMA, as the host C compiler (ISO C, -ffp-contract=off) does not either.
 * Thread safety: pure functions. */
#ifndef GSVD_ANALYSIS_SCAN_GBLOCK_STD_H
#define GSVD_ANALYSIS_SCAN_GBLOCK_STD_H
#include <stddef.h>
#include <stdint.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

#define GSVD_STD_BINS 256        /* histogram bins per row: one per byte value */
#define GSVD_STD_BIN_MISSING 255 /* bin of a missing call: (uint8_t)-1 */

/* Standardised value of an int8 dosage (negative = missing). */
GSVD_HD static inline float gsvd_std_i8(int8_t v, float center, float scale, float missing)
{
    return v < 0 ? missing : ((float)v - center) * scale;
}

/* Bytes per packed 2-bit row of n calls. */
GSVD_HD static inline size_t gsvd_std_p2_row_bytes(size_t n)
{
    return (n + 3) / 4;
}

/* 2-bit code of call i of a packed row: bits 2(i%4) of byte i/4. */
GSVD_HD static inline unsigned gsvd_std_p2_code(const uint8_t *row, size_t i)
{
    return (unsigned)(row[i >> 2] >> (2 * (i & 3))) & 3u;
}

/* Histogram bin of a 2-bit code: 0..2 as themselves, 3 (missing) as GSVD_STD_BIN_MISSING. */
GSVD_HD static inline unsigned gsvd_std_p2_bin(unsigned code)
{
    return code == 3 ? GSVD_STD_BIN_MISSING : code;
}

/* Standardised value of a 2-bit code (3 = missing). */
GSVD_HD static inline float gsvd_std_p2(unsigned code, float center, float scale, float missing)
{
    return code == 3 ? missing : ((float)code - center) * scale;
}

/* Standardised value of a float input (NaN = missing). */
GSVD_HD static inline float gsvd_std_f64(double x, float center, float scale, float missing)
{
    return x != x ? missing : (float)((x - (double)center) * (double)scale);
}

/* Standardised value of histogram bin b (the byte of an int8 dosage). */
GSVD_HD static inline float gsvd_std_bin_value(unsigned b, float center, float scale, float missing)
{
    return gsvd_std_i8((int8_t)(b < 128 ? (int)b : (int)b - 256), center, scale, missing);
}

/* Sum of squares of a row from its GSVD_STD_BINS counts. */
GSVD_HD static inline double gsvd_std_sumsq_hist(const uint32_t *hist, float center, float scale,
                                                 float missing)
{
    double rs = 0;
    for (unsigned b = 0; b < GSVD_STD_BINS; b++) {
        if (!hist[b])
            continue; /* adds +-0 (z is finite): the same sum, ~60x fewer terms for dosages */
        double z = (double)gsvd_std_bin_value(b, center, scale, missing);
        rs = GSVD_DADD(rs, GSVD_DMUL(GSVD_DMUL((double)hist[b], z), z));
    }
    return rs;
}

/* Sum of squares of n standardised float32 values, in order. */
GSVD_HD static inline double gsvd_std_sumsq_f32(const float *z, size_t n)
{
    double rs = 0;
    for (size_t i = 0; i < n; i++)
        rs = GSVD_DADD(rs, GSVD_DMUL((double)z[i], (double)z[i]));
    return rs;
}

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_SCAN_GBLOCK_STD_H */
