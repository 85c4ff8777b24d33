/* analysis/cpu/kernels/pass_avx2.h - one row group of a randomized-PCA pass, Yg = Z_g^T (Z_g X), in
 * float32 with AVX2 FMA straight from the 2-bit call codes: the CPU backend's float32 pass on CPUs
 * with AVX2 and FMA but no AVX-512 (where OpenBLAS's sgemm needed each sub-tile of Z written out
 * as float32 and packed twice more).
 *
 * The standardised values are exactly the float32 values of analysis/scan/gblock_std.h (each
 * row's four values, looked up by code with vpermps, in registers and an L1-sized buffer); the
 * products are float32 fused multiply-adds in a fixed order:
 *   T = Z X     over chunks of samples: 8 sample lanes per row and column, each lane a float32
 *               sum over the chunks (n / 8 terms), the 8 lanes added in float64;
 *   Yg = Z^T T  with T rounded to float32: each entry a float32 sum over the group's rows in
 *               order (as the float32 sgemm path sums them), rounded once into yg.
 * So Yg differs from OpenBLAS's float32 products only in the order of the float32 sums (both
 * within float32 rounding of the exact product, a few 1e-7 relative on PCA data), and it is a
 * function of the group's rows and X alone: the same for any thread and any split of the rows
 * into blocks.
 * Compiled on x86-64 with GCC or clang (target attributes); gsvd_avx2_pass_group runs only after
 * gsvd_cpu_avx2() (common/cpu.h) said yes.  The rest is plain C.
 * Ownership: the caller owns both handles (_new / _free; _free accepts NULL).
 * Thread safety: gsvd_avx2x_set by one thread; then gsvd_avx2_pass_group concurrently, each
 * thread with its own gsvd_avx2w, all reading the same gsvd_avx2x. */
#ifndef GSVD_ANALYSIS_CPU_KERNELS_PASS_AVX2_H
#define GSVD_ANALYSIS_CPU_KERNELS_PASS_AVX2_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/scan/gblock.h"
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

typedef struct gsvd_avx2x gsvd_avx2x; /* X for one pass, transposed */
typedef struct gsvd_avx2w gsvd_avx2w; /* one thread's scratch */

/* New empty handles.  GSVD_OK or GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_avx2x_new(gsvd_avx2x **out);
GSVD_NODISCARD int gsvd_avx2w_new(gsvd_avx2w **out);
void gsvd_avx2x_free(gsvd_avx2x *x);
void gsvd_avx2w_free(gsvd_avx2w *w);

/* X (n x c float32, row-major, borrowed) transposed for the pass.  GSVD_OK, GSVD_ENOMEM, or
 * GSVD_EINVAL for c = 0 or sizes that overflow. */
GSVD_NODISCARD int gsvd_avx2x_set(gsvd_avx2x *x, size_t n, size_t c, const float *xf);

/* Room in w for groups of up to `rows` rows against x's shape.  GSVD_OK, GSVD_ENOMEM, or
 * GSVD_EINVAL for sizes that overflow. */
GSVD_NODISCARD int gsvd_avx2w_reserve(gsvd_avx2w *w, const gsvd_avx2x *x, size_t rows);

/* Bytes the engine holds for a pass of n samples and c columns: X transposed, and `threads`
 * workspaces for groups of `rows` rows (for --memory plans). */
double gsvd_avx2p_bytes(size_t n, size_t c, size_t rows, size_t threads);

/* yg (n x c float32, overwritten) = Z_g^T (Z_g X) for the rows of the 2-bit block g (g->p2,
 * n_cols = n, n_rows <= the reserved rows; center, scale, missing as in
 * analysis/scan/gblock.h). */
void gsvd_avx2_pass_group(const gsvd_avx2x *x, gsvd_avx2w *w, const struct gsvd_gblock *g,
                          float *yg);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_CPU_KERNELS_PASS_AVX2_H */
