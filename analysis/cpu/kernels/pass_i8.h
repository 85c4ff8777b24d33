/* analysis/cpu/kernels/pass_i8.h - one row group of a randomized-PCA pass, Yg = Z_g^T (Z_g X), from
 * Intel AMX int8 tile products on the 2-bit call codes (the CPU backend's `i8` pass kernel).
 *
 * A row with scale a, centre c and missing value m standardises a call q (0..2) to
 * z = a q + b (b = -a c) and a missing call to m.  With q' the codes (0 for a missing call)
 * and M the 0/1 matrix of missing calls:
 *   T = Z X    = a (q' X~) + b (1' X~) + (m - b) (M X~),
 *   Yg = Z^T T = q'^T W~ + M^T V~ + 1 (sum_r b_r t_r)',   W = a T, V = (m - b) T,
 * where X~ is X rounded per column to an integer of 20 bits (relative 2^-20 of the column's
 * largest magnitude), and W~, V~ the same rounding of W and V with one scale per column over
 * the group's rows.  Each integer is three signed 7-bit digits, so q' X~, q'^T W~ and M^T V~
 * are exact int32 tile sums (TDPBUSD, TDPBSUD; the last two into the same accumulators),
 * recombined in float64; M X~ is summed from the missing calls' positions.  The roundings
 * make Yg agree with the float32 products to about 1e-6 relative (2e-5 where most calls are
 * missing), and Yg is rounded once to float32.  Every code is expanded twice per pass from
 * its 2-bit row (as int8 rows for T, as 4-row VNNI quads for Yg), in pieces that stay in
 * L1/L2.  The result is a function of the group's rows and X alone: the same for any thread
 * and any split of the rows into blocks.
 * Compiled with the AMX intrinsics only where the compiler has them (GSVD_HAVE_AMX);
 * gsvd_i8_pass_group runs only after gsvd_amx_int8_usable() said yes (the rest is plain C).
 * Ownership: the caller owns both handles (_new / _free; _free accepts NULL).
 * Thread safety: gsvd_i8x_set by one thread; then gsvd_i8_pass_group concurrently, each
 * thread with its own gsvd_i8w, all reading the same gsvd_i8x. */
#ifndef GSVD_ANALYSIS_CPU_KERNELS_PASS_I8_H
#define GSVD_ANALYSIS_CPU_KERNELS_PASS_I8_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/scan/gblock.h"
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

#define GSVD_I8P_MAX_ROWS 16384 /* rows of one group (int32 sums stay below 2^31) */

typedef struct gsvd_i8x gsvd_i8x; /* X's digits for one pass */
typedef struct gsvd_i8w gsvd_i8w; /* one thread's scratch */

/* New empty handles.  GSVD_OK or GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_i8x_new(gsvd_i8x **out);
GSVD_NODISCARD int gsvd_i8w_new(gsvd_i8w **out);
void gsvd_i8x_free(gsvd_i8x *x);
void gsvd_i8w_free(gsvd_i8w *w);

/* X (n x c float32, row-major) rounded and split into digits for the pass.  GSVD_OK,
 * GSVD_ENOMEM, or GSVD_EINVAL for c = 0 or a non-finite entry. */
GSVD_NODISCARD int gsvd_i8x_set(gsvd_i8x *x, size_t n, size_t c, const float *xf);

/* Room in w for groups of up to `rows` rows against x's shape.  GSVD_OK, GSVD_ENOMEM, or
 * GSVD_EINVAL for rows above GSVD_I8P_MAX_ROWS. */
GSVD_NODISCARD int gsvd_i8w_reserve(gsvd_i8w *w, const gsvd_i8x *x, size_t rows);

/* Bytes the kernel holds for a pass of n samples and c columns: X's digits and rows, and
 * `threads` workspaces for groups of `rows` rows (for --memory plans). */
double gsvd_i8p_bytes(size_t n, size_t c, size_t rows, size_t threads);

/* yg (n x c float32, overwritten) = Z_g^T (Z_g X) for the rows of the 2-bit block g
 * (g->p2, n_cols = n, n_rows <= the reserved rows; center, scale, missing as in
 * analysis/scan/gblock.h). */
void gsvd_i8_pass_group(const gsvd_i8x *x, gsvd_i8w *w, const struct gsvd_gblock *g, float *yg);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_CPU_KERNELS_PASS_I8_H */
