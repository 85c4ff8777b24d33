/* common/xsum.h - exact, order-free sums of float64 values on a fixed grid.
 *
 * A reduction whose result must not depend on the order of its terms (any thread count, any
 * number of MPI ranks, any chunking) rounds every term onto two fixed grids and adds the parts
 * in two float64 accumulators, hi on the grid q and lo on the grid q 2^-40, where each addition
 * is exact.  The value hi + lo is then the exact sum of the rounded terms, whatever the order,
 * and so are the sums of several such accumulators (e.g. an MPI_SUM of the hi and of the lo
 * arrays).  A term loses only what lies below q 2^-40, i.e. 2^-92 of the bound: nothing a
 * float32 or float64 product could have carried.
 *
 * Contract: every term and every partial sum of terms is at most `bound` in magnitude, and at
 * most 2^12 terms are added to one lo between two calls of gsvd_xsum_carry (gsvd_xsum_add
 * carries itself, so this only matters for gsvd_xsum_add_nocarry).  gsvd_xsum_grid() picks q
 * from the bound.  Values are finite.
 * Thread safety: pure functions; an accumulator is owned by one thread at a time. */
#ifndef GSVD_COMMON_XSUM_H
#define GSVD_COMMON_XSUM_H
#include <math.h>

#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

struct gsvd_xgrid {
    double q;     /* grid of hi: a power of two with 2^51 q >= bound */
    double c_hi;  /* 1.5 * 2^52 * q: (v + c_hi) - c_hi rounds v to the grid q */
    double c_lo;  /* the same for the grid q 2^-40 */
    double bound; /* the bound the grid was made for */
};

/* The grid for terms and partial sums bounded by `bound` (> 0, finite; 0 gives the grid of
 * the smallest normal bound). */
static inline struct gsvd_xgrid gsvd_xsum_grid(double bound)
{
    int e = 0;
    struct gsvd_xgrid g;
    if (!(bound > 0x1p-900))
        bound = 0x1p-900;
    (void)frexp(bound, &e); /* bound < 2^e */
    g.q = ldexp(1.0, e - 51);
    g.c_hi = 0x1.8p52 * g.q;
    g.c_lo = 0x1.8p52 * ldexp(g.q, -40);
    g.bound = bound;
    return g;
}

/* v rounded to the grid (round half to even): exact for |v| <= 2^51 times the grid.  The
 * volatile-free form relies on C's evaluation rules (no reassociation, no contraction of an
 * add and a subtract), which -ffast-math would break; the project never builds with it. */
static inline double gsvd_xsum_round(double v, double c)
{
    return (v + c) - c;
}

/* Add term v to (hi, lo) without the carry from lo into hi. */
static inline void gsvd_xsum_add_nocarry(double *hi, double *lo, double v,
                                         const struct gsvd_xgrid *g)
{
    double h = gsvd_xsum_round(v, g->c_hi);
    *hi += h;
    *lo += gsvd_xsum_round(v - h, g->c_lo); /* v - h is exact: the bits of v below q */
}

/* Move the grid-q part of lo into hi (exact; keeps |lo| <= q / 2). */
static inline void gsvd_xsum_carry(double *hi, double *lo, const struct gsvd_xgrid *g)
{
    double t = gsvd_xsum_round(*lo, g->c_hi);
    *hi += t;
    *lo -= t;
}

static inline void gsvd_xsum_add(double *hi, double *lo, double v, const struct gsvd_xgrid *g)
{
    gsvd_xsum_add_nocarry(hi, lo, v, g);
    gsvd_xsum_carry(hi, lo, g);
}

/* The sum as one float64 (correctly rounded from the exact hi + lo). */
static inline double gsvd_xsum_value(double hi, double lo)
{
    return hi + lo;
}

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_XSUM_H */
