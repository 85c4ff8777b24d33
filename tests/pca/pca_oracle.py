#!/usr/bin/env python3
"""Independent numpy oracle for `gensvd pca`.

The oracle reads the genotype store with zarr-python, builds the dosage matrix and the
standardised matrix Z with numpy following the `gensvd pca` contract (below), computes the exact
SVD of X = Z^T in float64 and compares it with what gensvd writes.  It never calls gensvd for the
reference side: gensvd only runs as the program under test.

Contract implemented here (docs/man/gensvd-pca.md, the pca contract):
  dosage   per call = number of allele entries > 0 among the entries != -2 (fill); the call is
           missing if any entry is -1.  2-D integer arrays: value < 0 is missing; float: NaN.
  subset   --variants A:B (0-based, half-open, either end may be empty), then --samples FILE
           (one ID per line).  Statistics use the selected samples only.
  filters  mu_j = mean of called dosages, p_j = mu_j / ploidy, maf_j = min(p_j, 1 - p_j);
           --maf X keeps variants with maf_j >= X; --max-missing X keeps variants whose missing
           fraction (missing calls / N) is <= X.  Both are applied before the zero-variance
           drop; a variant with no called genotype is always dropped.
  scalers  patterson sigma = sqrt(p (1 - p)); hwe sqrt(ploidy p (1 - p)); standard = population
           sd of called dosages (ddof 0); center 1; none: no centring, sigma 1.
           Z_ji = (G_ji - mu_j) / sigma_j; --missing mean: a missing call is the variant mean,
           i.e. Z = 0 (for `none`, where nothing is centred, the mean itself: Z = mu_j; the
           option --none-missing zero switches to Z = 0).  Variants with sigma = 0 (or no call)
           are dropped; M_used = variants kept.
  SVD      X = Z^T (samples x variants) = U S V^T; sign rule: in each component the entry of
           U of largest magnitude is positive (V follows U).
  outputs  sample_pca_projection = U S; explained_variance = s^2 / N; explained_variance_ratio
           = s^2 / ||Z||_F^2; eigenvalue = s^2 / M_used; --plink: .eigenvec = unit U,
           .eigenval = s^2 / M_used.

Subcommands (the first argument; `check` is the default):
  check      run gensvd on INPUT for every (scaler, method, output) asked for and compare
  reference  print the oracle's own result (no gensvd): M_used, trace, top-k singular values
  gram       top-k singular values from the N x N Gram accumulated chunk by chunk (large stores)
  write-bed  write INPUT as PLINK .bed/.bim/.fam (SNP-major, col 5 = ALT so plink2 counts ALT)
  make-edge-store OUT   a small VCF-Zarr store with all-missing, monomorphic, all-het,
             single-call, partial-missing, fill (-2) and multi-allelic variants

The last line of `check` is "N passed, N failed"; exit status 1 when a check failed.
Run with the zarr 3 test venv: .venv/zarr3/bin/python tests/pca/pca_oracle.py ...
"""
import argparse
import math
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore", category=UserWarning)
warnings.filterwarnings("ignore", category=FutureWarning)

SCALERS = ("patterson", "hwe", "standard", "center", "none")
METHODS = ("randomized", "krylov", "subspace", "exact")


# ----------------------------------------------------------------------------------------------
# Reading the store
# ----------------------------------------------------------------------------------------------
def _zarr():
    import zarr
    return zarr


def _is_array(node):
    return hasattr(node, "shape") and hasattr(node, "dtype")


def open_genotypes(inp):
    """Return (zarr array, sample IDs as a list of str or None, array path) for INPUT.

    INPUT is a group (call_genotype, else calldata/GT) or STORE/ARRAY.  Sample IDs come from
    `sample_id` (VCF-Zarr) or `samples` (scikit-allel) in the group or one of its parents."""
    zarr = _zarr()
    node = zarr.open(inp, mode="r")
    group_path = inp
    if _is_array(node):
        arr = node
        group_path = os.path.dirname(inp.rstrip("/"))
    else:
        arr = None
        for name in ("call_genotype", "calldata/GT"):
            try:
                cand = node[name]
            except KeyError:
                continue
            if _is_array(cand):
                arr = cand
                break
        if arr is None:
            raise SystemExit(f"pca_oracle: no call_genotype or calldata/GT in {inp}")
    ids = None
    p = group_path
    for _ in range(4):
        if not p:
            break
        try:
            g = zarr.open_group(p, mode="r")
            for name in ("sample_id", "samples"):
                try:
                    a = g[name]
                except KeyError:
                    continue
                if _is_array(a) and a.ndim == 1:
                    ids = [x.decode() if isinstance(x, bytes) else str(x) for x in a[:]]
                    break
        except Exception:
            pass
        if ids is not None:
            break
        p = os.path.dirname(p.rstrip("/"))
    return arr, ids


def dosage_block(block):
    """Dosages (float64, M x N) and missing mask from a block of the genotype array."""
    if block.ndim == 3:
        if block.dtype.kind not in "iu":
            raise SystemExit("pca_oracle: 3-D genotype array must be integer")
        b = block.astype(np.int64)
        miss = (b == -1).any(axis=2)
        d = (b > 0).sum(axis=2).astype(np.float64)
        ploidy = block.shape[2]
    elif block.ndim == 2:
        if block.dtype.kind == "f":
            miss = np.isnan(block)
            d = np.where(miss, 0.0, block).astype(np.float64)
        else:
            miss = block < 0
            d = np.where(miss, 0, block).astype(np.float64)
        ploidy = None
    else:
        raise SystemExit("pca_oracle: genotype array must be 2-D or 3-D")
    d[miss] = 0.0
    return d, miss, ploidy


def parse_range(spec, m_total):
    if spec is None:
        return 0, m_total
    if ":" not in spec:
        raise SystemExit(f"pca_oracle: bad --variants {spec!r}")
    a, b = spec.split(":", 1)
    start = int(a) if a.strip() else 0
    stop = int(b) if b.strip() else m_total
    return start, min(stop, m_total)


def read_sample_file(path):
    with open(path, encoding="utf-8") as f:
        return [ln.strip() for ln in f if ln.strip()]


