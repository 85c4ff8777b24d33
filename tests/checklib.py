"""The tally of named checks that the Python tests share, the CPU pin of their command lines,
and a VCF Zarr store written from numpy calls.

    sys.path.insert(0, <tests/>); from checklib import check, summary
    check("what is asserted", ok, "detail printed when it fails")
    sys.exit(summary())      # prints "N passed, N failed"; 1 when any failed
    subprocess.run(on_cpu([gensvd, "pca", ...]))
    write_calls(path, gt, ids, chunks)
"""

ON_CPU = ("pca", "pdist", "related")

passed = failed = 0


def check(name, ok, detail=""):
    """Count one check; print it ("ok" or "FAIL" with detail). Returns ok."""
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")
    return ok


def on_cpu(argv):
    """A gensvd command line (a list; the binary anywhere before the command) with --device cpu
    after its pca, pdist or related command, unless it names a device already.  --device auto
    takes a GPU where there is one, and the tests that use this compare with the CPU's bytes or
    with oracles closer than the GPU's float32 rounding; the GPU against the CPU is
    scripts/gpu-check.sh's (and tests/gpu/'s) business.  Other commands (plot pca ...) pass."""
    argv = [str(a) for a in argv]
    if "--device" in argv or "-d" in argv or "plot" in argv:
        return argv
    for i, a in enumerate(argv):
        if a in ON_CPU:
            return argv[:i + 1] + ["--device", "cpu"] + argv[i + 1:]
    return argv


def summary():
    """Print the last line the test scripts end with; the exit status (0 or 1)."""
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def write_calls(path, gt, ids, chunks):
    """A VCF Zarr store (format 2, consolidated) at path: call_genotype gt (variants x samples x
    ploidy int8, -1 missing) in chunks (a shape), and sample_id ids, as bio2zarr names them."""
    import numpy as np
    import zarr
    g = zarr.open_group(path, mode="w", zarr_format=2)
    a = g.create_array("call_genotype", shape=gt.shape, chunks=chunks, dtype="i1", fill_value=-1)
    a[:] = gt
    a.attrs["_ARRAY_DIMENSIONS"] = ["variants", "samples", "ploidy"]
    sid = g.create_array("sample_id", shape=(len(ids),), dtype=str, chunks=(len(ids),))
    sid[:] = np.asarray(ids)
    sid.attrs["_ARRAY_DIMENSIONS"] = ["samples"]
    zarr.consolidate_metadata(path)
