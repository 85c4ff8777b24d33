/* common/detmath.h - log, exp and cos(2 pi u) that give the same bits on every machine.
 *
 * libm's log, exp, cos and pow are not the same bits everywhere: glibc picks other versions on
 * CPUs with FMA, and CUDA's differ from glibc's, so a random normal drawn with them (pca's
 * random start, simulate's population frequencies) could differ in the last bit between two
 * computers, or between the CPU and the GPU.  These are built only from IEEE-754 float64
 * + - * / (each through GSVD_DMUL, GSVD_DADD, GSVD_DSUB, GSVD_DDIV: rounded once, never fused
 * into an FMA, on the host and the device) and exact operations (frexp, ldexp, floor,
 * comparisons, conversions of integers that fit), so each result is the same bits wherever it
 * is computed.
 *
 * The methods are the published ones (Cody and Waite's reductions, as in fdlibm): log through
 * s = f / (2 + f) and an odd series in s, exp through k ln 2 + r with ln 2 in two parts and the
 * rational form 1 + 2 r / (R(r^2) - r), the sine and cosine as polynomials in x^2 on
 * |x| <= pi/4.  Every number is ours: scripts/detmath_coeffs.py (mpmath, 256 bits) computes
 * the minimax polynomials (Remez's exchange algorithm; the coefficients then rounded to
 * float64 one at a time from the lowest power, the others re-solved) and the reduction
 * constants (ln 2 split to 42 + 53 bits, 1/ln 2, sqrt(1/2), pi/2 in two parts, exp's overflow
 * and underflow limits), and prints the declarations below; each comment gives the error of
 * its polynomial with the float64 coefficients.
 * Each function is within 1 ulp of the true value: tests/unit/test_detmath.c measures the
 * error against the C library's long double functions.
 *
 * Header-only and GSVD_HD, so CUDA kernels run the same code (common/rng.h).  float64 must be
 * evaluated in float64 (FLT_EVAL_METHOD 0: x86-64, arm64, the GPU; not x87).
 * Thread safety: pure functions. */
#ifndef GSVD_COMMON_DETMATH_H
#define GSVD_COMMON_DETMATH_H
#include <math.h>
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* Natural logarithm of x > 0 (subnormals included); log(1) is +0.  Other arguments: -inf for
 * 0, +inf for +inf, NaN for a negative x or NaN.  Within 1 ulp. */
GSVD_HD static inline double gsvd_detmath_log(double x)
{
    /* ln 2 in two parts: ln2_hi has 42 significant bits, so k ln2_hi is exact for |k| < 2^11 */
    const double ln2_hi = 6.9314718055989033e-01;    /* 0x3fe62e42fefa3800: ln 2 to 42 bits */
    const double ln2_lo = 5.4979230187083712e-14;    /* 0x3d2ef35793c76730: ln 2 - ln2_hi */
    const double sqrt_half = 7.0710678118654757e-01; /* 0x3fe6a09e667f3bcd */
    /* R(z) ~ (log(1 + s) - log(1 - s) - 2 s) / s, z = s^2, on |s| <= 3 - 2 sqrt 2 = 0.1716:
     * minimax sum lg_k z^k, error 2^-58.49 (scripts/detmath_coeffs.py) */
    const double lg1 = 6.6666666666667340e-01; /* 0x3fe5555555555592 */
    const double lg2 = 3.9999999999416641e-01; /* 0x3fd999999997ff19 */
    const double lg3 = 2.8571428742028154e-01; /* 0x3fd24924941e155b */
    const double lg4 = 2.2222198605061977e-01; /* 0x3fcc71c5214510f6 */
    const double lg5 = 1.8183562850517959e-01; /* 0x3fc74663ced6b376 */
    const double lg6 = 1.5314084874145953e-01; /* 0x3fc39a1e8c835c35 */
    const double lg7 = 1.4795632867311126e-01; /* 0x3fc2f03ba4719114 */
    int e = 0;

    if (!(x > 0.0) || x == INFINITY)
        return x == 0.0 ? -INFINITY : x == INFINITY ? x : NAN;
    /* x = 2^k (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)) */
    double m = frexp(x, &e); /* exact: m in [1/2, 1) */
    if (m < sqrt_half) {
        m = GSVD_DMUL(m, 2.0); /* exact */
        e -= 1;
    }
    double k = (double)e;
    double f = GSVD_DSUB(m, 1.0); /* exact (Sterbenz) */
    /* log(1 + f) = log(1 + s) - log(1 - s) = 2 s + s R(s^2), s = f / (2 + f); with
     * hfsq = f^2 / 2, 2 s = f - hfsq + s hfsq, so log(1 + f) = f - (hfsq - s (hfsq + R)) */
    double s = GSVD_DDIV(f, GSVD_DADD(2.0, f));
    double z = GSVD_DMUL(s, s);
    double w = GSVD_DMUL(z, z);
    double t1 = GSVD_DMUL(w, GSVD_DADD(lg2, GSVD_DMUL(w, GSVD_DADD(lg4, GSVD_DMUL(w, lg6)))));
    double t2 = GSVD_DADD(lg5, GSVD_DMUL(w, lg7));
    t2 = GSVD_DADD(lg3, GSVD_DMUL(w, t2));
    t2 = GSVD_DMUL(z, GSVD_DADD(lg1, GSVD_DMUL(w, t2)));
    double r = GSVD_DADD(t2, t1);
    double hfsq = GSVD_DMUL(GSVD_DMUL(0.5, f), f);
    /* k ln2_hi - ((hfsq - (s (hfsq + R) + k ln2_lo)) - f): the small terms first */
    double small = GSVD_DADD(GSVD_DMUL(s, GSVD_DADD(hfsq, r)), GSVD_DMUL(k, ln2_lo));
    return GSVD_DSUB(GSVD_DMUL(k, ln2_hi), GSVD_DSUB(GSVD_DSUB(hfsq, small), f));
}

