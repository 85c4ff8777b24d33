#!/usr/bin/env python3
"""Independent scipy oracle for `gensvd pdist`.

The oracle reads the store with zarr-python, builds the samples x variants dosage matrix with
numpy and computes the reference distances with scipy.spatial.distance.  gensvd only runs as the
program under test (never to build the reference).

Contract implemented here (the `gensvd pdist` CLI contract):
  dosage   call_genotype (variants x samples x ploidy, int): dosage = number of entries > 0
           among the entries != -2 (fill); the call is missing if any entry is -1.
           --array NAME (2-D, variants x samples): float NaN or integer < 0 is missing.
  items    samples; features variants.  M = number of variants in the store.
  pairwise (default) for each pair only the sites called in both samples (n_ij of them) are
           used and scipy's metric is computed on them; NaN when n_ij = 0.
  ibs      PLINK 1.9 `--distance 1-ibs`: sum |g_i - g_j| / (ploidy * n_ij).
  hamming  scipy's hamming: fraction of differing sites among the n_ij shared ones.
  scale    [SCALE-CONTRACT: the oracle's reading, to be aligned with the implementation]
           PLINK flat-missing: cityblock and sqeuclidean = (sum over shared sites) * M / n_ij;
           euclidean = sqrt(scaled sqeuclidean); ibs and hamming unchanged (per-site means).
           Other metrics have no scale reference here (the oracle refuses them).
  error    not checked here (the driver checks the exit status).
  output   distance N x N f8 (diagonal 0, symmetric), n_sites N x N uint32 (sites called in
           both; the diagonal is the number of calls of the sample), sample_id, attrs metric,
           missing, M.  TSV: header "sample_id" + IDs, rows ID + N values (%.17g, NaN as nan).

Reference paths:
  full     no missing call: scipy pdist on the whole matrix + squareform (ibs = cityblock /
           (ploidy M)).
  loop     missing calls: python loop over pairs, scipy pdist on the two masked rows.
  counts   missing calls, integer dosages, additive metrics (cityblock, sqeuclidean, euclidean,
           hamming, ibs): exact integer sums from one-hot matrix products (needed for hapmap3,
           where the loop over 457k pairs is too slow).  `selftest` checks counts == loop.

Tolerances: cityblock, sqeuclidean, hamming, ibs 1e-15 relative (integer sums, one division);
others 1e-12 relative, for the bounded metrics (cosine, correlation, braycurtis) relative to
max(|ref|, 1).  NaN must sit exactly where the reference has NaN.

Subcommands:
  check --gensvd G INPUT [--array A] [--variants A:B] [--extra "ARGS"] SPEC...   SPEC = METRIC[:P][@MODE], e.g. cityblock,
           minkowski:1.5, ibs@scale.  Runs gensvd with --format tsv and -o OUT.zarr per SPEC.
  selftest [INPUT...]    oracle paths against scipy pdist (no missing) and each other
  make-disjoint OUT      store where samples 0 and 1 share no called site
  make-array OUT         store with 2-D dosage arrays dosage_f8, dosage_f4 (NaN missing) and
                         dosage_i1 (-1 missing), variants x samples
The last line of check/selftest is "N passed, N failed"; exit status 1 when a check failed.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from scipy.spatial.distance import pdist, squareform

SCIPY_METRICS = ("euclidean", "sqeuclidean", "cityblock", "hamming", "chebyshev", "cosine",
                 "correlation", "braycurtis", "canberra", "minkowski")
ALL_METRICS = SCIPY_METRICS + ("ibs",)
EXACT = ("cityblock", "sqeuclidean", "hamming", "ibs")
BOUNDED = ("cosine", "correlation", "braycurtis")
ADDITIVE = ("cityblock", "sqeuclidean", "euclidean", "hamming", "ibs")
SCALE_OK = ("cityblock", "sqeuclidean", "euclidean", "hamming", "ibs")


# ------------------------------------------------------------------------------------------
# Reading
# ------------------------------------------------------------------------------------------
def load(inp, array=None):
    """Return (D samples x variants float64, called bool samples x variants, ids, ploidy, M)."""
    import zarr
    g = zarr.open_group(inp, mode="r")
    ids = None
    if "sample_id" in g:
        ids = [x.decode() if isinstance(x, bytes) else str(x) for x in g["sample_id"][:]]
    if array is not None:
        a = g[array][:]
        if a.ndim != 2:
            raise SystemExit("pdist_oracle: --array must be 2-D")
        if a.dtype.kind == "f":
            miss = np.isnan(a)
        else:
            miss = a < 0
        d = np.where(miss, 0, a).astype(np.float64)
        ploidy = 2
    else:
        b = g["call_genotype"][:].astype(np.int64)
        if b.ndim != 3:
            raise SystemExit("pdist_oracle: call_genotype must be 3-D")
        miss = (b == -1).any(axis=2)
        d = (b > 0).sum(axis=2).astype(np.float64)
        d[miss] = 0.0
        ploidy = b.shape[2]
    M = d.shape[0]
    if ids is None:
        ids = [str(i) for i in range(d.shape[1])]
    return np.ascontiguousarray(d.T), np.ascontiguousarray(~miss.T), ids, ploidy, M


# ------------------------------------------------------------------------------------------
# Reference
# ------------------------------------------------------------------------------------------
def _kw(metric, p):
    return {"p": p} if metric == "minkowski" else {}


def shared_counts(C):
    c = C.astype(np.float64)
    return c @ c.T  # exact: counts < 2^53


def ref_full(D, metric, p, ploidy):
    """No missing call: scipy pdist on the whole matrix."""
    N, M = D.shape
    if metric == "ibs":
        v = pdist(D, "cityblock") / (ploidy * M)
    else:
        v = pdist(D, metric, **_kw(metric, p))
    return squareform(v, checks=False)


def ref_loop(D, C, metric, p, ploidy):
    """Pairwise deletion, one scipy call per pair."""
    N = D.shape[0]
    out = np.zeros((N, N))
    kw = _kw(metric, p)
    sm = "cityblock" if metric == "ibs" else metric
    with np.errstate(all="ignore"):
        for i in range(N):
            for j in range(i + 1, N):
                m = C[i] & C[j]
                n = int(m.sum())
                if n == 0:
                    v = np.nan
                else:
                    v = pdist(np.vstack([D[i, m], D[j, m]]), sm, **kw)[0]
                    if metric == "ibs":
                        v = v / (ploidy * n)
                out[i, j] = out[j, i] = v
    return out


_SUMS_CACHE = {}


def additive_sums(D, C):
    """Exact (n_ij, sum|d|, sum d^2, number of differing sites) over shared sites via one-hot
    matrix products.  Dosages must be small non-negative integers.  The products run in float32
    when every sum stays below 2^24 (exact integers either way); cached per matrix."""
    key = (id(D), id(C))
    hit = _SUMS_CACHE.get(key)
    if hit is not None and hit[0] is D and hit[1] is C:  # the arrays are kept alive in the cache
        return hit[2]
    levels = np.unique(D[C])
    if not np.all(levels == np.round(levels)):
        raise ValueError("non-integer dosages")
    ft = np.float32 if D.shape[1] < (1 << 24) else np.float64
    onehot = [((D == k) & C).astype(ft) for k in levels]
    c = C.astype(ft)
    n = (c @ c.T).astype(np.float64)
    s1 = np.zeros_like(n)
    s2 = np.zeros_like(n)
    same = np.zeros_like(n)
    for a, ka in enumerate(levels):
        same += (onehot[a] @ onehot[a].T).astype(np.float64)
        for b in range(a + 1, len(levels)):
            kb = levels[b]
            prod = (onehot[a] @ onehot[b].T).astype(np.float64)
            prod = prod + prod.T
            s1 += abs(ka - kb) * prod
            s2 += (ka - kb) ** 2 * prod
    res = (n, s1, s2, n - same)
    _SUMS_CACHE[key] = (D, C, res)
    return res


def ref_counts(D, C, metric, ploidy, mode, M):
    n, s1, s2, diff = additive_sums(D, C)
    with np.errstate(all="ignore"):
        if metric == "hamming":
            out = diff / n  # a per-site mean: the same in both modes
        elif metric == "ibs":
            out = s1 / (ploidy * n)  # a per-site mean: the same in both modes
        else:
            if mode == "scale":
                # [SCALE-CONTRACT] (sum over shared sites) * M / n_ij
                s1 = s1 * M / n
                s2 = s2 * M / n
            if metric == "cityblock":
                out = s1
            elif metric == "sqeuclidean":
                out = s2
            elif metric == "euclidean":
                out = np.sqrt(s2)
            else:
                raise ValueError(metric)
    out = np.array(out, dtype=np.float64)
    out[n == 0] = np.nan
    np.fill_diagonal(out, 0.0)
    return out


def reference(D, C, metric, p, ploidy, mode, M, method="auto"):
    """Reference N x N distance matrix for one metric and missing mode."""
    if mode == "scale" and metric not in SCALE_OK:
        raise SystemExit(f"pdist_oracle: no scale reference for {metric} [SCALE-CONTRACT]")
    if method == "auto":
        if C.all():
            method = "full"
        elif metric in ADDITIVE and np.all(D == np.round(D)):
            method = "counts"
        else:
            method = "loop"
    if method == "full":
        out = ref_full(D, metric, p, ploidy)
        # scale without missing: M / n_ij = 1, nothing changes
    elif method == "counts":
        out = ref_counts(D, C, metric, ploidy, mode, M)
    else:
        if mode == "scale":
            raise SystemExit("pdist_oracle: scale only through the counts path")
        if D.shape[0] > 400:
            raise SystemExit("pdist_oracle: pair loop too slow for N > 400")
        out = ref_loop(D, C, metric, p, ploidy)
    np.fill_diagonal(out, 0.0)
    return out, method


# ------------------------------------------------------------------------------------------
# Checks
# ------------------------------------------------------------------------------------------
class Checker:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, label, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"  ok   {label}: {detail}")
        else:
            self.failed += 1
            print(f"  FAIL {label}: {detail}")
        sys.stdout.flush()
        return ok

    def summary(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


def compare(ck, label, got, ref, metric, integer_data=True):
    """Compare two N x N matrices; report the worst entry."""
    got = np.asarray(got, dtype=np.float64)
    if got.shape != ref.shape:
        return ck.check(label, False, f"shape {got.shape}, expected {ref.shape}")
    nan_r, nan_g = np.isnan(ref), np.isnan(got)
    if not np.array_equal(nan_r, nan_g):
        idx = np.argwhere(nan_r != nan_g)[0]
        return ck.check(label, False,
                        f"NaN pattern differs ({int((nan_r != nan_g).sum())} entries), first "
                        f"[{idx[0]},{idx[1]}] got {float(got[tuple(idx)])!r} ref {float(ref[tuple(idx)])!r}")
    ok_mask = ~nan_r
    # integer sums are exact only on integer data; non-integer float input (the f8/f4 arrays)
    # is summed in another order than numpy's pairwise summation: scipy's 1e-12 applies
    rtol = 1e-15 if metric in EXACT and integer_data else 1e-12
    if ok_mask.any():
        g, r = got[ok_mask], ref[ok_mask]
        den = np.abs(r)
        if metric in BOUNDED:
            den = np.maximum(den, 1.0)
        with np.errstate(all="ignore"):
            err = np.where(g == r, 0.0, np.abs(g - r) / np.where(den > 0, den, 1e-300))
        worst = int(np.argmax(err))
        widx = np.argwhere(ok_mask)[worst]
        detail = (f"max rel err {err[worst]:.3g} (tol {rtol:g}) at [{widx[0]},{widx[1]}] "
                  f"got {float(got[tuple(widx)])!r} ref {float(ref[tuple(widx)])!r}; "
                  f"{int(nan_r.sum())} NaN entries")
        return ck.check(label, err[worst] <= rtol, detail)
    return ck.check(label, True, "all entries NaN in both")


def structural(ck, label, got):
    n = got.shape[0]
    dg = np.diag(got)
    ck.check(f"{label} diagonal", np.all(dg == 0.0), f"diagonal max |x| {np.nanmax(np.abs(dg)) if n else 0}")
    sym = np.array_equal(np.isnan(got), np.isnan(got.T)) and np.all((got == got.T) | np.isnan(got))
    ck.check(f"{label} symmetric", sym, "d[i,j] == d[j,i] bitwise")


def parse_tsv(text):
    lines = text.rstrip("\n").split("\n")
    head = lines[0].split("\t")
    if head[0] != "sample_id":
        raise ValueError(f"header starts with {head[0]!r}")
    ids = head[1:]
    rows, vals, tokens = [], [], set()
    for ln in lines[1:]:
        f = ln.split("\t")
        if len(f) != len(ids) + 1:
            raise ValueError(f"row {f[0]!r} has {len(f) - 1} values, expected {len(ids)}")
        rows.append(f[0])
        for t in f[1:]:
            if not t or not (t[0].isdigit() or t[0] == "-"):
                tokens.add(t)
        vals.append([float(t) for t in f[1:]])
    return ids, rows, np.array(vals, dtype=np.float64).reshape(len(rows), len(ids)), tokens


def run(cmd, timeout=300):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return r


def cmd_check(argv):
    ap = argparse.ArgumentParser(prog="pdist_oracle.py check")
    ap.add_argument("--gensvd", required=True)
    ap.add_argument("--array")
    ap.add_argument("--threads", "-t", default=None)
    ap.add_argument("--label", default=None)
    ap.add_argument("--formats", default="tsv,zarr")
    ap.add_argument("--extra", default="", help="extra gensvd arguments (space separated)")
    ap.add_argument("--variants", default=None, help="A:B, passed to gensvd; the oracle slices")
    ap.add_argument("input")
    ap.add_argument("specs", nargs="+")
    a = ap.parse_args(argv)
    ck = Checker()
    D, C, ids, ploidy, M = load(a.input, a.array)
    if a.variants:
        lo, hi = (int(x) for x in a.variants.split(":"))
        D, C = np.ascontiguousarray(D[:, lo:hi]), np.ascontiguousarray(C[:, lo:hi])
        M = D.shape[1]
    N = D.shape[0]
    nsh = shared_counts(C)
    base = a.label or os.path.basename(a.input.rstrip("/"))
    print(f"# {base}: N={N} M={M} ploidy={ploidy} missing calls={int((~C).sum())}")
    tmp = tempfile.mkdtemp(prefix="pdist_oracle_")
    try:
        for spec in a.specs:
            mode = "pairwise"
            if "@" in spec:
                spec, mode = spec.split("@", 1)
            p = None
            metric = spec
            if ":" in spec:
                metric, ps = spec.split(":", 1)
                p = float(ps)
            if metric not in ALL_METRICS:
                raise SystemExit(f"pdist_oracle: unknown metric {metric}")
            ref, how = reference(D, C, metric, p, ploidy, mode, M)
            integer_data = bool(np.all(~C | (D == np.round(D)))) if C is not None else bool(
                np.all(np.isnan(D) | (D == np.round(D))))
            tag = f"{base} {metric}" + (f" p={p:g}" if p is not None else "") + f" {mode}"
            if mode == "scale":
                tag += " [SCALE-CONTRACT]"
            args = [a.input, "--metric", metric, "--missing", mode]
            if p is not None:
                args += ["-p", repr(p) if p != int(p) else str(int(p))]
            if a.array:
                args += ["--array", a.array]
            if a.threads:
                args += ["-t", str(a.threads)]
            if a.variants:
                args += ["--variants", a.variants]
            args += a.extra.split()
            tsv_vals = None
            if "tsv" in a.formats:
                r = run([a.gensvd, "pdist", "--device", "cpu"] + args + ["--format", "tsv"])
                if ck.check(f"{tag} tsv exit", r.returncode == 0,
                            f"rc {r.returncode} ({how} ref) {r.stderr.strip()[:300]}"):
                    try:
                        hid, rid, vals, toks = parse_tsv(r.stdout)
                        ck.check(f"{tag} tsv ids", hid == ids and rid == ids,
                                 f"{len(hid)} header / {len(rid)} row IDs")
                        bad = toks - {"nan"}
                        ck.check(f"{tag} tsv tokens", not bad,
                                 f"non-numeric tokens {sorted(toks)}")
                        compare(ck, f"{tag} tsv", vals, ref, metric, integer_data)
                        structural(ck, f"{tag} tsv", vals)
                        tsv_vals = vals
                    except ValueError as e:
                        ck.check(f"{tag} tsv parse", False, str(e))
            if "zarr" in a.formats:
                out = os.path.join(tmp, f"{metric}_{mode}_{p}.zarr")
                r = run([a.gensvd, "pdist", "--device", "cpu"] + args + ["-o", out])
                if ck.check(f"{tag} zarr exit", r.returncode == 0,
                            f"rc {r.returncode} {r.stderr.strip()[:300]}"):
                    check_zarr(ck, tag, out, ref, metric, mode, M, ids, nsh, tsv_vals,
                               not C.all(), "--counts" in a.extra.split(),
                               integer_data=integer_data)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return ck.summary()


def check_zarr(ck, tag, out, ref, metric, mode, M, ids, nsh, tsv_vals, has_missing, counts,
               integer_data=True):
    import zarr
    try:
        g = zarr.open_group(out, mode="r")
        dist = g["distance"]
        ns = g["n_sites"] if "n_sites" in g else None
        sid = [x.decode() if isinstance(x, bytes) else str(x) for x in g["sample_id"][:]]
    except Exception as e:  # noqa: BLE001
        ck.check(f"{tag} zarr open", False, f"{type(e).__name__}: {e}")
        return
    dv = dist[:]
    compare(ck, f"{tag} zarr", dv, ref, metric, integer_data)
    structural(ck, f"{tag} zarr", dv)
    # n_sites: the brief says always; gensvd's help says only with missing calls or --counts.
    # Accepted: absent when the input has no missing call and --counts was not given.
    if ns is None:
        ck.check(f"{tag} zarr n_sites", not has_missing and not counts,
                 "absent (allowed only without missing calls and without --counts)")
    else:
        ck.check(f"{tag} zarr dtypes", dist.dtype == np.float64 and ns.dtype == np.uint32,
                 f"distance {dist.dtype}, n_sites {ns.dtype}")
        nv = ns[:]
        ck.check(f"{tag} zarr n_sites",
                 nv.shape == nsh.shape and np.array_equal(nv.astype(np.float64), nsh),
                 f"shape {nv.shape}, max |diff| {np.abs(nv.astype(np.float64) - nsh).max() if nv.shape == nsh.shape and nv.size else '-'}")
    if ns is None:
        ck.check(f"{tag} zarr dtypes", dist.dtype == np.float64, f"distance {dist.dtype}")
    ck.check(f"{tag} zarr sample_id", sid == ids, f"{len(sid)} IDs")
    at = dict(g.attrs)
    ok = at.get("metric") == metric and at.get("missing") == mode and at.get("M") == M
    ck.check(f"{tag} zarr attrs", ok, f"metric={at.get('metric')!r} missing={at.get('missing')!r} "
             f"M={at.get('M')!r} (expected {metric!r} {mode!r} {M})")
    if tsv_vals is not None and tsv_vals.shape == dv.shape:
        same = np.array_equal(np.isnan(tsv_vals), np.isnan(dv)) and \
            np.all((tsv_vals == dv) | np.isnan(dv))
        ck.check(f"{tag} tsv == zarr", same, "bitwise (%.17g round-trips)")


# ------------------------------------------------------------------------------------------
# Self test: the oracle against scipy without gensvd
# ------------------------------------------------------------------------------------------
def cmd_selftest(argv):
    ck = Checker()
    rng = np.random.default_rng(7)
    sets = []
    for inp in argv:
        D, C, ids, ploidy, M = load(inp)
        sets.append((os.path.basename(inp.rstrip("/")), D, C, ploidy, M))
    Dr = rng.integers(0, 3, size=(40, 300)).astype(np.float64)
    sets.append(("random 40x300", Dr, np.ones_like(Dr, dtype=bool), 2, 300))
    for name, D, C, ploidy, M in sets:
        if not C.all():
            # missing calls: counts path == pair loop on the first 60 samples
            Dm, Cm = np.ascontiguousarray(D[:60]), np.ascontiguousarray(C[:60])
            for metric in ADDITIVE:
                cnt, _ = reference(Dm, Cm, metric, None, ploidy, "pairwise", M, "counts")
                lp, _ = reference(Dm, Cm, metric, None, ploidy, "pairwise", M, "loop")
                compare(ck, f"selftest {name}[:60] {metric} counts == loop", cnt, lp, metric)
            continue
        # 1. no missing: counts path and loop path equal scipy pdist on the full matrix
        for metric in ADDITIVE:
            full, _ = reference(D, C, metric, None, ploidy, "pairwise", M, "full")
            cnt, _ = reference(D, C, metric, None, ploidy, "pairwise", M, "counts")
            compare(ck, f"selftest {name} {metric} counts == scipy pdist", cnt, full, metric)
            sc, _ = reference(D, C, metric, None, ploidy, "scale", M, "counts")
            compare(ck, f"selftest {name} {metric} scale == pairwise (no missing)", sc, full, metric)
        Ds, Cs = D[:25], C[:25]
        for metric, p in [(m, None) for m in ALL_METRICS if m != "minkowski"] + \
                [("minkowski", 3.0), ("minkowski", 1.5)]:
            full, _ = reference(Ds, Cs, metric, p, ploidy, "pairwise", M, "full")
            lp, _ = reference(Ds, Cs, metric, p, ploidy, "pairwise", M, "loop")
            compare(ck, f"selftest {name}[:25] {metric} p={p} loop == scipy pdist", lp, full, metric)
        # ibs: PLINK definition on complete data, explicit
        full, _ = reference(D, C, "ibs", None, ploidy, "pairwise", M, "full")
        i, j = 0, 1
        ck.check(f"selftest {name} ibs[0,1] by hand",
                 full[i, j] == np.abs(D[i] - D[j]).sum() / (ploidy * M), f"{full[i, j]!r}")
    # 2. with missing: counts == loop on additive metrics, plus hand-checked pairs
    N, M = 30, 200
    D = rng.integers(0, 3, size=(N, M)).astype(np.float64)
    C = rng.random((N, M)) > 0.1
    C[0, :100] = False
    C[1, 100:] = False  # samples 0 and 1 share no site
    D[~C] = 0
    for metric in ADDITIVE:
        cnt, _ = reference(D, C, metric, None, 2, "pairwise", M, "counts")
        lp, _ = reference(D, C, metric, None, 2, "pairwise", M, "loop")
        compare(ck, f"selftest missing {metric} counts == loop", cnt, lp, metric)
        ck.check(f"selftest missing {metric} disjoint pair NaN", np.isnan(cnt[0, 1]), f"{cnt[0, 1]}")
    for metric in ALL_METRICS:
        p = 3.0 if metric == "minkowski" else None
        lp, _ = reference(D, C, metric, p, 2, "pairwise", M, "loop")
        m = C[2] & C[5]
        kw = _kw(metric, p)
        if metric == "ibs":
            hand = np.abs(D[2, m] - D[5, m]).sum() / (2 * m.sum())
        else:
            hand = pdist(np.vstack([D[2, m], D[5, m]]), metric, **kw)[0]
        ck.check(f"selftest missing {metric} pair (2,5)", lp[2, 5] == hand, f"{lp[2, 5]!r} vs {hand!r}")
    # scale by hand
    m = C[2] & C[5]
    n = m.sum()
    s1 = np.abs(D[2, m] - D[5, m]).sum()
    sc, _ = reference(D, C, "cityblock", None, 2, "scale", M, "counts")
    ck.check("selftest scale cityblock pair (2,5) = S * M / n", sc[2, 5] == s1 * M / n,
             f"{sc[2, 5]!r} vs {s1 * M / n!r}")
    sc, _ = reference(D, C, "ibs", None, 2, "scale", M, "counts")
    ck.check("selftest scale ibs pair (2,5) unchanged", sc[2, 5] == s1 / (2 * n), f"{sc[2, 5]!r}")
    return ck.summary()


# ------------------------------------------------------------------------------------------
# Store writers
# ------------------------------------------------------------------------------------------
def _write_ids(g, n, prefix):
    sid = g.create_array("sample_id", shape=(n,), chunks=(n,), dtype=str)
    sid[:] = np.array([f"{prefix}{i:02d}" for i in range(n)], dtype=object)
    sid.attrs["_ARRAY_DIMENSIONS"] = ["samples"]


def cmd_make_disjoint(argv):
    """Store (zarr v2) with 6 samples x 40 variants: sample 0 called only on variants 0..19,
    sample 1 only on 20..39 (no shared site -> NaN), sample 2 called nowhere, others with a few
    missing calls; one missing call of the form [0, -1]."""
    import zarr
    out = argv[0]
    rng = np.random.default_rng(11)
    M, N = 40, 6
    gt = rng.integers(0, 2, size=(M, N, 2)).astype(np.int8)
    gt[20:, 0] = -1
    gt[:20, 1] = -1
    gt[:, 2] = -1
    gt[5, 3] = [0, -1]
    gt[7, 4] = [-1, 1]
    gt[9, 5] = -1
    if os.path.exists(out):
        shutil.rmtree(out)
    g = zarr.open_group(out, mode="w", zarr_format=2)
    cg = g.create_array("call_genotype", shape=gt.shape, chunks=(16, 4, 2), dtype="i1",
                        fill_value=-2)
    cg[:] = gt
    cg.attrs["_ARRAY_DIMENSIONS"] = ["variants", "samples", "ploidy"]
    _write_ids(g, N, "D")
    return 0


def cmd_make_array(argv):
    """Store (zarr v2) with 2-D variants x samples dosage arrays, 30 samples x 150 variants:
    dosage_f8 (float64, non-integer values in [0, 2], 5% NaN), dosage_f4 (the same as float32)
    and dosage_i1 (int8 0..2, -1 missing)."""
    import zarr
    out = argv[0]
    rng = np.random.default_rng(5)
    M, N = 150, 30
    d = rng.random((M, N)) * 2.0
    d[rng.random((M, N)) < 0.05] = np.nan
    gi = rng.integers(0, 3, size=(M, N)).astype(np.int8)
    gi[rng.random((M, N)) < 0.05] = -1
    if os.path.exists(out):
        shutil.rmtree(out)
    g = zarr.open_group(out, mode="w", zarr_format=2)
    for name, val, fill in (("dosage_f8", d, np.nan), ("dosage_f4", d.astype(np.float32), np.nan),
                            ("dosage_i1", gi, -1)):
        a = g.create_array(name, shape=val.shape, chunks=(64, 16), dtype=val.dtype,
                           fill_value=fill)
        a[:] = val
        a.attrs["_ARRAY_DIMENSIONS"] = ["variants", "samples"]
    _write_ids(g, N, "A")
    return 0


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    sub, rest = argv[0], argv[1:]
    if sub == "check":
        return cmd_check(rest)
    if sub == "selftest":
        return cmd_selftest(rest)
    if sub == "make-disjoint":
        return cmd_make_disjoint(rest)
    if sub == "make-array":
        return cmd_make_array(rest)
    print(f"pdist_oracle: unknown subcommand {sub}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
