#!/usr/bin/env python3
"""gensvd ldprune on simulated genotypes with planted LD blocks (haplotype blocks copied with
noise, two contigs, a few monomorphic variants): the kept set equals the numpy model
(ld_oracle.py) for variant and bp windows, with and without missing calls.  plink2
--indep-pairwise on the complete data is reported, not asserted: in windows with long chains of
pairs above the threshold plink2 removes a few more variants than the documented greedy order
(docs/decisions.md, 2026-11-25 ldprune entry); tests/ldprune/test_ldprune_plink.py asserts equality on
the real data.  Usage: test_ldprune_sim.py GENSVD."""
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


def main(argv):
    gensvd = argv[1]
    plink2 = shutil.which("plink2")
    fails = 0
    # (window, step, r2, compare with plink2)
    cases = [("20", 1, 0.2, True), ("50", 5, 0.3, False), ("100", 100, 0.5, False),
             ("30kb", 1, 0.2, True), ("10kb", 1, 0.5, True), ("200", 20, 0.1, False)]
    with tempfile.TemporaryDirectory() as tmp:
        for label, missing in (("complete", 0.0), ("missing", 0.02)):
            gt, contig, pos = simulate(7, 300, 3000, missing)
            store = os.path.join(tmp, f"{label}.vcz")
            write_store(store, gt, contig, pos)
            G = np.where((gt < 0).any(2), -1, (gt > 0).sum(2)).astype(np.int8)
            ids = None
            if plink2 and not missing:
                prefix = os.path.join(tmp, label)
                subprocess.run([sys.executable, ORACLE, "write-bed", store, prefix], check=True)
                ids = [l.split()[1] for l in open(prefix + ".bim")]
            for window, step, r2, with_plink in cases:
                bp = int(window[:-2]) * 1000 if window.endswith("kb") else 0
                want = ld_oracle.prune(G, contig, pos, 0 if bp else int(window), step, r2, bp)
                got = gensvd_keep(gensvd, store, window, step, r2, len(G))
                ok = np.array_equal(want, got)
                fails += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {label} {window},{step},{r2}: gensvd keeps "
                      f"{got.sum()}, model {want.sum()}, differ at {np.flatnonzero(want != got)[:5]}")
                if with_plink and ids is not None:
                    o = os.path.join(tmp, "p")
                    subprocess.run([plink2, "--bfile", prefix, "--indep-pairwise", window, str(step),
                                    str(r2), "--out", o, "--silent", "--threads", "2"], check=True)
                    pin = set(open(o + ".prune.in").read().split())
                    mine = {ids[i] for i in np.flatnonzero(got)}
                    ok = mine == pin
                    print(f"{'same' if ok else 'note'} {label} {window},{step},{r2} vs plink2: "
                          f"gensvd {len(mine)}, plink2 {len(pin)}, only gensvd "
                          f"{len(mine - pin)}, only plink2 {len(pin - mine)}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