/* e^y for finite y (written for y <= 0; exp(0) is 1).  0 below -745.13 (where e^y rounds to
 * 0), +inf above 709.78, NaN for NaN.  Within 1 ulp, subnormal results within 1 unit of
 * 2^-1074. */
GSVD_HD static inline double gsvd_detmath_exp(double y)
{
    const double ln2_hi = 6.9314718055989033e-01;   /* 0x3fe62e42fefa3800: ln 2 to 42 bits */
    const double ln2_lo = 5.4979230187083712e-14;   /* 0x3d2ef35793c76730: ln 2 - ln2_hi */
    const double inv_ln2 = 1.4426950408889634e+00;  /* 0x3ff71547652b82fe */
    const double exp_max = 7.0978271289338397e+02;  /* 0x40862e42fefa39ef: largest y, e^y finite */
    const double exp_min = -7.4513321910194111e+02; /* 0xc0874910d52d3051: smallest y, e^y > 0 */
    /* R(r^2) ~ r (e^r + 1) / (e^r - 1) = 2 + p1 r^2 + ..., on |r| <= ln2 / 2: minimax
     * sum p_k r^2k, error 2^-59.02 (scripts/detmath_coeffs.py) */
    const double p1 = 1.6666666666666602e-01;  /* 0x3fc555555555553e */
    const double p2 = -2.7777777777013672e-03; /* 0xbf66c16c16bebbd8 */
    const double p3 = 6.6137563209491299e-05;  /* 0x3f11566aaf205d4a */
    const double p4 = -1.6533901687184462e-06; /* 0xbebbbd41b73bd0a2 */
    const double p5 = 4.1381175070670610e-08;  /* 0x3e663762a941c0fa */

    if (y != y)
        return y;
    if (y > exp_max) /* e^y overflows */
        return INFINITY;
    if (y < exp_min) /* e^y rounds to 0 */
        return 0.0;
    /* y = k ln2 + r, |r| <= ln2 / 2 (about), r = hi - lo; k ln2_hi is exact (|k| <= 1075) */
    double kd = floor(GSVD_DADD(GSVD_DMUL(inv_ln2, y), 0.5));
    int k = (int)kd;
    double hi = GSVD_DSUB(y, GSVD_DMUL(kd, ln2_hi));
    double lo = GSVD_DMUL(kd, ln2_lo);
    double r = GSVD_DSUB(hi, lo);
    /* e^r = 1 + 2 r / (R(r^2) - r) = 1 + r + r c / (2 - c), c = r - r^2 (P1 + r^2 (P2 + ...)) */
    double t = GSVD_DMUL(r, r);
    double q = GSVD_DADD(p4, GSVD_DMUL(t, p5)); /* Horner, from the top */
    q = GSVD_DADD(p3, GSVD_DMUL(t, q));
    q = GSVD_DADD(p2, GSVD_DMUL(t, q));
    q = GSVD_DADD(p1, GSVD_DMUL(t, q));
    double c = GSVD_DSUB(r, GSVD_DMUL(t, q));
    double rc = GSVD_DMUL(r, c);
    if (k == 0) /* 1 - (r c / (c - 2) - r) */
        return GSVD_DSUB(1.0, GSVD_DSUB(GSVD_DDIV(rc, GSVD_DSUB(c, 2.0)), r));
    /* 1 - ((lo - r c / (2 - c)) - hi), in [1/2, 2], then times 2^k: exact where the result is
     * normal; below, one rounding of the last product (as IEEE rounds a subnormal) */
    double v = GSVD_DSUB(1.0, GSVD_DSUB(GSVD_DSUB(lo, GSVD_DDIV(rc, GSVD_DSUB(2.0, c))), hi));
    if (k > 1023)
        return GSVD_DMUL(GSVD_DMUL(v, 2.0), ldexp(1.0, k - 1));
    if (k >= -1021)
        return GSVD_DMUL(v, ldexp(1.0, k));
    return GSVD_DMUL(GSVD_DMUL(v, ldexp(1.0, k + 1000)), ldexp(1.0, -1000));
}

