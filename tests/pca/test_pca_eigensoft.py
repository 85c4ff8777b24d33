#!/usr/bin/env python3
"""`gensvd pca --eigensoft PREFIX --eigensoft-ind FILE` against EIGENSOFT's smartpca 8.0.

smartpca runs on a PLINK .bed/.bim/.fam written from 1000 Genomes chr22 (complete calls, so its
.evec rows are its eigenvectors, not lsqproject fits; tests/pca/pca_oracle.py write-bed), the
.fam's sixth column set to each sample's population from khuman_pop.info, which smartpca
prints as the label column; `hiprecision: YES`, no outlier removal, 5 eigenvectors.  gensvd
runs `-k 5 -m exact --gram-f64` with an EIGENSTRAT .ind file written from the same
populations.  Asserted against smartpca's own .evec:
  - the "#eigvals:" line: the same layout (the same length and first field) and eigenvalues
    within one unit of the last printed digit (both sides are rounded to 3 decimals);
  - every sample row: the same IDs in the same order, the same labels, the same line length
    (smartpca's fixed widths), and eigenvector entries equal up to each PC's sign to one unit
    of the sixth printed decimal (1.01e-6);
  - the .eval: every eigenvalue to one unit of the sixth decimal, and twstats' table from it =
    twstats' table from smartpca's .eval (checklib.check_eval); -m randomized writes no .eval
    and says why;
  - with --loadings the .snpwt (smartpca's snpweightoutname): the same rows (monomorphic SNPs
    left out, but counted in the scale), IDs, chromosomes, positions and widths, the weights to
    one unit of the sixth decimal with the .evec's signs;
and: an .ind lacking samples labels them ???; a .ind line without three columns, an ID listed
twice and an unreadable .ind fail (exit 1, naming the file) before anything is written;
--eigensoft-ind without --eigensoft exits 2; an existing PREFIX.evec or .eval is kept without
--force;
-o's group is the same with and without --eigensoft (its rows need loadings, not written).
(Its rows where calls are missing, smartpca's lsqproject fits, and with --fit-samples:
tests/pca/test_pca_outliers.py and tests/project/test_project_lsq.py.)
Usage: test_pca_eigensoft.py GENSVD    (exit 77 without /usr/lib/eigensoft/smartpca)
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checklib import check, check_eval, check_snpwt, on_cpu, summary  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SMARTPCA = "/usr/lib/eigensoft/smartpca"
STORE = os.path.join(ROOT, "testdata/realdata/khuman_chr22.vcz")
POPS = os.path.join(ROOT, "testdata/realdata/khuman_pop.info")
K = 5


def smartpca(tmp, pops):
    prefix = os.path.join(tmp, "kh")
    subprocess.run([sys.executable, os.path.join(HERE, "pca_oracle.py"), "write-bed", STORE,
                    prefix], check=True, capture_output=True)
    rows = [ln.split("\t") for ln in open(prefix + ".fam").read().splitlines() if ln]
    with open(prefix + ".fam", "w") as f:
        for c in rows:
            f.write("\t".join(c[:5] + [pops[c[1]]]) + "\n")
    par = os.path.join(tmp, "par")
    with open(par, "w") as f:
        f.write(f"genotypename: {prefix}.bed\nsnpname: {prefix}.bim\nindivname: {prefix}.fam\n"
                f"evecoutname: {tmp}/sp.evec\nevaloutname: {tmp}/sp.eval\nnumoutevec: {K}\n"
                f"snpweightoutname: {tmp}/sp.snpwt\n"
                "numoutlieriter: 0\nnumthreads: 2\nfamilynames: NO\nhiprecision: YES\n")
    subprocess.run([SMARTPCA, "-p", par], check=True, capture_output=True)
    return open(f"{tmp}/sp.evec").read().splitlines()


def gensvd_run(gensvd, *args):
    return subprocess.run(on_cpu([gensvd, "pca", STORE, "-k", str(K), "-q"] + list(args)),
                          capture_output=True, text=True)


def compare(sp, got):
    check("the same number of lines as smartpca's .evec", len(sp) == len(got),
          f"{len(got)} against {len(sp)}")
    if not sp or not got:
        return
    hs, hg = sp[0].split(), got[0].split()
    ev_s, ev_g = np.array(hs[1:], float), np.array(hg[1:], float)
    check("#eigvals: line: the same layout", hg[0] == hs[0] == "#eigvals:" and
          len(got[0]) == len(sp[0]) and len(ev_g) == len(ev_s) == K, f"{got[0]!r} {sp[0]!r}")
    check("#eigvals: the eigenvalues to smartpca's 3 decimals (both rounded: 1e-3)",
          len(ev_g) == len(ev_s) and np.all(np.abs(ev_g - ev_s) <= 1e-3 + 1e-9),
          f"{ev_g} {ev_s}")
    rs = [ln.split() for ln in sp[1:]]
    rg = [ln.split() for ln in got[1:]]
    check("rows: the same sample IDs in the same order", [r[0] for r in rg] == [r[0] for r in rs])
    check("rows: the same labels", [r[-1] for r in rg] == [r[-1] for r in rs])
    check("rows: the same line lengths (smartpca's fixed widths)",
          [len(ln) for ln in got[1:]] == [len(ln) for ln in sp[1:]])
    vs = np.array([[float(v) for v in r[1:1 + K]] for r in rs])
    vg = np.array([[float(v) for v in r[1:1 + K]] for r in rg])
    if vs.shape != vg.shape:
        check("rows: the eigenvectors' shape", False, f"{vg.shape} {vs.shape}")
        return
    sign = np.sign((vs * vg).sum(axis=0))
    err = np.abs(vg * sign - vs).max()
    check(f"rows: the eigenvectors up to each PC's sign to 6 decimals ({err:.2g} <= 1.01e-6)",
          err <= 1.01e-6)


def errors(gensvd, tmp, ids):
    prefix = os.path.join(tmp, "bad")
    cases = {"two columns": "\n".join(f"{s} U" for s in ids) + "\n",
             "an ID twice": f"{ids[0]} U A\n{ids[0]} F B\n"}
    for name, text in cases.items():
        ind = os.path.join(tmp, "bad.ind")
        with open(ind, "w") as f:
            f.write(text)
        r = gensvd_run(gensvd, "--eigensoft", prefix, "--eigensoft-ind", ind)
        check(f".ind with {name}: exit 1 naming the file, nothing written",
              r.returncode == 1 and r.stderr.startswith(f"gensvd pca: error: {ind}: ") and
              not os.path.exists(prefix + ".evec"), r.stderr)
    r = gensvd_run(gensvd, "--eigensoft", prefix, "--eigensoft-ind", os.path.join(tmp, "none"))
    check("an unreadable .ind: exit 1 naming it", r.returncode == 1 and
          os.path.join(tmp, "none") in r.stderr and not os.path.exists(prefix + ".evec"),
          r.stderr)
    r = gensvd_run(gensvd, "--loadings")
    check("--loadings with nowhere to write them: exit 2 saying so", r.returncode == 2 and
          "--loadings needs somewhere to write them" in r.stderr, r.stderr)
    r = gensvd_run(gensvd, "--loadings", "--eigensoft", os.path.join(tmp, "w"))
    check("--eigensoft --loadings without -o: the .snpwt", r.returncode == 0 and
          os.path.getsize(os.path.join(tmp, "w.snpwt")) > 1000, r.stderr)
    r = gensvd_run(gensvd, "--eigensoft-ind", os.path.join(tmp, "bad.ind"))
    check("--eigensoft-ind without --eigensoft: exit 2", r.returncode == 2 and
          "--eigensoft-ind needs --eigensoft" in r.stderr, r.stderr)
    with open(prefix + ".evec", "w") as f:
        f.write("mine\n")
    r = gensvd_run(gensvd, "--eigensoft", prefix)
    check("an existing PREFIX.evec is kept without --force", r.returncode != 0 and
          open(prefix + ".evec").read() == "mine\n" and prefix + ".evec" in r.stderr, r.stderr)
    os.remove(prefix + ".evec")
    with open(prefix + ".eval", "w") as f:
        f.write("mine\n")
    r = gensvd_run(gensvd, "--eigensoft", prefix)
    check("an existing PREFIX.eval is kept without --force, checked before any work",
          r.returncode != 0 and open(prefix + ".eval").read() == "mine\n" and
          prefix + ".eval" in r.stderr and not os.path.exists(prefix + ".evec"), r.stderr)


def same_output(gensvd, tmp):
    """--eigensoft leaves -o's group as it is (the loadings its rows need are not written)."""
    outs = [os.path.join(tmp, name) for name in ("plain.zarr", "evec.zarr")]
    gensvd_run(gensvd, "-o", outs[0])
    gensvd_run(gensvd, "-o", outs[1], "--eigensoft", os.path.join(tmp, "e"))

    def files(d):
        out = {}
        for root, _dirs, names in os.walk(d):
            for n in names:
                data = open(os.path.join(root, n), "rb").read()
                if n in (".zattrs", ".zmetadata"):  # the command line differs
                    data = b"\n".join(ln for ln in data.split(b"\n") if b'"command"' not in ln)
                out[os.path.relpath(os.path.join(root, n), d)] = data
        return out
    a, b = files(outs[0]), files(outs[1])
    check(f"-o with --eigensoft: the same arrays and bytes as without ({len(a)} files)",
          a == b and len(a) > 5, str(sorted(set(a) ^ set(b))))