# ----------------------------------------------------------------------------------------------
# The reference computation
# ----------------------------------------------------------------------------------------------
class Data:
    """Dosages of the selected variants and samples (store order of variants)."""

    def __init__(self, inp, variants=None, samples_file=None, ploidy2d=2, sample_order="file"):
        arr, ids = open_genotypes(inp)
        self.m_total = arr.shape[0]
        self.start, self.stop = parse_range(variants, self.m_total)
        raw = arr[self.start:self.stop]
        d, miss, ploidy = dosage_block(raw)
        self.ploidy = ploidy if ploidy is not None else ploidy2d
        n_all = d.shape[1]
        self.all_ids = ids if ids is not None else [str(i) for i in range(n_all)]
        if samples_file is not None:
            want = read_sample_file(samples_file)
            pos = {s: i for i, s in enumerate(self.all_ids)}
            unknown = [s for s in want if s not in pos]
            if unknown:
                raise SystemExit(f"pca_oracle: sample IDs not in the store: {unknown[:5]}")
            idx = [pos[s] for s in want]
            self.idx_file = np.array(idx, dtype=np.int64)
            self.idx_store = np.sort(self.idx_file)
        else:
            self.idx_file = self.idx_store = np.arange(n_all)
        self.idx = self.idx_file if sample_order == "file" else self.idx_store
        self.ids = [self.all_ids[i] for i in self.idx]
        self.d = d[:, self.idx]
        self.miss = miss[:, self.idx]
        self.N = self.d.shape[1]
        self.M = self.d.shape[0]

    def ids_in(self, order):
        idx = self.idx_file if order == "file" else self.idx_store
        return [self.all_ids[i] for i in idx]


class Reference:
    """Z, the variants kept and the exact SVD for one scaler."""

    def __init__(self, data, scaler, maf=None, max_missing=None, none_missing="mean",
                 ref="auto", want_v=False):
        d, miss, P = data.d, data.miss, data.ploidy
        N = data.N
        called = ~miss
        ncalled = called.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mu = d.sum(axis=1) / ncalled           # d is 0 at missing calls
            p = mu / P
            var = (np.where(called, (d - mu[:, None]) ** 2, 0.0)).sum(axis=1) / ncalled
        keep = ncalled > 0
        self.n_no_calls = int((~keep).sum())
        self.maf_values = np.minimum(p, 1 - p)
        self.missing_frac = (N - ncalled) / N
        self.n_maf = self.n_missing = 0
        self.ties = []
        if maf is not None:
            k2 = keep & (self.maf_values >= maf)
            self.n_maf = int((keep & ~k2).sum())
            near = np.abs(self.maf_values - maf) < 1e-12
            self.ties += [f"maf of variant {j} is {self.maf_values[j]!r}, at --maf {maf}"
                          for j in np.nonzero(near & keep)[0][:3]]
            keep = k2
        if max_missing is not None:
            k2 = keep & (self.missing_frac <= max_missing)
            self.n_missing = int((keep & ~k2).sum())
            near = np.abs(self.missing_frac - max_missing) < 1e-12
            self.ties += [f"missing fraction of variant {j} is {self.missing_frac[j]!r}"
                          for j in np.nonzero(near & keep)[0][:3]]
            keep = k2
        with np.errstate(invalid="ignore"):
            if scaler == "patterson":
                sigma = np.sqrt(p * (1 - p))
            elif scaler == "hwe":
                sigma = np.sqrt(P * p * (1 - p))
            elif scaler == "standard":
                sigma = np.sqrt(var)
            elif scaler in ("center", "none"):
                sigma = np.ones_like(mu)
            else:
                raise SystemExit(f"pca_oracle: unknown scaler {scaler}")
        nz = keep & np.isfinite(sigma) & (sigma > 0)
        self.n_zero_var = int((keep & ~nz).sum())
        keep = nz
        self.keep, self.mu, self.sigma, self.p = keep, mu, sigma, p
        self.M_used = int(keep.sum())
        self.N = N
        self.scaler = scaler
        dk, mk, muk, sk = d[keep], miss[keep], mu[keep], sigma[keep]
        if scaler == "none":
            Z = dk.copy()
            if none_missing == "mean":
                Z[mk] = np.broadcast_to(muk[:, None], Z.shape)[mk]
            else:
                Z[mk] = 0.0
        else:
            Z = (dk - muk[:, None]) / sk[:, None]
            Z[mk] = 0.0
        self.trace = float(np.sum(Z * Z))
        self.Z = Z
        self.has_missing = bool(miss.any())
        self.first_missing = int(np.nonzero(miss.any(axis=1))[0][0]) if self.has_missing else None
        self._svd(ref, want_v)

    def _svd(self, ref, want_v):
        Z = self.Z
        M, N = Z.shape
        if M == 0:
            self.s = np.zeros(0)
            self.U = np.zeros((N, 0))
            self.V = np.zeros((0, 0))
            return
        if ref == "auto":
            ref = "svd" if float(min(M, N)) ** 2 * max(M, N) <= 3e9 else "gram"
        self.ref_kind = ref
        if ref == "svd":
            U, s, Vt = np.linalg.svd(Z.T, full_matrices=False)
            V = Vt.T
        else:
            K = Z.T @ Z
            w, U = np.linalg.eigh(K)
            order = np.argsort(w)[::-1]
            w, U = w[order], U[:, order]
            s = np.sqrt(np.clip(w, 0, None))
            r = min(M, N)
            s, U = s[:r], U[:, :r]
            V = None
            if want_v:
                with np.errstate(invalid="ignore", divide="ignore"):
                    V = (Z @ U) / s
        U, V = apply_sign_rule(U, V)
        self.s, self.U, self.V = s, U, V


def apply_sign_rule(U, V=None):
    """Flip each component so that the entry of U with largest magnitude is positive."""
    U = U.copy()
    V = None if V is None else V.copy()
    for k in range(U.shape[1]):
        i = int(np.argmax(np.abs(U[:, k])))
        if U[i, k] < 0:
            U[:, k] = -U[:, k]
            if V is not None:
                V[:, k] = -V[:, k]
    return U, V


