#!/usr/bin/env python3
"""Write the small genotype fixtures of tests/unit/test_numeric.c and their expected values,
computed here with numpy from the documented rules (docs/man/gensvd-pca.md: dosages, standardisation, filters,
PCA, pdist) - an oracle independent of gensvd's C code.

usage: make_expected.py OUTDIR      (numpy; run from the repo root with the zarr3 test venv)

Fixtures (text, one variant per line: N x ploidy integer allele values, sample-major):
  a  ploidy 2, 48 x 16: three populations, missing calls (-1), fills (-2, one or both
     entries), allele values 2 (counted as > 0), a variant without calls, a monomorphic one,
     an all-heterozygous one (zero variance only for the `standard` scaler), low-MAF ones;
  b  ploidy 2, 40 x 16, no missing call, two well separated populations: with `center`
     every standardised value is a dyadic rational (mean = sum / 16), exact in float32, so
     the PCA oracle is exact to float64 rounding;
  c  ploidy 4, 10 x 6 with -1 and -2 entries.
Expected values (one line each: a key, then numbers printed with repr):
  <fx>.<case>.kept / .mean / .scale / .counts   per-variant flags, means, 1/sigma and the
        counters n_range n_kept n_no_calls n_zero_var n_maf n_missing n_missing_calls;
  cases: default (patterson), hwe, standard, center, filt (maf 0.2, max-missing 0.05),
        sub (samples 9 3 0 14 5 7 11 2, variants 4:44);
  <fx>.pca.<scaler>.s, .u  top-k singular values and unit sample vectors (sign rule: the
        entry of largest magnitude of each column is positive), k = 3, row-major N x k;
  <fx>.pca.<scaler>.trace;
  <fx>.pdist.euclidean / .ibs  condensed distances over jointly called sites, .nsites.
"""
import sys

import numpy as np

SUB_SAMPLES = [9, 3, 0, 14, 5, 7, 11, 2]
SUB_RANGE = (4, 44)
K = 3


def rng_calls(seed, m, n, ploidy, pops, freqs_fn):
    r = np.random.default_rng(seed)
    calls = np.zeros((m, n, ploidy), dtype=np.int64)
    for j in range(m):
        f = freqs_fn(r, j)
        for i in range(n):
            calls[j, i, :] = (r.random(ploidy) < f[pops[i]]).astype(np.int64)
    return r, calls


def fixture_a():
    n, m, ploidy = 16, 48, 2
    pops = [0] * 6 + [1] * 5 + [2] * 5
    r, c = rng_calls(1, m, n, ploidy, pops,
                     lambda r, j: np.clip(r.beta(0.6, 0.6) + r.normal(0, 0.35, 3), 0.02, 0.98))
    c[3, :, :] = -1                      # no calls
    c[7, :, :] = 0                       # monomorphic
    c[11, :, 0], c[11, :, 1] = 0, 1      # all heterozygous
    c[19, :, :] = 0                      # one minor allele copy: low MAF
    c[19, 4, 1] = 1
    c[23, :, :] = 1
    c[23, 2, :] = 0                      # high frequency, one homozygous reference
    for j, i, e, v in [(1, 2, 0, -1), (5, 0, 1, -1), (5, 9, 0, -1), (8, 15, 1, -1),
                       (13, 6, 0, -2), (13, 7, 1, -2), (14, 3, 0, -2), (14, 3, 1, -2),
                       (17, 10, 0, 2), (17, 11, 1, 2), (21, 12, 0, -1), (21, 12, 1, -2),
                       (30, 1, 0, -1), (30, 1, 1, -1), (31, 4, 1, 3), (40, 8, 0, -2)]:
        c[j, i, e] = v
    for i in range(0, 12):               # a variant missing in 12 of 16 samples
        c[27, i, :] = -1
    return c


def fixture_b():
    n, m, ploidy = 16, 40, 2
    pops = [0] * 8 + [1] * 8
    _, c = rng_calls(2, m, n, ploidy, pops,
                     lambda r, j: np.array([0.15, 0.85]) if j % 2 == 0 else np.array([0.8, 0.3]))
    c[0, :, :] = 0
    c[0, 0, 0] = 1                       # keep every variant polymorphic
    return c


def fixture_c():
    n, m, ploidy = 6, 10, 4
    _, c = rng_calls(3, m, n, ploidy, [0] * n, lambda r, j: np.array([0.2 + 0.06 * j]))
    for j, i, e, v in [(0, 0, 0, -1), (1, 1, 2, -2), (1, 1, 3, -2), (2, 2, 0, -2), (2, 2, 1, -2),
                       (2, 2, 2, -2), (2, 2, 3, -2), (3, 3, 0, -1), (3, 3, 1, -2), (6, 5, 0, 1),
                       (6, 5, 1, 1), (6, 5, 2, 1), (6, 5, 3, 1)]:
        c[j, i, e] = v
    c[9, :, :] = 2                        # monomorphic (all 4 copies > 0)
    return c


def dosages(c):
    """sgkit's rule: missing if any -1 (any negative other than -2) or every entry is -2;
    dosage = entries > 0."""
    miss = ((c < 0) & (c != -2)).any(axis=2) | (c == -2).all(axis=2)
    d = (c > 0).sum(axis=2).astype(np.float64)
    d[miss] = np.nan
    return d


