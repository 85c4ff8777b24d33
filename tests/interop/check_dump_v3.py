#!/usr/bin/env python3
"""Compare `gensvd dump` with zarr-python 3 on Zarr v3 stores, array by array.

usage: check_dump_v3.py [-v] GENSVD STORE [ARRAY ...]

For every array in the local Zarr v3 store STORE (found by walking the folder for zarr.json
files whose node_type is "array"), or only the named ARRAYs, run `GENSVD dump STORE/ARRAY`
and compare its stdout exactly with the values zarr-python 3 reads (missing chunks and inner
chunks read as fill_value in both), and `dump --stats` with numpy's on them, then the same for
a few slices that cross chunk and shard
boundaries.  The dump contract and the comparison are those of check_dump.py, imported from
the same folder.  Also checks that `gensvd info STORE` succeeds and says "format v3".

Last line: "N passed, N failed"; exit status 1 if anything failed.
"""

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import zarr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_dump  # noqa: E402  (the v2 checker: dump parsing and comparison)

warnings.filterwarnings("ignore")


def find_arrays(store):
    out = []
    for root, dirs, files in os.walk(store):
        dirs.sort()
        if "zarr.json" not in files:
            continue
        with open(os.path.join(root, "zarr.json")) as f:
            meta = json.load(f)
        if meta.get("node_type") == "array":
            rel = os.path.relpath(root, store)
            out.append("" if rel == "." else rel.replace(os.sep, "/"))
    return sorted(out)


def expected_values(store, path):
    a = zarr.open_array(store=store, path=path, mode="r", zarr_format=3) if path else \
        zarr.open_array(store=store, mode="r", zarr_format=3)
    vals = a[...]
    d = np.asarray(vals).dtype
    if d.kind in "OT":  # variable-length strings (object or numpy StringDType)
        return np.asarray(vals, dtype=object), "O", None
    vals = np.array(vals)
    return vals, d.kind, d


def main(argv):
    verbose = "-v" in argv[1:]
    args = [a for a in argv[1:] if a != "-v"]
    if len(args) < 2:
        sys.stderr.write(__doc__)
        return 2
    gensvd, store = args[0], args[1].rstrip("/")
    arrays = args[2:] or find_arrays(store)
    passed = failed = 0

    def report(ok, label, msg=""):
        nonlocal passed, failed
        if ok:
            passed += 1
            if verbose:
                print("ok   %s" % label)
        else:
            failed += 1
            print("FAIL %s: %s" % (label, msg))

    if not arrays:
        report(False, store, "no arrays found")
    for path in arrays:
        label = "%s/%s" % (store, path) if path else store
        try:
            vals, kind, dtype = expected_values(store, path)
        except Exception as e:
            report(False, label, "zarr-python could not read it: %s: %s" % (type(e).__name__, e))
            continue
        target = "%s/%s" % (store, path) if path else store
        try:
            check_dump.compare(check_dump.run_dump(gensvd, target), vals, kind, dtype)
            report(True, label)
        except check_dump.Mismatch as e:
            report(False, label, str(e))
            continue
        try:
            check_dump.check_stats(gensvd, target, vals, kind, dtype)
            report(True, label + " --stats")
        except check_dump.Mismatch as e:
            report(False, label + " --stats", str(e))
        if vals.ndim == 0 or 0 in vals.shape:
            continue
        for spec in check_dump.slice_specs(vals.shape):
            sub = check_dump.apply_slice(vals, spec)
            try:
                check_dump.compare(check_dump.run_dump(gensvd, target, spec), sub, kind, dtype)
                report(True, "%s --slice %s" % (label, spec))
            except check_dump.Mismatch as e:
                report(False, "%s --slice %s" % (label, spec), str(e))
    p = subprocess.run([gensvd, "info", store], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=check_dump.TIMEOUT)
    info = p.stdout.decode("utf-8", "replace")
    report(p.returncode == 0 and "format v3" in info, "info %s" % store,
           "exit %d: %s" % (p.returncode, p.stderr.decode("utf-8", "replace")[-300:]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
