#!/usr/bin/env python3
"""`gensvd pca --outlier-iter` against EIGENSOFT's smartpca 8.0 (Debian package eigensoft).

smartpca runs on PLINK .bed/.bim/.fam written from the same stores (tests/pca/pca_oracle.py
write-bed; the .fam's phenotype set to 1 so smartpca uses every sample for the axes) with its
defaults for outlier removal (numoutlieriter 5, numoutlierevec 10, outliersigmathresh 6,
familynames NO, hiprecision YES); gensvd with `-k 10 --outlier-iter 5`.  Asserted:
  - the same samples removed in the same rounds, each by the same PC (smartpca's "evec" is
    0-based: gensvd's pc = evec + 1) and at the same distance (|sigmage| to its 3 decimals);
  - the final eigenvalues: smartpca's .eval (every eigenvalue scaled to sum to N - 1, N the
    samples kept) against (N - 1) * sample_pca_explained_variance_ratio, within 1e-6 relative
    (plus half of its last printed digit) with --gram-f64, within 5e-6 with the default
    float32 Gram (which must remove the same samples);
  - the final eigenvectors: smartpca's .evec (unit vectors, 6 decimals) against gensvd's
    projection / singular value, up to sign, to 1e-6
    on complete data (1000 Genomes); with missing calls smartpca's rows are its lsqproject
    fits, which move slightly: |cos| >= 0.9999;
  - --eigensoft's .evec: smartpca's kept samples in its order, and its rows (its lsqproject
    fits on its scale where calls are missing) to one unit of the 6th decimal both print;
  - --outlier-out's TSV, the sample_pca_outlier arrays and the attributes;
  - --outlier-project: the removed samples' scores equal numpy's Z V from the written loadings
    (the fit's means and scales), the kept ones the run without projection;
  - without --outlier-iter the output is that of a plain run (byte for byte), and the options
    that need --outlier-iter are refused (exit 2);
  - --outlier-mode leave-one-out against smartpca's outliermode 1 on 24 samples with a planted
    one (which the default cannot remove: no distance can pass sqrt(N - 1) there).
Data: HapMap3's autosomes (smartpca drops chr 23-26 itself; gensvd gets --variants 0:14266),
1000 Genomes chr22 (zero-variance sites dropped by both), and a simulated store with four
planted samples from a distant population.
Usage: test_pca_outliers.py GENSVD    (exit 77 without /usr/lib/eigensoft/smartpca)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import zarr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checklib import check, check_eval, on_cpu, summary  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SMARTPCA = "/usr/lib/eigensoft/smartpca"
PY = sys.executable


def write_bed(store, prefix):
    subprocess.run([PY, os.path.join(HERE, "pca_oracle.py"), "write-bed", store, prefix],
                   check=True)
    lines = open(prefix + ".fam").read().split("\n")
    with open(prefix + ".fam", "w") as f:
        for ln in lines:
            if ln:
                c = ln.split("\t")
                f.write("\t".join(c[:5] + ["1"]) + "\n")


def run_smartpca(prefix, tmp, extra=""):
    par = os.path.join(tmp, "par")
    with open(par, "w") as f:
        f.write(f"genotypename: {prefix}.bed\nsnpname: {prefix}.bim\nindivname: {prefix}.fam\n"
                f"evecoutname: {tmp}/sp.evec\nevaloutname: {tmp}/sp.eval\n"
                f"outlieroutname: {tmp}/sp.outliers\nnumoutevec: 10\nnumthreads: 2\n"
                "familynames: NO\nhiprecision: YES\n" + extra)
    subprocess.run([SMARTPCA, "-p", par], check=True, capture_output=True)
    removed = []
    for ln in open(f"{tmp}/sp.outliers"):
        m = re.match(r"REMOVED outlier (\S+) iter (\d+) evec (\d+) sigmage (\S+)", ln)
        if m:
            removed.append((m.group(1), int(m.group(2)), int(m.group(3)), float(m.group(4))))
    evals = np.loadtxt(f"{tmp}/sp.eval")
    evec = {}
    for ln in open(f"{tmp}/sp.evec"):
        f = ln.split()
        if f and f[0] != "#eigvals:":
            evec[f[0]] = np.array([float(x) for x in f[1:11]])
    return removed, evals, evec


def compare(label, store, variants, tmp, gensvd):
    prefix = os.path.join(tmp, label)
    write_bed(store, prefix)
    removed, evals, evec = run_smartpca(prefix, tmp)
    out = os.path.join(tmp, label + ".zarr")
    tsv = os.path.join(tmp, label + ".outliers.tsv")
    args = [gensvd, "pca", store, "-k", "10", "--outlier-iter", "5", "-t", "2"]
    if variants:
        args += ["--variants", variants]
    # the default (float32) Gram: the same removals, eigenvalues within 5e-6
    r = subprocess.run(on_cpu(args + ["-o", out + ".f32"]), capture_output=True, text=True)
    if check(f"{label}: float32 Gram: exit 0", r.returncode == 0, r.stderr[-1500:]):
        z = zarr.open(out + ".f32", mode="r")
        ids = [str(x) for x in z["sample_id"][:]]
        rnd = z["sample_pca_outlier"][:]
        got = {ids[i]: int(rnd[i]) for i in range(len(ids)) if rnd[i]}
        check(f"{label}: float32 Gram: the same removals", got == {x[0]: x[1] for x in removed})
        n = len(ids) - len(got)
        lam = (n - 1) * z["sample_pca_explained_variance_ratio"][:]
        rel = np.max(np.abs(lam - evals[:10]) / evals[:10])
        check(f"{label}: float32 Gram: eigenvalues within {rel:.2g} <= 5e-6 of smartpca's",
              rel <= 5e-6)
    r = subprocess.run(on_cpu(args + ["--gram-f64", "--outlier-out", tsv, "-o", out,
                                      "--eigensoft", prefix + "_g"]),
                       capture_output=True, text=True)
    if not check(f"{label}: pca --outlier-iter 5 exit 0", r.returncode == 0, r.stderr[-1500:]):
        return None
    z = zarr.open(out, mode="r")
    ids = [str(x) for x in z["sample_id"][:]]
    rnd = z["sample_pca_outlier"][:]
    pc = z["sample_pca_outlier_pc"][:]
    sig = z["sample_pca_outlier_sigma"][:]
    got = {ids[i]: (int(rnd[i]), int(pc[i]), float(sig[i])) for i in range(len(ids)) if rnd[i]}
    want = {s: (it, ev + 1, sg) for s, it, ev, sg in removed}
    rounds = max([v[0] for v in want.values()], default=0)
    check(f"{label}: smartpca removed {len(want)} samples in {rounds} rounds", True)
    check(f"{label}: the same samples removed in the same rounds",
          {s: v[0] for s, v in got.items()} == {s: v[0] for s, v in want.items()},
          f"gensvd only {sorted(set(got) - set(want))} smartpca only "
          f"{sorted(set(want) - set(got))}")
    same = [s for s in got if s in want]
    check(f"{label}: by the same PC (smartpca's evec + 1)",
          all(got[s][1] == want[s][1] for s in same),
          str([(s, got[s][1], want[s][1]) for s in same if got[s][1] != want[s][1]]))
    worst = max([abs(abs(got[s][2]) - abs(want[s][2])) for s in same], default=0)
    check(f"{label}: at the same distance (|sigmage| within {worst:.2g} <= 5.01e-4)",
          worst <= 5.01e-4)
    lines = [ln.split("\t") for ln in open(tsv).read().splitlines()]
    check(f"{label}: --outlier-out header and one line per removed sample",
          lines[0] == ["#sample_id", "iter", "pc", "sigmage"] and len(lines) == len(got) + 1)
    check(f"{label}: --outlier-out = the arrays, round by round",
          all(got[ln[0]] [:2] == (int(ln[1]), int(ln[2])) and
              abs(float(ln[3]) - got[ln[0]][2]) < 5.01e-4 for ln in lines[1:]) and
          [int(ln[1]) for ln in lines[1:]] == sorted(int(ln[1]) for ln in lines[1:]))
    kept = [s for s in ids if s not in got]
    n = len(kept)
    a = z.attrs
    check(f"{label}: attributes (N_fitted {n}, N_outliers, outlier_rounds, iter/pcs/sigma)",
          a["N_fitted"] == n and a["N_outliers"] == len(got) and a["outlier_rounds"] == rounds
          and a["outlier_iter"] == 5 and a["outlier_pcs"] == 10 and a["outlier_sigma"] == 6
          and a["outlier_projected"] is False)
    check(f"{label}: smartpca kept {len(evec)} samples, the same", sorted(evec) == sorted(kept))
    lam = (n - 1) * z["sample_pca_explained_variance_ratio"][:]
    rel = np.abs(lam - evals[:10]) / evals[:10]
    ok = np.all(np.abs(lam - evals[:10]) <= 1e-6 * evals[:10] + 5e-7)
    check(f"{label}: eigenvalues (N - 1) s^2 / trace = smartpca's .eval (max rel {rel.max():.2g})",
          bool(ok), f"{lam} {evals[:10]}")
    proj = z["sample_pca_projection"][:]
    s = z["sample_pca_singular_value"][:]
    rows = [ids.index(x) for x in kept]
    check(f"{label}: removed samples' rows are NaN, the kept ones' finite",
          bool(np.all(np.isnan(proj[[ids.index(x) for x in got]])) and
               np.all(np.isfinite(proj[rows]))))
    # smartpca's .evec rows come from its lsqproject step ("lsqproject used"): the eigenvectors
    # on complete data, least-squares fits that move them slightly when calls are missing
    u = proj[rows] / s
    e = np.array([evec[x] for x in kept])
    gt = zarr.open(store, mode="r")["call_genotype"]
    lo, hi = (int(x) for x in variants.split(":")) if variants else (0, gt.shape[0])
    sid = [str(x) for x in zarr.open(store, mode="r")["sample_id"][:]]
    miss = (gt[lo:hi] < 0).any(axis=2).any(axis=0)
    full = np.array([not miss[sid.index(x)] for x in kept])
    worst, cos = 0.0, 1.0
    for q in range(10):
        sign = 1.0 if np.dot(u[:, q], e[:, q]) >= 0 else -1.0
        worst = max(worst, float(np.max(np.abs(sign * u[:, q] - e[:, q]))))
        cos = min(cos, abs(float(np.dot(u[:, q], e[:, q]) / np.linalg.norm(e[:, q]))))
    if full.all():
        check(f"{label}: eigenvectors = smartpca's .evec up to sign (max {worst:.2g} <= 1e-6)",
              worst <= 1e-6)
    else:
        check(f"{label}: eigenvectors against smartpca's lsqproject rows (missing calls): "
              f"|cos| >= 0.9999 ({cos:.7f}; max |difference| {worst:.2g})", cos >= 0.9999)
    # --eigensoft writes smartpca's rows themselves (its lsqproject fits on its scale), the
    # kept samples in its order, to one unit of the 6th decimal both print
    gl = [ln.split() for ln in open(prefix + "_g.evec")]
    sl = [ln.split() for ln in open(f"{tmp}/sp.evec")]
    ge = np.array([[float(x) for x in f[1:11]] for f in gl[1:]])
    se = np.array([[float(x) for x in f[1:11]] for f in sl[1:]])
    same = [f[0] for f in gl[1:]] == [f[0] for f in sl[1:]]
    if check(f"{label}: --eigensoft: smartpca's samples in its order", same):
        d = float(np.abs(ge * np.sign((ge * se).sum(axis=0)) - se).max())
        check(f"{label}: --eigensoft rows = smartpca's .evec up to sign ({d:.2g} <= 1.5e-6)",
              d <= 1.5e-6)
    check_eval(f"{label}: --eigensoft after outlier removal", prefix + "_g.eval",
               f"{tmp}/sp.eval")
    return z, got


def check_projection(store, tmp, gensvd, plain):
    """--outlier-project against numpy Z V with the written loadings."""
    out = os.path.join(tmp, "proj.zarr")
    r = subprocess.run(on_cpu([gensvd, "pca", store, "-k", "10", "--outlier-iter", "5",
                               "--gram-f64", "--outlier-project", "--loadings", "-o", out, "-t",
                               "2"]),
                       capture_output=True, text=True)
    if not check("sim: --outlier-project exit 0", r.returncode == 0, r.stderr[-1500:]):
        return
    z = zarr.open(out, mode="r")
    rnd = z["sample_pca_outlier"][:]
    proj = z["sample_pca_projection"][:]
    fitted = z["sample_pca_fitted"][:]
    check("sim: sample_pca_fitted = not removed, outlier_projected true",
          bool(np.all(fitted == (rnd == 0))) and z.attrs["outlier_projected"] is True)
    gt = zarr.open(store, mode="r")["call_genotype"][:]
    d = (gt > 0).sum(axis=2).astype(np.float64)
    d[(gt < 0).any(axis=2)] = np.nan
    mean = z["variant_pca_mean"][:]
    scale = z["variant_pca_scale"][:]
    inc = z["variant_pca_included"][:].astype(bool)
    v = z["sample_pca_component"][:]
    zz = (d[inc] - mean[inc, None]) / scale[inc, None]
    zz[np.isnan(zz)] = 0
    want = zz.T @ v[inc]
    rem = rnd > 0
    err = np.max(np.abs(proj[rem] - want[rem])) / np.max(np.abs(want[rem]))
    check(f"sim: removed samples projected = numpy Z'V (rel {err:.2g} <= 1e-6: float32 products)",
          err <= 1e-6)
    same = np.array_equal(proj[~rem], plain["sample_pca_projection"][:][~rem])
    check("sim: kept samples' scores equal the run without projection", same)


def compare_loo(tmp, gensvd):
    """smartpca's outliermode 1 (each sample against the others' mean and sd) on 24 samples, one
    of them from a distant population: with every sample in the mean no distance can pass 6 sd
    (at most sqrt(N - 1) = 4.8), so the default removes no one; leave-one-out removes the
    planted sample, as smartpca does, with its round, PC and distance."""
    base = os.path.join(tmp, "small_base.vcz")
    subprocess.run([gensvd, "simulate", base, "-m", "3000", "-n", "24", "-K", "2", "-s", "7",
                    "-q"], check=True)
    small = os.path.join(tmp, "small.vcz")
    planted = plant(base, small, 1)
    prefix = os.path.join(tmp, "small")
    write_bed(small, prefix)
    removed, _evals, _evec = run_smartpca(prefix, tmp, "outliermode: 1\n")
    tsv = os.path.join(tmp, "small.tsv")
    args = [gensvd, "pca", small, "-k", "10", "--outlier-iter", "5", "--gram-f64", "-q"]
    r = subprocess.run(on_cpu(args + ["--outlier-mode", "leave-one-out", "--outlier-out", tsv,
                                      "-o", os.path.join(tmp, "small.zarr")]),
                       capture_output=True, text=True)
    if not check("small: --outlier-mode leave-one-out: exit 0", r.returncode == 0, r.stderr):
        return
    got = [ln.split("\t") for ln in open(tsv).read().splitlines()[1:]]
    got = [(f[0], int(f[1]), int(f[2]) - 1, float(f[3])) for f in got]
    check(f"small: smartpca outliermode 1 removes the planted sample {planted}",
          [x[0] for x in removed] == planted, str(removed))
    same = len(got) == len(removed) and all(
        a[:3] == b[:3] and abs(abs(a[3]) - abs(b[3])) <= 1.01e-3 for a, b in zip(got, removed))
    check("small: leave-one-out: smartpca's removals, rounds, PCs and distances (3 decimals)",
          same, f"{got} {removed}")
    z = zarr.open(os.path.join(tmp, "small.zarr"), mode="r")
    check("small: the attribute outlier_mode", z.attrs.get("outlier_mode") == "leave-one-out")
    r = subprocess.run(on_cpu(args + ["--format", "tsv"]), capture_output=True, text=True)
    check("small: the default (all samples' sd) removes no one (|z| <= sqrt(N - 1))",
          r.returncode == 0 and "removed" not in r.stderr and
          len(r.stdout.splitlines()) == 25, r.stderr[-500:])


def plant(src, dst, n_out):
    """Copy a simulated store and give n_out samples genotypes of a distant population."""
    shutil.copytree(src, dst)
    g = zarr.open(dst, mode="r+")
    gt = g["call_genotype"]
    a = gt[:]
    rng = np.random.default_rng(11)
    p = rng.uniform(0.02, 0.98, a.shape[0])
    picks = rng.choice(a.shape[1], n_out, replace=False)
    for i in picks:
        a[:, i, :] = (rng.random((a.shape[0], 2)) < p[:, None]).astype(a.dtype)
    gt[:] = a
    return sorted(str(x) for x in g["sample_id"][:][picks])


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    gensvd = sys.argv[1]
    if not os.access(SMARTPCA, os.X_OK):
        print(f"{SMARTPCA} not installed (Debian package eigensoft): skipped")
        return 77
    tmp = tempfile.mkdtemp(prefix="gsvd_outliers.")
    try:
        hm = os.path.join(ROOT, "testdata/realdata/hapmap3.vcz")
        compare("hapmap3", hm, "0:14266", os.path.join(tmp, ""), gensvd)
        compare("khuman", os.path.join(ROOT, "testdata/realdata/khuman_chr22.vcz"), None, tmp,
                gensvd)
        base = os.path.join(tmp, "base.vcz")
        subprocess.run([gensvd, "simulate", base, "-m", "6000", "-n", "240", "-K", "3", "-F",
                        "0.05", "-r", "0.002", "-s", "3", "-q"], check=True)
        sim = os.path.join(tmp, "sim.vcz")
        planted = plant(base, sim, 4)
        res = compare("sim", sim, None, tmp, gensvd)
        if res:
            z, got = res
            check(f"sim: the planted samples {planted} go in round 1",
                  all(got.get(s, (0,))[0] == 1 for s in planted), str(got))
            check_projection(sim, tmp, gensvd, z)
        compare_loo(tmp, gensvd)
        # opt-in: a plain run is unchanged; the options that need --outlier-iter are refused
        plain = subprocess.run(on_cpu([gensvd, "pca", sim, "-k", "5", "--format", "tsv", "-q"]),
                               capture_output=True)
        zero = subprocess.run(on_cpu([gensvd, "pca", sim, "-k", "5", "--format", "tsv", "-q",
                                      "--outlier-iter", "0"]), capture_output=True)
        check("--outlier-iter 0 = no option, byte for byte",
              plain.returncode == 0 and plain.stdout == zero.stdout)
        for opt in (["--outlier-pcs", "3"], ["--outlier-sigma", "4"], ["--outlier-project"],
                    ["--outlier-mode", "leave-one-out"],
                    ["--outlier-out", os.path.join(tmp, "x.tsv")]):
            r = subprocess.run(on_cpu([gensvd, "pca", sim] + opt), capture_output=True, text=True)
            check(f"{opt[0]} without --outlier-iter: exit 2", r.returncode == 2 and
                  "--outlier-iter" in r.stderr, r.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
