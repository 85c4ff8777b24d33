#!/usr/bin/env python3
"""KING's variants by contig (`pdist -m king|ibs0`, `related`; analysis/scan/autosomes.h) against
plink2 2.00a3.5, which counts every contig but X, Y and MT in --make-king and --king-cutoff:

  - HapMap3 as it is (contigs 1..22, 23 = X, 25 = XY, 26 = MT), no --variants: the kinship
    matrix equals plink2 --make-king square bin on the whole .bed to 1e-12 (plink2 drops 23 and
    26 itself and keeps the pseudo-autosomal 25), and `related` keeps plink2's --king-cutoff set;
  - simulated relatives on contigs named every way plink2 knows (1, chr2, X, chrX, x, 23, Y,
    24, MT, M, chrM, 26, XY, 25, 0, GL000192.1, chrUn_gl000220, HLA-A): the kinship equals
    plink2 on the same .bed (--allow-extra-chr) to 1e-12, n_sites equals numpy's jointly called
    sites over the contigs the rule written out again here keeps, and ibs0 uses the same sites;
  - --all-contigs equals plink2 on a .bed whose X/Y/MT contigs are renamed to names plink2
    counts (so it counts every variant), and ibs0 / related take the option too;
  - a store with X alone fails (exit 1) naming the rule and --all-contigs; --all-contigs with a
    distance metric is a usage error (exit 2).
Usage: test_autosomes.py GENSVD
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import zarr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checklib import check, on_cpu, summary  # noqa: E402

GENSVD = sys.argv[1]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORACLE = os.path.join(ROOT, "tests", "pca", "pca_oracle.py")


def run(args, code=0):
    r = subprocess.run(on_cpu(args), capture_output=True, text=True)
    if r.returncode != code:
        raise RuntimeError(f"{' '.join(args)}: exit {r.returncode}\n{r.stderr[-800:]}")
    return r


def gensvd(*args, code=0):
    return run([GENSVD, *args, "-q"], code)


def plink_king(bed, tmp, tag):
    """plink2's square kinship (float64) and its .king.cutoff.in.id at 0.0884."""
    out = os.path.join(tmp, tag)
    common = ["--bfile", bed, "--allow-extra-chr", "--threads", "2", "--out", out]
    run(["plink2", *common, "--make-king", "square", "bin"])
    ids = [x.split("\t")[-1] for x in open(out + ".king.id").read().strip().split("\n")[1:]]
    K = np.fromfile(out + ".king.bin").reshape(len(ids), len(ids))
    run(["plink2", *common, "--king-cutoff", "0.0884"])
    keep = sorted(x.split("\t")[-1]
                  for x in open(out + ".king.cutoff.in.id").read().strip().split("\n")[1:])
    return ids, K, keep


def gensvd_king(store, tmp, tag, *extra):
    z = os.path.join(tmp, tag + ".zarr")
    gensvd("pdist", store, "-m", "king", "--counts", "-o", z, "-f", *extra)
    g = zarr.open_group(z, mode="r")
    keep = sorted(gensvd("related", store, *extra).stdout.strip().split("\n")[1:])
    return list(g["sample_id"][:]), g["distance"][:], g["n_sites"][:], keep


def compare(tag, store, bed, tmp, *extra):
    pids, P, pkeep = plink_king(bed, tmp, tag + "_plink")
    ids, K, N, keep = gensvd_king(store, tmp, tag, *extra)
    diff = float(np.nanmax(np.abs(K - P))) if ids == pids else np.inf
    check(f"{tag}: king = plink2 --make-king square (1e-12)", diff <= 1e-12, f"max diff {diff}")
    check(f"{tag}: related = plink2 --king-cutoff 0.0884", keep == pkeep,
          f"{len(keep)} vs {len(pkeep)} kept")
    print(f"{tag}: {len(ids)} samples, max |gensvd - plink2| = {diff:.3g}, "
          f"{len(keep)} unrelated")
    return N


def plink2_counts(name):
    """The rule written out again: plink2 leaves X, Y and MT out, in any spelling."""
    n = name[3:] if name.lower().startswith("chr") else name
    return n.lower() not in {"x", "23", "y", "24", "mt", "m", "26"}


CONTIGS = ["1", "chr2", "X", "chrX", "x", "23", "Y", "24", "MT", "M", "chrM", "26", "XY", "25",
           "0", "GL000192.1", "chrUn_gl000220", "HLA-A"]


def families(rng, m):
    """Unlinked SNPs: per family g1 x g2 -> A, B (full sibs), A x s -> a1, plus unrelated."""
    p = rng.uniform(0.05, 0.5, m)

    def founder():
        return (rng.random((m, 2)) < p[:, None]).astype(np.int8)

    def child(x, y):
        return np.stack([x[np.arange(m), rng.integers(0, 2, m)],
                         y[np.arange(m), rng.integers(0, 2, m)]], axis=1)

    calls = []
    for _ in range(6):
        g1, g2, s = founder(), founder(), founder()
        a, b = child(g1, g2), child(g1, g2)
        calls += [g1, g2, s, a, b, child(a, s)]
    calls += [founder() for _ in range(30)]
    return np.stack(calls, axis=1)


