#!/usr/bin/env python3
"""--keep, --remove and --mind against plink2 --keep and --remove on the same genotypes (HapMap3 as a
.bed written from the store, FID = IID there), with the files plink2 itself writes.

usage: test_sample_select.py GENSVD TESTDATA_DIR

Checked:
- plink2 --king-cutoff 0.0884 writes *.king.cutoff.out.id ("#FID IID" header): `pdist -m king
  --remove` that file equals plink2 `--remove` of it with `--make-king square` (samples in the
  same order, distances to 1e-12); `--keep` the .in.id file gives the same matrix;
- a subset changes the allele frequencies and so LD: `ldprune --keep` of a one-column ID list
  (the first 300 samples and an ID of no sample) keeps plink2 --keep's variants (plink2 given
  the FID IID pairs: on a .bed with FIDs it matches a one-column list to none; autosomes, as
  plink2 treats chromosome X by sex), and a
  two-column FID IID list without a header (FIDs that are not the .fam's: gensvd compares the
  IID only) the same;
- `--samples` (its order) narrowed by `--remove`: pca's TSV lists the --samples IDs in the
  file's order less the removed ones;
- --mind against plink2 --mind (KING with --chr and --remove beside it, ldprune with --maf,
  pca's samples against plink2's --write-samples; --mind 0 removing every sample is an error);
- errors: a header without an IID column (exit 1, naming the file and line), a --keep list
  naming no sample (warned, then exit 1), a --remove list naming no sample (warned, runs).
Exit 77 (skipped) without plink2."""

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import zarr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checklib import check, on_cpu, summary  # noqa: E402

PLINK2 = shutil.which("plink2")
if not PLINK2:
    print("skipped: needs plink2")
    sys.exit(77)


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600,
                          **kw)


def king(gensvd, hapmap, bed, tmp, ours, theirs, name):
    out = os.path.join(tmp, "k.zarr")
    r = run(on_cpu([gensvd, "pdist", hapmap, "-m", "king", *ours, "-o", out, "-f", "-q"]))
    p = run([PLINK2, "--bfile", bed, *theirs, "--make-king", "square", "bin", "--out",
             os.path.join(tmp, "k")])
    if not check(f"pdist -m king {name}: exit 0", r.returncode == 0 and p.returncode == 0,
                 r.stderr + p.stdout[-300:]):
        return
    g = zarr.open_group(out, mode="r")
    ids = [line.split()[-1] for line in open(os.path.join(tmp, "k.king.id"))][1:]
    check(f"{name}: plink2's samples in its order ({len(ids)})",
          [str(s) for s in g["sample_id"][:]] == ids, f"{g['sample_id'].shape[0]} vs {len(ids)}")
    got = g["distance"][:]
    want = np.fromfile(os.path.join(tmp, "k.king.bin")).reshape(len(ids), len(ids))
    err = np.nanmax(np.abs(got - want)) if got.shape == want.shape else np.inf
    check(f"KING {name} = plink2's", err <= 1e-12, f"{err:.3g}")


def ldprune(gensvd, hapmap, bed, tmp, ours, theirs, name, bim_ids):
    mask = os.path.join(tmp, "l.zarr")
    r = run(on_cpu([gensvd, "ldprune", hapmap, "--window", "200", "--step", "7", "--r2", "0.02",
                    "--chr", "1-22", *ours, "-o", mask, "-f", "-q"]))
    p = run([PLINK2, "--bfile", bed, "--chr", "1-22", *theirs, "--indep-pairwise", "200", "7",
             "0.02", "--out", os.path.join(tmp, "l")])
    if not check(f"ldprune {name}: exit 0", r.returncode == 0 and p.returncode == 0,
                 r.stderr + p.stdout[-300:]):
        return None
    want = set(open(os.path.join(tmp, "l.prune.in")).read().split())
    keep = zarr.open_group(mask, mode="r")["variant_ld_keep"][:].astype(bool)
    got = {bim_ids[i] for i in np.flatnonzero(keep)}
    check(f"ldprune {name}: plink2's variants ({len(want)})", got == want,
          f"{len(got)} kept, {len(got ^ want)} differ")
    return got


