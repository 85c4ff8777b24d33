/* analysis/ldprune/ldprune_internal.h - for analysis/ldprune/ldprune*.c only: the variants of an LD
 * pruning run that the current window still needs, in a ring (bit planes a = dosage >= 1, b =
 * dosage == 2, m = called; ceil(N / 64) words each, a, b, m after one another; variant k of the run
 * at slot k & mask), and the popcount kernels of analysis/ldprune/ldprune_kernel.c, chosen once per
 * run for the CPU.  Thread safety: the kernels are pure. */
#ifndef GSVD_ANALYSIS_LDPRUNE_LDPRUNE_INTERNAL_H
#define GSVD_ANALYSIS_LDPRUNE_LDPRUNE_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/ldprune/ldprune.h"

struct ld_var;
struct ld_state;
/* Whether r^2 of rows i < j (planes pi, pj; W words a plane) is above the threshold, decided as
 * plink2 does: with the integer sums over the samples called in both, cov = n sxy - sx sy and
 * var = n sxx - sx^2, the pair is above when cov^2 > t var_i var_j in double arithmetic, where
 * t is the user's r^2 times 1 + 2^-44 (so never when either is constant there). */
typedef int (*gsvd_ld_r2_fn)(const uint64_t *pi, const uint64_t *pj, size_t W,
                             const struct ld_var *vi, const struct ld_var *vj, double t);
/* Planes a, b, m (W words each) of one row of N dosages (-1 missing). */
typedef void (*gsvd_ld_planes_fn)(const int8_t *d, size_t N, uint64_t *a, uint64_t *b, uint64_t *m);
/* Flags row[i - i0] = (pair (i, j) above t, as gsvd_ld_r2_fn) for i in [i0, j) (0 for removed i), j
 * without missing calls; returns the pairs computed. */
typedef uint64_t (*gsvd_ld_row_fn)(const struct ld_state *st, size_t j, size_t i0, uint8_t *row,
                                   double t);

struct ld_var {
    int64_t n, s, ss; /* called samples, sum and sum of squares of dosages */
    int64_t pos;      /* variant_position (0 without it) */
    uint64_t index;   /* variant index in the array */
    double maj;       /* major allele frequency over the called samples */
    size_t next;      /* pairs (k, j) with j < next were evaluated (plink2's first unchecked) */
    int has_missing;
    int mono; /* all called dosages equal */
    int removed;
};

/* The ring of an LD pruning run: considered variants are numbered 0, 1, ... in scan order
 * (across contigs); those of [base, n) are held, variant k at slot k & mask.  cap (a power of
 * two) grows to the largest window seen plus the variants read ahead of it. */
struct ld_state {
    const struct gsvd_ldprune_params *p;
    size_t words; /* 64-bit words per plane */
    size_t n_samples;
    size_t ploidy;               /* 1 or 2 */
    uint64_t *planes;            /* cap slots of a, b, m planes (3 * words) */
    struct ld_var *v;            /* cap slots */
    size_t base, n;              /* variants held: [base, n) */
    size_t cap, mask;            /* slots; cap - 1 */
    gsvd_ld_planes_fn planes_fn; /* builds a row's planes */
    double t;                    /* threshold of gsvd_ld_r2_fn: r2 (1 + 2^-44), as plink2 */
};

/* Planes and record of held variant k (base <= k < n). */
static inline const uint64_t *ld_planes_at(const struct ld_state *st, size_t k)
{
    return st->planes + (k & st->mask) * 3 * st->words;
}
static inline struct ld_var *ld_var_at(const struct ld_state *st, size_t k)
{
    return &st->v[k & st->mask];
}

gsvd_ld_r2_fn gsvd_ldprune_pick_r2(void);         /* AVX-512, POPCNT or generic */
gsvd_ld_planes_fn gsvd_ldprune_pick_planes(void); /* AVX-512BW or generic */
gsvd_ld_row_fn gsvd_ldprune_pick_row(void);       /* NULL without AVX-512 VPOPCNTDQ */

#endif /* GSVD_ANALYSIS_LDPRUNE_LDPRUNE_INTERNAL_H */