def cosine(a, b):
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        return float("nan")
    return float(np.dot(a, b) / (na * nb))


# ----------------------------------------------------------------------------------------------
# Reading gensvd output
# ----------------------------------------------------------------------------------------------
def parse_tsv(text):
    lines = [ln for ln in text.split("\n") if ln != ""]
    if not lines:
        raise ValueError("empty TSV output")
    head = lines[0].split("\t")
    ids, rows = [], []
    for ln in lines[1:]:
        f = ln.split("\t")
        if len(f) != len(head):
            raise ValueError(f"TSV line with {len(f)} fields, header has {len(head)}: {ln[:80]!r}")
        ids.append(f[0])
        rows.append([float(x) for x in f[1:]])
    return head, ids, np.array(rows, dtype=np.float64).reshape(len(ids), len(head) - 1)


def parse_plink(prefix):
    with open(prefix + ".eigenvec", encoding="utf-8") as f:
        lines = [ln.rstrip("\n") for ln in f if ln.strip()]
    head = lines[0].split("\t")
    ncol_id = 2 if head[:2] == ["#FID", "IID"] else 1
    ids, rows = [], []
    for ln in lines[1:]:
        f = ln.split("\t")
        ids.append(f[ncol_id - 1])
        rows.append([float(x) for x in f[ncol_id:]])
    with open(prefix + ".eigenval", encoding="utf-8") as f:
        ev = np.array([float(x) for x in f.read().split()])
    return head, ids, np.array(rows).reshape(len(ids), -1), ev


def read_zarr_output(path):
    zarr = _zarr()
    g = zarr.open_group(path, mode="r")
    out = {"attrs": dict(g.attrs.asdict())}
    for name in ("sample_id", "sample_pca_projection", "sample_pca_explained_variance",
                 "sample_pca_explained_variance_ratio", "sample_pca_singular_value",
                 "sample_pca_eigenvalue", "sample_pca_component", "variant_pca_mean",
                 "variant_pca_scale", "variant_pca_included"):
        try:
            a = g[name]
        except KeyError:
            continue
        val = a[:]
        if name == "sample_id":
            val = [x.decode() if isinstance(x, bytes) else str(x) for x in val]
        out[name] = val
        out["dims:" + name] = a.attrs.get("_ARRAY_DIMENSIONS")
    return out


# ----------------------------------------------------------------------------------------------
# Checks
# ----------------------------------------------------------------------------------------------
class Checker:
    def __init__(self, verbose=True):
        self.passed = 0
        self.failed = 0
        self.verbose = verbose
        self.failures = []

    def check(self, label, ok, detail=""):
        if ok:
            self.passed += 1
            if self.verbose:
                print(f"  ok   {label}: {detail}")
        else:
            self.failed += 1
            self.failures.append(f"{label}: {detail}")
            print(f"  FAIL {label}: {detail}")
        sys.stdout.flush()
        return ok

    def info(self, text):
        print(f"  info {text}")


def fmt(x):
    return f"{x:.3g}"


def rel(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.abs(a - b) / np.maximum(np.abs(b), 1e-300)


class Tolerances:
    def __init__(self, a, method):
        exact = method == "exact"
        self.sv = a.tol_sv_exact if exact else a.tol_sv
        self.corr = a.min_corr_exact if exact else a.min_corr
        self.vcorr = a.min_corr_exact if exact else a.min_corr
        self.trace = a.tol_trace
        self.stats = a.tol_stats


def compare_scores(ck, label, ref, k, ids_out, scores, s_out, tol, expected_ids, ids_alt,
                   unit=False):
    """scores: N x k as written (U S or, with unit=True, U); s_out: singular values used."""
    # sample IDs and order
    if ids_out == expected_ids:
        ck.check(f"{label} sample_id order", True, f"{len(ids_out)} IDs in the expected order")
    elif ids_alt is not None and ids_out == ids_alt[1]:
        ck.check(f"{label} sample_id order", ids_alt[0] is None,
                 f"IDs are in {ids_alt[2]} order, expected {ids_alt[3]} order")
    else:
        ck.check(f"{label} sample_id order", False,
                 f"{len(ids_out)} IDs, expected {len(expected_ids)}; first differences: "
                 + str([(i, a, b) for i, (a, b) in enumerate(zip(ids_out, expected_ids))
                        if a != b][:3]))
    pos = {s: i for i, s in enumerate(ids_out)}
    if set(pos) != set(expected_ids) or scores.shape[0] != len(expected_ids):
        ck.check(f"{label} sample set", False, "sample IDs differ from the selection; "
                 "no numeric comparison")
        return
    order = np.array([pos[s] for s in expected_ids])
    sc = scores[order]
    kk = min(k, ref.s.size)
    if sc.shape[1] != k:
        ck.check(f"{label} components", False, f"{sc.shape[1]} columns, expected {k}")
        return
    # singular values
    if s_out is not None:
        e = rel(s_out[:kk], ref.s[:kk])
        worst = int(np.argmax(e))
        ck.check(f"{label} singular values", bool(np.all(e <= tol.sv)),
                 f"max rel err {fmt(e.max())} at PC{worst + 1} (tol {tol.sv:g}); "
                 f"s1 {s_out[0]:.10g} vs {ref.s[0]:.10g}, s{kk} {s_out[kk - 1]:.10g} vs "
                 f"{ref.s[kk - 1]:.10g}")
        ck.check(f"{label} singular values descending",
                 bool(np.all(np.diff(s_out[:kk]) <= 1e-12 * s_out[0])), str(np.round(s_out[:kk], 6)))
    # score correlation per component (cosine; equals Pearson for centred scalers)
    cors = np.array([abs(cosine(sc[:, j], ref.U[:, j])) for j in range(kk)])
    worst = int(np.nanargmin(cors)) if kk else 0
    ck.check(f"{label} |corr| of scores", bool(np.all(cors >= tol.corr)),
             f"min {cors.min():.9f} at PC{worst + 1} (min {tol.corr}); all: "
             + " ".join(f"{c:.6f}" for c in cors))
    # column norms: U S has norm s; U has norm 1
    norms = np.linalg.norm(sc, axis=0)
    if unit:
        e = np.abs(norms - 1)
        ck.check(f"{label} unit-norm columns", bool(np.all(e <= tol.unit)),
                 f"max |norm - 1| {fmt(e.max())} (tol {tol.unit:g})")
    elif s_out is not None:
        e = rel(norms[:kk], s_out[:kk])
        ck.check(f"{label} ||score column|| = s", bool(np.all(e <= 1e-9)),
                 f"max rel diff {fmt(e.max())}")
    # sign rule on gensvd's own output, and agreement with the oracle's signs
    bad = []
    for j in range(kk):
        i = int(np.argmax(np.abs(sc[:, j])))
        if sc[i, j] < 0:
            bad.append(j + 1)
    ck.check(f"{label} sign rule (max-|U| entry > 0)", not bad,
             f"violated in PC {bad}" if bad else f"{kk} components")
    flips = []
    for j in range(kk):
        a = np.sort(np.abs(ref.U[:, j]))[::-1]
        if a.size > 1 and (a[0] - a[1]) <= 1e-3 * a[0]:
            continue  # ambiguous maximum: sign not well defined
        if np.dot(sc[:, j], ref.U[:, j]) < 0 and cors[j] >= 0.9:
            flips.append(j + 1)
    ck.check(f"{label} signs equal the oracle's", not flips,
             f"opposite sign in PC {flips}" if flips else "all components")
    return order


def run_gensvd(cmd, timeout):
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), \
        time.time() - t0


