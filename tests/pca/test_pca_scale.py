#!/usr/bin/env python3
"""gensvd pca at scale: the default method's accuracy and stop rule, determinism of the
all-thread passes, the spilled cache, many samples.

usage: .venv/zarr3/bin/python tests/pca/test_pca_scale.py GENSVD [big]
  default cases (~30 s):
    real     hapmap3 and khuman_chr22 (testdata/realdata): the default randomized method (8
             passes at most) converges (attribute converged: true) with every top-10 singular
             value within 1e-4 relative of --method exact and |corr| >= 0.999 for every PC whose
             eigenvalue is separated from its neighbours by more than 1%
    bulk     a simulated store with a flat noise bulk (3 populations, Fst 0.05: two population
             PCs, then eigenvalues within 0.4% of each other): the population PCs within 1e-4
             and |corr| >= 0.999 of exact; every reported bound is honest (the true relative
             error of each singular value against exact is at most its bound); the run says it
             did not converge (summary and attributes) and exits 0; the error estimates are
             within 0.25-4x of the true errors and never above the bounds; --stop estimate
             converges with every true error within --tol; the summary names PC1-2 converged
             and PC3-10 estimates (--accuracy fast, the default, byte-identical to no option);
             --accuracy bulk (krylov) converges with every true error within 1e-4, refuses
             --stop and --power-iter, and -m auto takes krylov with it above 5,000 samples
    threads  byte-identical TSV for --threads 1, 2, 3 and for two chunkings of the same data
    many     N = 100,000 samples x 300 variants end to end against a float64 numpy SVD of the
             standardised matrix (variant side: 300 x 100,000): population PCs within 1e-6,
             every bound honest
    options  --stop subspace, --power-iter, bad --stop / --cache-dir / --tol / --pass-kernel
             values (exit 2), a cache directory that cannot be written (warning, same bytes)
    plan     exact's --memory plan covers its peak RSS (3000 samples) and refuses a cap below it;
             krylov's plan counts a block per pass, keeps the cache and refuses a cap below its basis
    kernels  --pass-kernel i8 (int8 AMX tiles on the 2-bit codes) against f32 and exact on the
             bulk store and hapmap3: singular values within 2e-6 of f32's after the same passes
             and of exact where both converged, population PCs |corr| >= 0.99999, byte-identical
             TSV for --threads 1 and 3, with and without the cache; where the tiles cannot run,
             exit 1 with the reason (and the rest is skipped)
  big (label slow, ~40 s): a 100,000 x 20,000 store whose 2-bit cache is 500 MB: --cache 64M
             (spilling ~436 MB to the cache directory) gives byte-identical output to the
             in-memory cache, and no spill file is left in the cache directory; --memory 400M
             (the whole run: basis, buffers, pipeline, cache) gives the same bytes under a
             400 MiB peak RSS
The oracles are gensvd --method exact (itself checked against numpy in pca_oracles) and numpy.
Last line "N passed, N failed"; exit 1 on failure.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import zarr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checklib import check, on_cpu, summary  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REAL = os.path.join(HERE, "..", "..", "testdata", "realdata")
# Both methods multiply float32 blocks (accumulated in float64), so they agree to about 1e-7 even
# when the iteration has converged to rounding (bound ~1e-15): the bounds measure convergence on
# the operator as computed, and are compared with the true error above this floor.
FLOOR = 1e-6


def run(g, *args, ok_codes=(0,)):
    p = subprocess.run(on_cpu([g, *args]), capture_output=True, text=True)
    if p.returncode not in ok_codes:
        print(f"command failed ({p.returncode}): {' '.join(map(str, [g, *args]))}\n{p.stderr}")
    return p


def pca_zarr(g, store, out, *extra):
    p = run(g, "pca", store, "-k", 10, "-o", out, "--force", *extra)
    z = zarr.open_group(out, mode="r")
    return p, z, dict(z.attrs)


def separated(s, rel=0.01):
    """PCs whose eigenvalue s^2 differs from both neighbours by more than rel (relative)."""
    lam = np.asarray(s) ** 2
    out = []
    for i in range(len(lam)):
        gaps = []
        if i > 0:
            gaps.append((lam[i - 1] - lam[i]) / lam[i])
        if i + 1 < len(lam):
            gaps.append((lam[i] - lam[i + 1]) / lam[i])
        out.append(min(gaps) > rel)
    return np.array(out)


def corr(a, b):
    return np.array([abs(np.corrcoef(a[:, i], b[:, i])[0, 1]) for i in range(a.shape[1])])


def compare_default(g, tmp, name, store, extra=()):
    """Default method vs exact; returns (errors, |corr|, bounds, attrs)."""
    _, ze, _ = pca_zarr(g, store, os.path.join(tmp, name + "_exact.zarr"), "-m", "exact", *extra)
    p, zr, attrs = pca_zarr(g, store, os.path.join(tmp, name + "_rand.zarr"), "-m", "randomized",
                            *extra)
    check(f"{name}: exit 0", p.returncode == 0, p.stderr[-300:])
    se = ze["sample_pca_singular_value"][:]
    sr = zr["sample_pca_singular_value"][:]
    err = np.abs(sr - se) / se
    c = corr(ze["sample_pca_projection"][:], zr["sample_pca_projection"][:])
    bounds = np.array(attrs["singular_value_error_bound"])
    check(f"{name}: at most 8 passes", attrs["iterations"] <= 8, str(attrs["iterations"]))
    check(f"{name}: every bound is honest (true error <= bound + {FLOOR:g})",
          bool(np.all(err <= bounds + FLOOR)), f"errors {err} bounds {bounds}")
    return se, err, c, bounds, attrs, p


def case_real(g, tmp):
    for name in ("hapmap3", "khuman_chr22"):
        store = os.path.join(REAL, name + ".vcz")
        se, err, c, bounds, attrs, _ = compare_default(g, tmp, name, store)
        check(f"{name}: converged within 8 passes", attrs["converged"] is True,
              f"converged {attrs['converged']} after {attrs['iterations']}, bounds {bounds}")
        check(f"{name}: top-10 singular values within 1e-4 of exact", bool(np.all(err <= 1e-4)),
              f"max {err.max():.3g}")
        sep = separated(se)
        check(f"{name}: |corr| >= 0.999 for the {sep.sum()} separated PCs",
              bool(np.all(c[sep] >= 0.999)), f"corr {c} separated {sep}")


def case_bulk(g, tmp):
    store = os.path.join(tmp, "bulk.vcz")
    run(g, "simulate", store, "-m", 12000, "-n", 4000, "-K", 3, "--fst", 0.05, "--missing", 0.01,
        "--seed", 7, "--force", "-c", "1000,4000")
    se, err, c, bounds, attrs, p = compare_default(g, tmp, "bulk", store)
    lam = se ** 2
    check("bulk: flat noise bulk (s3..s10 within 1% of each other)",
          (lam[2] - lam[9]) / lam[2] < 0.02, str(se))
    check("bulk: population PCs 1-2 within 1e-4 of exact", bool(np.all(err[:2] <= 1e-4)), str(err))
    check("bulk: population PCs 1-2 |corr| >= 0.999", bool(np.all(c[:2] >= 0.999)), str(c))
    check("bulk: population PCs' bounds within --tol", bool(np.all(bounds[:2] <= 1e-4)),
          str(bounds))
    check("bulk: not converged in 8 passes, said in the attributes",
          attrs["converged"] is False and attrs["stop"] == "bound" and len(bounds) == 10,
          str(attrs.get("converged")))
    check("bulk: not converged, said in the summary",
          "NOT converged" in p.stderr and "--max-iter" in p.stderr, p.stderr[-400:])
    # --accuracy fast (the default) names the separated PCs as converged, the bulk as estimates
    summary_line = next((x for x in p.stderr.splitlines() if "accuracy fast" in x), "")
    check("bulk: the default's summary: PC1-2 converged, PC3-10 estimates",
          "PC1-2 converged" in summary_line and "PC3-10 NOT converged" in summary_line
          and "estimates" in summary_line and "--accuracy bulk" in summary_line, summary_line)
    est = np.array(attrs["singular_value_error_estimate"])
    big = err > 100 * FLOOR  # the bulk PCs after 8 passes (~5e-3)
    ratio = est[big] / err[big]
    check("bulk: error estimates never above the bounds, the bulk's within 0.25-4x of the true "
          "errors", len(est) == 10 and bool(np.all(est <= bounds)) and big.sum() >= 6
          and bool(np.all((ratio >= 0.25) & (ratio <= 4))), f"estimates {est} errors {err}")
    check("bulk: the summary prints the estimates",
          "singular value error estimates (extrapolated, not bounds):" in p.stderr, p.stderr[-400:])
    # --stop estimate: stops when the estimates are within --tol, well before the bounds are,
    # with every true error within --tol
    _, ze, attrs3 = pca_zarr(g, store, os.path.join(tmp, "bulk_est.zarr"), "-m", "randomized",
                             "--stop", "estimate", "--max-iter", 80)
    e3 = np.abs(ze["sample_pca_singular_value"][:] - se) / se
    check("bulk: --stop estimate --max-iter 80 converges with every true error within 1e-4",
          attrs3["converged"] is True and attrs3["stop"] == "estimate"
          and bool(np.all(e3 <= 1e-4)) and attrs3["iterations"] < 80,
          f"{attrs3['converged']} {attrs3['iterations']} {e3}")
    # --accuracy bulk: every singular value within 1e-4 of exact, krylov with the estimate stop;
    # --accuracy fast is the default (the same bytes)
    pb, zb, attrs4 = pca_zarr(g, store, os.path.join(tmp, "bulk_bulk.zarr"), "-m", "krylov",
                              "--accuracy", "bulk")
    e4 = np.abs(zb["sample_pca_singular_value"][:] - se) / se
    check("bulk: --accuracy bulk: every singular value within 1e-4 of exact, stop estimate, "
          "converged in fewer than 60 passes",
          attrs4["converged"] is True and attrs4["stop"] == "estimate"
          and bool(np.all(e4 <= 1e-4)) and attrs4["iterations"] < 60,
          f"{attrs4['converged']} {attrs4['stop']} {attrs4['iterations']} {e4}")
    check("bulk: --accuracy bulk's summary says every value is within 1e-4",
          "accuracy bulk: every singular value within 0.0001" in pb.stderr, pb.stderr[-400:])
    fast = [run(g, "pca", store, "-k", 10, "-m", "randomized", *a, "-q").stdout
            for a in ((), ("--accuracy", "fast"))]
    check("bulk: --accuracy fast is the default (byte-identical TSV)", fast[0] == fast[1])
    for extra in (("--stop", "bound"), ("--power-iter", 5)):
        q = run(g, "pca", store, "--accuracy", "bulk", *extra, ok_codes=(2,))
        check(f"bulk: --accuracy bulk with {extra[0]}: exit 2 naming it",
              q.returncode == 2 and extra[0] in q.stderr, q.stderr)
    wide = os.path.join(tmp, "wide.vcz")
    run(g, "simulate", wide, "-m", 1500, "-n", 6000, "-K", 3, "--fst", 0.05, "--seed", 9,
        "--force")
    _, _, attrs5 = pca_zarr(g, wide, os.path.join(tmp, "wide_bulk.zarr"), "--accuracy", "bulk")
    check("bulk: -m auto with --accuracy bulk above 5,000 samples runs krylov to the estimates",
          attrs5["method"] == "krylov" and attrs5["stop"] == "estimate", str(attrs5.get("method")))
# more passes reach the bulk too (the stop rule is honest, not unreachable)
    _, zr, attrs2 = pca_zarr(g, store, os.path.join(tmp, "bulk_more.zarr"), "-m", "randomized",
                             "--max-iter", 80, "--tol", 1e-3)
    e2 = np.abs(zr["sample_pca_singular_value"][:] - se) / se
    check("bulk: --max-iter 80 --tol 1e-3 converges with errors within the bounds",
          attrs2["converged"] is True and bool(np.all(e2 <= 1e-3)),
          f"{attrs2['converged']} {attrs2['iterations']} {e2.max():.3g}")
    return store


def case_threads(g, tmp, store):
    outs = []
    for t in (1, 2, 3):
        outs.append(run(g, "pca", store, "-k", 10, "-m", "randomized", "-t", t, "-q").stdout)
    check("threads: TSV identical for --threads 1, 2, 3", outs[0] == outs[1] == outs[2])
    other = os.path.join(tmp, "bulk_chunks.vcz")
    run(g, "simulate", other, "-m", 12000, "-n", 4000, "-K", 3, "--fst", 0.05, "--missing", 0.01,
        "--seed", 7, "--force", "-c", "777,1500")
    o2 = run(g, "pca", other, "-k", 10, "-m", "randomized", "-t", 2, "-q").stdout
    check("threads: TSV identical for chunks 1000x4000 and 777x1500", o2 == outs[0])
    ex = [run(g, "pca", store, "-k", 10, "-m", "exact", "-t", t, "-q").stdout for t in (1, 3)]
    check("threads: exact TSV identical for --threads 1 and 3", ex[0] == ex[1])


def case_many(g, tmp):
    store = os.path.join(tmp, "many.vcz")
    run(g, "simulate", store, "-m", 300, "-n", 100000, "-K", 3, "--fst", 0.1, "--missing", 0.01,
        "--seed", 3, "--force", "-c", "100,100000")
    p, z, attrs = pca_zarr(g, store, os.path.join(tmp, "many.zarr"))
    check("many: 100,000 samples, exit 0", p.returncode == 0, p.stderr[-300:])
    gt = zarr.open_group(store, mode="r")["call_genotype"][:]
    miss = (gt < 0).any(axis=2)
    d = (gt > 0).sum(axis=2).astype(np.float64)
    n = (~miss).sum(axis=1)
    mu = np.where(miss, 0, d).sum(axis=1) / n
    sd = np.sqrt(mu / 2 * (1 - mu / 2))
    keep = sd > 0
    zm = np.where(miss, 0.0, (d - mu[:, None]) / np.where(sd > 0, sd, 1)[:, None])[keep]
    s = np.linalg.svd(zm, compute_uv=False)[:10]
    got = z["sample_pca_singular_value"][:]
    e = np.abs(got - s) / s
    b = np.array(attrs["singular_value_error_bound"])
    check("many: population PCs 1-2 within 1e-6 of numpy", bool(np.all(e[:2] <= 1e-6)), str(e))
    check(f"many: every bound is honest against numpy (error <= bound + {FLOOR:g})",
          bool(np.all(e <= b + FLOOR)), f"errors {e} bounds {b}")
    check("many: projection shape", z["sample_pca_projection"].shape == (100000, 10))


def case_options(g, tmp, store):
    p = run(g, "pca", store, "-k", 5, "-m", "randomized", "--stop", "subspace", "--tol", 1e-6,
            "--max-iter", 40, "-q", "-o", os.path.join(tmp, "sub.zarr"))
    a = dict(zarr.open_group(os.path.join(tmp, "sub.zarr"), mode="r").attrs)
    check("options: --stop subspace recorded", p.returncode == 0 and a["stop"] == "subspace")
    p = run(g, "pca", store, "-k", 5, "-m", "randomized", "--power-iter", 3, "-q", "-o",
            os.path.join(tmp, "pi.zarr"))
    a = dict(zarr.open_group(os.path.join(tmp, "pi.zarr"), mode="r").attrs)
    check("options: --power-iter 3 makes 3 passes, converged null",
          a["iterations"] == 3 and a["converged"] is None, str(a["converged"]))
    for bad in (("--stop", "never"), ("--cache-dir", ""), ("--tol", "-1"),
                ("--pass-kernel", "bf16")):
        p = run(g, "pca", store, *bad, ok_codes=(2,))
        check(f"options: {' '.join(bad)!r} is a usage error (exit 2)",
              p.returncode == 2 and "pca" in p.stderr, p.stderr)
    ref = run(g, "pca", store, "-k", 5, "-m", "randomized", "-q").stdout
    p = run(g, "pca", store, "-k", 5, "-m", "randomized", "--cache", "1M", "--cache-dir",
            os.path.join(tmp, "no", "such", "dir"))
    check("options: an unwritable --cache-dir warns and gives the same bytes",
          p.returncode == 0 and p.stdout == ref and "spill file" in p.stderr, p.stderr[-300:])


def case_exact_plan(g, tmp):
    """exact's --memory plan counts what the run holds: the backend's Gram and its exact-sum
    part, the Gram kernel's buffers and the caller's copy (3000 samples: 24 N^2 bytes alone
    are 206 MiB)."""
    store = os.path.join(tmp, "plan.vcz")
    run(g, "simulate", store, "-m", 1500, "-n", 3000, "--seed", 4, "--force")
    p = subprocess.run(on_cpu(["/usr/bin/time", "-f", "%M", g, "pca", store, "-k", "5", "-m",
                               "exact", "--format", "tsv", "-v"]), capture_output=True, text=True)
    plan = [ln for ln in p.stderr.splitlines() if "plan: exact" in ln]
    rss_mib = int(p.stderr.strip().splitlines()[-1]) / 1024
    planned = 0.0
    if plan:
        words = plan[0].replace(",", "").split()
        planned = float(words[words.index("Gram") + 1]) + float(words[words.index("pipeline") + 1])
    # AddressSanitizer's shadow and quarantine add to the RSS: the ASan build checks the plan's
    # refusal below, not the peak
    ldd = subprocess.run(["ldd", g], capture_output=True, text=True).stdout
    if "libasan" in ldd:
        check("exact plan: the run succeeds (peak not compared under AddressSanitizer)",
              p.returncode == 0 and planned > 0, p.stderr[-400:])
    else:
        check(f"exact plan: peak RSS {rss_mib:.0f} MiB within the plan {planned:.0f} MiB "
              "(+32 MiB for the program)", p.returncode == 0 and rss_mib <= planned + 32,
              p.stderr[-400:])
    low = run(g, "pca", store, "-k", 5, "-m", "exact", "--format", "tsv", "--memory", "250M",
              ok_codes=(1, 2))
    check("exact plan: --memory 250M is refused (the run needs more)",
          low.returncode != 0 and "below what the exact method needs" in low.stderr,
          low.stderr[-300:])
    # krylov keeps a block per pass: planned as such (not as exact, which caches nothing), so
    # under --memory its later passes read the cache, and a cap below its basis is refused.
    # 3000 samples x 15 columns x 24 bytes: 1.03 MiB a block, 7 blocks for --max-iter 6
    kry = run(g, "pca", store, "-k", 5, "-m", "krylov", "--max-iter", 6, "--format", "tsv",
              "--memory", "64M", "-v")
    cached = re.search(r"next passes: (\d+) bytes in memory, 0 in the spill file", kry.stderr)
    check("krylov plan: its basis blocks are planned and the cache is kept under --memory",
          kry.returncode == 0 and "basis blocks 7" in kry.stderr
          and "plan: exact" not in kry.stderr and cached is not None
          and int(cached.group(1)) > 0, kry.stderr[-600:])
    low = run(g, "pca", store, "-k", 5, "-m", "krylov", "--max-iter", 400, "--format", "tsv",
              "--memory", "64M", ok_codes=(1, 2))
    check("krylov plan: --max-iter 400 under --memory 64M is refused with the reason",
          low.returncode in (1, 2) and "--method krylov needs" in low.stderr
          and "--max-iter" in low.stderr, low.stderr[-300:])


def case_big(g, tmp):
    store = os.path.join(tmp, "big.vcz")
    run(g, "simulate", store, "-m", 100000, "-n", 20000, "-K", 3, "--fst", 0.05, "--missing",
        0.01, "--seed", 1, "--force")
    cdir = os.path.join(tmp, "cachedir")
    os.mkdir(cdir)
    mem = run(g, "pca", store, "-k", 10, "--power-iter", 3, "-v")
    spill = run(g, "pca", store, "-k", 10, "--power-iter", 3, "-v", "--cache", "64M",
                "--cache-dir", cdir)
    check("big: the in-memory cache holds 500 MB",
          "500000000 bytes in memory, 0 in the spill file" in mem.stderr, mem.stderr[-500:])
    check("big: --cache 64M spills the rest",
          "in the spill file" in spill.stderr and ", 0 in the spill file" not in spill.stderr,
          spill.stderr[-500:])
    check("big: spilled and in-memory outputs are byte-identical",
          mem.returncode == 0 and spill.returncode == 0 and mem.stdout == spill.stdout)
    check("big: no spill file left in the cache directory", os.listdir(cdir) == [],
          str(os.listdir(cdir)))
    capped = subprocess.run(on_cpu(["/usr/bin/time", "-f", "%M", g, "pca", store, "-k", "10",
                                    "--power-iter", "3", "-v", "--memory", "400M", "--cache-dir",
                                    cdir]), capture_output=True, text=True)
    rss_kb = int(capped.stderr.strip().splitlines()[-1])
    check("big: --memory 400M gives the same bytes", capped.stdout == mem.stdout)
    check(f"big: --memory 400M keeps the peak RSS under 400 MiB ({rss_kb // 1024} MiB)",
          rss_kb <= 400 * 1024)
    check("big: -v prints the plan", "plan: 20000 samples" in capped.stderr, capped.stderr[-300:])


def case_kernels(g, tmp, store):
    probe = run(g, "pca", store, "-k", 2, "--pass-kernel", "i8", "--power-iter", 1, "-q",
                ok_codes=(0, 1))
    if probe.returncode == 1:
        check("kernels: --pass-kernel i8 refused with the reason where the tiles cannot run",
              "cannot run here" in probe.stderr, probe.stderr[-300:])
        print("kernels: int8 AMX tiles not usable here; skipped the comparisons")
        return
    for name, st in (("bulk", store), ("hapmap3", os.path.join(REAL, "hapmap3.vcz"))):
        res = {}
        for k in ("f32", "i8"):
            _, z, a = pca_zarr(g, st, os.path.join(tmp, f"kern_{name}_{k}.zarr"), "-m",
                               "randomized", "--pass-kernel", k)
            res[k] = (z["sample_pca_singular_value"][:], z["sample_pca_projection"][:], a)
        (sf, pf, af), (si, pi, ai) = res["f32"], res["i8"]
        d = np.abs(si - sf) / sf
        check(f"kernels: {name}: i8 and f32 singular values within 2e-6 after the same passes",
              ai["iterations"] == af["iterations"] and bool(np.all(d <= 2e-6)),
              f"passes {ai['iterations']} {af['iterations']} diff {d}")
        c = corr(pf, pi)
        sep = separated(sf)
        check(f"kernels: {name}: separated PCs |corr| >= 0.99999 between i8 and f32",
              bool(np.all(c[sep] >= 0.99999)), f"corr {c} separated {sep}")
        if name == "hapmap3":
            _, ze, _ = pca_zarr(g, st, os.path.join(tmp, "kern_exact.zarr"), "-m", "exact")
            e = np.abs(si - ze["sample_pca_singular_value"][:]) / ze["sample_pca_singular_value"][:]
            check("kernels: hapmap3: i8 converged, singular values within 2e-6 of exact",
                  ai["converged"] is True and bool(np.all(e <= 2e-6)), f"{ai['converged']} {e}")
    outs = [run(g, "pca", store, "-k", 10, "-m", "randomized", "--pass-kernel", "i8", *extra,
                "-q").stdout for extra in (("-t", 1), ("-t", 3), ("-t", 2, "--cache", 0))]
    check("kernels: i8 TSV identical for --threads 1 and 3 and without the cache",
          outs[0] == outs[1] == outs[2] and outs[0] != "")


def main():
    g = sys.argv[1]
    big = len(sys.argv) > 2 and sys.argv[2] == "big"
    with tempfile.TemporaryDirectory(prefix="gensvd-pca-scale-") as tmp:
        if big:
            case_big(g, tmp)
        else:
            case_real(g, tmp)
            store = case_bulk(g, tmp)
            case_threads(g, tmp, store)
            case_many(g, tmp)
            case_options(g, tmp, store)
            case_exact_plan(g, tmp)
            case_kernels(g, tmp, store)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
