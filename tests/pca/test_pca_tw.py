#!/usr/bin/env python3
"""`gensvd pca --tw` against EIGENSOFT's twstats (Debian package eigensoft 8.0).

The oracle side never runs gensvd: numpy builds the Patterson-standardised matrix Z from the
store read with zarr-python (dosage = alleles > 0, a call with -1 missing, Z = 0 for a missing
call, variants without variance dropped), takes every eigenvalue of Z'Z in float64, writes the
Gram's rank of them (N - 1), scaled to sum to N - 1 as smartpca does, to an .eval file and runs twstats with its own twtable.  gensvd's
sample_pca_tw_statistic, _effective_n and _pvalue must equal twstats' columns to the digits it
prints (3 decimals; p-values to 6 significant digits or 2e-9, the last digit of its 9-decimal
table, where the statistic is at most 8).  Above 8 twstats' p-value is its own tail formula,
e^{-2/3 x^{3/2}} / (4 sqrt(pi) x^{1/4}); gensvd's is the distribution's tail, checked against
scipy: 1/2 int_x^inf Ai.  Data: HapMap3's autosomes, 1000 Genomes chr22 (1,194 polymorphic
sites), and simulated stores with one population (p-values spread over (0, 1)) and two close
ones.  `--tw-effective-n N` against `twstats -n N` (n' given for every component) on HapMap3,
with N above and below the number of eigenvalues.  Also: the stderr table's count of
significant components, -m auto running exact, --tw with an iterative method and
--tw-effective-n without --tw refused (exit 2).
Usage: test_pca_tw.py GENSVD      (exit 77 without twstats or its twtable)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import zarr
from scipy import integrate, special

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checklib import check, on_cpu, summary  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TWTABLE = "/usr/share/eigensoft/POPGEN/twtable"
K = 20


def patterson_eigenvalues(store, variants=None):
    """Every eigenvalue of Z'Z (descending), Z as gensvd's --scaler patterson builds it."""
    gt = zarr.open(store, mode="r")["call_genotype"]
    g = gt[slice(*variants)] if variants else gt[:]
    miss = (g < 0).any(axis=2)
    d = (g > 0).sum(axis=2).astype(np.float64)
    ploidy = g.shape[2]
    d[miss] = np.nan
    mu = np.nanmean(d, axis=1)
    p = mu / ploidy
    keep = (p > 0) & (p < 1)
    z = (d[keep] - mu[keep, None]) / np.sqrt(p[keep] * (1 - p[keep]))[:, None]
    z[np.isnan(z)] = 0
    w = np.linalg.eigvalsh(z.T @ z)[::-1]
    return w


def run_twstats(eigs, tmp, effective_n=None):
    path = os.path.join(tmp, "x.eval")
    eigs = eigs * len(eigs) / eigs.sum()  # as smartpca scales them (twstats' columns are fixed)
    with open(path, "w") as f:
        for e in eigs:
            f.write(f"{e:.12f}\n")
    out = os.path.join(tmp, "x.out")
    extra = ["-n", str(effective_n)] if effective_n else []
    subprocess.run(["twstats", "-t", TWTABLE, "-i", path, "-o", out] + extra, check=True,
                   capture_output=True)
    rows = []
    for line in open(out):
        f = line.split()
        if len(f) == 6 and f[0].isdigit():
            rows.append([float("nan") if v == "NA" else float(v) for v in f])
    return rows


def half_airy_tail(x):
    return 0.5 * integrate.quad(lambda t: special.airy(t)[0], x, np.inf, epsabs=0,
                                epsrel=1e-12, limit=200)[0]


def compare(label, store, variants, tmp, gensvd, effective_n=None):
    out = os.path.join(tmp, label + ".zarr")
    args = [gensvd, "pca", store, "-k", str(K), "--tw", "-o", out, "-t", "2"]
    if effective_n:
        args += ["--tw-effective-n", str(effective_n)]
    if variants:
        args += ["--variants", f"{variants[0]}:{variants[1]}"]
    r = subprocess.run(on_cpu(args), capture_output=True, text=True)
    if not check(f"{label}: pca --tw exit 0", r.returncode == 0, r.stderr[-2000:]):
        return
    z = zarr.open(out, mode="r")
    stat = z["sample_pca_tw_statistic"][:]
    pv = z["sample_pca_tw_pvalue"][:]
    ne = z["sample_pca_tw_effective_n"][:]
    n = z["sample_id"].shape[0]
    check(f"{label}: -m auto ran exact", z.attrs["method"] == "exact", z.attrs["method"])
    w = patterson_eigenvalues(store, variants)
    rank = n - 1
    check(f"{label}: tw_eigenvalues = N - 1 = {rank}", z.attrs["tw_eigenvalues"] == rank,
          str(z.attrs["tw_eigenvalues"]))
    tw = run_twstats(w[:rank], tmp, effective_n)
    if effective_n:
        check(f"{label}: effective n {effective_n} given: every component and the attribute",
              np.all(ne == effective_n) and z.attrs["tw_effective_n_given"] == effective_n,
              f"{ne[:3]} {z.attrs.get('tw_effective_n_given')}")
    check(f"{label}: twstats read the {rank} eigenvalues", len(tw) == rank, str(len(tw)))
    bad_x = bad_n = bad_p = bad_tail = 0
    detail = []
    for q in range(K):
        _, _, _, xs, ps, ns = tw[q]
        if abs(stat[q] - xs) > 5.01e-4:
            bad_x += 1
            detail.append(f"PC{q + 1} statistic {stat[q]:.6f} twstats {xs}")
        if abs(ne[q] - ns) > 5.01e-4:
            bad_n += 1
            detail.append(f"PC{q + 1} effective n {ne[q]:.6f} twstats {ns}")
        if stat[q] <= 8:
            if abs(pv[q] - ps) > 5e-6 * ps + 2e-9:
                bad_p += 1
                detail.append(f"PC{q + 1} p {pv[q]:.9g} twstats {ps}")
        else:
            want = half_airy_tail(stat[q])
            if not (abs(pv[q] - want) <= 1e-6 * want or (want < 1e-300 and pv[q] < 1e-300)):
                bad_tail += 1
                detail.append(f"PC{q + 1} p {pv[q]:.9g} 1/2 int Ai {want:.9g}")
    check(f"{label}: statistics = twstats' to 3 decimals ({K} PCs)", bad_x == 0, "; ".join(detail))
    check(f"{label}: effective n = twstats' to 3 decimals", bad_n == 0, "; ".join(detail))
    check(f"{label}: p-values (x <= 8) = twstats' to 6 digits or 2e-9", bad_p == 0,
          "; ".join(detail))
    check(f"{label}: p-values (x > 8) = 1/2 int_x^inf Ai to 1e-6", bad_tail == 0,
          "; ".join(detail))
    sig = 0
    while sig < K and pv[sig] < 0.05:
        sig += 1
    m = re.search(r"Tracy-Widom: (\d+) of the (\d+) components significant", r.stderr)
    check(f"{label}: summary and tw_significant count {sig} leading PCs with p < 0.05",
          m is not None and int(m.group(1)) == sig and z.attrs["tw_significant"] == sig,
          r.stderr[-500:])
    return stat, pv


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    gensvd = sys.argv[1]
    if not shutil.which("twstats") or not os.path.exists(TWTABLE):
        print("twstats or its twtable not installed (Debian package eigensoft): skipped")
        return 77
    tmp = tempfile.mkdtemp(prefix="gsvd_tw.")
    try:
        hm = os.path.join(ROOT, "testdata/realdata/hapmap3.vcz")
        contigs = zarr.open(hm, mode="r")["variant_contig"][:]
        names = [str(c) for c in zarr.open(hm, mode="r")["contig_id"][:]]
        auto = int(sum(1 for c in contigs if names[c] in [str(i) for i in range(1, 23)]))
        check("hapmap3: autosomes first (14,266)", auto == 14266 and
              all(names[c] in [str(i) for i in range(1, 23)] for c in contigs[:auto]))
        compare("hapmap3", hm, (0, auto), tmp, gensvd)
        compare("hapmap3_n5000", hm, (0, auto), tmp, gensvd, 5000)
        compare("hapmap3_n400", hm, (0, auto), tmp, gensvd, 400)
        compare("khuman", os.path.join(ROOT, "testdata/realdata/khuman_chr22.vcz"), None, tmp,
                gensvd)
        spread = 0
        for name, popk, fst in (("sim_K1", 1, 0.05), ("sim_K2", 2, 0.004)):
            store = os.path.join(tmp, name + ".vcz")
            subprocess.run([gensvd, "simulate", store, "-m", "4000", "-n", "300", "-K",
                            str(popk), "-F", str(fst), "-r", "0.01", "-s", "7", "-q"],
                           check=True)
            res = compare(name, store, None, tmp, gensvd)
            if res:
                spread += int(np.sum((res[1] > 0.001) & (res[1] < 0.999)))
        check(f"the simulated stores put p-values inside (0.001, 0.999) ({spread})", spread >= 8)
        r = subprocess.run(on_cpu([gensvd, "pca", hm, "-k", "3", "--tw", "-m", "randomized"]),
                           capture_output=True, text=True)
        check("--tw -m randomized: exit 2, naming --method exact", r.returncode == 2 and
              "--method exact" in r.stderr, r.stderr)
        r = subprocess.run(on_cpu([gensvd, "pca", hm, "-k", "3", "--tw-effective-n", "100"]),
                           capture_output=True, text=True)
        check("--tw-effective-n without --tw: exit 2, naming --tw", r.returncode == 2 and
              "--tw-effective-n needs --tw" in r.stderr, r.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
