/* analysis/cpu/kernels/gram_i8.h - the Gram's 256 x 256 tiles from int8 products on the genotype
 * integers ("i8", pca's fast Gram; docs/dev/gram-i8.md has the derivation), run by one of three
 * engines: Intel AMX int8 tiles, AVX-512 VNNI (vpdpbusd) where the CPU has no AMX, or AVX2
 * (vpmaddubsw, gram_i8_avx2.c) where it has neither.
 *
 * A row (variant) with centre c, scale s and dosages q in 0..2 standardises to z = s (u - c),
 * where u = q for a call and u = u* (the imputed dosage, c + missing / s) for a missing call, so
 * Z'Z = sum_v a_v (u_v - c_v)(u_v - c_v)' with a_v = s_v^2.  The weight is written with two
 * 7-bit digits, a_v ~ 2^e (hi + lo / 128), hi in 64..127, lo in 0..127 (relative error at
 * most 2^-14).  Rows are grouped in classes of one e (the sum over rows does not depend on
 * their order) and each class is padded with zero rows to GSVD_I8_KBLK; two unsigned
 * products per class, exact in int32,
 *   P_h = L_h R',  P_l = L_l R',   L_h = hi u, L_l = lo u,  R = 127 u,
 * give sum_v a_v u u' = sum_e 2^e (P_h + P_l / 128) / 127, and the centring is a rank-two
 * correction from per-sample sums (float64).  The missing calls' u* is rounded to 1/254 in R
 * and to 1/(128 hi) in L.  (VNNI multiplies unsigned by signed bytes: it takes R - 128 and
 * adds 128 times L's sums back, the same integers.)
 * Accuracy: the weights alone move every eigenvalue by at most the largest relative weight
 * error (the Gram stays between (1 - eps) Z'Z and (1 + eps) Z'Z), which gsvd_i8_pack_plan
 * reports; the rounded u* of missing calls adds a few 1e-6 at 1% missing (measured,
 * docs/dev/gram-i8.md).  Every tile runs the same instruction sequence whichever thread runs it,
 * the integer sums are exact and both engines fold them into float64 in the same order, so
 * results do not depend on threads, chunking or the engine.
 * The packing and the VNNI engine are compiled on x86-64 (GCC, clang) with target attributes;
 * the AMX engine only where the compiler has the AMX intrinsics (GSVD_HAVE_AMX).  Nothing here
 * but the probe may be called unless gsvd_i8_engine_usable said yes for the pack's engine.
 * Thread safety: the probe from any thread; a pack is planned by one thread, filled by
 * gsvd_i8_pack_strip on disjoint strips concurrently, then read by any number of threads. */
#ifndef GSVD_ANALYSIS_CPU_KERNELS_GRAM_I8_H
#define GSVD_ANALYSIS_CPU_KERNELS_GRAM_I8_H
#include <stddef.h>
#include <stdint.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

#define GSVD_I8_TILE 256       /* rows and columns of a Gram tile (GRAM_TILE, backend_cpu.c) */
#define GSVD_I8_KBLK 64        /* rows of one tile load: classes are padded to a multiple of it */
#define GSVD_I8_STRIP 64       /* samples per conversion task (a cache line of each row's codes) */
#define GSVD_I8_MAX_ROWS 32768 /* rows of one group: 255 x 254 x rows stays below 2^31 */
#define GSVD_I8_WEIGHT_ERR (1.0 / 16384) /* bound of the relative weight error (2^-14) */
#define GSVD_I8_ACC (4 * GSVD_I8_TILE * GSVD_I8_TILE) /* int32 of a tile's scratch (acc) */

typedef struct gsvd_i8_pack gsvd_i8_pack;

/* The engines that multiply (0 = none). */
enum gsvd_i8_engine { GSVD_I8_AMX = 1, GSVD_I8_VNNI = 2, GSVD_I8_AVX2 = 3 };