/* Dekker's exact product without an FMA: a b = *hi + *lo exactly (|a|, |b| below 2^995 and
 * the product's parts far from the subnormals).  The building block of gsvd_detmath_cos_2pi. */
GSVD_HD static inline void gsvd_detmath_two_prod(double a, double b, double *hi, double *lo)
{
    const double split = 134217729.0; /* 2^27 + 1: Veltkamp's split into 26 + 27 bits */
    double ca = GSVD_DMUL(split, a), cb = GSVD_DMUL(split, b);
    double ah = GSVD_DSUB(ca, GSVD_DSUB(ca, a)), al = GSVD_DSUB(a, ah);
    double bh = GSVD_DSUB(cb, GSVD_DSUB(cb, b)), bl = GSVD_DSUB(b, bh);
    double p = GSVD_DMUL(a, b);
    *hi = p;
    *lo = GSVD_DADD(
        GSVD_DADD(GSVD_DADD(GSVD_DSUB(GSVD_DMUL(ah, bh), p), GSVD_DMUL(ah, bl)), GSVD_DMUL(al, bh)),
        GSVD_DMUL(al, bl));
}

/* sin(x + y) for |x| <= pi/4, |y| <= ulp(x) / 2 (the tail of x).  sin(x) / x - 1 ~ minimax
 * sum s_k x^2k, error 2^-58.01 (scripts/detmath_coeffs.py). */
GSVD_HD static inline double gsvd_detmath_kernel_sin(double x, double y)
{
    const double s1 = -1.6666666666666632e-01; /* 0xbfc5555555555549 */
    const double s2 = 8.3333333333224895e-03;  /* 0x3f8111111110f8a6 */
    const double s3 = -1.9841269829857798e-04; /* 0xbf2a01a019c1619d */
    const double s4 = 2.7557313706999971e-06;  /* 0x3ec71de357b1bdd6 */
    const double s5 = -2.5050760240238542e-08; /* 0xbe5ae5e689eee282 */
    const double s6 = 1.5896909081339358e-10;  /* 0x3de5d93a46bbadc8 */
    double z = GSVD_DMUL(x, x);
    double w = GSVD_DMUL(z, z);
    /* r = S2 + z (S3 + z S4) + z w (S5 + z S6) */
    double r = GSVD_DADD(GSVD_DADD(s2, GSVD_DMUL(z, GSVD_DADD(s3, GSVD_DMUL(z, s4)))),
                         GSVD_DMUL(GSVD_DMUL(z, w), GSVD_DADD(s5, GSVD_DMUL(z, s6))));
    double v = GSVD_DMUL(z, x);
    /* x - ((z (y / 2 - v r) - y) - v S1) */
    double a = GSVD_DMUL(z, GSVD_DSUB(GSVD_DMUL(0.5, y), GSVD_DMUL(v, r)));
    return GSVD_DSUB(x, GSVD_DSUB(GSVD_DSUB(a, y), GSVD_DMUL(v, s1)));
}

/* cos(x + y) for |x| <= pi/4, |y| <= ulp(x) / 2.  cos(x) - 1 + x^2 / 2 ~ minimax
 * sum c_k x^2(k+1), error 2^-64.19 (scripts/detmath_coeffs.py). */
