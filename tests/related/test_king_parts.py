#!/usr/bin/env python3
"""`pdist -m king --min-kinship X --part I/N -o OUT` and `--finalize OUT` (job arrays of a pair
list, analysis/pdist/king_parts.h), on simulated families with planted relatives
(tests/related/test_king.py's simulate: parent-offspring, full sibs, half sibs, first cousins):

  - three parts run in the order 3, 1, 2 and finalized give the one-process output byte for
    byte in every file (the recorded command line aside), for a threshold that keeps the
    relatives (0.04) and one that keeps no pair in some parts (0.2), with banded --memory;
  - the finalized pairs are plink2 --make-king-table --king-table-filter's (the same pairs,
    HETHET and IBS0 equal, kinship to 1e-12), and every planted first- and second-degree pair
    is among them;
  - a missing part: --finalize exits 1 naming it, and succeeds once the part has run; a part
    of a run with other bands (a much smaller --memory): exit 1 naming the rows no part covers;
    an existing OUT without --force: exit 1 (at --part and at --finalize); --part with
    --zarr-format 3: exit 2.
Usage: test_king_parts.py GENSVD
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import zarr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checklib import check, on_cpu, summary  # noqa: E402

GENSVD = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("test_king", os.path.join(HERE, "test_king.py"))
tk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tk)


def run(args, code=0):
    r = subprocess.run(on_cpu(args), capture_output=True, text=True)
    if r.returncode != code:
        raise RuntimeError(f"{' '.join(args)}: exit {r.returncode} (want {code})\n"
                           f"{r.stderr[-800:]}")
    return r


def files(root):
    """{relative path: bytes} with the "command" lines taken out."""
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            data = open(p, "rb").read()
            data = b"\n".join(x for x in data.split(b"\n") if b'"command":' not in x)
            out[os.path.relpath(p, root)] = data
    return out


def parts(store, out, x, order, *extra):
    for i in order:
        run([GENSVD, "pdist", store, "-m", "king", "--min-kinship", str(x), "--part",
             f"{i}/3", "-o", out, "-q", *extra])


def main():
    if subprocess.run(["which", "plink2"], capture_output=True).returncode != 0:
        print("plink2 not installed (scripts/setup.sh --tests installs it)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        sim = os.path.join(tmp, "families.vcz")
        rel = tk.simulate(sim, seed=16, n_fam=8, n_unrel=60, m=6000)
        mem = ["--memory", "3M"]
        for x in (0.04, 0.2):
            one, joined = os.path.join(tmp, f"one{x}.zarr"), os.path.join(tmp, f"parts{x}.zarr")
            run([GENSVD, "pdist", sim, "-m", "king", "--min-kinship", str(x), "-o", one, "-q",
                 *mem])
            parts(sim, joined, x, (3, 1, 2), *mem)
            run([GENSVD, "pdist", "--finalize", joined, "-q"])
            a, b = files(one), files(joined)
            check(f"--min-kinship {x}: parts 3, 1, 2 finalized = one process, byte for byte",
                  a == b and "pair_i/.zarray" in a,
                  f"differ: {sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))[:5]}")
            check(f"--min-kinship {x}: the parts are gone",
                  not os.path.exists(joined + ".gensvd-parts"))
            g = zarr.open_group(joined, mode="r")
            print(f"--min-kinship {x}: {g.attrs['n_pairs']} pairs from 3 parts")

        # the pairs against plink2, and the planted relatives among them
        bed = os.path.join(tmp, "fam")
        run([sys.executable, tk.ORACLE, "write-bed", sim, bed])
        run(["plink2", "--bfile", bed, "--make-king-table", "counts",
             "cols=id,nsnp,hethet,ibs0,ibs1,kinship", "--king-table-filter", "0.04",
             "--threads", "2", "--out", bed])
        run(["plink2", "--bfile", bed, "--make-king", "square", "bin", "--threads", "2",
             "--out", bed])
        want = tk.kin0(bed + ".kin0")  # its KINSHIP has 6 digits: the value from the matrix
        pids = [x.split("\t")[-1] for x in open(bed + ".king.id").read().strip().split("\n")[1:]]
        P = np.fromfile(bed + ".king.bin").reshape(len(pids), len(pids))
        at = {s: i for i, s in enumerate(pids)}
        g = zarr.open_group(os.path.join(tmp, "parts0.04.zarr"), mode="r")
        ids = list(g["sample_id"][:])
        got = {}
        for i, j, k, hh, i0 in zip(*(g[c][:] for c in ("pair_i", "pair_j", "kinship", "hethet",
                                                       "ibs0"))):
            got[tuple(sorted((ids[i], ids[j])))] = (int(hh), int(i0), float(k))
        check("finalized pairs = plink2 --king-table-filter 0.04", sorted(got) == sorted(want),
              f"{len(got)} vs {len(want)}")
        check("finalized counts equal plink2's, kinship to 1e-12",
              all(got[p][:2] == want[p][1:3] and abs(got[p][2] - P[at[p[0]], at[p[1]]]) <= 1e-12
                  for p in got if p in want))
        planted = [tuple(sorted((a, b))) for a, b, kind in rel if kind != "first cousins"]
        check("every planted first/second-degree pair is kept", all(p in got for p in planted),
              f"{sum(p in got for p in planted)} of {len(planted)}")

        # a missing part, then the part: finalize names it, then succeeds
        out = os.path.join(tmp, "gap.zarr")
        parts(sim, out, 0.04, (1, 3), *mem)
        r = run([GENSVD, "pdist", "--finalize", out], code=1)
        check("finalize with part 2 missing: exit 1 naming it",
              "1 of 3 parts missing (2)" in r.stderr, r.stderr)
        parts(sim, out, 0.04, (2,), *mem)
        run([GENSVD, "pdist", "--finalize", out, "-q"])
        check("finalize after the missing part ran: the one-process output",
              files(out) == files(os.path.join(tmp, "one0.04.zarr")))
        r = run([GENSVD, "pdist", "--finalize", out], code=1)
        check("finalize again: OUT exists (checked first)", "output exists" in r.stderr,
              r.stderr)
        r = run([GENSVD, "pdist", "--finalize", out, "--force"], code=1)
        check("finalize again with --force: no parts left", "no parts" in r.stderr, r.stderr)

        # a part of another band plan: its rows do not tile with the others'
        out = os.path.join(tmp, "mixed.zarr")
        parts(sim, out, 0.04, (1, 3), *mem)
        parts(sim, out, 0.04, (2,), "--memory", "1200K")
        r = run([GENSVD, "pdist", "--finalize", out], code=1)
        check("finalize with parts of other bands: exit 1 naming the rows",
              "in no part's bands" in r.stderr or "in two parts' bands" in r.stderr, r.stderr)
        shutil.rmtree(out + ".gensvd-parts")

        # an existing OUT needs --force at --part already (before any work) and at --finalize
        one = os.path.join(tmp, "one0.04.zarr")
        r = run([GENSVD, "pdist", "--finalize", one], code=1)
        r = run([GENSVD, "pdist", sim, "-m", "king", "--min-kinship", "0.04", "--part", "1/3",
                 "-o", one], code=1)
        check("--part onto an existing OUT without --force: exit 1, no part",
              "output exists" in r.stderr and not os.path.exists(one + ".gensvd-parts"),
              r.stderr)
        parts(sim, one, 0.04, (1, 2, 3), *mem, "--force")
        r = run([GENSVD, "pdist", "--finalize", one], code=1)
        check("finalize onto an existing OUT without --force: exit 1",
              "output exists" in r.stderr and "--force" in r.stderr, r.stderr)
        r = run([GENSVD, "pdist", sim, "-m", "king", "--min-kinship", "0.1", "--part", "1/2",
                 "-o", os.path.join(tmp, "v3.zarr"), "--zarr-format", "3"], code=2)
        check("--part --zarr-format 3: exit 2", "Zarr v2 parts" in r.stderr, r.stderr)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
