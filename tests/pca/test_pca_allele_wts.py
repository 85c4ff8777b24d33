#!/usr/bin/env python3
"""`gensvd pca --plink PREFIX --loadings`: PREFIX.eigenvec.allele where the input has no variant
names, and the scalers that get none.

plink2 is the oracle of the weights themselves (tests/project/test_project.py: gensvd's file has
plink2's rows and weights on HapMap3, and plink2 --score with it gives sqrt(M_used) x gensvd's
scores).  Here, on a simulated store (no variant_id): each included variant has a REF and an ALT
row, in the store's order, with the ID CONTIG:POS:REF:ALT from the store's own arrays (read with
zarr-python) and weights -/+ V sqrt(M_used) / 2 to the 6 digits of %g; --scaler hwe gives the
same file as the default patterson (V does not change with a uniform scale); --scaler standard
writes no allele file and says so (and the other two files as before).
Usage: test_pca_allele_wts.py GENSVD
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import zarr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checklib import check, on_cpu, summary  # noqa: E402


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    gensvd = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="gsvd_allele_wts.")
    try:
        store = os.path.join(tmp, "s.vcz")
        subprocess.run([gensvd, "simulate", store, "-m", "3000", "-n", "120", "-K", "2",
                        "--missing", "0.01", "-s", "5", "-q"], check=True)
        pre = os.path.join(tmp, "p")
        r = subprocess.run(on_cpu([gensvd, "pca", store, "-k", "3", "--loadings", "--plink", pre,
                                   "-o", pre + ".zarr"]), capture_output=True, text=True)
        if not check("pca --plink --loadings: exit 0, the file named", r.returncode == 0 and
                     f"{pre}.eigenvec.allele" in r.stderr, r.stderr[-800:]):
            return summary()
        s = zarr.open(store, mode="r")
        z = zarr.open(pre + ".zarr", mode="r")
        inc = z["variant_pca_included"][:]
        v = z["sample_pca_component"][:]
        m = z.attrs["M_used"]
        pos = s["variant_position"][:]
        alleles = s["variant_allele"][:]
        want_keys, want_w = [], []
        def text(a):
            return a.decode() if isinstance(a, bytes) else str(a)
        contigs = [text(c) for c in s["contig_id"][:]]
        for j in np.nonzero(inc)[0]:
            ref, alt = text(alleles[j][0]), text(alleles[j][1])
            c = contigs[s["variant_contig"][j]]
            vid = f"{c}:{pos[j]}:{ref}:{alt}"
            want_keys += [(c, vid, ref, alt, ref), (c, vid, ref, alt, alt)]
            want_w += [-v[j] * np.sqrt(m) / 2, v[j] * np.sqrt(m) / 2]
        rows = [ln.rstrip("\n").split("\t") for ln in open(pre + ".eigenvec.allele")]
        check("header", rows[0] == ["#CHROM", "ID", "REF", "ALT", "A1", "PC1", "PC2", "PC3"],
              str(rows[0]))
        keys = [tuple(x[:5]) for x in rows[1:]]
        check(f"rows: REF and ALT of each of the {int(inc.sum())} included variants, IDs "
              "CONTIG:POS:REF:ALT", keys == want_keys, f"{keys[:2]} against {want_keys[:2]}")
        got = np.array([[float(x) for x in r_[5:]] for r_ in rows[1:]])
        want = np.array(want_w)
        e = float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-300)))
        check(f"weights -/+ V sqrt(M_used) / 2 to %g's 6 digits ({e:.2g} <= 5.001e-6)",
              got.shape == want.shape and e <= 5.001e-6)
        hwe = os.path.join(tmp, "h")
        r = subprocess.run(on_cpu([gensvd, "pca", store, "-k", "3", "--loadings", "--plink", hwe,
                                   "--scaler", "hwe", "-o", hwe + ".zarr", "-q"]),
                           capture_output=True, text=True)
        same = r.returncode == 0 and [x[:5] for x in (ln.split("\t") for ln in
                                                      open(hwe + ".eigenvec.allele"))] == \
            [x[:5] for x in rows]
        if same:
            gh = np.array([[float(x) for x in ln.split("\t")[5:]]
                           for ln in open(hwe + ".eigenvec.allele").readlines()[1:]])
            same = np.max(np.abs(np.abs(gh) - np.abs(got)) / np.abs(got).max(axis=0)) < 1e-5
        check("--scaler hwe: the same rows and weights (up to sign)", same, r.stderr[-500:])
        std = os.path.join(tmp, "q")
        r = subprocess.run(on_cpu([gensvd, "pca", store, "-k", "3", "--loadings", "--plink", std,
                                   "--scaler", "standard", "-o", std + ".zarr"]),
                           capture_output=True, text=True)
        check("--scaler standard: no allele file, a warning, the other two files",
              r.returncode == 0 and not os.path.exists(std + ".eigenvec.allele") and
              "no allele weights" in r.stderr and os.path.exists(std + ".eigenvec") and
              os.path.exists(std + ".eigenval"), r.stderr[-500:])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
