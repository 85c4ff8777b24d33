#!/usr/bin/env python3
"""The constants of common/detmath.h, derived here: the polynomial coefficients of its log, exp
and cos(2 pi u) (minimax, by Remez's exchange algorithm) and its range-reduction constants.

  python3 scripts/detmath_coeffs.py          print every constant as a C declaration, the way
                                             common/detmath.h spells it, with the error of each
                                             approximation (about 10 s)
  python3 scripts/detmath_coeffs.py --check common/detmath.h
                                             exit 1 unless every declaration printed is in the
                                             header (spaces aside), 0 if all are (the ctest
                                             detmath_coeffs); 77 without mpmath

Needs mpmath (Debian's python3-mpmath, or pip install mpmath); all arithmetic is done with
256-bit mpmath numbers, so the output does not depend on the machine.

The approximations: each function is reduced to a small interval by an exact or nearly exact
step (common/detmath.h says how), and what is left is a smooth function g of z = x^2 written as
a polynomial sum_k c_k z^k over a fixed set of powers k, evaluated in float64:

  log   x = 2^k (1 + f), s = f / (2 + f), z = s^2 on [0, (3 - 2 sqrt 2)^2]  (|s| <= 0.1716):
        log(1 + f) = 2 s + s R(z),  R(z) = (log(1 + s) - log(1 - s) - 2 s) / s ~ sum_1^7 c_k z^k
  exp   y = k ln2 + r, t = r^2 on [0, (ln2 / 2)^2]:
        r (e^r + 1) / (e^r - 1) - 2 = r coth(r / 2) - 2 ~ sum_1^5 c_k t^k
        (the rational form e^r = 1 + 2 r / (R(r^2) - r) of Cody and Waite's exp)
  sin   |x| <= pi/4, z = x^2:  sin(x) / x - 1 ~ sum_1^6 c_k z^k
  cos   |x| <= pi/4, z = x^2:  cos(x) - 1 + z / 2 ~ sum_2^7 c_k z^k

Each c is the minimax (best uniform) approximation of g on its interval for the absolute
error, which is the relative error of the function (the small terms are added to 2 s, 2, x
or 1 - z/2), found by Remez's second algorithm: solve for the polynomial that makes the error
equioscillate on n + 1 reference points, move the references to the error's extrema, repeat
until the extrema are equal to 1e-20.  The coefficients are then rounded to float64 one at a
time, from the lowest power up, re-solving the minimax problem for the ones not yet rounded
after each (so the later coefficients absorb the earlier ones' rounding); the error printed
is that of the rounded coefficients, evaluated exactly (the float64 evaluation's own rounding
is measured by tests/unit/test_detmath.c against long double).

The reduction constants, each a mathematical constant rounded to float64 (round to nearest):
  ln2_hi  ln 2 rounded to 42 significant bits, so k ln2_hi is exact for |k| < 2^11 (both
          functions use |k| <= 1075); ln2_lo = ln 2 - ln2_hi rounded to 53 bits (Cody and
          Waite's split: k ln 2 = k ln2_hi + k ln2_lo, the first exact);
  inv_ln2 1 / ln 2;  sqrt_half  sqrt(1/2), the switch of log's reduction;
  pio2_hi pi / 2, pio2_lo = pi / 2 - pio2_hi (the double-double pi/2 of cos(2 pi u));
  exp_max the largest double y whose e^y rounds to a finite double (e^y < (2 - 2^-53) 2^1023);
  exp_min the smallest double y whose e^y does not round to 0 (e^y > 2^-1075).
"""
import math
import struct
import sys

try:
    import mpmath as mp
except ImportError:
    sys.stderr.write("detmath_coeffs.py: needs mpmath (pip install mpmath)\n")
    sys.exit(77)

mp.mp.prec = 256
GRID = 400  # points of the grid on which the error's extrema are first located


def to_double(x):
    """x rounded to the nearest float64 (round half to even), as a Python float."""
    with mp.workprec(53):
        r = +mp.mpf(x)
    return float(r)  # exact: r has 53 bits


def bits(d):
    return int.from_bytes(struct.pack(">d", d), "big")


def c_literal(d):
    """17 significant digits: reads back as the same float64 in C."""
    return "%.16e" % d


def poly(coeffs, powers, z):
    return mp.fsum(c * z ** p for c, p in zip(coeffs, powers))


