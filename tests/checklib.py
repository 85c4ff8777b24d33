"""The tally of named checks that the Python tests share, the CPU pin of their command lines,
and a VCF Zarr store written from numpy calls.

    sys.path.insert(0, <tests/>); from checklib import check, summary
    check("what is asserted", ok, "detail printed when it fails")
    sys.exit(summary())      # prints "N passed, N failed"; 1 when any failed
    subprocess.run(on_cpu([gensvd, "pca", ...]))
    write_calls(path, gt, ids, chunks)
    apart_calls(n, m, seed, missing, stretch, always); check_apart(tag, label, run, want)
    check_eval(label, got, want)   # a .eval against smartpca's, and through twstats
    check_snpwt(label, got, want, k, rel)   # PREFIX.snpwt against smartpca's (PREFIX.evec beside)
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


def check_apart(tag, label, r, want):
    """A `pdist -v` run r (a CompletedProcess) on a store whose segments take both ways (missing
    calls counted apart, and masked), named by label: "one band" and "part, one band" are the
    references of the whole run and of a variant range; "part, replayed" must take several bands
    in one pass, any other several bands.  Its -v lines and its bytes (stdout against want, a
    dict filled by the references) are checked."""
    if not check(f"{tag} {label}: exit 0", r.returncode == 0, r.stderr[-400:]):
        return
    line = [ln for ln in r.stderr.split("\n") if "counted apart" in ln]
    n_apart, n_seg = (int(line[0].split()[2]), int(line[0].split()[4])) if line else (0, 0)
    if label != "part, one band":  # (maybe one segment: only the replay's reference)
        check(f"{tag} {label}: some segments counted apart, some masked", 0 < n_apart < n_seg,
              r.stderr[-400:])
    if "one band" not in label:
        check(f"{tag} {label}: several bands", " 1 band(s)" not in r.stderr, r.stderr[-400:])
    if label == "part, replayed":
        check(f"{tag} {label}: one pass over the input", " 1 pass(es)" in r.stderr,
              r.stderr[-400:])
    key = "part" if label.startswith("part") else "all"
    want.setdefault(key, r.stdout)
    check(f"{tag} {label}: the same bytes as one band", r.stdout == want[key])


def apart_calls(n, m, seed, missing, stretch, always):
    """Calls (m variants x n samples x 2, int8, -1 missing) whose missing calls take both ways
    of pdist's bit planes: unlinked SNPs, each call missing at rate `missing`, half of them in
    the variants of `stretch` (a slice), sample 0 missing at 99% of the variants, samples 1 and
    2 never, sample 2's calls `always` (e.g. [0, 1]) everywhere, so that a total of sample 0
    against sample 2 passes 65,535 when m is large."""
    import numpy as np
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.5, m).astype(np.float32)
    gt = (rng.random((m, n, 2), dtype=np.float32) < p[:, None, None]).astype(np.int8)
    miss = rng.random((m, n), dtype=np.float32) < missing
    k = len(range(m)[stretch])
    miss[stretch] = rng.random((k, n), dtype=np.float32) < 0.5
    miss[:, 0] = rng.random(m) < 0.99
    miss[:, 1:3] = False
    gt[:, 2] = always
    gt[miss] = -1
    return gt


TWSTATS, TWTABLE = "/usr/bin/twstats", "/usr/share/eigensoft/POPGEN/twtable"


def check_eval(label, got, want, rel=2e-7):
    """`gensvd pca --eigensoft`'s .eval (path got) against smartpca's (path want): the same
    number of lines (every eigenvalue), each value to one unit of the sixth decimal both print
    plus `rel` of it (float32 standardisation, or a float32 Gram's products), the sum N - 1;
    then EIGENSOFT's twstats on each file (when installed): the same table (the eigenvalues it
    counts, those above zero, included), the statistics to the rounding of its inputs."""
    import os
    import subprocess
    import tempfile
    import numpy as np
    g, w = np.loadtxt(got, ndmin=1), np.loadtxt(want, ndmin=1)
    if not check(f"{label}: .eval: every eigenvalue, as smartpca's ({len(g)} lines)",
                 len(g) == len(w) and len(g) > 1, f"{len(g)} against {len(w)}"):
        return
    d = np.abs(g - w) - rel * np.abs(w)
    check(f"{label}: .eval = smartpca's to one unit of the 6th decimal + {rel:g} of it "
          f"({np.abs(g - w).max():.2g}; {np.mean(g == w):.1%} identical)",
          d.max() <= 1.01e-6, str(np.argmax(d)))
    check(f"{label}: .eval sums to N - 1 ({g.sum():.6f})", abs(g.sum() - (len(g) - 1)) < 1e-3)
    if not (os.access(TWSTATS, os.X_OK) and os.path.exists(TWTABLE)):
        return
    with tempfile.TemporaryDirectory() as tmp:
        tabs = []
        for name, f in (("got", got), ("want", want)):
            out = os.path.join(tmp, name)
            subprocess.run([TWSTATS, "-t", TWTABLE, "-i", f, "-o", out], check=True,
                           capture_output=True)
            tabs.append(np.array([[np.nan if x == "NA" else float(x) for x in ln.split()[:6]]
                                  for ln in open(out).read().splitlines()[1:] if ln.strip()]))
    a, b = tabs
    same = a.shape == b.shape and a.size > 0
    if same:  # #N, eigenvalue, difference, twstat (3 decimals), p-value, effective n
        tol = np.abs(b) * 2e-4 + 2.01e-3
        same = bool(np.all((np.abs(a - b) <= tol) | (np.isnan(a) & np.isnan(b))))
    check(f"{label}: twstats on the .eval = twstats on smartpca's ({len(a)} rows)", same,
          f"{a.shape} {b.shape}")


def check_snpwt(label, got, want, k, rel=1e-6):
    """PREFIX.snpwt (got, a prefix) against smartpca's snpweightoutname file (want, a prefix;
    the .evec of each beside it): the same rows (smartpca leaves out monomorphic SNPs but counts
    them in its scale), IDs, chromosome numbers, positions and line widths, and the k weights to
    one unit of the sixth printed decimal plus `rel` of the PC's largest weight (a vector's
    rounding: float32 standardisation, near eigenvalues; stricter than 1e-6 on the unit .evec
    entries), each PC's sign the one that aligns the .evec beside it with smartpca's (the
    weights are Z'u of those columns)."""
    import numpy as np
    g = open(got + ".snpwt").read().splitlines()
    w = open(want + ".snpwt").read().splitlines()
    fg, fw = [ln.split() for ln in g], [ln.split() for ln in w]
    check(f"{label}: .snpwt: smartpca's variants, IDs, chromosomes and positions ({len(g)} "
          f"rows)", [f[:3] for f in fg] == [f[:3] for f in fw] and len(g) > 100,
          f"{len(g)} {len(w)}")
    check(f"{label}: .snpwt: smartpca's line widths", [len(x) for x in g] == [len(x) for x in w])
    if len(g) != len(w):
        return
    a = np.array([[float(x) for x in f[3:]] for f in fg])
    b = np.array([[float(x) for x in f[3:]] for f in fw])
    if a.shape != b.shape or a.shape != (len(g), k):
        check(f"{label}: .snpwt: {k} weights a row", False, f"{a.shape} {b.shape}")
        return
    ea, eb = ({ln.split()[0]: [float(x) for x in ln.split()[1:1 + k]]
               for ln in open(p + ".evec").read().splitlines()[1:]} for p in (got, want))
    ids = [i for i in eb if i in ea]
    sign = np.sign((np.array([ea[i] for i in ids]) * np.array([eb[i] for i in ids])).sum(axis=0))
    tol = 1.01e-6 + rel * np.abs(b).max(axis=0)
    err = (np.abs(a * sign - b) / tol).max()
    check(f"{label}: .snpwt: the weights = smartpca's, with the .evec's signs "
          f"({np.abs(a * sign - b).max():.2g}; {err:.2f} of the tolerance)", err <= 1)
