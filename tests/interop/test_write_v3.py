#!/usr/bin/env python3
"""zarr-python 3 reads what gensvd writes as Zarr v3, and it equals gensvd's v2 output.

usage: test_write_v3.py GENSVD

Each command that writes (simulate, pca -o --loadings, pdist -o square and condensed) runs
three times on the same input: --zarr-format 2, --zarr-format 3, and --zarr-format 3 --shard.
zarr-python 3 is the independent oracle: it reads the v2 output (zarr_format=2) and the v3
outputs (zarr.open_consolidated, and again without the consolidated metadata), and every array
must have the same values (bit for bit; NaN where NaN), the same dtype (strings as strings),
the attributes of the v2 .zattrs less _ARRAY_DIMENSIONS, dimension_names equal to
_ARRAY_DIMENSIONS, and the same root attributes (less "command", which names the run).
Sharded outputs must be sharded (inner chunks = the v2 chunks).  `gensvd dump` of every array
must print the same text for the three outputs, and `gensvd info` must say "format v3".
The default output format follows the input (v3 input -> v3 output), --shard included (no
--zarr-format 3 needed on a v3 input); --shard whose shards hold one chunk each in every array
(pca's arrays are one chunk) warns, naming them, and one that groups chunks does not (both read
from zarr-python's shards and chunks); bad uses (--shard on a v2 input without --zarr-format 3,
a shard that is no multiple of the chunks, --zarr-format 4) exit 2.
Exit 77 (skipped) without zarr-python 3.
"""

import json
import os
import subprocess
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")
try:
    import numpy as np
    import zarr
    if int(zarr.__version__.split(".")[0]) < 3:
        raise ImportError("zarr-python 3 needed")
except ImportError as e:
    print("skipped: %s" % e)
    sys.exit(77)

PASSED = [0]
FAILED = []


def check(cond, what):
    if cond:
        PASSED[0] += 1
    else:
        FAILED.append(what)


def run(cmd, want=0):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    if p.returncode != want:
        raise RuntimeError("%s: exit %d (wanted %d): %s" % (
            " ".join(cmd), p.returncode, want, p.stderr.decode("utf-8", "replace")[-800:]))
    return p


def same_values(x, y):
    if x.dtype.kind in "OUT" or y.dtype.kind in "OUT":
        return x.shape == y.shape and \
            [str(v) for v in x.ravel().tolist()] == [str(v) for v in y.ravel().tolist()]
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.dtype.kind == "f":  # bit for bit, NaN payloads included
        return np.array_equal(x.view("u%d" % x.dtype.itemsize), y.view("u%d" % y.dtype.itemsize))
    return np.array_equal(x, y)


def drop(d, key):
    return {k: v for k, v in d.items() if k != key}


