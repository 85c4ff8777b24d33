#!/usr/bin/env python3
"""gensvd pca with the int8 Gram (--gram-kernel i8, and what -m auto picks on large data; AMX
int8 tiles, or AVX-512 VNNI where the CPU has no AMX, or AVX2) against the float64 numpy oracle
(tests/pca/pca_oracle.py reference) and --gram-kernel f32.

usage: .venv/zarr3/bin/python tests/pca/test_pca_gram_i8.py GENSVD
Exit 77 (skipped) with a message when this CPU, OS or build has no engine (gensvd then
refuses --gram-kernel i8 with exit 1, which is checked first).

Stores: a simulated one (20,000 variants x 600 samples, 1% missing: three Gram groups, three
tiles per side), the same genotypes in other chunks, a haploid one, the bundled khuman_chr22
(203 samples) and hapmap3 stores, and for the choice of -m auto one large enough for it
(90,000 x 1,500: variants x samples^2 >= 2e11).
Checks, k = 10, singular values s_i = norms of the TSV score columns:
  oracle   max relative error of the top-10 s against numpy float64 within the bound gensvd
           reports (1 - sqrt(1 - 2^-14), about 3.05e-5: the two-digit weights; the missing
           calls' rounding adds ~1e-6, measured) and, diploid, below 1e-5 (measured 1.3-5.4e-6;
           the haploid store's 300 allele counts give few distinct weights: 1.8e-5);
  f32      i8 against f32: |corr| of the population PCs' scores (PC1-2) >= 0.9999;
  bytes    TSV byte-identical for -t 1, 2 and 3, for two chunkings of the same genotypes and
           for each engine this CPU runs (GENSVD_CPU_LEVEL=avx512: VNNI, avx2: AVX2);
  auto     -m auto on the large store takes i8 (-v), writes gram_error = 2^-14 and
           singular_value_error_bound = 1 - sqrt(1 - 2^-14) in the Zarr attributes, and agrees
           with -m exact (f32) within that bound; -m exact and --tol 1e-5 keep f32, and so
           does a CPU with only the AVX2 engine (not faster than float32);
  refuse   --gram-kernel i8 on tetraploid dosages: exit 1 naming the reason; with
           --gram-f64: exit 2.
Last line "N passed, N failed"; exit 1 on failure.
"""
import json
import math
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checklib import check, summary  # noqa: E402
from gramlib import REAL, oracle_s, run, scores  # noqa: E402

WEIGHT_ERR = 2.0**-14
BOUND = 1 - math.sqrt(1 - WEIGHT_ERR)


def sv(x):
    return np.sqrt((x**2).sum(0))


def attrs(store):
    for name in (".zattrs", "zarr.json"):
        path = os.path.join(store, name)
        if os.path.exists(path):
            with open(path) as f:
                a = json.load(f)
            return a.get("attributes", a)
    return {}


def simulate(g, path, *args):
    p = run([g, "simulate", path, "-K", "3", "--seed", "7", "-q"] + list(args))
    if p.returncode != 0:
        raise RuntimeError(f"simulate {path}: {p.stderr}")


