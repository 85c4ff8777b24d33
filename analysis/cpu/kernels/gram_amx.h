/* analysis/cpu/kernels/gram_amx.h - the Gram's 256 x 256 tiles with Intel AMX bf16 tile products.
 * A group of standardised float32 rows z (rows x n, variant-major) is split into two bf16
 * parts, hi = bf16(z) and lo = bf16(z - hi) (round to nearest even), packed in the two
 * layouts the tile instructions read: the A operand sample-major (variants contiguous) and the
 * B operand in VNNI pairs of variant rows; rows are padded with zeros to a multiple of 32 and
 * samples to a multiple of 32.  A tile is C = Zh_i'Zh_j + Zh_i'Zl_j + Zl_i'Zh_j, accumulated
 * in float32 by the hardware (relative error per product about 2^-16, against float32's 2^-24;
 * the rounding errors are unbiased, so the Gram's eigenvalues keep ~1e-6 and better).
 * The same tile always runs the same instruction sequence, whichever thread runs it.
 * Compiled with the AMX intrinsics only where the compiler has them (GSVD_HAVE_AMX); elsewhere
 * gsvd_amx_usable() says "not built" and nothing else may be called.
 * Thread safety: gsvd_amx_usable may be called from any thread; a pack is filled by
 * gsvd_amx_pack_rows on disjoint row ranges concurrently, then read by any number of threads. */
#ifndef GSVD_ANALYSIS_CPU_KERNELS_GRAM_AMX_H
#define GSVD_ANALYSIS_CPU_KERNELS_GRAM_AMX_H
#include <stddef.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

#define GSVD_AMX_TILE 256 /* columns and rows of one Gram tile (GRAM_TILE in backend_cpu.c) */
#define GSVD_AMX_KBLK 32  /* rows converted as one unit (the padding of the row count) */

typedef struct gsvd_amx_pack gsvd_amx_pack;

/* Whether the AMX tile kernel can run here: built with it, the CPU reports amx-tile and
 * amx-bf16 (CPUID leaf 7), the OS enables the tile state (XCR0 bits 17, 18) and grants this
 * process the tile data permission (arch_prctl ARCH_REQ_XCOMP_PERM, asked once per process).
 * Returns 1, or 0 with the reason in why (NUL-terminated, may be NULL).  The probe runs once;
 * later calls return its answer. */
int gsvd_amx_usable(char *why, size_t why_len);

/* The same for the int8 kernels (analysis/cpu/kernels/gram_i8.h, pass_i8.h): amx-tile, amx-int8,
 * AVX-512F, BW, VL, DQ, VBMI and VBMI2, POPCNT, and the tile state. */
int gsvd_amx_int8_usable(char *why, size_t why_len);

/* Load the tile configuration both kernels use (palette 1; eight 16 x 64-byte tiles) on the
 * calling thread; the caller releases it (_tile_release) before its task returns.  Only after
 * gsvd_amx_usable or gsvd_amx_int8_usable said yes. */
void gsvd_amx_tiles_configure(void);

/* A new empty pack.  Returns GSVD_OK or GSVD_ENOMEM; caller owns *out, free with
 * gsvd_amx_pack_free. */
GSVD_NODISCARD int gsvd_amx_pack_new(gsvd_amx_pack **out);
void gsvd_amx_pack_free(gsvd_amx_pack *p); /* accepts NULL */

/* Size the pack for rows x n float32 rows (keeps its memory when large enough).  Returns
 * GSVD_OK, GSVD_EINVAL (the sizes overflow) or GSVD_ENOMEM.  The pack then needs
 * gsvd_amx_pack_units() calls of gsvd_amx_pack_rows (one per unit of GSVD_AMX_KBLK rows). */
GSVD_NODISCARD int gsvd_amx_pack_reserve(gsvd_amx_pack *p, size_t rows, size_t n);
size_t gsvd_amx_pack_units(const gsvd_amx_pack *p);

/* Convert unit u (rows [32u, 32u + 32) of z, zero beyond the reserved row count) into the
 * pack; z is the rows x n float32 block (borrowed).  Units may be converted concurrently. */
void gsvd_amx_pack_rows(gsvd_amx_pack *p, const float *z, size_t u);

/* The tile of Z'Z at samples [i0, i0 + wi) x [j0, j0 + wj) (i0, j0 multiples of 32, wi, wj at
 * most GSVD_AMX_TILE) into c (caller's GSVD_AMX_TILE^2 floats, row stride GSVD_AMX_TILE): the
 * wi x wj entries, and zeros (the padding) up to the next multiples of 32; the rest of c is
 * not touched.  Configures the tile registers, and releases them before returning. */
void gsvd_amx_gram_tile(const gsvd_amx_pack *p, size_t i0, size_t j0, size_t wi, size_t wj,
                        float *c);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_CPU_KERNELS_GRAM_AMX_H */
