#!/usr/bin/env python3
"""Check `gensvd simulate` against the Balding-Nichols model with zarr-python and numpy.

Runs gensvd simulate into a temporary folder, opens the result with zarr.open_consolidated
and checks: the VCF-Zarr layout (arrays, dtypes, shapes, _ARRAY_DIMENSIONS, sample ids,
contiguous populations, call_genotype_mask equal to call_genotype < 0, no fill values on either
as bio2zarr writes them); that observed allele frequencies match the recorded population
frequencies (standardised residuals ~ N(0, 1)); the missing rate; that the population
frequencies scatter around the ancestral ones with variance Fst * p (1 - p); and that
ancestral frequencies lie in [0.05, 0.95] with mean 0.5.  Last line: "N passed, N failed".
Usage: check_simulate.py GENSVD
"""
import json
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import zarr

warnings.filterwarnings("ignore")
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what)


def main():
    gensvd = sys.argv[1]
    M, N, K, F, R = 4000, 300, 3, 0.1, 0.02
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "sim.vcz")
        subprocess.run([gensvd, "simulate", out, "-m", str(M), "-n", str(N), "-K", str(K),
                        "--fst", str(F), "--missing", str(R), "--seed", "11",
                        "--chunks", "700,64"], check=True)
        g = zarr.open_consolidated(out, mode="r")
        gt = np.asarray(g["call_genotype"][:])
        check(gt.dtype == np.int8 and gt.shape == (M, N, 2), f"call_genotype {gt.dtype} {gt.shape}")
        dims = dict(g["call_genotype"].attrs).get("_ARRAY_DIMENSIONS")
        check(dims == ["variants", "samples", "ploidy"], f"dims {dims}")
        ids = list(g["sample_id"][:])
        check(len(ids) == N and len(set(ids)) == N, "unique sample ids")
        pops = [str(p) for p in g["sample_population"][:]]
        names = sorted(set(pops))
        check(len(names) == K, f"{len(names)} populations")
        # contiguous, near-equal blocks
        idx = np.array([names.index(p) for p in pops])
        check(np.all(np.diff(idx) >= 0), "populations are contiguous blocks")
        sizes = np.bincount(idx)
        check(sizes.max() - sizes.min() <= 1, f"population sizes {sizes}")
        pos = np.asarray(g["variant_position"][:])
        check(pos.shape == (M,) and np.all(np.diff(pos) > 0), "increasing positions")
        check(g["variant_allele"].shape == (M, 2), "variant_allele shape")

        miss = gt < 0
        check(np.array_equal(miss[..., 0], miss[..., 1]), "missing calls have all alleles -1")
        # call_genotype_mask as bio2zarr writes it: bool, the genotypes' chunks and dimensions,
        # true exactly where an allele is missing; neither array has a fill value
        mask = g["call_genotype_mask"]
        check(mask.dtype == np.bool_ and mask.shape == gt.shape and
              mask.chunks == g["call_genotype"].chunks, f"mask {mask.dtype} {mask.chunks}")
        check(np.array_equal(np.asarray(mask[:]), miss), "mask == (call_genotype < 0)")
        check(dict(mask.attrs).get("_ARRAY_DIMENSIONS") == ["variants", "samples", "ploidy"],
              "mask dims")
        for name in ("call_genotype", "call_genotype_mask"):
            fv = json.loads(open(os.path.join(out, name, ".zarray")).read())["fill_value"]
            check(fv is None, f"{name} fill_value {fv} (bio2zarr: null)")
        rate = miss[..., 0].mean()
        sd = np.sqrt(R * (1 - R) / (M * N))
        check(abs(rate - R) < 5 * sd, f"missing rate {rate} vs {R}")
        check(set(np.unique(gt)) <= {-1, 0, 1}, "allele values")

        pf = np.asarray(g["variant_population_frequency"][:])
        anc = np.asarray(g["variant_ancestral_frequency"][:])
        check(pf.shape == (M, K) and anc.shape == (M,), "frequency arrays")
        check(anc.min() >= 0.05 and anc.max() <= 0.95, "ancestral range")
        check(abs(anc.mean() - 0.5) < 0.02, f"ancestral mean {anc.mean()}")
        # Balding-Nichols: E[p_k] = p, Var(p_k) = F p (1 - p)
        dev = pf - anc[:, None]
        check(abs(dev.mean()) < 0.01, f"population frequencies unbiased ({dev.mean()})")
        ratio = (dev ** 2).sum() / (K * (anc * (1 - anc)).sum())
        check(abs(ratio - F) < 0.1 * F, f"Fst estimate {ratio} vs {F}")
        # observed allele frequency per (variant, population) vs the recorded p_k
        alt = np.where(gt > 0, 1, 0)
        called = ~miss
        z_all = []
        for k in range(K):
            cols = idx == k
            n_alleles = called[:, cols, :].sum(axis=(1, 2))
            obs = (alt[:, cols, :] * called[:, cols, :]).sum(axis=(1, 2)) / np.maximum(n_alleles, 1)
            p = pf[:, k]
            ok = (p > 0.02) & (p < 0.98) & (n_alleles > 50)
            z = (obs[ok] - p[ok]) / np.sqrt(p[ok] * (1 - p[ok]) / n_alleles[ok])
            z_all.append(z)
        z = np.concatenate(z_all)
        check(abs(z.mean()) < 0.05, f"residual mean {z.mean()}")
        check(abs(z.var() - 1) < 0.08, f"residual variance {z.var()}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