def gensvd_args(a, inp, scaler, method):
    # on the CPU (--device auto would take a GPU): compared with numpy closer than its rounding
    cmd = [a.gensvd, "pca", "--device", "cpu", inp, "-k", str(a.k), "-m", method, "--scaler",
           scaler]
    if a.variants is not None:
        cmd += ["--variants", a.variants]
    if a.samples is not None:
        cmd += ["--samples", a.samples]
    if a.maf is not None:
        cmd += ["--maf", repr(a.maf)]
    if a.max_missing is not None:
        cmd += ["--max-missing", repr(a.max_missing)]
    if a.missing != "mean":
        cmd += ["--missing", a.missing]
    if a.threads is not None:
        cmd += ["-t", str(a.threads)]
    cmd += shlex.split(a.extra or "")
    return cmd


def check_case(ck, a, data, ref, scaler, method, tmp):
    tol = Tolerances(a, method)
    tol.unit = a.tol_unit
    k = a.k
    kk = min(k, ref.s.size)
    expected_ids = data.ids_in("file") if a.sample_order in ("file", "either") else data.ids_in("store")
    if a.sample_order == "either":
        alt = (None, data.ids_in("store"), "store", "file")
    elif a.sample_order == "file":
        alt = ("strict", data.ids_in("store"), "store", "file")
    else:
        alt = ("strict", data.ids_in("file"), "file", "store")
    base = gensvd_args(a, a.input, scaler, method)
    tag = f"[{os.path.basename(a.input.rstrip('/'))} {scaler} {method}"
    if a.variants:
        tag += f" --variants {a.variants}"
    if a.samples:
        tag += " --samples"
    if a.maf is not None:
        tag += f" --maf {a.maf}"
    if a.max_missing is not None:
        tag += f" --max-missing {a.max_missing}"
    if a.extra:
        tag += f" {a.extra}"
    tag += "]"
    print(f"{tag} oracle: N {ref.N}, M_used {ref.M_used} (range {data.M}, no calls "
          f"{ref.n_no_calls}, maf {ref.n_maf}, max-missing {ref.n_missing}, zero var "
          f"{ref.n_zero_var}), trace {ref.trace:.10g}, s[:3] {np.round(ref.s[:3], 6).tolist()}")
    for t in ref.ties:
        ck.info(f"{tag} threshold tie, result depends on rounding: {t}")

    if a.missing == "error" and ref.has_missing:
        rc, out, err, dt = run_gensvd(base + ["--format", "tsv"], a.timeout)
        j = ref.first_missing + data.start
        names = {str(j), str(j + 1)}
        ck.check(f"{tag} --missing error exit status", rc == 1, f"rc {rc} (expected 1)")
        import re
        ck.check(f"{tag} --missing error names the variant",
                 any(re.search(rf"(?<![0-9.]){n}(?![0-9])", err) for n in names)
                 and "variant" in err.lower(),
                 f"first variant with a missing call is index {j}; stderr: {err.strip()[:200]!r}")
        return
    for output in a.outputs:
        label = f"{tag} {output}"
        if output == "tsv":
            cmd = base + ["--format", "tsv"]
        elif output == "zarr":
            opath = os.path.join(tmp, f"out_{scaler}_{method}.zarr")
            cmd = base + ["-o", opath, "--force"] + (["--loadings"] if a.loadings else [])
        elif output == "plink":
            prefix = os.path.join(tmp, f"pl_{scaler}_{method}")
            cmd = base + ["--plink", prefix]
        else:
            raise SystemExit(f"pca_oracle: unknown output {output}")
        rc, out, err, dt = run_gensvd(cmd, a.timeout)
        if not ck.check(f"{label} exit status", rc == 0,
                        f"rc {rc}, {dt:.2f} s" + (f"; stderr: {err.strip()[-300:]!r}" if rc else "")):
            print("       command: " + shlex.join(cmd))
            continue
        print(f"  time {label}: {dt:.2f} s")
        if output == "tsv":
            try:
                head, ids, sc = parse_tsv(out)
            except ValueError as e:
                ck.check(f"{label} TSV parse", False, str(e))
                continue
            want = ["sample_id"] + [f"PC{j + 1}" for j in range(k)]
            ck.check(f"{label} TSV header", head == want, f"{head[:3]}...{head[-1:]}")
            s_out = np.linalg.norm(sc, axis=0)
            compare_scores(ck, label, ref, k, ids, sc, s_out, tol, expected_ids, alt)
            a._tsv_scores[(scaler, method)] = (ids, sc)
        elif output == "plink":
            try:
                head, ids, U, ev = parse_plink(prefix)
            except (OSError, ValueError, IndexError) as e:
                ck.check(f"{label} plink parse", False, str(e))
                continue
            ck.check(f"{label} .eigenvec header",
                     head == ["#IID"] + [f"PC{j + 1}" for j in range(k)], str(head[:3]))
            ck.check(f"{label} .eigenval lines", ev.size == k, f"{ev.size} (k {k})")
            lam = ref.s[:kk] ** 2 / ref.M_used
            e = rel(ev[:kk], lam)
            ck.check(f"{label} eigenvalues s^2/M_used", bool(np.all(e <= 2 * tol.sv + 1e-5)),
                     f"max rel err {fmt(e.max())}; ev1 {ev[0]:.6g} vs {lam[0]:.6g}")
            compare_scores(ck, label, ref, k, ids, U, None, tol, expected_ids, alt, unit=True)
        else:
            z = read_zarr_output(opath)
            check_zarr(ck, label, a, data, ref, z, scaler, method, tol, expected_ids, alt)
            if "sample_pca_projection" in z:
                a._zarr_scores[(scaler, method)] = (z.get("sample_id"),
                                                    np.asarray(z["sample_pca_projection"]))
    key = (scaler, method)
    if key in a._tsv_scores and key in a._zarr_scores:
        (ids, sc), (zids, zsc) = a._tsv_scores[key], a._zarr_scores[key]
        same = ids == zids and sc.shape == zsc.shape and np.array_equal(sc, zsc)
        ck.check(f"{tag} TSV scores == Zarr projection (bitwise)", bool(same),
                 "" if same else "differ (the %.17g round trip is exact, so the runs differ)")