def main():
    g = sys.argv[1]
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as t:
        sim, sim2 = os.path.join(t, "sim.vcz"), os.path.join(t, "sim_chunks.vcz")
        hap, tet, big = (os.path.join(t, x) for x in ("hap.vcz", "tet.vcz", "big.vcz"))
        common = ["-m", "20000", "-n", "600", "--missing", "0.01"]
        simulate(g, sim, "-c", "1000,10000", *common)
        simulate(g, sim2, "-c", "777,250", *common)
        probe = run([g, "pca", sim, "-m", "exact", "--gram-kernel", "i8", "-q"])
        if probe.returncode != 0:
            if probe.returncode == 1 and "cannot run here" in probe.stderr:
                print("skipped: " + probe.stderr.strip())
                return 77
            print(f"FAIL --gram-kernel i8: exit {probe.returncode}: {probe.stderr}")
            return 1
        simulate(g, hap, "-m", "5000", "-n", "300", "-p", "1", "--missing", "0.02")
        simulate(g, tet, "-m", "500", "-n", "50", "-p", "4")
        simulate(g, big, "-m", "90000", "-n", "1500", "--missing", "0.01", "-c", "10000,1500")
        for store in (sim, hap, os.path.join(REAL, "khuman_chr22.vcz"), os.path.join(REAL, "hapmap3.vcz")):
            name = os.path.basename(store)
            ref = oracle_s(store)
            i8_text, i8 = scores(g, store, "--gram-kernel", "i8", "-t", "2")
            _, f32 = scores(g, store, "--gram-kernel", "f32", "-t", "2")
            e = np.max(np.abs(sv(i8) - ref) / ref)
            print(f"     {name}: top-10 s max rel err vs numpy float64: i8 {e:.3g} (bound {BOUND:.3g})")
            check(f"{name} i8 vs numpy s within the reported bound", e <= BOUND, f"{e:.3g}")
            if store != hap:  # 300 haploid allele counts: few distinct weights, errors add up
                check(f"{name} i8 vs numpy s <= 1e-5", e <= 1e-5, f"{e:.3g}")
            corr = min(abs(np.corrcoef(i8[:, i], f32[:, i])[0, 1]) for i in range(2))
            check(f"{name} i8 vs f32 |corr| PC1-2 >= 0.9999", corr >= 0.9999, f"{corr:.8f}")
            for threads in ("1", "3"):
                other, _ = scores(g, store, "--gram-kernel", "i8", "-t", threads)
                check(f"{name} i8 -t {threads} and -t 2 byte-identical", other == i8_text)
        a, _ = scores(g, sim, "--gram-kernel", "i8", "-t", "2")
        b, _ = scores(g, sim2, "--gram-kernel", "i8", "-t", "2")
        check("i8 byte-identical for chunks 1000,10000 and 777,250", a == b)
        # every engine this CPU runs (GENSVD_CPU_LEVEL caps the choice): the same bytes
        for level, engine in (("avx512", "AVX-512 VNNI"), ("avx2", "AVX2")):
            os.environ["GENSVD_CPU_LEVEL"] = level
            try:
                p = run([g, "pca", sim, "-m", "exact", "-k", "10", "--gram-kernel", "i8", "-t", "2",
                         "--format", "tsv", "-v"])
                q = run([g, "pca", big, "-k", "10", "-v", "-o", os.path.join(t, "capped.zarr"), "-f"])
            finally:
                del os.environ["GENSVD_CPU_LEVEL"]
            if p.returncode == 0 and engine in p.stderr:
                check(f"i8 on the {engine} engine: the same bytes", p.stdout == a)
                if level == "avx2":
                    check("-m auto with only the AVX2 engine keeps f32 (not faster)",
                          q.returncode == 0 and "Gram kernel: f32" in q.stderr, q.stderr[-300:])
            else:
                print(f"     the {engine} engine does not run here: {p.stderr.strip()[-200:]}")

        out = os.path.join(t, "auto.zarr")
        p = run([g, "pca", big, "-k", "10", "-v", "-o", out, "-f"])
        check("-m auto on 90,000 x 1,500 takes i8", p.returncode == 0 and "Gram kernel: i8" in p.stderr, p.stderr[-400:])
        at = attrs(out)
        check("auto: gram_error attribute is 2^-14", abs(at.get("gram_error", 0) - WEIGHT_ERR) < 1e-9, str(at.get("gram_error")))
        bounds = at.get("singular_value_error_bound", [])
        check("auto: singular_value_error_bound is 1 - sqrt(1 - 2^-14)", len(bounds) == 10 and all(abs(x - BOUND) < 1e-9 for x in bounds), str(bounds))
        _, auto = scores(g, big, method="auto")
        _, exact = scores(g, big)
        e = np.max(np.abs(sv(auto) - sv(exact)) / sv(exact))
        print(f"     big.vcz: -m auto (i8) against -m exact (f32): {e:.3g}")
        check("auto (i8) against exact (f32): s within the bound", e <= BOUND, f"{e:.3g}")
        for extra, why in ((["-m", "exact"], "-m exact"), (["--tol", "1e-5"], "--tol 1e-5")):
            p = run([g, "pca", big, "-k", "10", "-v", "-o", out, "-f"] + extra)
            check(f"{why} keeps f32", p.returncode == 0 and "Gram kernel: f32" in p.stderr, p.stderr[-300:])

        p = run([g, "pca", tet, "-m", "exact", "--gram-kernel", "i8", "-q"])
        check("--gram-kernel i8 on tetraploid dosages: exit 1", p.returncode == 1 and "dosages 0..2" in p.stderr, p.stderr)
        p = run([g, "pca", sim, "-m", "exact", "--gram-kernel", "i8", "--gram-f64", "-q"])
        check("--gram-kernel i8 --gram-f64: exit 2", p.returncode == 2 and "cannot be combined" in p.stderr, p.stderr)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