def write_store(path, gt, contig_names, variant_contig):
    g = zarr.open_group(path, mode="w", zarr_format=2)
    n = gt.shape[1]
    arrays = {"call_genotype": (gt, ["variants", "samples", "ploidy"]),
              "variant_contig": (variant_contig.astype(np.int16), ["variants"]),
              "variant_position": (np.arange(1, gt.shape[0] + 1, dtype=np.int32) * 100,
                                   ["variants"])}
    for name, (x, dims) in arrays.items():
        a = g.create_array(name, shape=x.shape, chunks=x.shape if x.ndim == 1 else (500, n, 2),
                           dtype=x.dtype, fill_value=-1 if name == "call_genotype" else 0)
        a[:] = x
        a.attrs["_ARRAY_DIMENSIONS"] = dims
    for name, vals, dim in [("sample_id", [f"s{i}" for i in range(n)], "samples"),
                            ("contig_id", contig_names, "contigs")]:
        a = g.create_array(name, shape=(len(vals),), dtype=str, chunks=(len(vals),))
        a[:] = np.array(vals)
        a.attrs["_ARRAY_DIMENSIONS"] = [dim]
    alle = g.create_array("variant_allele", shape=(gt.shape[0], 2), dtype="S1",
                          chunks=(gt.shape[0], 2), fill_value=b"")
    alle[:] = np.array([[b"A", b"G"]] * gt.shape[0])
    alle.attrs["_ARRAY_DIMENSIONS"] = ["variants", "alleles"]
    zarr.consolidate_metadata(path)


def bed_of(store, path):
    run([sys.executable, ORACLE, "write-bed", store, path])
    return path


def main():
    if subprocess.run(["which", "plink2"], capture_output=True).returncode != 0:
        print("plink2 not installed (scripts/setup.sh --tests installs it)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        hm = os.path.join(ROOT, "testdata", "realdata", "hapmap3.vcz")
        compare("hapmap3 (1..22, 23, 25, 26)", hm, bed_of(hm, os.path.join(tmp, "hm")), tmp)

        rng = np.random.default_rng(16)
        per = [1500 if plink2_counts(c) and c in ("1", "chr2") else 120 for c in CONTIGS]
        vc = np.repeat(np.arange(len(CONTIGS)), per)
        gt = families(rng, len(vc))
        gt[rng.random(gt.shape[:2]) < 0.01] = -1
        sim = os.path.join(tmp, "contigs.vcz")
        write_store(sim, gt, CONTIGS, vc)
        N = compare("contigs", sim, bed_of(sim, os.path.join(tmp, "contigs")), tmp)
        counted = np.array([plink2_counts(CONTIGS[c]) for c in vc])
        called = (gt >= 0).all(axis=2).astype(np.float64)
        NS = called[counted].T @ called[counted]
        off = ~np.eye(gt.shape[1], dtype=bool)
        check("contigs: n_sites = jointly called sites of the counted contigs (numpy)",
              np.array_equal(N[off], NS[off]))
        attrs = zarr.open_group(os.path.join(tmp, "contigs.zarr"), mode="r").attrs
        check("contigs: attribute M = the counted variants (numpy)",
              attrs["M"] == int(counted.sum()), f"{attrs['M']} vs {int(counted.sum())}")
        miss = int((1 - called[counted]).sum())
        check("contigs: n_missing = missing calls on the counted variants (numpy)",
              attrs["n_missing"] == miss, f"{attrs['n_missing']} vs {miss}")
        z = os.path.join(tmp, "ibs0.zarr")
        gensvd("pdist", sim, "-m", "ibs0", "--counts", "-o", z)
        check("contigs: ibs0 counts the same sites",
              np.array_equal(zarr.open_group(z, mode="r")["n_sites"][:][off], NS[off]))

        # --all-contigs: plink2 counts everything once X, Y and MT have other names
        renamed = os.path.join(tmp, "renamed.vcz")
        write_store(renamed, gt, [c if plink2_counts(c) else f"c_{c}_{i}"
                                  for i, c in enumerate(CONTIGS)], vc)
        N = compare("contigs --all-contigs", sim, bed_of(renamed, os.path.join(tmp, "ren")), tmp,
                    "--all-contigs")
        A = called.T @ called
        check("contigs --all-contigs: n_sites = every jointly called site",
              np.array_equal(N[off], A[off]))

        xonly = os.path.join(tmp, "xonly.vcz")
        write_store(xonly, gt[:200], ["chrX"], np.zeros(200, dtype=int))
        for cmd in (["pdist", xonly, "-m", "king"], ["related", xonly]):
            r = run([GENSVD, *cmd], code=1)
            check(f"{cmd[0]} on X alone: exit 1 naming the rule",
                  "no autosomal variant" in r.stderr and "chrX" in r.stderr and
                  "--all-contigs" in r.stderr, r.stderr)
        r = run([GENSVD, "pdist", xonly, "--all-contigs"], code=2)
        check("--all-contigs with a distance: usage error", "--all-contigs" in r.stderr)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