def check_zarr(ck, label, a, data, ref, z, scaler, method, tol, expected_ids, alt):
    k = a.k
    kk = min(k, ref.s.size)
    need = ["sample_id", "sample_pca_projection", "sample_pca_explained_variance",
            "sample_pca_explained_variance_ratio", "sample_pca_singular_value",
            "sample_pca_eigenvalue"]
    if a.loadings:
        need += ["sample_pca_component", "variant_pca_mean", "variant_pca_scale",
                 "variant_pca_included"]
    missing = [n for n in need if n not in z]
    if not ck.check(f"{label} arrays present", not missing, f"missing {missing}" if missing
                    else f"{len(need)} arrays"):
        return
    nodims = [n for n in need if not z.get("dims:" + n)]
    ck.check(f"{label} _ARRAY_DIMENSIONS", not nodims, f"absent on {nodims}" if nodims else "")
    s = np.asarray(z["sample_pca_singular_value"], float)
    proj = np.asarray(z["sample_pca_projection"], float)
    ck.check(f"{label} shapes", proj.shape == (ref.N, k) and s.shape == (k,),
             f"projection {proj.shape}, singular values {s.shape}; expected ({ref.N}, {k})")
    if proj.shape[1] != k or s.shape != (k,):
        return
    order = compare_scores(ck, label, ref, k, z["sample_id"], proj, s, tol, expected_ids, alt)
    at = z["attrs"]
    N, M_used = ref.N, ref.M_used
    # attributes
    # the contract names k, M_used, N; the values are compared under the contract name or
    # an alias (sgkit-like long names), and the naming is a check of its own
    aliases = {"k": "n_components", "M_used": "n_variants_used", "N": "n_samples"}
    unnamed = [f"{key} (found {aliases[key]})" if aliases[key] in at else key
               for key in ("method", "k", "iterations", "seed", "scaler", "M_used", "N", "trace")
               if key not in at]
    ck.check(f"{label} attribute names of the contract", not unnamed,
             f"absent: {', '.join(unnamed)}" if unnamed else "")
    at = dict(at)
    for key, alias in aliases.items():
        if key not in at and alias in at:
            at[key] = at[alias]
    for key, want in (("method", method), ("scaler", scaler), ("k", k)):
        ck.check(f"{label} attr {key}", at.get(key) == want, f"{at.get(key)!r} (expected {want!r})")
    ck.check(f"{label} attr M_used", at.get("M_used") == M_used,
             f"{at.get('M_used')!r} (oracle {M_used})")
    ck.check(f"{label} attr N", at.get("N") == N, f"{at.get('N')!r} (oracle {N})")
    for key in ("iterations", "seed"):
        ck.check(f"{label} attr {key}", isinstance(at.get(key), int), repr(at.get(key)))
    tr = at.get("trace")
    ok = isinstance(tr, (int, float)) and rel(tr, ref.trace) <= tol.trace
    ck.check(f"{label} attr trace = ||Z||_F^2", bool(ok),
             f"{tr!r} vs oracle {ref.trace:.12g} (tol {tol.trace:g})")
    # derived quantities: internal definition (from gensvd's own s) and against the oracle
    M_out = at.get("M_used") if isinstance(at.get("M_used"), int) and at.get("M_used") else M_used
    tr_out = tr if isinstance(tr, (int, float)) and tr else ref.trace
    for name, own, oracle in (
            ("explained_variance s^2/N", s ** 2 / N, ref.s[:kk] ** 2 / N),
            ("explained_variance_ratio s^2/trace", s ** 2 / tr_out, ref.s[:kk] ** 2 / ref.trace),
            ("eigenvalue s^2/M_used", s ** 2 / M_out, ref.s[:kk] ** 2 / M_used)):
        arrname = {"explained_variance s^2/N": "sample_pca_explained_variance",
                   "explained_variance_ratio s^2/trace": "sample_pca_explained_variance_ratio",
                   "eigenvalue s^2/M_used": "sample_pca_eigenvalue"}[name]
        val = np.asarray(z[arrname], float)
        if val.shape != (k,):
            ck.check(f"{label} {arrname} shape", False, f"{val.shape}")
            continue
        e1 = rel(val, own)
        ck.check(f"{label} {name} (own s)", bool(np.all(e1 <= tol.stats)),
                 f"max rel diff {fmt(e1.max())}")
        e2 = rel(val[:kk], oracle)
        ck.check(f"{label} {name} (oracle)", bool(np.all(e2 <= 2 * tol.sv + tol.trace)),
                 f"max rel err {fmt(e2.max())}; first {val[0]:.8g} vs {oracle[0]:.8g}")
    if a.loadings:
        check_loadings(ck, label, a, data, ref, z, s, proj[order], tol)