def compare(gensvd, label, v2, v3, sharded):
    a = zarr.open_group(v2, mode="r", zarr_format=2)
    root = json.load(open(os.path.join(v3, "zarr.json")))
    check(root.get("consolidated_metadata", {}).get("kind") == "inline",
          "%s: root zarr.json has inline consolidated metadata" % label)
    check(not os.path.exists(os.path.join(v3, ".zgroup")), "%s: no v2 documents" % label)
    info = run([gensvd, "info", "--no-sizes", v3]).stdout.decode()
    check("format v3" in info, "%s: gensvd info says format v3" % label)
    for consolidated in (True, False):
        b = zarr.open_consolidated(v3, mode="r") if consolidated else \
            zarr.open_group(v3, mode="r", use_consolidated=False)
        tag = "%s (%s)" % (label, "consolidated" if consolidated else "listed")
        check(b.metadata.zarr_format == 3, "%s: zarr_format 3" % tag)
        check(sorted(a.array_keys()) == sorted(b.array_keys()),
              "%s: arrays %s vs %s" % (tag, sorted(a.array_keys()), sorted(b.array_keys())))
        check(drop(dict(a.attrs), "command") == drop(dict(b.attrs), "command"),
              "%s: root attributes" % tag)
        for k in sorted(a.array_keys()):
            if k not in b:
                continue
            x, y = a[k], b[k]
            check(same_values(x[...], y[...]), "%s: %s values" % (tag, k))
            check(y.metadata.dimension_names == tuple(x.attrs["_ARRAY_DIMENSIONS"]),
                  "%s: %s dimension_names %s" % (tag, k, y.metadata.dimension_names))
            check(drop(dict(x.attrs), "_ARRAY_DIMENSIONS") == dict(y.attrs),
                  "%s: %s attributes" % (tag, k))
            check(tuple(y.chunks) == tuple(x.chunks), "%s: %s chunks" % (tag, k))
            numeric = x.dtype.kind in "biuf"
            if sharded and numeric and x.ndim >= 1:
                check(y.shards is not None, "%s: %s is sharded" % (tag, k))
            else:
                check(y.shards is None, "%s: %s is not sharded" % (tag, k))
            if x.dtype.kind == "f" and consolidated:
                check(y.fill_value is not None, "%s: %s fill_value" % (tag, k))
    for k in sorted(a.array_keys()):
        d2 = run([gensvd, "dump", os.path.join(v2, k)]).stdout
        d3 = run([gensvd, "dump", os.path.join(v3, k)]).stdout
        check(d2 == d3, "%s: gensvd dump %s v2 == v3" % (label, k))


def triple(gensvd, tmp, label, argv, shard, extra=None):
    """Run argv (with OUT as the output placeholder) as v2, v3 and sharded v3; compare."""
    outs = {}
    for kind, flags in (("v2", ["--zarr-format", "2"]), ("v3", ["--zarr-format", "3"]),
                        ("sh", ["--zarr-format", "3", "--shard", shard])):
        out = os.path.join(tmp, "%s_%s.zarr" % (label, kind))
        run([gensvd] + [out if t == "OUT" else t for t in argv] + flags + (extra or []))
        outs[kind] = out
    compare(gensvd, label + " v3", outs["v2"], outs["v3"], False)
    compare(gensvd, label + " sharded", outs["v2"], outs["sh"], True)
    return outs