def main():
    gensvd, testdata = sys.argv[1], sys.argv[2]
    hapmap = os.path.join(testdata, "realdata", "hapmap3.vcz")
    oracle = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pca",
                          "pca_oracle.py")
    with tempfile.TemporaryDirectory() as tmp:
        bed = os.path.join(tmp, "hapmap3")
        r = run([sys.executable, oracle, "write-bed", hapmap, bed])
        if not check("HapMap3 as a .bed", r.returncode == 0, r.stderr[-300:]):
            return summary()
        samples = [line.split()[1] for line in open(bed + ".fam")]
        bim_ids = [line.split()[1] for line in open(bed + ".bim")]
        # plink2's own relatedness files
        cut = os.path.join(tmp, "c")
        p = run([PLINK2, "--bfile", bed, "--chr", "1-22", "--king-cutoff", "0.0884", "--out",
                 cut])
        out_id, in_id = cut + ".king.cutoff.out.id", cut + ".king.cutoff.in.id"
        check("plink2 --king-cutoff wrote its files, #FID IID headers",
              p.returncode == 0 and open(out_id).readline().split()[:2] == ["#FID", "IID"],
              p.stdout[-300:])
        n_out = len(open(out_id).read().split("\n")) - 2
        king(gensvd, hapmap, bed, tmp, ["--remove", out_id], ["--remove", out_id],
             f"--remove plink2's .king.cutoff.out.id ({n_out} samples)")
        king(gensvd, hapmap, bed, tmp, ["--keep", in_id, "--chr", "1-5"],
             ["--keep", in_id, "--chr", "1-5"], "--keep plink2's .king.cutoff.in.id --chr 1-5")
        # subsets change LD: one-column IDs, and FID IID lines whose FIDs are not the .fam's
        one = os.path.join(tmp, "one.txt")
        with open(one, "w") as f:
            f.write("\n".join(samples[:300]) + "\nNOT_A_SAMPLE\n")
        two, two_p = os.path.join(tmp, "two.txt"), os.path.join(tmp, "two_p.txt")
        with open(two, "w") as f:
            f.write("".join(f"FAM{i} {s}\n" for i, s in enumerate(samples[:300])))
        with open(two_p, "w") as f:  # plink2 compares the .fam's FIDs too
            f.write("".join(f"{s} {s}\n" for s in samples[:300]))
        a = ldprune(gensvd, hapmap, bed, tmp, ["--keep", one], ["--keep", two_p],
                    "--keep (300 samples, one column)", bim_ids)
        b = ldprune(gensvd, hapmap, bed, tmp, ["--keep", two], ["--keep", two_p],
                    "--keep (FID IID, FIDs not compared)", bim_ids)
        full = ldprune(gensvd, hapmap, bed, tmp, [], [], "all samples", bim_ids)
        check("the subset changes what is pruned", a is not None and a == b and a != full,
              str([len(x) if x else None for x in (a, b, full)]))
        # --samples' order narrowed by --remove
        order = samples[::-7][:60]
        rm = order[::3]
        sf, rf = os.path.join(tmp, "order.txt"), os.path.join(tmp, "rm.txt")
        with open(sf, "w") as f:
            f.write("\n".join(order) + "\n")
        with open(rf, "w") as f:
            f.write("#IID\n" + "\n".join(rm) + "\n")
        r = run(on_cpu([gensvd, "pca", hapmap, "--samples", sf, "--remove", rf, "-k", "2",
                        "--format", "tsv"]))
        got = [line.split("\t")[0] for line in r.stdout.strip().split("\n")[1:]]
        check("--samples narrowed by --remove: --samples' order less the removed",
              r.returncode == 0 and got == [s for s in order if s not in rm], r.stderr)
        # --mind: the missing call rate over the selected variants, before --maf
        king(gensvd, hapmap, bed, tmp, ["--mind", "0.004"], ["--mind", "0.004"], "--mind 0.004")
        king(gensvd, hapmap, bed, tmp, ["--mind", "0.004", "--chr", "1-5", "--remove", out_id],
             ["--mind", "0.004", "--chr", "1-5", "--remove", out_id],
             "--mind 0.004 --chr 1-5 --remove")
        ldprune(gensvd, hapmap, bed, tmp, ["--mind", "0.003", "--maf", "0.2"],
                ["--mind", "0.003", "--maf", "0.2"], "--mind 0.003 --maf 0.2", bim_ids)
        p = run([PLINK2, "--bfile", bed, "--mind", "0.004", "--write-samples", "--out",
                 os.path.join(tmp, "m")])
        kept = [line.split()[-1] for line in open(os.path.join(tmp, "m.id"))][1:]
        r = run(on_cpu([gensvd, "pca", hapmap, "--mind", "0.004", "-k", "2", "--format", "tsv"]))
        got = [line.split("\t")[0] for line in r.stdout.strip().split("\n")[1:]]
        check(f"pca --mind 0.004: plink2's {len(kept)} samples", r.returncode == 0
              and got == kept, r.stderr)
        run([PLINK2, "--bfile", bed, "--missing", "--out", os.path.join(tmp, "m")])
        smiss = [line.split() for line in open(os.path.join(tmp, "m.smiss"))][1:]
        some = os.path.join(tmp, "some.txt")  # three samples that miss calls
        with open(some, "w") as f:
            f.write("\n".join([s[1] for s in smiss if int(s[2]) > 0][:3]) + "\n")
        r = run(on_cpu([gensvd, "pca", hapmap, "--keep", some, "--mind", "0", "-k", "1",
                        "--format", "tsv"]))
        check("--mind 0 of samples that all miss calls: exit 1, naming --mind",
              r.returncode == 1 and "--mind" in r.stderr and r.stdout == "", r.stderr)
        # errors and warnings
        bad = os.path.join(tmp, "bad.txt")
        with open(bad, "w") as f:
            f.write("#FID\tPAT\nx y\n")
        r = run(on_cpu([gensvd, "pca", hapmap, "--keep", bad, "-k", "2", "--format", "tsv"]))
        check("a header without IID: exit 1 naming the file and line 1", r.returncode == 1
              and bad + ": line 1" in r.stderr and r.stdout == "", r.stderr)
        none = os.path.join(tmp, "none.txt")
        with open(none, "w") as f:
            f.write("nobody\nnoone\n")
        r = run(on_cpu([gensvd, "pca", hapmap, "--keep", none, "-k", "2", "--format", "tsv"]))
        check("--keep naming no sample: warned, exit 1", r.returncode == 1
              and "none of the 2 sample IDs" in r.stderr and r.stdout == "", r.stderr)
        r = run(on_cpu([gensvd, "pca", hapmap, "--remove", none, "-k", "2", "--format", "tsv"]))
        check("--remove naming no sample: warned, runs", r.returncode == 0
              and "none of the 2 sample IDs" in r.stderr, r.stderr)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