def check_loadings(ck, label, a, data, ref, z, s, proj, tol):
    k = a.k
    kk = min(k, ref.s.size)
    C = np.asarray(z["sample_pca_component"], float)
    inc = np.asarray(z["variant_pca_included"]).astype(bool)
    mean = np.asarray(z["variant_pca_mean"], float)
    scale = np.asarray(z["variant_pca_scale"], float)
    M = data.M
    off = 0
    if C.shape[0] == data.m_total and M != data.m_total:
        off = data.start
        ck.info(f"{label} loadings cover the whole store ({C.shape[0]} rows), not the range")
    ok = C.shape == (off + M if off else M, k) or C.shape == (data.m_total, k)
    if not ck.check(f"{label} component shape", ok, f"{C.shape}, range has {M} variants"):
        return
    rows = slice(off, off + M)
    C, inc, mean, scale = C[rows], inc[rows], mean[rows], scale[rows]
    ck.check(f"{label} variant_pca_included", bool(np.array_equal(inc, ref.keep)),
             f"{int(inc.sum())} included vs oracle {ref.M_used}; differ at "
             f"{np.nonzero(inc != ref.keep)[0][:8].tolist()}")
    dropped = ~ref.keep
    bad = C[dropped]
    ck.check(f"{label} component rows of dropped variants are 0/NaN",
             bool(np.all((bad == 0) | np.isnan(bad))), f"{int(dropped.sum())} dropped rows")
    Vg = C[ref.keep]
    V = ref.V
    if V is None:
        with np.errstate(invalid="ignore", divide="ignore"):
            V = (ref.Z @ ref.U) / ref.s
    cors = []
    sign_mismatch = []
    for j in range(kk):
        c = cosine(Vg[:, j], V[:, j])
        cu = np.dot(proj[:, j], ref.U[:, j])
        if np.sign(c) != np.sign(cu) and abs(c) > 0.5:
            sign_mismatch.append(j + 1)
        cors.append(abs(c))
    cors = np.array(cors)
    ck.check(f"{label} |cos| of loadings V", bool(np.all(cors >= tol.vcorr)),
             f"min {np.nanmin(cors):.9f} (min {tol.vcorr}); all: "
             + " ".join(f"{c:.6f}" for c in cors))
    ck.check(f"{label} V sign consistent with U (X = U S V^T)", not sign_mismatch,
             f"inconsistent in PC {sign_mismatch}" if sign_mismatch else "")
    nrm = np.linalg.norm(Vg, axis=0)
    ck.check(f"{label} V unit columns", bool(np.all(np.abs(nrm - 1) <= 1e-6)),
             f"max |norm-1| {fmt(np.abs(nrm - 1).max())}")
    # variant_pca_mean / scale on the included variants
    want_mean = ref.mu[ref.keep]
    e = np.abs(mean[ref.keep] - want_mean)
    em = float(e.max()) if e.size else 0.0
    if ref.scaler == "none" and em > 1e-6:
        e0 = np.abs(mean[ref.keep])
        ck.info(f"{label} scaler none: variant_pca_mean is "
                + ("0 (no centring)" if e0.max() <= 1e-12 else "neither mu nor 0"))
        em = 0.0 if e0.max() <= 1e-12 else em
    ck.check(f"{label} variant_pca_mean", em <= 1e-6 * max(1.0, data.ploidy),
             f"max abs err {fmt(em)}")
    want_scale = ref.sigma[ref.keep]
    got = scale[ref.keep]
    es = rel(got, want_scale)
    ok = bool(np.all(es <= 1e-6))
    detail = f"max rel err {fmt(es.max()) if es.size else 0}"
    if not ok and np.all(rel(got, 1 / want_scale) <= 1e-6):
        detail += " (it is 1/sigma: the contract asks for the scale sigma)"
    ck.check(f"{label} variant_pca_scale = sigma", ok, detail)


# ----------------------------------------------------------------------------------------------
# Subcommands
# ----------------------------------------------------------------------------------------------
def add_common(p):
    p.add_argument("input", help="store (group) or STORE/ARRAY")
    p.add_argument("-k", "--components", dest="k", type=int, default=10)
    p.add_argument("--variants")
    p.add_argument("--samples")
    p.add_argument("--maf", type=float)
    p.add_argument("--max-missing", type=float)
    p.add_argument("--missing", choices=("mean", "error"), default="mean")
    p.add_argument("--none-missing", choices=("mean", "zero"), default="mean",
                   help="scaler none: value of a missing call (mean: mu_j, zero: 0)")
    p.add_argument("--ref", choices=("auto", "svd", "gram"), default="auto",
                   help="oracle: full numpy SVD, or Gram eigh (auto: svd when small)")
    p.add_argument("--ploidy", type=int, default=2, help="ploidy of 2-D dosage arrays")
    p.add_argument("--sample-order", choices=("file", "store", "either"), default="either",
                   help="expected sample order with --samples (either: accept both, say which)")


