/* analysis/cpu/cpu_rows.h - the CPU backend's row expansion (analysis/cpu/cpu_rows.c): one row of a
 * genotype block standardised into float32, exactly the values of analysis/scan/gblock_std.h (the
 * vector paths index a table of those values by the code, so they give the scalar bits).
 * For analysis/cpu/backend_cpu.c.  Thread safety: pure functions of their arguments. */
#ifndef GSVD_ANALYSIS_CPU_CPU_ROWS_H
#define GSVD_ANALYSIS_CPU_CPU_ROWS_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/scan/gblock.h"
GSVD_EXTERN_C_BEGIN

/* Row r of g standardised into z (g->n_cols floats); *rs = the row's sum of squares (from
 * exact per-code counts for integer rows) when rs is not NULL. */
void gsvd_cpu_expand_row(const struct gsvd_gblock *g, size_t r, float *z, double *rs);

/* Row r of an int8 or 2-bit block as call codes into codes (g->n_cols bytes): the dosage for
 * 0..2 and 3 for a missing call (a negative int8; an int8 above 2 also reads 3: the caller
 * keeps this for dosages 0..2); *rs = the row's sum of squares as gsvd_cpu_expand_row's. */
void gsvd_cpu_row_codes(const struct gsvd_gblock *g, size_t r, uint8_t *codes, double *rs);

/* Row r's sum of squares as gsvd_cpu_expand_row's, for an int8 or 2-bit block. */
double gsvd_cpu_row_sumsq(const struct gsvd_gblock *g, size_t r);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_CPU_CPU_ROWS_H */
