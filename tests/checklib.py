"""The tally of named checks that the Python tests share.

    sys.path.insert(0, <tests/>); from checklib import check, summary
    check("what is asserted", ok, "detail printed when it fails")
    sys.exit(summary())      # prints "N passed, N failed"; 1 when any failed
"""

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


def summary():
    """Print the last line the test scripts end with; the exit status (0 or 1)."""
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
