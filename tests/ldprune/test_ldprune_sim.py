#!/usr/bin/env python3
"""gensvd ldprune on simulated genotypes with planted LD blocks (haplotype blocks copied with
noise, two contigs, a few monomorphic variants), three seeds, with and without 2% missing
calls: for variant windows (step 1 to step = window) and kb windows, the kept set equals both
plink2 --indep-pairwise (run on a .bed written from the same store) and the numpy model
(ld_oracle.py, exact arithmetic).  Without plink2 only the model is asserted.
Usage: test_ldprune_sim.py GENSVD."""
import os, shutil, subprocess, sys, tempfile

import numpy as np
import zarr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ld_oracle  # noqa: E402

ORACLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pca", "pca_oracle.py")


def simulate(seed, N, M, missing):
    rng = np.random.default_rng(seed)
    hap = np.zeros((M, 2 * N), dtype=np.int8)
    j = 0
    while j < M:
        L = int(rng.integers(3, 30))
        latent = rng.random(2 * N) < rng.uniform(0.05, 0.5)
        for v in range(j, min(M, j + L)):
            noise = rng.uniform(0.0, 0.4)
            flip = rng.random(2 * N) < noise
            freq = rng.uniform(0.02, 0.5)
            hap[v] = np.where(flip, rng.random(2 * N) < freq, latent)
        j += L
    hap[rng.choice(M, 15, replace=False)] = 0  # monomorphic variants
    gt = np.stack([hap[:, :N], hap[:, N:]], axis=2).astype(np.int8)
    if missing:
        gt[rng.random((M, N)) < missing] = -1
    contig = np.zeros(M, dtype=np.int8)
    contig[M // 2:] = 1
    pos = np.zeros(M, dtype=np.int32)
    for c in (0, 1):
        idx = np.where(contig == c)[0]
        pos[idx] = np.cumsum(rng.integers(1, 3000, len(idx)))
    return gt, contig, pos


def write_store(path, gt, contig, pos):
    g = zarr.open_group(path, mode="w", zarr_format=2)
    M, N, _ = gt.shape
    g.create_array("call_genotype", data=gt, chunks=(500, N, 2),
                   attributes={"_ARRAY_DIMENSIONS": ["variants", "samples", "ploidy"]})
    g.create_array("variant_contig", data=contig, chunks=(500,),
                   attributes={"_ARRAY_DIMENSIONS": ["variants"]})
    g.create_array("variant_position", data=pos, chunks=(500,),
                   attributes={"_ARRAY_DIMENSIONS": ["variants"]})
    ids = np.array([f"S{i}" for i in range(N)], dtype=object)
    g.create_array("sample_id", shape=(N,), dtype=str, chunks=(N,),
                   attributes={"_ARRAY_DIMENSIONS": ["samples"]})[:] = ids
    g.create_array("contig_id", shape=(2,), dtype=str, chunks=(2,),
                   attributes={"_ARRAY_DIMENSIONS": ["contigs"]})[:] = np.array(["1", "2"],
                                                                               dtype=object)
    zarr.consolidate_metadata(path)


def gensvd_keep(gensvd, store, window, step, r2, M):
    out = subprocess.run([gensvd, "ldprune", store, "--window", window, "--step", str(step),
                          "--r2", str(r2), "--format", "tsv", "-t", "2"],
                         check=True, capture_output=True, text=True).stdout
    keep = np.zeros(M, bool)
    for line in out.splitlines()[1:]:
        f = line.split("\t")
        keep[int(f[0])] = f[3] == "1"
    return keep


def plink_keep(plink2, prefix, ids, window, step, r2, out):
    subprocess.run([plink2, "--bfile", prefix, "--indep-pairwise", window, str(step), str(r2),
                    "--out", out, "--silent", "--threads", "2"], check=True)
    pin = set(open(out + ".prune.in").read().split())
    return np.array([v in pin for v in ids])


def main(argv):
    gensvd = argv[1]
    plink2 = shutil.which("plink2")
    if not plink2:
        print("plink2 not found: the numpy model only")
    fails = 0
    cases = [("20", 1, 0.2), ("50", 5, 0.3), ("100", 100, 0.5), ("30kb", 1, 0.2),
             ("10kb", 1, 0.5), ("200", 20, 0.1)]
    with tempfile.TemporaryDirectory() as tmp:
        for seed in (7, 11, 23):
            for label, missing in (("complete", 0.0), ("missing", 0.02)):
                gt, contig, pos = simulate(seed, 300, 3000, missing)
                name = f"s{seed}_{label}"
                store = os.path.join(tmp, f"{name}.vcz")
                write_store(store, gt, contig, pos)
                G = np.where((gt < 0).any(2), -1, (gt > 0).sum(2)).astype(np.int8)
                if plink2:
                    prefix = os.path.join(tmp, name)
                    subprocess.run([sys.executable, ORACLE, "write-bed", store, prefix],
                                   check=True)
                    ids = [l.split()[1] for l in open(prefix + ".bim")]
                for window, step, r2 in cases:
                    bp = int(window[:-2]) * 1000 if window.endswith("kb") else 0
                    got = gensvd_keep(gensvd, store, window, step, r2, len(G))
                    want = {"model": ld_oracle.prune(G, contig, pos, 0 if bp else int(window),
                                                     step, r2, bp)}
                    if plink2:
                        want["plink2"] = plink_keep(plink2, prefix, ids, window, step, r2,
                                                    os.path.join(tmp, "p"))
                    for who, w in want.items():
                        ok = np.array_equal(w, got)
                        fails += not ok
                        print(f"{'ok  ' if ok else 'FAIL'} {name} {window},{step},{r2}: gensvd "
                              f"keeps {got.sum()}, {who} {w.sum()}, differ at "
                              f"{np.flatnonzero(w != got)[:5]}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