GSVD_HD static inline double gsvd_detmath_kernel_cos(double x, double y)
{
    const double c1 = 4.1666666666666602e-02;  /* 0x3fa555555555554c */
    const double c2 = -1.3888888888874474e-03; /* 0xbf56c16c16c1521f */
    const double c3 = 2.4801587289671537e-05;  /* 0x3efa01a019cbf629 */
    const double c4 = -2.7557314401030611e-07; /* 0xbe927e4f812b667e */
    const double c5 = 2.0875729281240798e-09;  /* 0x3e21ee9f15289e65 */
    const double c6 = -1.1359934244286416e-11; /* 0xbda8fb130f65a47f */
    double z = GSVD_DMUL(x, x);
    double w = GSVD_DMUL(z, z);
    /* r = z (C1 + z (C2 + z C3)) + w^2 (C4 + z (C5 + z C6)) */
    double r = GSVD_DADD(
        GSVD_DMUL(z, GSVD_DADD(c1, GSVD_DMUL(z, GSVD_DADD(c2, GSVD_DMUL(z, c3))))),
        GSVD_DMUL(GSVD_DMUL(w, w), GSVD_DADD(c4, GSVD_DMUL(z, GSVD_DADD(c5, GSVD_DMUL(z, c6))))));
    /* 1 - z/2 rounded as hw, plus what it lost: hw + (((1 - hw) - z/2) + (z r - x y)) */
    double hz = GSVD_DMUL(0.5, z);
    double hw = GSVD_DSUB(1.0, hz);
    double lost = GSVD_DSUB(GSVD_DSUB(1.0, hw), hz);
    return GSVD_DADD(hw, GSVD_DADD(lost, GSVD_DSUB(GSVD_DMUL(z, r), GSVD_DMUL(x, y))));
}

/* cos(2 pi u) for finite u; NaN for NaN or an infinity.  The reduction is exact: 4|u| = n + t
 * with n an integer and t in [-1/2, 1/2) is exact in binary, so 2 pi u = n pi/2 + t pi/2 with
 * no error in n or t (no Cody-Waite reduction against a rounded pi), and t pi/2 is formed to
 * about 2^-104 relative as a double-double (Dekker's product with pi/2 in two parts).  The
 * quadrant n mod 4 picks +-cos or +-sin of t pi/2.  Within 1 ulp for u in (0, 1), including
 * near the zeros of the cosine (u near 1/4, 3/4) and near u = 1. */
GSVD_HD static inline double gsvd_detmath_cos_2pi(double u)
{
    const double pio2_hi = 1.5707963267948966e+00; /* 0x3ff921fb54442d18: pi/2 rounded */
    const double pio2_lo = 6.1232339957367660e-17; /* 0x3c91a62633145c07: pi/2 - pio2_hi */

    if (u != u || u == INFINITY || u == -INFINITY)
        return NAN;
    double q4 = GSVD_DMUL(fabs(u), 4.0); /* exact; cos is even */
    double n = floor(q4);
    double t = GSVD_DSUB(q4, n); /* exact: the fraction's bits are q4's */
    if (t >= 0.5) {
        n = GSVD_DADD(n, 1.0); /* exact below 2^53; above it t is 0 */
        t = GSVD_DSUB(t, 1.0); /* exact (Sterbenz) */
    }
    /* x = t pi/2 as xh + xl, |xl| <= ulp(xh) / 2 */
    double ph = 0, pl = 0;
    gsvd_detmath_two_prod(t, pio2_hi, &ph, &pl);
    pl = GSVD_DADD(pl, GSVD_DMUL(t, pio2_lo));
    double xh = GSVD_DADD(ph, pl);
    double xl = GSVD_DSUB(pl, GSVD_DSUB(xh, ph));
    /* n mod 4, exact for every n a double holds */
    double quadrant = GSVD_DSUB(n, GSVD_DMUL(4.0, floor(GSVD_DMUL(n, 0.25))));
    if (quadrant == 0.0)
        return gsvd_detmath_kernel_cos(xh, xl);
    if (quadrant == 1.0) /* 0 - sin: +0 at u = 1/4 */
        return GSVD_DSUB(0.0, gsvd_detmath_kernel_sin(xh, xl));
    if (quadrant == 2.0)
        return GSVD_DSUB(0.0, gsvd_detmath_kernel_cos(xh, xl));
    return gsvd_detmath_kernel_sin(xh, xl);
}

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_DETMATH_H */
