#!/usr/bin/env python3
"""gensvd pdist --device gpu against --device cpu on the same inputs.  Exits 77 (ctest: skipped)
when `--device gpu` reports no usable device (exit 3).

usage: test_pdist_gpu.py GENSVD

Needs numpy only (no zarr-python, no scipy), so it runs as it is on a bare GPU machine
(scripts/gpu-check.sh).

Cases
  counts    HapMap3 (missing calls), every bit-plane metric (king and ibs0 included: KING's
            five counts from planes C, A, P; p-distance and --haplotypes on the stored allele
            order), --missing pairwise and scale:
            the GPU's TSV is byte-identical to the CPU's (integer counts, same finish on the
            host); -v says the bit-plane kernel ran on cuda
  bands     --memory small enough for several bands (kept planes replayed on the device):
            distance and n_sites arrays bitwise equal to the CPU's one-band output (read back
            with gensvd dump)
  generic   genotype metrics the device's bit planes do not carry (braycurtis, jaccard,
            canberra, cosine, correlation; king with --kernel generic) run its float64 pair
            loop: bitwise equal
  float     a float matrix with NaN (TSV input), every metric on the generic kernel: bitwise
            equal except minkowski (CUDA's pow, <= 1e-14 relative); AUTO on the device takes
            the generic kernel where the CPU takes the Gram one: within 1e-12
  big       4,500 samples simulated: several row tiles past one launch's worth of columns,
            bitwise equal
"""
import hashlib
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
HM = os.path.join(ROOT, "testdata", "realdata", "hapmap3.vcz")

passed = failed = 0


def check(label, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"  ok   {label}")
    else:
        failed += 1
        print(f"  FAIL {label} {detail}")
    return ok


def run(args, stdin=None, cmd="pdist"):
    return subprocess.run([G, cmd] + args, capture_output=True, text=True, input=stdin,
                          timeout=900)


def both(args, stdin=None):
    """The same pdist run on the CPU and on the GPU: (cpu, gpu) CompletedProcess."""
    return (run(args + ["--device", "cpu"], stdin), run(args + ["--device", "gpu", "-v"], stdin))


def case_counts(tmp):
    for metric, extra in [("cityblock", []), ("ibs", []), ("euclidean", []),
                          ("sqeuclidean", []), ("hamming", []), ("chebyshev", []),
                          ("minkowski", ["-p", "3"]), ("cityblock", ["--missing", "scale"]),
                          ("ibs", ["--layout", "condensed"]), ("king", []), ("ibs0", []),
                          ("p-distance", ["--ignore-phase"]),
                          ("hamming", ["--haplotypes", "--ignore-phase"])]:
        tag = " ".join([metric] + extra)
        c, g = both([HM, "-m", metric, "--format", "tsv"] + extra)
        if not check(f"counts {tag} exit", c.returncode == 0 and g.returncode == 0,
                     g.stderr[-300:]):
            continue
        check(f"counts {tag} on cuda", "bitplane kernel on cuda" in g.stderr, g.stderr[-300:])
        check(f"counts {tag} bytes", c.stdout == g.stdout)


