#!/usr/bin/env python3
"""gensvd pdist engine: kernels, bands, layouts, dtypes, --axis variants, the Gram path, progress
and bad options, against scipy (through pdist_oracle.reference) and against each other.

usage: test_pdist_engine.py GENSVD [big]
  big: only the 64-bit index case (N = 46,400 > 46,341: N^2 and i*N + j pass 2^31)

Cases
  kernels    bitplane, generic, the scalar popcount (GENSVD_PDIST_SIMD=scalar) and the
             engines below the host's best (GENSVD_CPU_LEVEL=avx2, base) give
             byte-identical TSV on HapMap3 (missing calls) for every bit-plane metric (the
             wide counts of jaccard, braycurtis, cosine and correlation included; canberra
             within 1e-13 of the pair loop), and equal scipy's pairwise-deletion reference
  complete   segments without missing calls (counted without the called mask) next to one
             with missing calls, and a store without any: every bit-plane metric equals the
             generic kernel bitwise and scipy's pairwise reference; -v counts the segments
  apart      ibs and cityblock on a store whose segments take both ways (few missing calls
             counted apart, a 50% stretch with the called mask) and whose totals pass 65,535
             within a band (a sample missing at 99% of 90,000 variants beside one homozygous
             alt everywhere): scipy's pairwise reference; one band, several, several replayed
             from the kept planes, and every engine, the same bytes
  bands      --memory small enough for several bands (with and without the kept bit planes:
             the -v line must say how many bands and passes) equals the one-band output bitwise
  condensed  --layout condensed equals squareform(square) bitwise (distance and n_sites); the
             TSV pair list is in scipy's order; with bands too
  f4         --dtype f4 equals float32(f8) for square and condensed
  variants   --axis variants equals scipy on the dosage matrix's rows (khuman, no missing;
             HapMap3 pairwise with missing), IDs are variant indices
  gram       complete float input: euclidean, sqeuclidean, cosine, correlation through the Gram
             kernel within 1e-12 of scipy; with a NaN the run hands over to the generic kernel
  progress   --progress reports on stderr and does not change the output
  edges      M = 0 (NaN between items, n_sites 0), N = 1 condensed (empty)
  usage      bad --axis/--layout/--dtype/--memory/--kernel exit 2; a --memory below the minimum,
             --format tsv beyond --memory exit 1; --axis with TSV input exits 2 with a message
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from scipy.spatial.distance import pdist, squareform

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pdist_oracle as po  # noqa: E402

sys.path.insert(0, os.path.join(HERE, ".."))
from checklib import (apart_calls, check, check_apart, on_cpu, summary,  # noqa: E402
                      write_calls)

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
HM = os.path.join(ROOT, "testdata", "realdata", "hapmap3.vcz")
KH = os.path.join(ROOT, "testdata", "realdata", "khuman_chr22.vcz")


def run(args, env=None, stdin=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    return subprocess.run(on_cpu([G, "pdist"] + args), capture_output=True, text=True, env=e,
                          input=stdin, timeout=600)


def zopen(path):
    import zarr
    return zarr.open_group(path, mode="r")


def parse_square(text):
    lines = text.rstrip("\n").split("\n")
    vals = [[float(x) for x in l.split("\t")[1:]] for l in lines[1:]]
    return np.array(vals)


def rel_ok(a, b, tol):
    both_nan = np.isnan(a) & np.isnan(b)
    diff = np.abs(a - b)
    scale = np.maximum(np.abs(b), 1e-300)
    ok = both_nan | (diff <= tol * scale) | (diff <= tol)
    return bool(ok.all()), float(np.nanmax(np.where(both_nan, 0, diff / np.maximum(scale, 1))))


def case_kernels(tmp):
    D, C, ids, ploidy, M = po.load(HM)
    D, C = D[:, :1500], C[:, :1500]
    for metric in ["cityblock", "ibs", "euclidean", "sqeuclidean", "hamming", "chebyshev",
                   "minkowski", "jaccard", "braycurtis", "canberra", "cosine", "correlation"]:
        extra = ["-p", "3"] if metric == "minkowski" else []
        base = [HM, "-m", metric, "--variants", "0:1500", "--format", "tsv"] + extra
        outs = {}
        for name, args, env in [("bitplane", ["--kernel", "bitplane"], None),
                                ("generic", ["--kernel", "generic"], None),
                                ("scalar", ["--kernel", "bitplane", "-v"],
                                 {"GENSVD_PDIST_SIMD": "scalar"}),
                                ("avx2", ["--kernel", "bitplane"], {"GENSVD_CPU_LEVEL": "avx2"}),
                                ("base", ["--kernel", "bitplane"], {"GENSVD_CPU_LEVEL": "base"})]:
            r = run(base + args, env)
            if not check(f"kernels {metric} {name} exit", r.returncode == 0, r.stderr[-300:]):
                return
            outs[name] = r.stdout
            if name == "scalar":
                check(f"kernels {metric} bitplane chosen", "bitplane kernel" in r.stderr,
                      r.stderr[-200:])
        if metric == "canberra":  # thirds: the bit planes round once, the pair loop per term
            ok, err = rel_ok(parse_square(outs["bitplane"]), parse_square(outs["generic"]), 1e-13)
            check(f"kernels {metric} bitplane == generic (1e-13)", ok, f"max rel err {err:g}")
        else:
            check(f"kernels {metric} bitplane == generic (bytes)",
                  outs["bitplane"] == outs["generic"])
        check(f"kernels {metric} avx512/auto == scalar (bytes)", outs["bitplane"] == outs["scalar"])
        check(f"kernels {metric} auto == AVX2 engine (bytes)", outs["bitplane"] == outs["avx2"])
        check(f"kernels {metric} auto == portable code (bytes)", outs["bitplane"] == outs["base"])
        k = len(ids) if metric in po.ADDITIVE else 150  # the pair loop reference is slow
        ref, _ = po.reference(D[:k], C[:k], metric, 3.0 if metric == "minkowski" else None,
                              ploidy, "pairwise", 1500)
        ok, err = rel_ok(parse_square(outs["bitplane"])[:k, :k], ref, 1e-12)
        check(f"kernels {metric} == scipy pairwise", ok, f"max rel err {err:g}")


def case_complete(tmp):
    """See the module docstring (complete)."""
    import zarr
    gt0 = zarr.open_group(KH, mode="r")["call_genotype"][:]
    gt = np.concatenate([gt0] * 4, axis=0)  # 13,968 variants x 203 samples, no missing call
    rng = np.random.default_rng(5)
    holes = gt.copy()
    for v in range(9000, 9100):  # the second 8,192-feature segment only
        holes[v, rng.choice(gt.shape[1], size=5, replace=False)] = -1
    ids = zarr.open_group(KH, mode="r")["sample_id"][:]
    for tag, data, want in [("holes", holes, "1 of 2"), ("none", gt, "2 of 2")]:
        store = os.path.join(tmp, f"complete_{tag}.vcz")
        write_calls(store, data, ids, (2000, 203, 2))
        D, C, _, ploidy, M = po.load(store)
        for metric in ["cityblock", "ibs", "euclidean", "hamming", "chebyshev", "minkowski",
                       "jaccard", "cosine"]:
            extra = ["-p", "3"] if metric == "minkowski" else []
            base = [store, "-m", metric, "--memory", "4M", "--format", "tsv"] + extra
            rb = run(base + ["--kernel", "bitplane", "-v"])
            rg = run(base + ["--kernel", "generic"])
            if not check(f"complete {tag} {metric} exit", rb.returncode == 0 and
                         rg.returncode == 0, rb.stderr[-300:] + rg.stderr[-300:]):
                continue
            check(f"complete {tag} {metric} segments: {want} without missing calls",
                  f"{want} bit-plane segments without missing calls" in rb.stderr,
                  rb.stderr[-300:])
            check(f"complete {tag} {metric} bitplane == generic (bytes)", rb.stdout == rg.stdout)
            ref, _ = po.reference(D, C, metric, 3.0 if metric == "minkowski" else None, ploidy,
                                  "pairwise", M)
            ok, err = rel_ok(parse_square(rb.stdout), ref, 1e-12)
            check(f"complete {tag} {metric} == scipy pairwise", ok, f"max rel err {err:g}")


def case_apart(tmp):
    """See the module docstring (apart)."""
    n = 500
    # sample 2 homozygous alt everywhere: |M0 & A2| and |M0 & B2| pass 65,535
    gt = apart_calls(n, 90000, 12, 0.002, slice(12000, 14000), [1, 1])
    store = os.path.join(tmp, "apart.vcz")
    write_calls(store, gt, [f"a{i}" for i in range(n)], (10000, 250, 2))
    del gt
    D, C, _, ploidy, M = po.load(store)
    part = ["--variants", "0:16384"]  # the planes kept for the second band
    for metric in ["ibs", "cityblock"]:
        want = {}
        for label, extra, env in [("one band", [], None), ("bands", ["--memory", "8M"], None),
                                  ("bands, AVX2", ["--memory", "8M"],
                                   {"GENSVD_CPU_LEVEL": "avx2"}),
                                  ("bands, scalar", ["--memory", "8M"],
                                   {"GENSVD_PDIST_SIMD": "scalar"}),
                                  ("part, one band", part, None),
                                  ("part, replayed", part + ["--memory", "10M"], None)]:
            r = run([store, "-m", metric, "--format", "tsv", "-v"] + extra, env)
            check_apart(f"apart {metric}", label, r, want)
        if "all" not in want:
            continue
        ref, _ = po.reference(D, C, metric, None, ploidy, "pairwise", M)
        ok, err = rel_ok(parse_square(want["all"]), ref, 1e-12)
        check(f"apart {metric} == scipy pairwise", ok, f"max rel err {err:g}")


def case_bands(tmp):
    base = [HM, "--variants", "0:3000", "-m", "ibs"]
    one = os.path.join(tmp, "one.zarr")
    r = run(base + ["-o", one, "-v"])
    check("bands reference run", r.returncode == 0 and "1 band(s)" in r.stderr, r.stderr[-300:])
    ref = zopen(one)
    for args, kind in [(["--memory", "12M"], "kept planes: one pass"),
                       (["--memory", "24M", "--kernel", "generic"], "generic: a pass per band")]:
        tag = " ".join(args)
        out = os.path.join(tmp, f"bands_{len(args)}.zarr")
        r = run(base + ["-o", out, "-v"] + args)
        if not check(f"bands {tag} exit", r.returncode == 0, r.stderr[-300:]):
            continue
        line = [l for l in r.stderr.split("\n") if "band(s)" in l]
        nb = int(line[0].split(" band(s)")[0].split(" ")[-1]) if line else 0
        npass = int(line[0].split("band(s), ")[1].split(" pass")[0]) if line else 0
        check(f"bands {tag} several bands", nb > 1, line)
        check(f"bands {tag} {kind}", npass == (1 if "one pass" in kind else nb), line)
        g = zopen(out)
        check(f"bands {tag} distance bitwise",
              np.array_equal(g["distance"][:], ref["distance"][:], equal_nan=True))
        check(f"bands {tag} n_sites", np.array_equal(g["n_sites"][:], ref["n_sites"][:]))
    # generic kernel in bands (rescans) and TSV output with bands
    r1 = run(base + ["--format", "tsv", "--kernel", "generic"])
    r2 = run(base + ["--format", "tsv", "--kernel", "generic", "--memory", "24M"])
    check("bands generic kernel TSV bitwise", r1.returncode == 0 and r1.stdout == r2.stdout,
          r2.stderr[-300:])


def case_condensed(tmp):
    for mem in [None, "24M"]:
        base = [HM, "--variants", "0:2000", "-m", "cityblock"] + (["--memory", mem] if mem else [])
        sq, cd = os.path.join(tmp, f"sq{mem}.zarr"), os.path.join(tmp, f"cd{mem}.zarr")
        r1 = run(base + ["-o", sq])
        r2 = run(base + ["-o", cd, "--layout", "condensed"])
        if not check(f"condensed mem={mem} exit", r1.returncode == 0 and r2.returncode == 0,
                     r2.stderr[-300:]):
            continue
        a, b = zopen(sq), zopen(cd)
        v = b["distance"][:]
        check(f"condensed mem={mem} shape", v.shape == (957 * 956 // 2,), v.shape)
        check(f"condensed mem={mem} == squareform(square)",
              np.array_equal(v, squareform(a["distance"][:], checks=False), equal_nan=True))
        ns = a["n_sites"][:]
        iu = np.triu_indices(957, 1)
        check(f"condensed mem={mem} n_sites", np.array_equal(b["n_sites"][:], ns[iu]))
        check(f"condensed mem={mem} attrs", b.attrs.get("layout") == "condensed",
              dict(b.attrs))
    r = run([KH, "-m", "euclidean", "--layout", "condensed", "--format", "tsv"])
    D, C, ids, ploidy, M = po.load(KH)
    ok = r.returncode == 0
    if check("condensed tsv exit", ok, r.stderr[-300:]):
        lines = r.stdout.rstrip("\n").split("\n")
        ref = pdist(D, "euclidean")
        n = len(ids)
        pairs = [(ids[i], ids[j]) for i in range(n) for j in range(i + 1, n)]
        got = [tuple(l.split("\t")[:2]) for l in lines[1:]]
        check("condensed tsv header", lines[0].startswith("sample_i\tsample_j\tdistance"),
              lines[0])
        check("condensed tsv pair order = scipy", got == pairs, f"{len(got)} vs {len(pairs)}")
        vals = np.array([float(l.split("\t")[2]) for l in lines[1:]])
        okv, err = rel_ok(vals, ref, 1e-12)
        check("condensed tsv values == scipy pdist", okv, f"max rel err {err:g}")


def case_f4(tmp):
    for layout in ["square", "condensed"]:
        base = [HM, "--variants", "0:2000", "-m", "euclidean", "--layout", layout]
        a8, a4 = os.path.join(tmp, f"f8{layout}.zarr"), os.path.join(tmp, f"f4{layout}.zarr")
        r1 = run(base + ["-o", a8])
        r2 = run(base + ["-o", a4, "--dtype", "f4"])
        if not check(f"f4 {layout} exit", r1.returncode == 0 and r2.returncode == 0,
                     r2.stderr[-300:]):
            continue
        d8, d4 = zopen(a8)["distance"][:], zopen(a4)["distance"][:]
        check(f"f4 {layout} dtype", d4.dtype == np.float32, d4.dtype)
        check(f"f4 {layout} == float32(f8)",
              np.array_equal(d4, d8.astype(np.float32), equal_nan=True))


def case_variants(tmp):
    D, C, ids, ploidy, M = po.load(KH)
    V = np.ascontiguousarray(D[:, :200].T)
    for metric in ["euclidean", "cityblock", "correlation", "hamming"]:
        r = run([KH, "--axis", "variants", "--variants", "0:200", "-m", metric, "--format",
                 "tsv"])
        if not check(f"variants khuman {metric} exit", r.returncode == 0, r.stderr[-300:]):
            continue
        lines = r.stdout.rstrip("\n").split("\n")
        hdr = lines[0].split("\t")
        got = parse_square(r.stdout)
        ref = squareform(pdist(V, metric), checks=False)
        ok, err = rel_ok(got, ref, 1e-12)
        check(f"variants khuman {metric} == scipy", ok, f"max rel err {err:g}")
        check(f"variants khuman {metric} ids", hdr[0] == "variant_index" and
              hdr[1:] == [str(i) for i in range(200)], hdr[:4])
    D, C, ids, ploidy, M = po.load(HM)
    lo, hi = 100, 400
    Dv, Cv = np.ascontiguousarray(D[:, lo:hi].T), np.ascontiguousarray(C[:, lo:hi].T)
    keep = Cv.any(axis=1)
    Dv, Cv = Dv[keep], Cv[keep]
    out = os.path.join(tmp, "var.zarr")
    r = run([HM, "--axis", "variants", "--variants", f"{lo}:{hi}", "-m", "cityblock", "-o", out])
    if check("variants hapmap3 exit", r.returncode == 0, r.stderr[-300:]):
        g = zopen(out)
        ref, _ = po.reference(Dv, Cv, "cityblock", None, ploidy, "pairwise", Dv.shape[1])
        ok, err = rel_ok(g["distance"][:], ref, 0)
        check("variants hapmap3 cityblock pairwise == reference (exact)", ok, f"{err:g}")
        vid = [str(x) for x in g["variant_index"][:]]
        want = [str(lo + i) for i in np.nonzero(keep)[0]]
        check("variants hapmap3 variant_index", vid == want, vid[:5])
        check("variants hapmap3 dims", g["distance"].attrs["_ARRAY_DIMENSIONS"] ==
              ["variants_0", "variants_1"], g["distance"].attrs.asdict())


def case_gram(tmp):
    rng = np.random.default_rng(11)
    X = rng.normal(size=(60, 300)) + 0.5
    text = "\n".join("\t".join([f"r{i}"] + [repr(float(v)) for v in row])
                     for i, row in enumerate(X)) + "\n"
    for metric in ["euclidean", "sqeuclidean", "cosine", "correlation"]:
        r = run(["-", "-m", metric, "-v"], stdin=text)
        if not check(f"gram {metric} exit", r.returncode == 0, r.stderr[-300:]):
            continue
        check(f"gram {metric} uses the Gram kernel", "gram kernel" in r.stderr, r.stderr[-200:])
        ok, err = rel_ok(parse_square(r.stdout), squareform(pdist(X, metric), checks=False),
                         1e-12)
        check(f"gram {metric} == scipy (1e-12)", ok, f"max rel err {err:g}")
    X[3, 7] = np.nan
    text = "\n".join("\t".join([f"r{i}"] + ["nan" if np.isnan(v) else repr(float(v))
                                            for v in row]) for i, row in enumerate(X)) + "\n"
    r = run(["-", "-m", "euclidean", "-v"], stdin=text)
    check("gram with a NaN: generic kernel", r.returncode == 0 and "generic kernel" in r.stderr,
          r.stderr[-300:])
    # float Zarr arrays with NaN start on the Gram kernel and hand over mid-pass
    arr = os.path.join(tmp, "arr.zarr")
    po.cmd_make_array([arr])
    if os.path.isdir(arr):
        r1 = run([arr, "--array", "dosage_f8", "-m", "euclidean", "-v", "--format", "tsv"])
        r2 = run([arr, "--array", "dosage_f8", "-m", "euclidean", "--kernel", "generic",
                  "--format", "tsv"])
        check("gram hand-over on a float array == generic", r1.returncode == 0 and
              r1.stdout == r2.stdout and "generic kernel" in r1.stderr, r1.stderr[-300:])


def case_progress(tmp):
    base = [HM, "--variants", "0:2000", "-m", "ibs", "--format", "tsv"]
    r1 = run(base + ["--progress", "--memory", "24M"])
    r2 = run(base)
    check("progress on stderr, in variants", r1.returncode == 0 and
          "gensvd pdist: pass 1/" in r1.stderr and "variants (100%)" in r1.stderr,
          r1.stderr[-200:])
    check("progress leaves the output alone", r1.stdout == r2.stdout)


def case_edges(tmp):
    """M = 0 (a store without variants): NaN between items (no shared site), 0 on the
    diagonal, n_sites 0; N = 1 condensed: an empty vector."""
    import zarr
    store = os.path.join(tmp, "m0.vcz")
    g = zarr.open_group(store, mode="w", zarr_format=2)
    a = g.create_array("call_genotype", shape=(0, 3, 2), chunks=(10, 3, 2), dtype="i1",
                       fill_value=-1)
    a.attrs["_ARRAY_DIMENSIONS"] = ["variants", "samples", "ploidy"]
    sid = g.create_array("sample_id", shape=(3,), dtype=str, chunks=(3,))
    sid[:] = np.array(["x", "y", "z"])
    sid.attrs["_ARRAY_DIMENSIONS"] = ["samples"]
    zarr.consolidate_metadata(store)
    out = os.path.join(tmp, "m0_out.zarr")
    r = run([store, "-m", "cityblock", "--counts", "-o", out])
    if check("edges M=0 exit", r.returncode == 0, r.stderr[-300:]):
        o = zopen(out)
        d = o["distance"][:]
        want = np.full((3, 3), np.nan)
        np.fill_diagonal(want, 0)
        check("edges M=0 NaN off the diagonal, 0 on it", np.array_equal(d, want, equal_nan=True),
              d)
        check("edges M=0 n_sites 0", not o["n_sites"][:].any())
        check("edges M=0 attrs M", o.attrs.get("M") == 0, dict(o.attrs))
    out = os.path.join(tmp, "n1.zarr")
    r = run(["-", "--layout", "condensed", "-o", out], stdin="a\t1\t2\n")
    if check("edges N=1 condensed exit", r.returncode == 0, r.stderr[-300:]):
        check("edges N=1 condensed empty", zopen(out)["distance"].shape == (0,))


def case_usage(tmp):
    for args, code, text in [
        (["--axis", "rows"], 2, "--axis"),
        (["--layout", "triangle"], 2, "--layout"),
        (["--dtype", "f2"], 2, "--dtype"),
        (["--memory", "lots"], 2, "--memory"),
        (["--memory", "0"], 2, "--memory"),
        (["--kernel", "gpu"], 2, "--kernel"),
        (["--memory", "1K", "-o", os.path.join(tmp, "tiny.zarr")], 1, "--memory"),
        (["--memory", "4M", "--format", "tsv"], 1, "--memory"),
    ]:
        r = run([HM, "--variants", "0:100"] + args)
        check(f"usage {' '.join(args[:2])} exit {code}", r.returncode == code and text in r.stderr,
              f"rc {r.returncode}: {r.stderr.strip()[-200:]}")
        check(f"usage {' '.join(args[:2])} leaves no output",
              not os.path.exists(os.path.join(tmp, "tiny.zarr")))
    r = run(["-", "--axis", "variants"], stdin="a\t1\t2\nb\t2\t3\n")
    check("usage --axis with TSV input exit 2", r.returncode == 2 and "--axis" in r.stderr,
          r.stderr[-200:])


def case_big(tmp):
    """N = 46,400: pair indices and N^2 pass 2^31; condensed f4 output, bands under --memory,
    --threads above gsvd_parallel's 256."""
    n, m = 46400, 40
    store = os.path.join(tmp, "big.vcz")
    r = subprocess.run([G, "simulate", "-n", str(n), "-m", str(m), "-r", "0.05", "-c",
                        f"{m},{n}", store], capture_output=True, text=True)
    if not check("big simulate", r.returncode == 0, r.stderr[-300:]):
        return
    out = os.path.join(tmp, "big_out.zarr")
    # 260 threads: more than gsvd_parallel runs (256) and fewer than the 725 groups of 64
    # samples the planes are packed in, so every item must still be packed and finished
    r = run([store, "-m", "cityblock", "--layout", "condensed", "--dtype", "f4", "--memory",
             "1500M", "-t", "260", "-o", out, "-v"])
    if not check("big pdist exit", r.returncode == 0, r.stderr[-300:]):
        return
    import zarr
    g = zarr.open_group(store, mode="r")
    gt = g["call_genotype"][:]
    miss = (gt < 0).any(axis=2)
    dos = (gt > 0).sum(axis=2).astype(np.float64)
    dos[miss] = np.nan
    X = dos.T  # samples x variants
    o = zopen(out)
    d = o["distance"]
    total = n * (n - 1) // 2
    check("big condensed length", d.shape == (total,), d.shape)
    rng = np.random.default_rng(3)
    pairs = [(0, 1), (n - 2, n - 1), (46340, 46341), (20000, 46399)]
    # with 260 threads split by t: rows 256..259 of the first band (finishing) and the samples
    # of 64-sample groups 256..259 and 516..519 (packing) belong to the threads beyond 256
    pairs += [(256, 300), (257, 9000), (258, 46000), (259, 46399), (16384, 16385),
              (16500, 40000), (33100, 33200), (1, 16639)]
    pairs += [tuple(sorted(rng.choice(n, 2, replace=False))) for _ in range(20)]
    bad = 0
    for i, j in pairs:
        k = n * i - i * (i + 1) // 2 + (j - i - 1)
        both = ~np.isnan(X[i]) & ~np.isnan(X[j])
        ref = np.float32(np.abs(X[i, both] - X[j, both]).sum()) if both.any() else np.nan
        got = d[k]
        if not (got == ref or (np.isnan(got) and np.isnan(ref))):
            bad += 1
            print(f"    pair ({i},{j}) index {k}: {got} vs {ref}")
    check("big pairs (incl. i*N + j > 2^31) == direct computation", bad == 0, f"{bad} wrong")
    check("big N^2 > 2^31 (row-major i*N + j of the tested pairs passes 2^31)",
          n * n > 2**31 and 46340 * n + 46341 > 2**31)


def main():
    global G
    G = sys.argv[1]
    big = len(sys.argv) > 2 and sys.argv[2] == "big"
    tmp = tempfile.mkdtemp(prefix="pdist_engine_")
    try:
        cases = [case_big] if big else [case_kernels, case_complete, case_apart, case_bands, case_condensed, case_f4,
                                        case_variants, case_gram, case_progress, case_edges,
                                        case_usage]
        for c in cases:
            print(f"# {c.__name__[5:]}")
            c(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