def refine_max(e, lo, hi, iters=80):
    """The point of [lo, hi] where |e| is largest (golden-section search; |e| unimodal there)."""
    g = (mp.sqrt(5) - 1) / 2
    a, b = mp.mpf(lo), mp.mpf(hi)
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = abs(e(c)), abs(e(d))
    for _ in range(iters):
        if fc > fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = abs(e(c))
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = abs(e(d))
    best = max([(abs(e(x)), x) for x in (a, b, c, d)])
    return best[1]


def extrema(e, b):
    """The local extrema of the error e on (0, b], one per run of equal sign, refined; the grid
    is denser near both ends (Chebyshev points), and b itself is a candidate."""
    xs = [b * (1 - mp.cos(mp.pi * i / GRID)) / 2 for i in range(1, GRID + 1)]
    es = [e(x) for x in xs]
    runs, start = [], 0
    for i in range(1, GRID + 1):
        if i == GRID or mp.sign(es[i]) != mp.sign(es[start]):
            j = max(range(start, i), key=lambda k: abs(es[k]))
            if j == GRID - 1:
                x = xs[j]  # the end of the interval
            else:
                x = refine_max(e, xs[max(j - 1, 0)], xs[j + 1])
            runs.append(x)
            start = i
    return runs


def remez(g, powers, b, fixed=()):
    """Minimax coefficients of sum_k c_k z^k (k in powers) for g on [0, b], absolute error, with
    the terms of fixed ((coefficient, power) pairs) already given; returns (coeffs, error)."""
    n = len(powers)

    def rest(z):
        return g(z) - mp.fsum(c * z ** p for c, p in fixed)

    ref = [b * (1 - mp.cos(mp.pi * (i + 1) / (n + 1))) / 2 for i in range(n + 1)]
    coeffs, level = None, None
    for _ in range(40):
        a = mp.matrix(n + 1, n + 1)
        rhs = mp.matrix(n + 1, 1)
        for i, z in enumerate(ref):
            for j, p in enumerate(powers):
                a[i, j] = z ** p
            a[i, n] = (-1) ** i
            rhs[i] = rest(z)
        sol = mp.lu_solve(a, rhs)
        coeffs = [sol[j] for j in range(n)]

        def err(z, coeffs=coeffs):
            return rest(z) - poly(coeffs, powers, z)

        ext = extrema(err, b)
        # keep n + 1 alternating extrema: drop the smaller of the two ends while too many
        while len(ext) > n + 1:
            ext.pop(0 if abs(err(ext[0])) < abs(err(ext[-1])) else -1)
        if len(ext) < n + 1:
            raise RuntimeError("remez: %d extrema for %d unknowns" % (len(ext), n))
        vals = [abs(err(z)) for z in ext]
        level = max(vals)
        ref = ext
        if (level - min(vals)) / level < mp.mpf(10) ** -20:
            break
    return coeffs, level


def max_error(g, coeffs, powers, b):
    def err(z):
        return g(z) - poly(coeffs, powers, z)

    return max(abs(err(z)) for z in extrema(err, b))


def rounded_minimax(g, powers, b):
    """Coefficients rounded to float64 one by one from the lowest power, the rest re-solved."""
    fixed = []
    exact, level = remez(g, powers, b)
    for i in range(len(powers)):
        coeffs, _ = remez(g, powers[i:], b, fixed) if i else (exact, level)
        fixed.append((mp.mpf(to_double(coeffs[0])), powers[i]))
    doubles = [to_double(c) for c, _ in fixed]
    return doubles, level, max_error(g, [mp.mpf(d) for d in doubles], powers, b)


# the functions of z, each with its series near 0 where the closed form would cancel
def g_log(z):
    s = mp.sqrt(z)
    return (2 * mp.atanh(s) - 2 * s) / s if z else mp.mpf(0)


def g_exp(t):
    r = mp.sqrt(t)
    return r * mp.coth(r / 2) - 2 if t else mp.mpf(0)


def g_sin(z):
    x = mp.sqrt(z)
    return mp.sin(x) / x - 1 if z else mp.mpf(0)


def g_cos(z):
    return mp.cos(mp.sqrt(z)) - 1 + z / 2


MARGIN = 1 + mp.mpf(2) ** -20  # the reduced argument's rounding can step a little outside

FUNCTIONS = [
    # name, g, powers, end of the interval in z, C names of the coefficients
    ("log", g_log, list(range(1, 8)), (3 - 2 * mp.sqrt(2)) ** 2 * MARGIN,
     ["lg%d" % k for k in range(1, 8)]),
    ("exp", g_exp, list(range(1, 6)), (mp.ln2 / 2) ** 2 * MARGIN,
     ["p%d" % k for k in range(1, 6)]),
    ("sin", g_sin, list(range(1, 7)), (mp.pi / 4) ** 2 * MARGIN,
     ["s%d" % k for k in range(1, 7)]),
    ("cos", g_cos, list(range(2, 8)), (mp.pi / 4) ** 2 * MARGIN,
     ["c%d" % k for k in range(1, 7)]),
]