def iterative(gensvd, tmp):
    """An iterative method computes k eigenvalues: the .evec, no .eval (a file of k alone would
    give twstats wrong statistics), a warning saying why; the exact one writes both."""
    prefix = os.path.join(tmp, "it")
    r = gensvd_run(gensvd, "-m", "randomized", "--eigensoft", prefix)
    check("-m randomized --eigensoft: the .evec, no .eval, a warning naming it",
          r.returncode == 0 and os.path.exists(prefix + ".evec") and
          not os.path.exists(prefix + ".eval") and
          f"warning: no {prefix}.eval: " in r.stderr, r.stderr)
    r = subprocess.run(on_cpu([gensvd, "pca", STORE, "-k", str(K), "-m", "exact",
                               "--eigensoft", prefix, "--force"]), capture_output=True, text=True)
    check("-m exact --eigensoft: the closing line names the .evec and the .eval",
          r.returncode == 0 and f"wrote {prefix}.evec and {prefix}.eval in" in r.stderr,
          r.stderr[-500:])
    r = gensvd_run(gensvd, "-m", "randomized", "--eigensoft", prefix, "--force")
    check("-m randomized --eigensoft --force: an earlier run's .eval is removed, not left beside "
          "the new .evec", r.returncode == 0 and not os.path.exists(prefix + ".eval") and
          "earlier run" in r.stderr, r.stderr)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    gensvd = sys.argv[1]
    if not os.access(SMARTPCA, os.X_OK):
        print(f"{SMARTPCA} not installed (Debian package eigensoft): skipped")
        return 77
    tmp = tempfile.mkdtemp(prefix="gsvd_eigensoft.")
    try:
        pops = dict(ln.split()[:2] for ln in open(POPS) if ln.strip())
        sp = smartpca(tmp, pops)
        ind = os.path.join(tmp, "kh.ind")
        with open(ind, "w") as f:  # EIGENSTRAT's layout, padded as its tools write it
            for s, p in pops.items():
                f.write(f"{s:>20} U {p:>10}\n")
        prefix = os.path.join(tmp, "g")
        r = gensvd_run(gensvd, "-m", "exact", "--gram-f64", "--eigensoft", prefix,
                       "--eigensoft-ind", ind)
        if check("pca --eigensoft --eigensoft-ind: exit 0", r.returncode == 0, r.stderr):
            compare(sp, open(prefix + ".evec").read().splitlines())
            check_eval("chr22", prefix + ".eval", os.path.join(tmp, "sp.eval"))
        r = subprocess.run(on_cpu([gensvd, "pca", STORE, "-k", str(K), "-m", "exact",
                                   "--gram-f64", "--eigensoft", prefix, "--force", "--loadings",
                                   "-o", os.path.join(tmp, "l.zarr")]),
                           capture_output=True, text=True)
        if check("pca --eigensoft --loadings -o: exit 0, the closing line names the .snpwt",
                 r.returncode == 0 and f"{prefix}.eval and {prefix}.snpwt" in r.stderr,
                 r.stderr[-500:]):
            check_snpwt("chr22", prefix, os.path.join(tmp, "sp"), K)
        iterative(gensvd, tmp)
        ids = list(pops)
        with open(ind, "w") as f:
            for s in ids[10:]:
                f.write(f"{s} U {pops[s]}\n")
        r = gensvd_run(gensvd, "--eigensoft", prefix, "--eigensoft-ind", ind, "--force")
        rows = [ln.split() for ln in open(prefix + ".evec").read().splitlines()[1:]]
        unlabelled = sorted(r_[0] for r_ in rows if r_[-1] == "???")
        check("samples the .ind lacks are labelled ???", r.returncode == 0 and
              unlabelled == sorted(ids[:10]), str(unlabelled))
        same_output(gensvd, tmp)
        errors(gensvd, tmp, ids)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
