#!/usr/bin/env python3
"""gensvd pca --scaler patterson against scikit-allel (1.3.13) as the oracle.

usage: .venv/zarr3/bin/python tests/pca/test_pca_allel.py GENSVD [STORE]
  STORE defaults to testdata/realdata/khuman_chr22.vcz (203 samples, 3,492 variants, no missing
  call, 1,194 polymorphic).

scikit-allel conventions (pca.md 3.2-3.4): `allel.pca(gn, n_components, scaler='patterson')`
takes alt-allele counts (variants x samples), centres each variant at its mean and divides by
sqrt(p (1 - p)) with p = mean / 2 (the Patterson scaler, no ploidy factor), so its matrix is
exactly gensvd's Z^T for --scaler patterson; `coords` = U S (gensvd sample_pca_projection),
`explained_variance_` = s^2 / N, `explained_variance_ratio_` = s^2 / sum of all s^2 = s^2 /
||Z||_F^2 (gensvd sample_pca_explained_variance(_ratio)).  sgkit's `pca` uses the same Patterson
scaler and names (sample_pca_projection = U S, sample_pca_explained_variance = s^2 / N), but
refuses missing data, so khuman (no missing call) is the data set on which all three agree.
allel cannot take monomorphic variants (sigma = 0 -> NaN), so they are removed before allel;
gensvd drops them itself.  allel.pca's exact path has no sign rule: signs are aligned per
component before comparing.

Tolerances: allel casts the genotypes to float16 and standardises in float16 (pca.md 3.2,
scikit-allel#10): unit round-off 4.9e-4 per standardised entry.  Measured against a float64 numpy
SVD on khuman: explained_variance_ and _ratio_ within 1.2e-4 relative, |corr| of coords >= 0.999996,
max |coords difference| <= 2.7e-3 of the component's largest |coord|.  Used here: 5e-4 relative
for explained variance and ratio (one float16 unit round-off), |corr| >= 0.9999, and 1e-2 of the
largest |coord| per component for the projections.  gensvd is run with --method exact and with
the default method (whose own tolerance, 1e-3 on s, doubles for s^2 and adds to allel's).
allel.randomized_pca (iterated_power 3) is run too and only reported: on khuman it is up to 5%
off in explained_variance_ for PCs 3-10.

Last line "N passed, N failed"; exit 1 on failure.
"""
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore")


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__)
        return 2
    gensvd = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    store = sys.argv[2] if len(sys.argv) == 3 else os.path.join(
        repo, "testdata", "realdata", "khuman_chr22.vcz")
    import zarr
    try:
        import allel
    except ImportError:
        print("SKIP scikit-allel is not installed (tests/requirements-zarr3.txt pins it)")
        print("0 passed, 0 failed")
        return 0
    k = 10
    passed = failed = 0

    def check(label, ok, detail):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
        print(("ok   " if ok else "FAIL ") + f"{label}: {detail}")
        return ok

    grp = zarr.open_group(store, mode="r")
    gt = grp["call_genotype"][:]
    ids = [str(x) for x in grp["sample_id"][:]]
    g = allel.GenotypeArray(gt)
    if g.count_missing() > 0:
        print(f"note: {g.count_missing()} missing calls; allel fills them with 0 (hom-ref), so "
              "the comparison is only meaningful without missing data")
    gn = g.to_n_alt()
    ac = gn.sum(axis=1)
    poly = (ac > 0) & (ac < 2 * gn.shape[1])
    gn = gn[poly]
    t0 = time.time()
    coords, model = allel.pca(gn, n_components=k, scaler="patterson")
    t_allel = time.time() - t0
    print(f"info allel {allel.__version__} pca on {gn.shape[0]} polymorphic of {gt.shape[0]} "
          f"variants x {gn.shape[1]} samples: {t_allel:.2f} s")
    t0 = time.time()
    rcoords, rmodel = allel.randomized_pca(gn, n_components=k, scaler="patterson", random_state=0)
    t_rand = time.time() - t0

    tmp = tempfile.mkdtemp(prefix="pca_allel_")
    try:
        for method in ("exact", "randomized"):
            out = os.path.join(tmp, f"{method}.zarr")
            cmd = [gensvd, "pca", "--device", "cpu", store, "-k", str(k), "-m", method,
                   "--scaler", "patterson", "-o", out, "--force", "-q"]
            t0 = time.time()
            p = subprocess.run(cmd, capture_output=True, text=True)
            dt = time.time() - t0
            label = f"khuman patterson {method}"
            if not check(f"{label} gensvd exit status", p.returncode == 0,
                         f"rc {p.returncode}, {dt:.2f} s {p.stderr.strip()[-300:]}"):
                continue
            z = zarr.open_group(out, mode="r")
            gid = [str(x) for x in z["sample_id"][:]]
            check(f"{label} sample_id", gid == ids, "store order" if gid == ids else "differs")
            proj = z["sample_pca_projection"][:]
            ev = z["sample_pca_explained_variance"][:]
            evr = z["sample_pca_explained_variance_ratio"][:]
            extra = 0.0 if method == "exact" else 2e-3
            e = np.abs(ev - model.explained_variance_) / model.explained_variance_
            check(f"{label} explained_variance vs allel explained_variance_",
                  bool(e.max() <= 5e-4 + extra),
                  f"max rel diff {e.max():.3g} at PC{int(e.argmax()) + 1} (tol {5e-4 + extra:g}); "
                  f"PC1 {ev[0]:.6g} vs {model.explained_variance_[0]:.6g}")
            e = np.abs(evr - model.explained_variance_ratio_) / model.explained_variance_ratio_
            check(f"{label} explained_variance_ratio vs allel",
                  bool(e.max() <= 5e-4 + extra),
                  f"max rel diff {e.max():.3g} at PC{int(e.argmax()) + 1}; "
                  f"PC1 {evr[0]:.6g} vs {model.explained_variance_ratio_[0]:.6g}")
            if gid != ids:
                continue
            corr = []
            dev = []
            for j in range(k):
                a, b = proj[:, j], coords[:, j].astype(np.float64)
                c = float(np.dot(a, b) / np.linalg.norm(a) / np.linalg.norm(b))
                corr.append(abs(c))
                dev.append(float(np.max(np.abs(a - np.sign(c) * b)) / np.max(np.abs(a))))
            corr, dev = np.array(corr), np.array(dev)
            check(f"{label} |corr| of projections vs allel coords", bool(corr.min() >= 0.9999),
                  f"min {corr.min():.7f} at PC{int(corr.argmin()) + 1}: "
                  + " ".join(f"{x:.6f}" for x in corr))
            tol = 1e-2 if method == "exact" else 2e-2
            check(f"{label} projections vs allel coords (sign-aligned)", bool(dev.max() <= tol),
                  f"max |diff| / max |coord| {dev.max():.3g} at PC{int(dev.argmax()) + 1} "
                  f"(tol {tol:g})")
            if method == "exact":
                e = np.abs(rmodel.explained_variance_ - ev) / ev
                print(f"info allel.randomized_pca ({t_rand:.2f} s): explained_variance_ rel "
                      f"error vs gensvd exact: max {e.max():.3g} at PC{int(e.argmax()) + 1}: "
                      + " ".join(f"{x:.2g}" for x in e))
    finally:
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
