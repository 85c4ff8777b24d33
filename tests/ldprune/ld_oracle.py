"""Independent numpy model of gensvd ldprune (plink2 --indep-pairwise as docs/man/gensvd-ldprune.md documents it):
per contig a window of W variants (or of the variants within BP of its first one) moves by STEP;
a monomorphic variant goes once its window holds another variant; then sweeps over the window:
each remaining i (ascending) pairs with the remaining j > i it was not paired with before, in
order, and stops at the first pair with r^2 (over the samples called in both) > R2, which
removes i if MAF_i < MAF_j, else j; sweeps repeat until one removes nothing.  A pair is judged
at most once (per-variant "checked up to" index, kept across windows).  The threshold test is
exact rational arithmetic here (num^2 > R2 dx dy with R2 a Fraction of the decimal given), the
MAF comparison cross-multiplied counts: no slack, so a test whose pairs sit within 2^-44 of the
threshold could disagree with plink2 (and gensvd) by design.  Straightforward, for tests only."""
from fractions import Fraction
import numpy as np


def prune(G, contig, pos, window, step, r2, window_bp=0):
    """G: variants x samples dosages (-1 missing). Returns a bool keep vector."""
    M, N = G.shape
    called = G >= 0
    X = np.where(called, G, 0).astype(np.float64)
    C = called.astype(np.float64)
    n = called.sum(1)
    s = X.sum(1)
    ss = (X * X).sum(1)
    mono = n * ss - s * s == 0
    minor = np.minimum(s, 2 * n - s)
    removed = np.zeros(M, bool)

    t = Fraction(str(r2))
    checked = np.arange(1, M + 1)  # pairs (i, j) with j < checked[i] were judged
    Ci, Xi = called.astype(np.int64), np.where(called, G, 0).astype(np.int64)
    rows = {}  # i -> (j0, bool row: pair (i, j0 + k) above the threshold)

    def above_row(i, j0, j1):
        """Exact integer sums over the samples called in both, for j in [j0, j1)."""
        c, x = Ci[j0:j1], Xi[j0:j1]
        k = c @ Ci[i]
        sx, sxx = c @ Xi[i], c @ (Xi[i] * Xi[i])
        sy, syy, sxy = x @ Ci[i], (x * x) @ Ci[i], x @ Xi[i]
        num, dx, dy = k * sxy - sx * sy, k * sxx - sx * sx, k * syy - sy * sy
        return [int(a) ** 2 * t.denominator > t.numerator * int(b) * int(d)
                for a, b, d in zip(num, dx, dy)]

    def above(i, j, c1):
        if i not in rows:  # j can share a window with i only up to i's reach
            reach = i + 1
            while reach < c1 and (pos[reach] - pos[i] <= window_bp if window_bp
                                  else reach - i < window):
                reach += 1
            rows[i] = (i + 1, above_row(i, i + 1, reach))
        j0, row = rows[i]
        return row[j - j0]

    def window_pass(start, end, c1):
        changed = True
        while changed:
            changed = False
            for i in range(start, end):
                if removed[i]:
                    continue
                j = max(checked[i], i + 1)
                while j < end:
                    if not removed[j] and above(i, j, c1):
                        changed = True
                        if minor[i] * n[j] < minor[j] * n[i]:
                            removed[i] = True
                        else:
                            removed[j] = True
                            checked[i] = j + 1
                        break
                    j += 1
                if j >= end:
                    checked[i] = end

    c0 = 0
    while c0 < M:
        c1 = c0
        while c1 < M and contig[c1] == contig[c0]:
            c1 += 1
        start, prev_end = c0, c0
        while start < c1:
            if window_bp:
                end = max(start, prev_end)
                while end < c1 and pos[end] - pos[start] <= window_bp:
                    end += 1
            else:
                end = min(start + window, c1)
            if end - start >= 2:
                removed[start:end] |= mono[start:end]
            window_pass(start, end, c1)
            prev_end = end
            if end >= c1:
                break
            start += step
        c0 = c1
    return ~removed
