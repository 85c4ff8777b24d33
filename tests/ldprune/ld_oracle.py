"""Independent numpy model of gensvd ldprune (plink2 --indep-pairwise as README documents it):
per contig a window of W variants (or of the variants within BP of its first one) moves by STEP;
a monomorphic variant goes once its window holds another variant; then for i ascending, j > i
(both remaining): r^2 over the samples called in both > R2 removes i if MAF_i < MAF_j (and
i leaves the loop), else j.  Straightforward O(window^2) per step, for tests only."""
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

    def r2row(i, js):
        js = np.asarray(js, dtype=np.int64)
        k = C[js] @ C[i]
        sx = C[js] @ X[i]
        sxx = C[js] @ (X[i] * X[i])
        sy = X[js] @ C[i]
        syy = (X[js] * X[js]) @ C[i]
        sxy = X[js] @ X[i]
        num = k * sxy - sx * sy
        dx = k * sxx - sx * sx
        dy = k * syy - sy * sy
        ok = (dx > 0) & (dy > 0)
        out = np.zeros(len(js))
        out[ok] = num[ok] ** 2 / (dx[ok] * dy[ok])
        return out

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
            prev_end = max(prev_end, start)
            if end - start >= 2:
                removed[start:end] |= mono[start:end]
            for i in range(start, end):
                if removed[i]:
                    continue
                js = [j for j in range(max(i + 1, prev_end), end) if not removed[j]]
                if not js:
                    continue
                vals = r2row(i, js)
                for j, v in zip(js, vals):
                    if removed[j] or not v > r2:
                        continue
                    if minor[i] * n[j] < minor[j] * n[i]:
                        removed[i] = True
                        break
                    removed[j] = True
            prev_end = end
            if end >= c1:
                break
            start += step
        c0 = c1
    return ~removed
