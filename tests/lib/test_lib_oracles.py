#!/usr/bin/env python3
"""The library's numbers against independent oracles, through the public API (tests/lib/lib_run).

  pca    of the two real stores in testdata, from the store and from memory (the store's arrays
         read into memory), exact and randomized: singular values and scores against the exact
         float64 SVD of the standardised matrix that tests/pca/pca_oracle.py builds with numpy
         (exact 1e-6 relative and |corr| >= 0.99999 per PC; randomized 1e-3 and 0.999);
  pdist  of matrices made with numpy and handed over in memory (raw arrays, numpy's byte order):
         a float64 matrix (samples x features, option transpose) against scipy's pdist for each
         metric, and int8 genotypes with missing calls (pairwise deletion) against
         tests/pdist/pdist_oracle.py's reference;
  pca's held arrays (what a GENSVD_PCA result holds beside its group, by name only, for
         `gensvd pca`'s summary and text outputs) with a fit list in reverse order: the fitted
         samples in the list's order, their unit eigenvectors against the numpy SVD of those
         samples, the variant counts and missing calls against pca_oracle's; with outlier
         removal, the starting set's rounds against the written group's per-sample arrays;
  ldprune's variant table (the arrays a GENSVD_LDPRUNE result holds by name only) against the
         store's variant_contig, variant_position and contig_id read by zarr-python over the
         variant range, from the store and from memory; the result lists and writes
         variant_ld_keep alone.

Usage: test_lib_oracles.py LIB_RUN TESTDATA   (the zarr 3 test venv's python)
Last line "N passed, N failed"; exit 1 on a failure.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import zarr
from scipy.spatial.distance import pdist, squareform

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "pca"))
sys.path.insert(0, os.path.join(HERE, "..", "pdist"))
from checklib import check, summary  # noqa: E402
from pca_oracle import Data, Reference  # noqa: E402
import pdist_oracle  # noqa: E402


def run(lib, *args):
    r = subprocess.run([lib, *args], capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        print(r.stderr.strip())
    return r.returncode == 0


def pca_case(lib, store, tmp, method, memory, k=8):
    label = f"pca {os.path.basename(store)} {method}{' in memory' if memory else ''}"
    out = os.path.join(tmp, label.replace(" ", "_"))
    extra = ["--memory"] if memory else []
    if not check(f"{label}: ran", run(lib, *extra, "pca", store, out, f"components={k}",
                                      f"method={method}")):
        return
    z = zarr.open_group(out, mode="r")
    s = z["sample_pca_singular_value"][:]
    proj = z["sample_pca_projection"][:]
    ids = [str(x) for x in z["sample_id"][:]]
    data = Data(store)
    ref = Reference(data, "patterson")
    tol, corr_min = (1e-6, 0.99999) if method == "exact" else (1e-3, 0.999)
    rel = np.max(np.abs(s - ref.s[:k]) / ref.s[:k])
    check(f"{label}: singular values within {tol:g}", rel <= tol, f"max relative error {rel:.3g}")
    check(f"{label}: sample IDs", ids == data.ids)
    scores = ref.U[:, :k] * ref.s[:k]
    corr = [abs(np.corrcoef(proj[:, q], scores[:, q])[0, 1]) for q in range(k)]
    check(f"{label}: scores, |corr| >= {corr_min}", min(corr) >= corr_min,
          f"min |corr| {min(corr):.7f}")


def pdist_float(lib, tmp):
    rng = np.random.default_rng(11)
    n, m = 37, 90
    x = rng.normal(size=(n, m))  # items x features
    f = os.path.join(tmp, "x.f8")
    x.astype("<f8").tofile(f)
    for metric, extra in [("euclidean", []), ("cityblock", []), ("cosine", []),
                          ("correlation", []), ("chebyshev", []), ("braycurtis", []),
                          ("canberra", []), ("minkowski", ["p=3"])]:
        out = os.path.join(tmp, f"pd_{metric}")
        ok = run(lib, "--raw", f"x={f}:f8:{n}x{m}", "pdist", "-", out, f"metric={metric}",
                 "src.array=x", "src.transpose=1", *extra)
        if not check(f"pdist {metric} of a numpy array in memory: ran", ok):
            continue
        got = zarr.open_group(out, mode="r")["distance"][:]
        kw = {"p": 3} if metric == "minkowski" else {}
        ref = squareform(pdist(x, metric, **kw))
        err = np.max(np.abs(got - ref) / np.maximum(np.abs(ref), 1e-300))
        check(f"pdist {metric}: equals scipy (relative 1e-12)", err <= 1e-12,
              f"max relative error {err:.3g}")


def pdist_genotypes(lib, tmp):
    rng = np.random.default_rng(5)
    n, v = 23, 400  # samples, variants
    g = rng.integers(0, 3, size=(v, n, 2), dtype=np.int8) % 2
    g[rng.random(size=(v, n)) < 0.05] = -1  # missing calls
    f = os.path.join(tmp, "g.i1")
    g.tofile(f)
    miss = (g == -1).any(axis=2)
    d = np.where(miss, 0, (g > 0).sum(axis=2)).astype(np.float64)
    D, C = np.ascontiguousarray(d.T), np.ascontiguousarray(~miss.T)
    for metric in ("ibs", "cityblock", "euclidean", "hamming"):
        out = os.path.join(tmp, f"pg_{metric}")
        ok = run(lib, "--raw", f"call_genotype={f}:i1:{v}x{n}x2", "pdist", "-", out,
                 f"metric={metric}")
        if not check(f"pdist {metric} of in-memory genotypes with missing calls: ran", ok):
            continue
        z = zarr.open_group(out, mode="r")
        ref, _ = pdist_oracle.reference(D, C, metric, 2.0, 2, "pairwise", v)
        got = z["distance"][:]
        err = np.nanmax(np.abs(got - ref))
        check(f"pdist {metric}: pairwise deletion equals the oracle (1e-12)",
              err <= 1e-12 and np.array_equal(np.isnan(got), np.isnan(ref)), f"max error {err:.3g}")
        check(f"pdist {metric}: n_sites = jointly called sites",
              np.array_equal(z["n_sites"][:], (C.astype(np.int64) @ C.T.astype(np.int64))))


def lines(lib, *args):
    r = subprocess.run([lib, *args], capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        print(r.stderr.strip())
        return None
    return r.stdout.splitlines()


def take(got, i, n, conv=float):
    return [conv(x) for x in got[i:i + n]], i + n


PCA_HELD = ["fit_sample_id", "fit_sample_vector", "singular_value_error_bound",
            "singular_value_error_estimate", "gram_error", "converged", "variant_counts",
            "outlier_sample_id", "outlier_round", "outlier_pc", "outlier_sigma"]


def pca_held(lib, store, tmp, k=4):
    label = f"pca held {os.path.basename(store)}"
    z = zarr.open_group(store, mode="r")
    all_ids = [str(x) for x in z["sample_id"][:]]
    fit = os.path.join(tmp, "fit.txt")
    with open(fit, "w") as f:  # every other sample, in reverse: not the store's order
        f.write("\n".join(reversed(all_ids[::2])) + "\n")
    out = os.path.join(tmp, "held.zarr")
    args = ["--names"]
    for n in ["fit_sample_id", "fit_sample_vector", "sample_pca_singular_value",
              "variant_counts", "converged", "singular_value_error_bound", "outlier_round"]:
        args += ["--print", n]
    got = lines(lib, *args, "pca", store, out, f"components={k}", "method=exact",
                f"fit-samples={fit}")
    if not check(f"{label}: ran", got is not None):
        return
    check(f"{label}: none listed", not set(PCA_HELD) & set(got))
    i = 0
    while got[i].startswith(("sample_", "variant_")):  # the listed names (IDs are NA...)
        i += 1
    data = Data(store, samples_file=fit)
    ref = Reference(data, "patterson")
    n = data.N
    ids, i = take(got, i, n, str)
    check(f"{label}: fit_sample_id in the fit list's order", ids == data.ids)
    u, i = take(got, i, n * k)
    u = np.array(u).reshape(n, k)
    s, i = take(got, i, k)
    check(f"{label}: fit_sample_vector unit columns",
          np.allclose(u.T @ u, np.eye(k), atol=1e-9), np.abs(u.T @ u - np.eye(k)).max())
    corr = [abs(np.corrcoef(u[:, q], ref.U[:, q])[0, 1]) for q in range(k)]
    check(f"{label}: fit_sample_vector = numpy's U of the fit samples", min(corr) >= 0.99999,
          f"min |corr| {min(corr):.7f}")
    rel = np.max(np.abs(np.array(s) - ref.s[:k]) / ref.s[:k])
    check(f"{label}: singular values of the fit samples", rel <= 1e-6, f"{rel:.3g}")
    counts, i = take(got, i, 9, int)
    missing = int(data.miss[ref.keep].sum())
    want = [ref.M_used, data.M, ref.n_no_calls, ref.n_zero_var, 0, 0, 0, missing, 0]
    check(f"{label}: variant_counts = pca_oracle's", counts == want, f"{counts} != {want}")
    conv, i = take(got, i, 1, int)
    check(f"{label}: converged (exact)", conv == [1], conv)
    bound, i = take(got, i, k)
    w = zarr.open_group(out, mode="r")
    attr = w.attrs["singular_value_error_bound"]
    check(f"{label}: error bounds unrounded, as the attribute to 6 digits",
          [float(f"{b:.6g}") if np.isfinite(b) else -1.0 for b in bound] == attr, (bound, attr))
    check(f"{label}: no outlier arrays without outlier removal", got[i:] == ["absent"], got[i:])
    proj = w["sample_pca_projection"][:]
    pos = {str(x): j for j, x in enumerate(w["sample_id"][:])}
    rows = proj[[pos[x] for x in ids]]
    check(f"{label}: U s = the written projection of the fit samples",
          np.allclose(u * np.array(s), rows, rtol=0, atol=1e-12 * np.abs(rows).max()))

    # outlier removal: the starting set (every sample, the store's order) and its rounds
    out = os.path.join(tmp, "held_ol.zarr")
    args = ["--print", "outlier_sample_id", "--print", "outlier_round", "--print", "outlier_pc",
            "--print", "outlier_sigma", "--print", "fit_sample_id"]
    got = lines(lib, *args, "pca", store, out, f"components={k}", "method=exact",
                "outlier-iter=3", "outlier-sigma=1.5", "outlier-pcs=2")
    if not check(f"{label} outliers: ran", got is not None):
        return
    n = len(all_ids)
    oids, i = take(got, 0, n, str)
    check(f"{label} outliers: outlier_sample_id is the starting set", oids == all_ids)
    rnd, i = take(got, i, n, int)
    pc, i = take(got, i, n, int)
    sig, i = take(got, i, n)
    kept = got[i:]
    w = zarr.open_group(out, mode="r")
    wpos = {str(x): j for j, x in enumerate(w["sample_id"][:])}
    wr = w["sample_pca_outlier"][:]
    wpc = w["sample_pca_outlier_pc"][:]
    ws = w["sample_pca_outlier_sigma"][:]
    check(f"{label} outliers: some removed", sum(r > 0 for r in rnd) > 0, sum(r > 0 for r in rnd))
    check(f"{label} outliers: N_outliers", sum(r > 0 for r in rnd) == w.attrs["N_outliers"])
    check(f"{label} outliers: rounds, PCs and sigmas as written",
          all(rnd[j] == wr[wpos[x]] and pc[j] == wpc[wpos[x]] and
              (np.isnan(sig[j]) and np.isnan(ws[wpos[x]]) or sig[j] == ws[wpos[x]])
              for j, x in enumerate(oids)))
    check(f"{label} outliers: fit_sample_id the kept ones, in order",
          kept == [x for j, x in enumerate(oids) if rnd[j] == 0])


def ldprune_table(lib, store, tmp, start, stop, array=None, memory=False):
    label = (f"ldprune table {os.path.basename(store)} {start}:{stop}"
             f"{' in memory' if memory else ''}")
    names = ["variant_index", "variant_contig", "variant_position", "contig_id",
             "variant_ld_keep"]
    out = os.path.join(tmp, label.replace(" ", "_").replace(":", "-"))
    args = (["--memory"] if memory else []) + ["--names"]
    for n in names:
        args += ["--print", n]
    opts = ["window=20", "r2=0.1", f"src.variant-start={start}", f"src.variant-stop={stop}"]
    if array:
        opts.append(f"src.array={array}")
    got = lines(lib, *args, "--write", out, "ldprune", store, "-", *opts)
    if not check(f"{label}: ran", got is not None):
        return
    check(f"{label}: lists variant_ld_keep alone", got[0] == "variant_ld_keep", got[:2])
    z = zarr.open_group(store, mode="r")
    n = stop - start
    i = 1
    index = [int(x) for x in got[i:i + n]]
    i += n
    check(f"{label}: variant_index is the range", index == list(range(start, stop)))
    contig = [int(x) for x in got[i:i + n]]
    i += n
    want = z["variant_contig"][start:stop].astype(np.int64) if "variant_contig" in z else \
        np.zeros(n, np.int64)
    check(f"{label}: variant_contig is the store's", np.array_equal(contig, want))
    if "variant_position" in z:
        pos = [int(x) for x in got[i:i + n]]
        i += n
        check(f"{label}: variant_position is the store's",
              np.array_equal(pos, z["variant_position"][start:stop].astype(np.int64)))
    else:
        check(f"{label}: no variant_position", got[i] == "absent")
        i += 1
    if "contig_id" in z:
        ids = [str(x) for x in z["contig_id"][:]]
        check(f"{label}: contig_id is the store's", got[i:i + len(ids)] == ids)
        i += len(ids)
    else:
        check(f"{label}: no contig_id", got[i] == "absent")
        i += 1
    keep = np.array([int(x) for x in got[i:]])
    w = zarr.open_group(out, mode="r")
    check(f"{label}: written, variant_ld_keep alone", sorted(w.array_keys()) == ["variant_ld_keep"])
    check(f"{label}: variant_ld_keep as written", np.array_equal(keep, w["variant_ld_keep"][:]))


def main():
    lib, testdata = sys.argv[1], sys.argv[2]
    stores = [os.path.join(testdata, "realdata", s) for s in ("khuman_chr22.vcz", "hapmap3.vcz")]
    with tempfile.TemporaryDirectory() as tmp:
        for store in stores:
            pca_case(lib, store, tmp, "exact", False)
            pca_case(lib, store, tmp, "exact", True)
        pca_case(lib, stores[1], tmp, "randomized", True)
        pca_held(lib, stores[1], tmp)
        pdist_float(lib, tmp)
        pdist_genotypes(lib, tmp)
        ldprune_table(lib, stores[1], tmp, 1000, 3500)
        ldprune_table(lib, stores[0], tmp, 0, 200, memory=True)
        ldprune_table(lib, os.path.join(testdata, "zarr", "v2py", "allel_like.zarr"), tmp, 3, 20,
                      array="calldata/GT")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
