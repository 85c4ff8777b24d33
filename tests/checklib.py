"""The tally of named checks that the Python tests share, and the CPU pin of their command lines.

    sys.path.insert(0, <tests/>); from checklib import check, summary
    check("what is asserted", ok, "detail printed when it fails")
    sys.exit(summary())      # prints "N passed, N failed"; 1 when any failed
    subprocess.run(on_cpu([gensvd, "pca", ...]))
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