def split_hi(x, nbits):
    """x rounded to nbits significant bits (round to nearest)."""
    with mp.workprec(nbits):
        return +mp.mpf(x)


def exp_limits():
    """exp_max and exp_min: found by stepping from log of the threshold to the double next to it."""
    with mp.workprec(1200):
        top = mp.log((2 - mp.mpf(2) ** -53) * mp.mpf(2) ** 1023)  # e^y below it rounds finite
        bottom = mp.log(mp.mpf(2) ** -1075)  # e^y above it rounds to 2^-1074 or more
        hi = to_double(top)
        while mp.mpf(hi) >= top:
            hi = math.nextafter(hi, 0)
        while mp.mpf(math.nextafter(hi, math.inf)) < top:
            hi = math.nextafter(hi, math.inf)
        lo = to_double(bottom)
        while mp.mpf(lo) <= bottom:
            lo = math.nextafter(lo, 0)
        while mp.mpf(math.nextafter(lo, -math.inf)) > bottom:
            lo = math.nextafter(lo, -math.inf)
    return hi, lo


def decl(name, d, note=""):
    return "const double %s = %s; /* 0x%016x%s */" % (name, c_literal(d), bits(d), note)


def generate(emit):
    """Prints the declarations through emit, a function of one string."""
    emit("/* generated by scripts/detmath_coeffs.py (mpmath %s, %d bits) */" %
         (mp.__version__, mp.mp.prec))
    ln2_hi = split_hi(mp.ln2, 42)
    ln2_lo = to_double(mp.ln2 - ln2_hi)
    pio2_hi = to_double(mp.pi / 2)
    pio2_lo = to_double(mp.pi / 2 - pio2_hi)
    exp_max, exp_min = exp_limits()
    emit("\n/* reduction constants */")
    emit(decl("ln2_hi", float(ln2_hi), ": ln 2 to 42 bits"))
    emit(decl("ln2_lo", ln2_lo, ": ln 2 - ln2_hi"))
    emit(decl("inv_ln2", to_double(1 / mp.ln2)))
    emit(decl("sqrt_half", to_double(mp.sqrt(mp.mpf(1) / 2))))
    emit(decl("pio2_hi", pio2_hi, ": pi/2 rounded"))
    emit(decl("pio2_lo", pio2_lo, ": pi/2 - pio2_hi"))
    emit(decl("exp_max", exp_max, ": largest y, e^y finite"))
    emit(decl("exp_min", exp_min, ": smallest y, e^y > 0"))
    with mp.workprec(300):
        tail = abs(mp.ln2 - mp.mpf(ln2_hi) - mp.mpf(ln2_lo))
        ptail = abs(mp.pi / 2 - mp.mpf(pio2_hi) - mp.mpf(pio2_lo))
    emit("/* |ln 2 - ln2_hi - ln2_lo| = 2^%.1f, |pi/2 - pio2_hi - pio2_lo| = 2^%.1f */" %
         (mp.log(tail, 2), mp.log(ptail, 2)))
    for name, g, powers, b, names in FUNCTIONS:
        doubles, exact_err, err = rounded_minimax(g, powers, b)
        emit("\n/* %s: powers %d..%d of z on [0, %s]; minimax error 2^%.2f, with the float64 "
             "coefficients 2^%.2f */" % (name, powers[0], powers[-1], mp.nstr(b, 8),
                                        mp.log(exact_err, 2), mp.log(err, 2)))
        for n, d in zip(names, doubles):
            emit(decl(n, d))


def main(argv):
    if len(argv) == 1:
        generate(print)
        return 0
    if len(argv) != 3 or argv[1] != "--check":
        sys.stderr.write("usage: detmath_coeffs.py [--check HEADER]\n")
        return 2
    with open(argv[2], encoding="utf-8") as f:
        header = " ".join(f.read().split())
    lines = []
    generate(lines.append)
    decls = [d for d in lines if d.startswith("const double")]
    missing = [d for d in decls if " ".join(d.split()) not in header]
    for d in missing:
        print("not in %s: %s" % (argv[2], d))
    print("%d of %d declarations in %s" % (len(decls) - len(missing), len(decls), argv[2]))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
