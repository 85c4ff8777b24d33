/* common/cpu.h - the instruction-set levels the hand-written kernels are chosen by, and a cap on
 * them.  Every kernel that has several engines (analysis/cpu/kernels/, analysis/pdist/,
 * analysis/ldprune/, the row expansions) asks its own CPUID features and also gsvd_cpu_allows()
 * for the level its engine belongs to, so that GENSVD_CPU_LEVEL=avx2 runs, on an AVX-512 or AMX
 * host, what an AVX2-only host runs (the tests compare the engines this way, and benchmarks use
 * it as a proxy).  Engines of one kernel give the same bytes wherever their headers say so.
 * GSVD_CLONES functions (common/gsvd_defs.h: auto-vectorised portable loops chosen at load time)
 * are not capped: every clone computes the same values.
 * Thread safety: any thread; the cap is read from the environment once, on first use. */
#ifndef GSVD_COMMON_CPU_H
#define GSVD_COMMON_CPU_H
#include <stddef.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

enum gsvd_cpu_level {
    GSVD_CPU_BASE = 0,   /* portable code (x86-64 baseline, and every non-x86 build): no POPCNT */
    GSVD_CPU_AVX2 = 1,   /* AVX2, FMA, BMI1, BMI2, POPCNT (x86-64-v3) */
    GSVD_CPU_AVX512 = 2, /* AVX-512 (each engine checks the subsets it uses) */
    GSVD_CPU_AMX = 3,    /* Intel AMX tiles (and everything below) */
};

/* The highest level an engine may use: GSVD_CPU_AMX unless the environment variable
 * GENSVD_CPU_LEVEL caps it ("base", "avx2", "avx512" or "amx"; any other value is ignored with
 * a warning).  This is a cap, not what the CPU has. */
int gsvd_cpu_cap(void);

/* Whether engines of `level` may run under the cap (gsvd_cpu_cap() >= level). */
int gsvd_cpu_allows(enum gsvd_cpu_level level);

/* Whether the AVX2 engines run here: the cap allows GSVD_CPU_AVX2 and the CPU and OS have
 * AVX2, FMA, BMI1, BMI2 and POPCNT.  Returns 1, or 0 with the reason in why (NUL-terminated;
 * why may be NULL).  Always 0 outside x86-64 builds with GCC or clang. */
int gsvd_cpu_avx2(char *why, size_t why_len);

/* Whether the POPCNT engines run here (the scalar pair and r^2 counts of analysis/pdist/ and
 * analysis/ldprune/ built with the POPCNT instruction): the cap is above base (x86-64's
 * baseline has no POPCNT; the AVX2 level includes it) and the CPU has POPCNT.  Always 0
 * outside x86-64 builds with GCC or clang. */
int gsvd_cpu_popcnt(void);

/* Whether the CPU runs 512-bit vector instructions as two 256-bit halves, so that AVX-512 code
 * has no more FMA throughput than AVX2 code: AMD family 19h (Zen 4; Zen 3, the same family, has
 * no AVX-512).  A fact about the CPU, not capped.  Always 0 outside x86-64 builds. */
int gsvd_cpu_zmm_halved(void);

/* The level's name as GENSVD_CPU_LEVEL spells it (a static string). */
const char *gsvd_cpu_level_name(int level);

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_CPU_H */