def array_digest(store, name):
    """sha256 of `gensvd dump STORE/NAME`, streamed (a 4,500-sample matrix is 400 MB of text),
    or None when dump fails.  f8 prints as %.17g: equal digests, equal values bit for bit (NaN
    payloads aside)."""
    h = hashlib.sha256()
    with subprocess.Popen([G, "dump", "-q", os.path.join(store, name)],
                          stdout=subprocess.PIPE) as p:
        for block in iter(lambda: p.stdout.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest() if p.returncode == 0 else None


def zarr_equal(a, b):
    """The two outputs hold the same distance and n_sites arrays, read back with gensvd dump:
    whatever their chunking (it follows the bands), and without zarr-python, so that the test
    runs on a GPU machine that has numpy only."""
    for name in ("distance", "n_sites"):
        da = array_digest(a, name)
        if da is None or da != array_digest(b, name):
            return False
    return True


def case_bands(tmp):
    one = os.path.join(tmp, "one.zarr")
    r = run([HM, "-m", "ibs", "-o", one, "--device", "cpu"])
    check("bands cpu reference", r.returncode == 0, r.stderr[-300:])
    for kernel in ["auto", "generic"]:
        out = os.path.join(tmp, f"bands_{kernel}.zarr")
        r = run([HM, "-m", "ibs", "-o", out, "--device", "gpu", "-v", "--memory", "16M",
                 "--kernel", kernel])
        if not check(f"bands {kernel} exit", r.returncode == 0, r.stderr[-300:]):
            continue
        line = [l for l in r.stderr.split("\n") if "band(s)" in l]
        nb = int(line[0].split(" band(s)")[0].split(" ")[-1]) if line else 0
        check(f"bands {kernel} several bands on cuda", nb > 1 and "on cuda" in line[0], line)
        check(f"bands {kernel} bitwise", zarr_equal(one, out))


def case_generic(tmp):
    for metric in ["braycurtis", "jaccard", "canberra", "cosine", "correlation", "king"]:
        extra = ["--kernel", "generic"] if metric == "king" else []
        c, g = both([HM, "-m", metric, "--format", "tsv", "--variants", "0:4000"] + extra)
        if not check(f"generic {metric} exit", c.returncode == 0 and g.returncode == 0,
                     g.stderr[-300:]):
            continue
        check(f"generic {metric} on cuda", "generic kernel on cuda" in g.stderr, g.stderr[-300:])
        check(f"generic {metric} bytes", c.stdout == g.stdout)


def parse_square(text):
    lines = text.rstrip("\n").split("\n")
    return np.array([[float(x) for x in l.split("\t")[1:]] for l in lines[1:]])


def case_float(tmp):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(300, 700))
    x[rng.random(x.shape) < 0.05] = np.nan
    text = "\n".join("\t".join(f"{v:.17g}" for v in row) for row in x) + "\n"
    for metric in ["euclidean", "sqeuclidean", "cityblock", "minkowski", "chebyshev", "cosine",
                   "correlation", "hamming", "jaccard", "braycurtis", "canberra", "ibs"]:
        c, g = both(["-", "-m", metric, "-p", "1.5", "--kernel", "generic", "--format", "tsv"],
                    stdin=text)
        if not check(f"float {metric} exit", c.returncode == 0 and g.returncode == 0,
                     g.stderr[-300:]):
            continue
        if metric == "minkowski":
            a, b = parse_square(c.stdout), parse_square(g.stdout)
            err = np.nanmax(np.abs(a - b) / np.maximum(np.abs(a), 1e-300))
            check(f"float {metric} within 1e-14", err <= 1e-14, f"max rel {err:g}")
        else:
            check(f"float {metric} bytes", c.stdout == g.stdout)
    full = np.nan_to_num(x)
    text = "\n".join("\t".join(f"{v:.17g}" for v in row) for row in full) + "\n"
    c, g = both(["-", "-m", "euclidean", "--format", "tsv"], stdin=text)
    if check("float auto exit", c.returncode == 0 and g.returncode == 0, g.stderr[-300:]):
        a, b = parse_square(c.stdout), parse_square(g.stdout)
        err = np.max(np.abs(a - b) / np.maximum(np.abs(a), 1e-300))
        check("float auto: gram (cpu) vs generic (gpu) within 1e-12", err <= 1e-12,
              f"max rel {err:g}")


def case_big(tmp):
    store = os.path.join(tmp, "big.vcz")
    r = run(["-n", "4500", "-m", "3000", "--missing", "0.02", "--seed", "3", store],
            cmd="simulate")
    if not check("big simulate", r.returncode == 0, r.stderr[-300:]):
        return
    outs = []
    for dev in ["cpu", "gpu"]:
        out = os.path.join(tmp, f"big_{dev}.zarr")
        r = run([store, "-m", "cityblock", "-o", out, "--device", dev])
        check(f"big {dev} exit", r.returncode == 0, r.stderr[-300:])
        outs.append(out)
    check("big bitwise", zarr_equal(outs[0], outs[1]))


def main():
    global G
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    G = sys.argv[1]
    probe = run([HM, "-m", "ibs", "--variants", "0:64", "--format", "tsv", "--device", "gpu"])
    if probe.returncode == 3:
        print(f"skipped: {probe.stderr.strip()}")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        for name, c in [("counts", case_counts), ("bands", case_bands),
                        ("generic", case_generic), ("float", case_float), ("big", case_big)]:
            print(f"# {name}")
            c(tmp)
    print(f"test_pdist_gpu: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