/* Whether engine runs here: AMX as gsvd_amx_int8_usable (analysis/cpu/kernels/gram_amx.h);
 * VNNI where the build is for x86-64 and the CPU and OS have AVX-512F, BW, VL, DQ, VBMI and
 * VNNI; AVX2 as gsvd_cpu_avx2 (common/cpu.h).  Each honours common/cpu.h's cap.  Returns 1, or
 * 0 with the reason in why (NUL-terminated; why may be NULL).  The probes run once. */
int gsvd_i8_engine_usable(int engine, char *why, size_t why_len);

/* The engine this CPU runs best: AMX where usable, else VNNI, else AVX2; 0 where none, with
 * the reasons in why.  The AVX2 engine is not faster than float32 products (measured 0.8-0.9x
 * of the float32 ssyrk on a whole Gram): callers choosing for speed ask gsvd_i8_engine_fast. */
int gsvd_i8_engine_pick(char *why, size_t why_len);

/* Whether engine (from gsvd_i8_engine_pick) is faster than float32 products on its CPUs: AMX
 * and VNNI. */
int gsvd_i8_engine_fast(int engine);

/* "AMX int8 tiles", "AVX-512 VNNI", "AVX2" or "none" (static strings). */
const char *gsvd_i8_engine_name(int engine);

/* A new empty pack for an engine (gsvd_i8_engine_pick, or one a test names).  Returns GSVD_OK,
 * GSVD_EINVAL (not an engine) or GSVD_ENOMEM; caller owns *out, free with gsvd_i8_pack_free. */
GSVD_NODISCARD int gsvd_i8_pack_new(gsvd_i8_pack **out, int engine);
void gsvd_i8_pack_free(gsvd_i8_pack *p); /* accepts NULL */

/* Plan a group of rows x n: digits, classes, row order and lookup tables from each row's
 * centre, scale and missing value (borrowed arrays of `rows`; missing may be NULL = 0), and
 * size the pack (keeps its memory when large enough).  codes is the group's rows x n matrix of
 * call codes (0, 1, 2 the dosage, 3 missing), borrowed until the group's last tile is computed
 * (the strips convert it; the AVX2 engine's tiles read its missing calls); NULL only for a plan
 * that is not packed.  *werr = the largest relative weight error of these rows (at most
 * GSVD_I8_WEIGHT_ERR).  Returns GSVD_OK, GSVD_EINVAL (rows over GSVD_I8_MAX_ROWS, a scale that
 * is zero or not finite, or an imputed dosage outside 0..2: these rows are not for this kernel)
 * or GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_i8_pack_plan(gsvd_i8_pack *p, size_t rows, size_t n, const uint8_t *codes,
                                     const float *center, const float *scale, const float *missing,
                                     double *werr);

/* Strips of GSVD_I8_STRIP samples the planned group has (one gsvd_i8_pack_strip call each). */
size_t gsvd_i8_pack_strips(const gsvd_i8_pack *p);

/* Convert samples [t S, t S + S) (S = GSVD_I8_STRIP) of every row of the planned group's codes
 * into the tile layouts, with those samples' centring sums (added over the padded rows in
 * order).  Strips may be converted concurrently. */
void gsvd_i8_pack_strip(gsvd_i8_pack *p, size_t t);

/* The group's contribution, computed by the pack's engine, to Z'Z at samples [i0, i0 + wi) x [j0,
 * j0 + wj) (i0, j0 multiples of 32, wi, wj at most GSVD_I8_TILE) into c (caller's GSVD_I8_TILE^2
 * doubles, row stride GSVD_I8_TILE; entries beyond wi x wj, and those below the diagonal (global
 * column < row), are scratch).  acc is the caller's scratch of GSVD_I8_ACC int32, zeroed when
 * allocated and kept between calls (blocks wholly below the diagonal are never computed and keep
 * what they hold; the AVX2 engine leaves its second half zero again).  The AMX engine configures
 * the tile registers and releases them before returning. */
void gsvd_i8_gram_tile(const gsvd_i8_pack *p, size_t i0, size_t j0, size_t wi, size_t wj,
                       int32_t *acc, double *c);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_CPU_KERNELS_GRAM_I8_H */
