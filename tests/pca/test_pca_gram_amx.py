#!/usr/bin/env python3
"""gensvd pca --method exact --gram-kernel amx (bf16 hi/lo tiles on Intel AMX) against the
float64 numpy oracle (tests/pca/pca_oracle.py reference) and against --gram-kernel f32.

usage: .venv/zarr3/bin/python tests/pca/test_pca_gram_amx.py GENSVD
Exit 77 (skipped) with a message when this CPU, OS or build cannot run the AMX tiles (gensvd
then refuses --gram-kernel amx with exit 1, which is checked first).

Stores: a simulated one (20,000 variants x 600 samples, 1% missing: three Gram groups, the last
partial, and three Gram tiles per side, the last 88 wide, so the row and sample padding is
exercised), the bundled khuman_chr22 (203 samples) and hapmap3 stores.
Checks, k = 10, singular values s_i = norms of the TSV score columns:
  oracle   max relative error of the top-10 s against numpy float64: amx <= 5e-6 (measured
           0.9-2.1e-6: the bf16 pair keeps ~17 bits of each value and the lo x lo product is
           left out, a small negative bias), f32 <= 1e-6 (what pca_oracles asks of it);
  f32      amx against f32: s within 5e-6, |corr| of each PC's scores >= 0.99999;
  bytes    amx TSV byte-identical for -t 1 and -t 2 and for two chunkings of the same
           genotypes (the tiles run the same instructions whatever thread or block holds them);
  verbose  -v names the kernel: amx as asked, f32 for auto and f32;
  usage    --gram-kernel amx with --gram-f64: exit 2.
Each store's errors are printed (the figures in docs/dev/decisions.md).
Last line "N passed, N failed"; exit 1 on failure.
"""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checklib import check, summary  # noqa: E402
from gramlib import REAL, oracle_s, run, scores  # noqa: E402


def main():
    g = sys.argv[1]
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as t:
        sim = os.path.join(t, "sim.vcz")
        sim2 = os.path.join(t, "sim_chunks.vcz")
        common = ["-m", "20000", "-n", "600", "-K", "3", "--missing", "0.01", "--seed", "7", "-q"]
        for path, chunks in ((sim, "1000,10000"), (sim2, "777,250")):
            p = run([g, "simulate", path, "-c", chunks] + common)
            if p.returncode != 0:
                print(f"FAIL simulate: {p.stderr}")
                return 1
        probe = run([g, "pca", sim, "-m", "exact", "--gram-kernel", "amx", "-q"])
        if probe.returncode != 0:
            if probe.returncode == 1 and "cannot run here" in probe.stderr:
                print("skipped: " + probe.stderr.strip())
                return 77
            print(f"FAIL --gram-kernel amx: exit {probe.returncode}: {probe.stderr}")
            return 1
        for store in (sim, os.path.join(REAL, "khuman_chr22.vcz"), os.path.join(REAL, "hapmap3.vcz")):
            name = os.path.basename(store)
            ref = oracle_s(store)
            amx_text, amx = scores(g, store, "--gram-kernel", "amx", "-t", "2")
            _, f32 = scores(g, store, "--gram-kernel", "f32", "-t", "2")
            s_amx = np.sqrt((amx**2).sum(0))
            s_f32 = np.sqrt((f32**2).sum(0))
            e_amx = np.max(np.abs(s_amx - ref) / ref)
            e_f32 = np.max(np.abs(s_f32 - ref) / ref)
            print(f"     {name}: top-10 s max rel err vs numpy float64: amx {e_amx:.3g}, f32 {e_f32:.3g}")
            check(f"{name} amx vs numpy s <= 5e-6", e_amx <= 5e-6, f"{e_amx:.3g}")
            check(f"{name} f32 vs numpy s <= 1e-6", e_f32 <= 1e-6, f"{e_f32:.3g}")
            e = np.max(np.abs(s_amx - s_f32) / s_f32)
            check(f"{name} amx vs f32 s <= 5e-6", e <= 5e-6, f"{e:.3g}")
            corr = min(abs(np.corrcoef(amx[:, i], f32[:, i])[0, 1]) for i in range(10))
            check(f"{name} amx vs f32 |corr| of scores >= 0.99999", corr >= 0.99999, f"{corr:.8f}")
            t1, _ = scores(g, store, "--gram-kernel", "amx", "-t", "1")
            check(f"{name} amx -t 1 and -t 2 byte-identical", t1 == amx_text)
        a, _ = scores(g, sim, "--gram-kernel", "amx", "-t", "2")
        b, _ = scores(g, sim2, "--gram-kernel", "amx", "-t", "2")
        check("amx byte-identical for chunks 1000,10000 and 777,250", a == b)
        for kernel, want in (("amx", "Gram kernel: amx"), ("f32", "Gram kernel: f32"), ("auto", "Gram kernel: f32")):
            p = run([g, "pca", sim, "-m", "exact", "--gram-kernel", kernel, "-v", "-o", os.path.join(t, "v.zarr"), "-f"])
            check(f"-v with --gram-kernel {kernel} says '{want}'", p.returncode == 0 and want in p.stderr, p.stderr[-300:])
        p = run([g, "pca", sim, "-m", "exact", "--gram-kernel", "amx", "--gram-f64", "-q"])
        check("--gram-kernel amx --gram-f64: exit 2", p.returncode == 2 and "cannot be combined" in p.stderr, p.stderr)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