def standardise(d, ploidy, scaler, maf=0.0, max_missing=1.0):
    m, n = d.shape
    kept = np.zeros(m, dtype=np.int64)
    mean = np.full(m, np.nan)
    scale = np.zeros(m)
    cnt = dict(n_range=m, n_kept=0, n_no_calls=0, n_zero_var=0, n_maf=0, n_missing=0,
               n_missing_calls=0)
    z = np.zeros((m, n))
    for j in range(m):
        called = ~np.isnan(d[j])
        nc = called.sum()
        if nc == 0:
            cnt["n_no_calls"] += 1
            continue
        mu = d[j, called].mean()
        mean[j] = mu
        p = mu / ploidy
        if max_missing < 1 and 1 - nc / n > max_missing:
            cnt["n_missing"] += 1
            continue
        if maf > 0 and min(p, 1 - p) < maf:
            cnt["n_maf"] += 1
            continue
        if scaler == "patterson":
            sd = np.sqrt(p * (1 - p))
        elif scaler == "hwe":
            sd = np.sqrt(ploidy * p * (1 - p))
        elif scaler == "standard":
            sd = d[j, called].std()
            if np.all(d[j, called] == d[j, called][0]):
                sd = 0.0
        else:
            sd = 1.0
        if not sd > 0:
            cnt["n_zero_var"] += 1
            continue
        kept[j] = 1
        scale[j] = 1 / sd
        cnt["n_kept"] += 1
        cnt["n_missing_calls"] += n - nc
        z[j, called] = (d[j, called] - mu) / sd
    return kept, mean, scale, cnt, z[kept == 1]


def pca(z, k):
    g = z.T @ z
    w, v = np.linalg.eigh(g)
    order = np.argsort(w)[::-1][:k]
    s = np.sqrt(w[order])
    u = v[:, order]
    for c in range(k):
        if u[np.argmax(np.abs(u[:, c])), c] < 0:
            u[:, c] = -u[:, c]
    return s, u, float((z * z).sum())


def pdist(d, ploidy):
    n = d.shape[1]
    eu, ibs, ns = [], [], []
    for i in range(n):
        for j in range(i + 1, n):
            both = ~np.isnan(d[:, i]) & ~np.isnan(d[:, j])
            diff = d[both, i] - d[both, j]
            nb = both.sum()
            ns.append(nb)
            eu.append(np.sqrt((diff * diff).sum()) if nb else np.nan)
            ibs.append(np.abs(diff).sum() / (ploidy * nb) if nb else np.nan)
    return eu, ibs, ns


def line(f, key, values):
    f.write(key + " " + " ".join(repr(float(v)) if isinstance(v, float) or
                                 isinstance(v, np.floating) else str(int(v))
                                 for v in values) + "\n")


def main():
    out = sys.argv[1]
    fixtures = {"a": fixture_a(), "b": fixture_b(), "c": fixture_c()}
    with open(f"{out}/expected.txt", "w") as f:
        f.write("# written by make_expected.py (numpy %s); do not edit\n" % np.__version__)
        for name, c in fixtures.items():
            m, n, ploidy = c.shape
            with open(f"{out}/fixture_{name}.txt", "w") as fx:
                fx.write(f"# gensvd numeric fixture {name}: variants samples ploidy, then one "
                         "variant per line (sample-major allele values); make_expected.py\n")
                fx.write(f"{m} {n} {ploidy}\n")
                for j in range(m):
                    fx.write(" ".join(str(v) for v in c[j].reshape(-1)) + "\n")
            d = dosages(c)
            cases = {"default": ("patterson", {}), "hwe": ("hwe", {}),
                     "standard": ("standard", {}), "center": ("center", {}),
                     "filt": ("patterson", dict(maf=0.2, max_missing=0.05))}
            for case, (scaler, kw) in cases.items():
                kept, mean, scale, cnt, _ = standardise(d, ploidy, scaler, **kw)
                line(f, f"{name}.{case}.kept", kept)
                line(f, f"{name}.{case}.mean", mean)
                line(f, f"{name}.{case}.scale", scale)
                line(f, f"{name}.{case}.counts", cnt.values())
            if n >= max(SUB_SAMPLES) + 1 and m >= SUB_RANGE[1]:
                ds = d[SUB_RANGE[0]:SUB_RANGE[1], SUB_SAMPLES]
                kept, mean, scale, cnt, _ = standardise(ds, ploidy, "patterson")
                line(f, f"{name}.sub.kept", kept)
                line(f, f"{name}.sub.mean", mean)
                line(f, f"{name}.sub.scale", scale)
                line(f, f"{name}.sub.counts", cnt.values())
            for scaler in ("patterson", "center"):
                *_, z = standardise(d, ploidy, scaler)
                if z.shape[0] == 0 or n <= K:
                    continue
                s, u, tr = pca(z, K)
                line(f, f"{name}.pca.{scaler}.s", s)
                line(f, f"{name}.pca.{scaler}.u", u.reshape(-1))
                line(f, f"{name}.pca.{scaler}.trace", [tr])
            eu, ibs, ns = pdist(d, ploidy)
            line(f, f"{name}.pdist.euclidean", eu)
            line(f, f"{name}.pdist.ibs", ibs)
            line(f, f"{name}.pdist.nsites", ns)


if __name__ == "__main__":
    main()