def main():
    gensvd = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        inp = os.path.join(tmp, "input.zarr")
        run([gensvd, "simulate", "-m", "300", "-n", "230", "-c", "40,57", "-r", "0.05", "-s",
             "7", "-t", "2", "-q", inp])
        # simulate: 120 variants in chunks of 25 -> shards of 2 chunks, the last one short
        triple(gensvd, tmp, "simulate", ["simulate", "-m", "120", "-n", "40", "-c", "25,16",
                                         "-r", "0.1", "-t", "2", "-q", "OUT"], "50,32")
        # pca with loadings (every array one chunk: each shard holds one inner chunk)
        triple(gensvd, tmp, "pca", ["pca", "-k", "4", "--loadings", "-t", "1", "-q", "-o", "OUT",
                                    inp], "100000")
        # pdist square: --memory makes the chunks 57 x 57, so 230 samples are 5 x 5 chunks and
        # shards of 114 x 114 are 3 x 3, the last row and column short; n_sites is written too
        outs = triple(gensvd, tmp, "pdist", ["pdist", "--memory", "2M", "-t", "2", "-q", "-o",
                                             "OUT", inp], "114")
        check(tuple(zarr.open_group(outs["sh"], mode="r")["distance"].shards) == (114, 114),
              "pdist: shards 114 x 114")
        # pdist condensed, float32: shards of 3 chunks of the condensed vector
        probe = os.path.join(tmp, "probe.zarr")
        cargs = ["pdist", "--layout", "condensed", "--dtype", "f4", "--memory", "2M", "-t", "2",
                 "-q", "-o", "OUT", inp]
        run([gensvd] + [probe if t == "OUT" else t for t in cargs])
        chunk = zarr.open_group(probe, mode="r", zarr_format=2)["distance"].chunks[0]
        triple(gensvd, tmp, "condensed", cargs, str(3 * chunk))
        # the output format follows the input: v3 in, v3 out
        v3in = os.path.join(tmp, "simulate_v3.zarr")
        for cmd in (["pca", "-k", "2", "-q", "-o", "OUT", v3in],
                    ["pdist", "-q", "-o", "OUT", v3in]):
            out = os.path.join(tmp, "default_%s.zarr" % cmd[0])
            run([gensvd] + [out if t == "OUT" else t for t in cmd])
            check(os.path.exists(os.path.join(out, "zarr.json")) and
                  not os.path.exists(os.path.join(out, ".zgroup")),
                  "%s on a v3 input writes v3 by default" % cmd[0])
        # --shard on a v3 input: the output is v3 (sharded) without --zarr-format; a warning
        # exactly when no sharded array's shard holds more than one chunk (zarr-python says)
        inp3 = os.path.join(tmp, "input_v3.zarr")  # the input above, as Zarr v3
        run([gensvd, "simulate", "-m", "300", "-n", "230", "-c", "40,57", "-r", "0.05", "-s",
             "7", "-t", "2", "-q", "--zarr-format", "3", inp3])
        for name, cmd in (("pca", ["pca", "-k", "2", "-t", "1", "--shard", "64"]),
                          ("pdist", ["pdist", "--memory", "2M", "-t", "2", "--shard", "114"])):
            out = os.path.join(tmp, "shard_default_%s.zarr" % name)
            p = run([gensvd] + cmd + ["-o", out, inp3])
            g = zarr.open_group(out, mode="r")
            sharded = [(k, g[k]) for k in g.array_keys() if g[k].shards is not None]
            check(g.metadata.zarr_format == 3 and sharded,
                  "%s --shard on a v3 input writes sharded v3: %s" % (name, sharded))
            idle = all(tuple(a.shards) == tuple(a.chunks) for _, a in sharded)
            err = p.stderr.decode()
            check(("has no effect" in err) == idle and
                  (not idle or all(k in err for k, _ in sharded[:8])),
                  "%s --shard: warning iff every shard is one chunk (%s): %s" % (name, idle, err))
        out = os.path.join(tmp, "default_v2.zarr")
        run([gensvd, "pca", "-k", "2", "-q", "-o", out, inp])
        check(os.path.exists(os.path.join(out, ".zgroup")), "pca on a v2 input writes v2")
        # bad uses: exit 2 with a message naming the option, nothing written
        bad = os.path.join(tmp, "bad.zarr")
        for cmd in (["simulate", "-m", "50", "-n", "10", "--shard", "10", bad],
                    ["simulate", "-m", "50", "-n", "10", "--zarr-format", "2", "--shard", "10",
                     bad],
                    ["simulate", "-m", "50", "-n", "10", "-c", "10,10", "--zarr-format", "3",
                     "--shard", "15", bad],
                    ["simulate", "-m", "50", "-n", "10", "--zarr-format", "4", bad],
                    ["simulate", "-m", "50", "-n", "10", "--zarr-format", "3", "--shard", "0",
                     bad],
                    ["simulate", "-m", "50", "-n", "10", "--zarr-format", "3", "--shard", "10,x",
                     bad],
                    ["pca", "-k", "2", "--shard", "10", "-o", bad, inp],
                    ["pdist", "--shard", "10", "-o", bad, inp],
                    ["pdist", "--memory", "2M", "--zarr-format", "3", "--shard", "100", "-o", bad,
                     inp]):
            p = run([gensvd] + cmd, want=2)
            check((b"shard" in p.stderr or b"zarr-format" in p.stderr) and
                  not os.path.exists(bad),
                  "%s: usage error, nothing written" % " ".join(cmd))
    print("%d passed, %d failed" % (PASSED[0], len(FAILED)))
    for f in FAILED:
        print("FAILED: " + f)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
