/* analysis/scan/dosage.h - diploid calls to dosages, with the row's sums, in one pass (for
 * analysis/scan/genotype.c; public so tests/unit/test_dosage.c can hold every path to the rule).
 *
 * Rule (sgkit's, as genotype.h states it): a call is a pair of int8 allele indices (a, b);
 * -2 is "fill" (no allele: mixed ploidy), any other negative value is missing.  The call is
 * missing when either allele is missing or both are fill; otherwise its dosage is
 * (a > 0) + (b > 0).  Sums of a row: called calls, sum of dosages, sum of squared dosages.
 * Thread safety: pure functions. */
#ifndef GSVD_ANALYSIS_SCAN_DOSAGE_H
#define GSVD_ANALYSIS_SCAN_DOSAGE_H
#include <stddef.h>
#include <stdint.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* d[i] = dosage of call i (row[2i], row[2i + 1]), -1 when missing, i < n; sums[0..2] =
 * called count, sum, sum of squares.  Uses AVX-512BW where the CPU has it (and `simd`). */
void gsvd_diploid_dosages(const int8_t *row, size_t n, int8_t *d, int64_t sums[3], int simd);

/* Called count, sum and sum of squares of a row of dosages (negative: missing; AVX-512BW
 * where the CPU has it). */
void gsvd_dosage_sums(const int8_t *row, size_t n, int64_t sums[3]);

/* The n dosages of d (0..2, negative = missing) as a packed 2-bit row into o
 * (gsvd_std_p2_row_bytes(n) bytes; code 3 = missing, padding codes 0). */
void gsvd_dosage_pack_p2(const int8_t *d, size_t n, uint8_t *o);

/* Keep the bytes d[i] whose bit bit0 + i is set in bits (bit k = bits[k / 64] >> (k % 64)),
 * moved in order to the front of d, in place; returns how many.  bits must be readable up to
 * word (bit0 + n) / 64 + 1.  The picked samples of a subset, out of a row of all of them: a
 * compress by mask with AVX-512 VBMI2, shuffles from a table of the 256 byte masks with AVX2,
 * else one byte a step. */
size_t gsvd_dosage_compact(int8_t *d, size_t n, const uint64_t *bits, uint64_t bit0);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_SCAN_DOSAGE_H */
