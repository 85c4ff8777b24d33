/* tests/unit/test_xsum.c - exact grid sums (common/xsum.h): the sum of many terms of wildly
 * different magnitudes is the same bytes in every order and for every split into partial
 * accumulators added afterwards (as MPI ranks do), and equals the exact sum of the rounded
 * terms computed independently with 128-bit integers in units of the fine grid. */
#include "gsvd_config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/xsum.h"
#include "gsvd_test.h"

enum { N_TERMS = 20000 };

__extension__ typedef __int128 i128; /* gcc and clang: the oracle's exact integers */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* a float32 value (as the products are) of magnitude 2^-30 .. 2^20 and either sign */
static double term(void)
{
    double m = (double)(next() >> 11) * 0x1p-53;
    int e = (int)(next() % 51) - 30;
    float f = (float)ldexp(m, e);
    return (next() & 1) ? -(double)f : (double)f;
}

/* the exact sum of the terms rounded to the fine grid, in units of that grid */
static i128 exact_units(const double *v, size_t n, const struct gsvd_xgrid *g)
{
    double unit = ldexp(g->q, -40);
    i128 s = 0;
    for (size_t i = 0; i < n; i++) {
        double h = gsvd_xsum_round(v[i], g->c_hi), l = gsvd_xsum_round(v[i] - h, g->c_lo);
        s += (i128)(h / unit) + (i128)(l / unit);
    }
    return s;
}

static double sum_range(const double *v, size_t a, size_t b, const struct gsvd_xgrid *g, double *hi,
                        double *lo)
{
    *hi = *lo = 0;
    for (size_t i = a; i < b; i++)
        gsvd_xsum_add(hi, lo, v[i], g);
    return gsvd_xsum_value(*hi, *lo);
}

int main(void)
{
    static double v[N_TERMS], w[N_TERMS];
    double bound = 0, hi, lo, ref, got;
    for (size_t i = 0; i < N_TERMS; i++) {
        v[i] = term();
        bound += fabs(v[i]);
    }
    struct gsvd_xgrid g = gsvd_xsum_grid(bound);
    GSVD_CHECK(g.q > 0 && ldexp(g.q, 51) >= bound);

    ref = sum_range(v, 0, N_TERMS, &g, &hi, &lo);
    /* the independent oracle: hi + lo is the exact sum of the rounded terms */
    double unit = ldexp(g.q, -40);
    i128 want = exact_units(v, N_TERMS, &g);
    i128 have = (i128)(hi / unit) + (i128)(lo / unit);
    GSVD_CHECK(want == have);
    GSVD_CHECK(fabs(ref - (double)want * unit) <= fabs(ref) * 0x1p-52);

    /* any order: reversed, and a pseudo-random shuffle */
    for (size_t i = 0; i < N_TERMS; i++)
        w[i] = v[N_TERMS - 1 - i];
    got = sum_range(w, 0, N_TERMS, &g, &hi, &lo);
    GSVD_CHECK(memcmp(&got, &ref, sizeof got) == 0);
    for (size_t i = N_TERMS - 1; i > 0; i--) {
        size_t j = next() % (i + 1);
        double t = w[i];
        w[i] = w[j];
        w[j] = t;
    }
    got = sum_range(w, 0, N_TERMS, &g, &hi, &lo);
    GSVD_CHECK(memcmp(&got, &ref, sizeof got) == 0);

    /* any split into partial accumulators whose parts are summed afterwards (the MPI rule) */
    for (size_t parts = 2; parts <= 7; parts++) {
        double H = 0, L = 0;
        for (size_t p = 0; p < parts; p++) {
            double h, l;
            (void)sum_range(w, p * N_TERMS / parts, (p + 1) * N_TERMS / parts, &g, &h, &l);
            H += h; /* exact: both parts stay on their grids */
            L += l;
        }
        got = gsvd_xsum_value(H, L);
        GSVD_CHECK(memcmp(&got, &ref, sizeof got) == 0);
    }

    /* a plain float64 sum of the same terms depends on the order: the test can tell */
    double f1 = 0, f2 = 0;
    for (size_t i = 0; i < N_TERMS; i++) {
        f1 += v[i];
        f2 += w[i];
    }
    if (memcmp(&f1, &f2, sizeof f1) == 0)
        fprintf(stderr, "  note: the plain sums happen to agree in both orders\n");
    return gsvd_test_report("test_xsum");
}