def cmd_check(argv):
    p = argparse.ArgumentParser(prog="pca_oracle.py check",
                                description="compare gensvd pca with the numpy oracle")
    add_common(p)
    p.add_argument("--gensvd", required=True)
    p.add_argument("--scalers", default="patterson")
    p.add_argument("--methods", default="exact")
    p.add_argument("--outputs", default="zarr", help="comma list of zarr, tsv, plink")
    p.add_argument("--loadings", action="store_true")
    p.add_argument("--threads", type=int)
    p.add_argument("--extra", help="more gensvd options, one shell-quoted string")
    p.add_argument("--tol-sv-exact", type=float, default=1e-6,
                   help="relative error of singular values, --method exact [1e-6]")
    p.add_argument("--tol-sv", type=float, default=1e-3,
                   help="relative error of singular values, other methods [1e-3]")
    p.add_argument("--min-corr-exact", type=float, default=0.99999,
                   help="min |corr| of scores and loadings per PC, exact [0.99999]")
    p.add_argument("--min-corr", type=float, default=0.99,
                   help="min |corr| of scores and loadings per PC, other methods [0.99]")
    p.add_argument("--tol-trace", type=float, default=1e-6,
                   help="relative error of the trace ||Z||_F^2 [1e-6]")
    p.add_argument("--tol-stats", type=float, default=1e-9,
                   help="relative difference of derived arrays from gensvd's own s [1e-9]")
    p.add_argument("--tol-unit", type=float, default=1e-4,
                   help="|norm - 1| of .eigenvec columns (printed with %%g) [1e-4]")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("-q", "--quiet", action="store_true", help="print failures only")
    a = p.parse_args(argv)
    a.outputs = [x for x in a.outputs.split(",") if x]
    a._tsv_scores = {}
    a._zarr_scores = {}
    ck = Checker(verbose=not a.quiet)
    order = "store" if a.sample_order == "store" else "file"
    data = Data(a.input, a.variants, a.samples, a.ploidy, sample_order=order)
    tmp = tempfile.mkdtemp(prefix="pca_oracle_")
    try:
        for scaler in a.scalers.split(","):
            t0 = time.time()
            ref = Reference(data, scaler, a.maf, a.max_missing, a.none_missing, a.ref,
                            want_v=a.loadings)
            print(f"  time oracle {scaler} ({getattr(ref, 'ref_kind', '-')}): "
                  f"{time.time() - t0:.2f} s")
            for method in a.methods.split(","):
                check_case(ck, a, data, ref, scaler, method, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in ck.failures:
        print("FAILED " + f)
    print(f"{ck.passed} passed, {ck.failed} failed")
    return 1 if ck.failed else 0


def cmd_reference(argv):
    p = argparse.ArgumentParser(prog="pca_oracle.py reference")
    add_common(p)
    p.add_argument("--scaler", default="patterson", choices=SCALERS)
    p.add_argument("--scores", help="write the oracle's scores (U S) as gensvd's TSV here")
    a = p.parse_args(argv)
    data = Data(a.input, a.variants, a.samples, a.ploidy,
                sample_order="store" if a.sample_order == "store" else "file")
    ref = Reference(data, a.scaler, a.maf, a.max_missing, a.none_missing, a.ref)
    k = min(a.k, ref.s.size)
    print(f"N\t{ref.N}\nM_range\t{data.M}\nM_used\t{ref.M_used}\nno_calls\t{ref.n_no_calls}\n"
          f"maf\t{ref.n_maf}\nmax_missing\t{ref.n_missing}\nzero_var\t{ref.n_zero_var}\n"
          f"trace\t{ref.trace:.17g}")
    for j in range(k):
        print(f"s{j + 1}\t{ref.s[j]:.17g}")
    if a.scores:
        with open(a.scores, "w", encoding="utf-8") as f:
            f.write("sample_id\t" + "\t".join(f"PC{j + 1}" for j in range(k)) + "\n")
            for i, sid in enumerate(data.ids):
                f.write(sid + "\t" + "\t".join("%.17g" % (ref.U[i, j] * ref.s[j])
                                               for j in range(k)) + "\n")
    return 0


def iter_blocks(inp, chunk=None, variants=None):
    """Yield (start, dosage block, missing block, ploidy) over the variant axis."""
    arr, ids = open_genotypes(inp)
    start, stop = parse_range(variants, arr.shape[0])
    step = chunk or arr.chunks[0]
    j = start
    while j < stop:
        e = min(stop, j + step)
        d, miss, ploidy = dosage_block(arr[j:e])
        yield j, d, miss, ploidy
        j = e


def cmd_gram(argv):
    """Top-k singular values of Z from the N x N Gram, accumulated chunk by chunk in float64
    (mean imputation; variants with sigma = 0 dropped).  For large stores (the benchmark)."""
    p = argparse.ArgumentParser(prog="pca_oracle.py gram")
    p.add_argument("input")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--scaler", default="patterson", choices=SCALERS)
    p.add_argument("--variants")
    p.add_argument("--chunk", type=int, default=None)
    p.add_argument("--save", help="write singular values (all) as .npy here")
    a = p.parse_args(argv)
    K = None
    m_used = 0
    trace = 0.0
    t0 = time.time()
    for j, d, miss, P in iter_blocks(a.input, a.chunk, a.variants):
        P = P or 2
        called = ~miss
        n = called.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mu = d.sum(axis=1) / n
            pf = mu / P
            if a.scaler == "patterson":
                sg = np.sqrt(pf * (1 - pf))
            elif a.scaler == "hwe":
                sg = np.sqrt(P * pf * (1 - pf))
            elif a.scaler == "standard":
                sg = np.sqrt(np.where(called, (d - mu[:, None]) ** 2, 0).sum(axis=1) / n)
            else:
                sg = np.ones_like(mu)
        keep = (n > 0) & np.isfinite(sg) & (sg > 0)
        if a.scaler == "none":
            Z = d[keep]
            Z[miss[keep]] = np.broadcast_to(mu[keep][:, None], Z.shape)[miss[keep]]
        else:
            Z = (d[keep] - mu[keep][:, None]) / sg[keep][:, None]
            Z[miss[keep]] = 0.0
        G = Z.T @ Z
        K = G if K is None else K + G
        m_used += int(keep.sum())
        trace += float(np.einsum("ij,ij->", Z, Z))
    w = np.linalg.eigvalsh(K)[::-1]
    s = np.sqrt(np.clip(w, 0, None))
    print(f"N\t{K.shape[0]}\nM_used\t{m_used}\ntrace\t{trace:.17g}\nseconds\t{time.time() - t0:.1f}")
    for i in range(a.k):
        print(f"s{i + 1}\t{s[i]:.17g}")
    if a.save:
        np.save(a.save, s)
    return 0


def cmd_write_bed(argv):
    """PLINK 1 binary fileset from a (diploid) genotype store, streaming variant chunks.
    .bim column 5 (A1) = ALT and column 6 (A2) = REF: plink2 reads A1 as ALT, so its dosage
    counts the ALT allele as gensvd does.  Codes: 00 hom A1 (dosage 2), 10 het, 11 hom A2 (0),
    01 missing."""
    p = argparse.ArgumentParser(prog="pca_oracle.py write-bed")
    p.add_argument("input")
    p.add_argument("prefix")
    p.add_argument("--variants")
    p.add_argument("--chunk", type=int, default=None)
    a = p.parse_args(argv)
    zarr = _zarr()
    arr, ids = open_genotypes(a.input)
    if arr.ndim != 3 or arr.shape[2] != 2:
        raise SystemExit("pca_oracle write-bed: needs a diploid call_genotype array")
    N = arr.shape[1]
    ids = ids or [f"s{i}" for i in range(N)]
    grp = zarr.open_group(a.input, mode="r")

    def opt(name):
        try:
            return grp[name]
        except KeyError:
            return None
    pos_a, ctg_a, cid_a, all_a, vid_a = (opt(n) for n in ("variant_position", "variant_contig",
                                                           "contig_id", "variant_allele",
                                                           "variant_id"))
    contigs = [str(x) for x in cid_a[:]] if cid_a is not None else None
    nb = (N + 3) // 4
    lut = np.array([3, 2, 0], dtype=np.uint8)   # dosage 0 -> 11, 1 -> 10, 2 -> 00
    tmp = a.prefix + ".tmp"
    with open(tmp + ".bed", "wb") as bed, open(tmp + ".bim", "w") as bim:
        bed.write(bytes([0x6C, 0x1B, 0x01]))
        for j, d, miss, P in iter_blocks(a.input, a.chunk, a.variants):
            m = d.shape[0]
            codes = np.zeros((m, nb * 4), dtype=np.uint8)         # padding bits are 0 (as plink)
            codes[:, :N] = np.where(miss, 1, lut[np.clip(d, 0, 2).astype(np.int64)])
            c = codes.reshape(m, nb, 4)
            packed = c[:, :, 0] | (c[:, :, 1] << 2) | (c[:, :, 2] << 4) | (c[:, :, 3] << 6)
            bed.write(packed.astype(np.uint8).tobytes())
            pos = pos_a[j:j + m] if pos_a is not None else np.arange(j + 1, j + m + 1)
            ctg = ctg_a[j:j + m] if ctg_a is not None else np.zeros(m, dtype=int)
            al = all_a[j:j + m] if all_a is not None else None
            vid = vid_a[j:j + m] if vid_a is not None else None
            lines = []
            for i in range(m):
                chrom = contigs[int(ctg[i])] if contigs else "1"
                name = str(vid[i]) if vid is not None and str(vid[i]) not in ("", ".") else \
                    f"v{j + i}"
                ref_al = str(al[i][0]) if al is not None else "A"
                alt_al = str(al[i][1]) if al is not None and str(al[i][1]) else "C"
                lines.append(f"{chrom}\t{name}\t0\t{int(pos[i])}\t{alt_al}\t{ref_al}\n")
            bim.write("".join(lines))
    with open(tmp + ".fam", "w") as fam:
        for sid in ids:
            fam.write(f"{sid}\t{sid}\t0\t0\t0\t-9\n")
    for ext in ("bed", "bim", "fam"):
        os.replace(f"{tmp}.{ext}", f"{a.prefix}.{ext}")
    return 0


def cmd_make_edge_store(argv):
    """A small VCF-Zarr (Zarr v2) store exercising the drop rules.  Variant layout (M = 40,
    N = 24, diploid; the other variants are random, with no missing call):
      3  all calls missing (-1/-1)            -> dropped: no calls (every scaler)
      7  all 0/0                              -> sigma 0 for patterson/hwe/standard
      8  all 1/1                              -> sigma 0 for patterson/hwe/standard
     12  all 0/1 (p = 0.5, sd = 0)            -> patterson/hwe keep (Z row 0), standard drops
     15  one call 0/1, the rest missing       -> as 12
     16  one call 1/1, the rest missing       -> as 8
     20  partial missing (./1 and 1/.), fill -2 (haploid calls), allele 2 (multi-allelic)
     25  0/0 everywhere except missing calls  -> as 7
     30  alleles 2 and 3 (multi-allelic, counted as non-REF)"""
    p = argparse.ArgumentParser(prog="pca_oracle.py make-edge-store")
    p.add_argument("out")
    p.add_argument("--seed", type=int, default=11)
    a = p.parse_args(argv)
    zarr = _zarr()
    rng = np.random.default_rng(a.seed)
    M, N = 40, 24
    pf = rng.uniform(0.1, 0.9, size=M)
    gt = (rng.random((M, N, 2)) < pf[:, None, None]).astype(np.int8)
    gt[3] = -1
    gt[7] = 0
    gt[8] = 1
    gt[12, :, 0] = 0
    gt[12, :, 1] = 1
    gt[15] = -1
    gt[15, 4] = [0, 1]
    gt[16] = -1
    gt[16, 9] = [1, 1]
    gt[20, 0] = [1, -2]
    gt[20, 1] = [0, -2]
    gt[20, 2] = [-1, 1]
    gt[20, 3] = [1, -1]
    gt[20, 4] = [2, 1]
    gt[25] = 0
    gt[25, [1, 5, 6]] = -1
    gt[30, ::3, 0] = 2
    gt[30, 1::4, 1] = 3
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    g = zarr.open_group(a.out, mode="w", zarr_format=2)
    cg = g.create_array("call_genotype", shape=gt.shape, chunks=(16, 10, 2), dtype="i1",
                        fill_value=-2)
    cg[:] = gt
    cg.attrs["_ARRAY_DIMENSIONS"] = ["variants", "samples", "ploidy"]
    ids = np.array([f"E{i:02d}" for i in range(N)], dtype=object)
    sid = g.create_array("sample_id", shape=(N,), chunks=(N,), dtype=str)
    sid[:] = ids
    sid.attrs["_ARRAY_DIMENSIONS"] = ["samples"]
    pos = g.create_array("variant_position", shape=(M,), chunks=(M,), dtype="i4")
    pos[:] = np.arange(1, M + 1) * 100
    pos.attrs["_ARRAY_DIMENSIONS"] = ["variants"]
    return 0


def main(argv):
    cmds = {"check": cmd_check, "reference": cmd_reference, "gram": cmd_gram,
            "write-bed": cmd_write_bed, "make-edge-store": cmd_make_edge_store}
    if argv and argv[0] in cmds:
        return cmds[argv[0]](argv[1:])
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    return cmd_check(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
