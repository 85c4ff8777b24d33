#!/usr/bin/env python3
"""tests/cli/test_reliability.py - crash safety of local outputs, driving the real binary.

Usage: test_reliability.py GENSVD [SEED]   (or GENSVD_RELIABILITY_SEED=N; KILLS=N per command)

1. kill -9 at random moments of `pca -o`, `pdist -o` (square, condensed, bands via --memory)
   and `simulate`: afterwards the target either does not exist or is byte-identical to an
   uninterrupted run's output (every run writes "out.zarr" from its own directory with the
   same command line, so even the "command" attribute matches); the next run on the same
   target removes every staging directory left behind, and then produces the same output.
2. Stale-staging recognition: owner files of dead processes (gone pid, other boot, pid reused
   by a later process) are cleaned up, with a moved-aside previous output put back; a live
   owner's staging directory, a staging-like directory without owner file, an unparsable
   owner file and another target's files are left alone.
3. A live concurrent run is not disturbed: a second run on the same target leaves the first
   one's staging directory alone and finishes first; the first then fails cleanly (no
   --force) and its output is not mixed into the winner's.
4. SIGINT and SIGTERM remove the staging directory and exit 130 and 143 (`simulate`, whose
   output is open from the start; pca and pdist open theirs once results are ready).
5. A write past `ulimit -f` (EFBIG; SIGXFSZ ignored) fails with exit 1, a message naming the
   output, and nothing left behind.
6. Hostile sizes: a .zarray declaring 3e9 samples is refused before anything is sized by it,
   a blosc chunk whose header claims more bytes than the chunk holds is refused before it is
   decoded, and a `ulimit -v` that leaves OpenBLAS no room ends with an out-of-memory message
   and exit 1 instead of the hang it used to be (not in sanitizer builds: they need the
   address space).
7. `pca -t 2` and `pdist -t 2` (a genotype store, and a float matrix whose distances come from
   two threads running dgemm at once) under `ulimit -v` limits rising in 32 MiB steps from
   the lowest one `--version` runs under until the command succeeds: every run ends within
   the time limit (OpenBLAS used to hang retrying its buffer mapping) with exit 0, or exit 1
   and an out-of-memory message (not in sanitizer builds).
Prints one line per check and a summary; exits 0 only if every check passed.
"""
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time

GENSVD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit("usage: GENSVD [SEED]")
SEED = int(sys.argv[2] if len(sys.argv) > 2 else os.environ.get("GENSVD_RELIABILITY_SEED", "15"))
KILLS = int(os.environ.get("KILLS", "4"))
rng = random.Random(SEED)
# a run whose output store is open (staging directory present) for a second or more
LONG_RUN = ["simulate", "-q", "-t", "1", "-m", "200000", "-n", "1000", "out.zarr"]
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what, flush=True)


def tree(path):
    """{relative path: bytes} of every file under path."""
    out = {}
    for root, _, files in os.walk(path):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, path)] = fh.read()
    return out


def leftovers(d, name="out.zarr"):
    return sorted(e for e in os.listdir(d) if e.startswith("." + name + ".gensvd-"))


def run(args, cwd, **kw):
    return subprocess.run([GENSVD] + args, cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, timeout=kw.pop("timeout", 120), **kw)


def run_bounded(args, cwd, limit=30, **kw):
    """run(), but a run past `limit` seconds is killed and returns None (a hang is a failure)."""
    try:
        return run(args, cwd, timeout=limit, **kw)
    except subprocess.TimeoutExpired:
        return None


def staging_appeared(d, proc, limit=20.0):
    """Wait until proc has started writing its output in d (or exited): a staging directory
    with something in it.  The empty one that checks the output before any input is read
    comes and goes first; an interrupt then finds nothing staged."""
    end = time.monotonic() + limit
    while time.monotonic() < end and proc.poll() is None:
        for e in leftovers(d):
            try:
                if not e.endswith(".owner") and os.listdir(os.path.join(d, e)):
                    return True
            except OSError:
                pass  # gone, or not a directory
        time.sleep(0.005)
    return False


def kill_tests(work, inp):
    cmds = {
        "pca": ["pca", "-q", "-t", "1", "-k", "3", inp, "-o", "out.zarr"],
        "pdist-square": ["pdist", "-q", "-t", "1", inp, "-o", "out.zarr"],
        "pdist-condensed": ["pdist", "-q", "-t", "1", "--layout", "condensed", inp, "-o",
                            "out.zarr"],
        "pdist-bands": ["pdist", "-q", "-t", "1", "--memory", "16M", inp, "-o", "out.zarr"],
        "simulate": ["simulate", "-q", "-t", "1", "-m", "30000", "-n", "600", "-c", "1000,600",
                     "out.zarr"],
    }
    n_kills = n_complete = n_left = bytes_left = 0
    for name, args in cmds.items():
        ref_dir = os.path.join(work, name + "-ref")
        os.mkdir(ref_dir)
        t0 = time.monotonic()
        r = run(args, ref_dir)
        took = time.monotonic() - t0
        check(r.returncode == 0, f"{name}: reference run failed: {r.stderr}")
        ref = tree(os.path.join(ref_dir, "out.zarr"))
        for k in range(KILLS):
            d = os.path.join(work, f"{name}-kill{k}")
            os.mkdir(d)
            delay = rng.uniform(0.0, 1.1 * took)
            p = subprocess.Popen([GENSVD] + args, cwd=d, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            time.sleep(delay)
            p.send_signal(signal.SIGKILL)
            p.wait()
            n_kills += 1
            target = os.path.join(d, "out.zarr")
            if os.path.exists(target):
                n_complete += 1
                check(tree(target) == ref,
                      f"{name}: killed at {delay:.3f} s: the target exists but differs")
            left = leftovers(d)
            n_left += bool(left)
            bytes_left += sum(len(v) for e in left if os.path.isdir(os.path.join(d, e))
                              for v in tree(os.path.join(d, e)).values())
            # the next run on the same target cleans up, then writes the same output
            if os.path.exists(target):
                r = run(args, d)
                check(r.returncode == 1 and "output exists" in r.stderr,
                      f"{name}: rerun over a complete target: {r.returncode} {r.stderr}")
            else:
                r = run(args, d)
                check(r.returncode == 0, f"{name}: rerun after kill: {r.stderr}")
                check(os.path.exists(target) and tree(target) == ref,
                      f"{name}: rerun after kill at {delay:.3f} s differs from the reference")
            check(leftovers(d) == [],
                  f"{name}: staging left after the next run: {leftovers(d)} (was {left})")
    print(f"kill -9: {n_kills} runs killed, {n_complete} had finished, {n_left} left staging "
          f"directories holding {bytes_left} bytes (removed by the next run)", flush=True)


def fake_owner(d, suffix, pid, boot=None, start=0, name="out.zarr", mkdir=True):
    """An owner file (and staging directory) as a run with that pid would have left them."""
    if boot is None:
        with open("/proc/sys/kernel/random/boot_id") as fh:
            boot = fh.read().strip()
    stage = os.path.join(d, f".{name}.gensvd-{suffix}")
    with open(stage + ".owner", "w") as fh:
        fh.write(f"gensvd staging v1\npid {pid}\nboot {boot}\nstart {start}\n")
    if mkdir:
        os.makedirs(os.path.join(stage, "x"))
        with open(os.path.join(stage, "x", "0"), "wb") as fh:
            fh.write(b"partial")
    return stage


def proc_start(pid):
    with open(f"/proc/{pid}/stat") as fh:
        return int(fh.read().rsplit(")", 1)[1].split()[19])


def stale_tests(work, inp):
    d = os.path.join(work, "stale")
    os.mkdir(d)
    dead = subprocess.Popen(["true"])
    dead.wait()
    me = os.getpid()
    gone = fake_owner(d, "dead01", dead.pid)
    other_boot = fake_owner(d, "boot01", me, boot="00000000-0000-0000-0000-000000000000")
    reused = fake_owner(d, "reuse1", me, start=proc_start(me) + 1)
    alive = fake_owner(d, "alive1", me, start=proc_start(me))
    alive_nostart = fake_owner(d, "alive2", me)
    no_owner = os.path.join(d, ".out.zarr.gensvd-noown1")
    os.makedirs(no_owner)
    garbage = os.path.join(d, ".out.zarr.gensvd-garb01")
    os.makedirs(garbage)
    with open(garbage + ".owner", "w") as fh:
        fh.write(f"something else\npid {dead.pid}\n")
    other_target = fake_owner(d, "othr01", dead.pid, name="other.zarr")
    r = run(["pdist", "-q", "-t", "1", inp, "-o", "out.zarr"], d)
    check(r.returncode == 0, f"stale: run failed: {r.stderr}")
    for path, kept in ((gone, False), (other_boot, False), (reused, False), (alive, True),
                       (alive_nostart, True), (no_owner, True), (garbage, True),
                       (other_target, True)):
        check(os.path.exists(path) == kept, f"stale: {os.path.basename(path)} "
              f"{'removed' if kept else 'kept'}")
        if os.path.exists(path + ".owner") != (kept and path != no_owner):
            check(False, f"stale: owner file of {os.path.basename(path)}")

    # a run that died between moving the old output aside and moving its own in: the next run
    # puts the previous output back (and, without --force, then refuses to overwrite it)
    d = os.path.join(work, "aside")
    os.mkdir(d)
    r = run(["pdist", "-q", "-t", "1", inp, "-o", "out.zarr"], d)
    before = tree(os.path.join(d, "out.zarr"))
    stage = fake_owner(d, "aside1", dead.pid)
    os.rename(os.path.join(d, "out.zarr"), stage + ".gensvd-old-Qx9Zk2")
    r = run(["pdist", "-q", "-t", "1", inp, "-o", "out.zarr"], d)
    check(r.returncode == 1 and "output exists" in r.stderr, f"aside: rerun {r.stderr}")
    check(os.path.exists(os.path.join(d, "out.zarr")) and
          tree(os.path.join(d, "out.zarr")) == before, "aside: previous output not put back")
    check(leftovers(d) == [], f"aside: left {leftovers(d)}")


def concurrent_test(work, inp, small):
    d = os.path.join(work, "concurrent")
    os.mkdir(d)
    a = subprocess.Popen([GENSVD] + LONG_RUN, cwd=d, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    check(staging_appeared(d, a), "concurrent: first run's staging directory")
    b = run(["pdist", "-q", "-t", "1", small, "-o", "out.zarr"], d)
    _, a_err = a.communicate(timeout=120)
    check(b.returncode == 0, f"concurrent: second run: {b.stderr}")
    check(a.returncode == 1 and "output appeared while this run was writing it" in a_err,
          f"concurrent: first run: {a.returncode} {a_err}")
    check(os.path.exists(os.path.join(d, "out.zarr", "distance")), "concurrent: winner's output")
    check(not os.path.exists(os.path.join(d, "out.zarr", "call_genotype")),
          "concurrent: the outputs were mixed")
    check(leftovers(d) == [], f"concurrent: left {leftovers(d)}")


def signal_tests(work):
    for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
        d = os.path.join(work, f"sig{int(sig)}")
        os.mkdir(d)
        p = subprocess.Popen([GENSVD] + LONG_RUN, cwd=d, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        check(staging_appeared(d, p), f"{sig.name}: staging directory")
        p.send_signal(sig)
        _, err = p.communicate(timeout=60)
        check(p.returncode == code, f"{sig.name}: exit {p.returncode}, want {code}: {err}")
        check(err.strip() == f"gensvd simulate: error: interrupted by {sig.name}; the unfinished "
              "output was removed", f"{sig.name}: message: {err}")
        check(not os.path.exists(os.path.join(d, "out.zarr")) and leftovers(d) == [],
              f"{sig.name}: left {os.listdir(d)}")
    # a run that has staged nothing (pdist waiting for its matrix on standard input) does not
    # claim to have removed anything
    d = os.path.join(work, "sig-nothing-staged")
    os.mkdir(d)
    p = subprocess.Popen([GENSVD, "pdist", "-"], cwd=d, stdin=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # past the start-up (signals are caught before the command runs): the main thread blocks in
    # read(0, ...) (x86-64 syscall 0 on fd 0; elsewhere a fixed wait); stdin stays open until
    # the process has ended, so the signal, not the end of input, ends it
    for _ in range(1200):
        try:
            with open(f"/proc/{p.pid}/syscall") as f:
                if f.read().startswith("0 0x0 "):
                    break
        except OSError:
            time.sleep(2)
            break
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    p.wait(timeout=60)
    err = p.stderr.read()
    p.stdin.close()
    p.stderr.close()
    check(p.returncode == 130 and err.strip() == "gensvd pdist: error: interrupted by SIGINT",
          f"nothing staged: exit {p.returncode}: {err}")


def efbig_test(work, inp):
    d = os.path.join(work, "efbig")
    os.mkdir(d)

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (200 * 1024, 200 * 1024))

    r = run(["pdist", "-q", "-t", "1", inp, "-o", "out.zarr"], d, preexec_fn=limit)
    check(r.returncode == 1, f"EFBIG: exit {r.returncode}, want 1: {r.stderr}")
    check("File too large" in r.stderr and "output out.zarr not written" in r.stderr,
          f"EFBIG: message: {r.stderr}")
    check(os.listdir(d) == [], f"EFBIG: left {os.listdir(d)}")


def hostile_tests(work):
    d = os.path.join(work, "hostile")
    gt = os.path.join(d, "huge.zarr", "call_genotype")
    os.makedirs(gt)
    with open(os.path.join(d, "huge.zarr", ".zgroup"), "w") as fh:
        fh.write('{"zarr_format": 2}')

    def zarray(shape, chunks, compressor="null"):
        with open(os.path.join(gt, ".zarray"), "w") as fh:
            fh.write('{"zarr_format": 2, "shape": %s, "chunks": %s, "dtype": "|i1", '
                     '"fill_value": 0, "order": "C", "compressor": %s, "filters": null}'
                     % (shape, chunks, compressor))

    zarray("[1000000, 3000000000, 2]", "[1000, 1000, 2]")
    for args in (["pca", "-k", "3"], ["pdist", "--format", "tsv"]):
        r = run_bounded(args + ["-t", "1", "huge.zarr"], d)
        check(r is not None and r.returncode == 1 and "3000000000 samples, more than gensvd accepts" in r.stderr,
              f"hostile shape: {args[0]}: {r and (r.returncode, r.stderr[:300])}")
    # one chunk of 4 x 3 x 2 = 24 bytes whose blosc header claims 1 GiB of decoded bytes
    zarray("[4, 3, 2]", "[4, 3, 2]",
           '{"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 0, "blocksize": 0}')
    frame = bytes([2, 1, 0x00, 1]) + (2**30).to_bytes(4, "little") + \
        (2**16).to_bytes(4, "little") + (16 + 24).to_bytes(4, "little") + bytes(24)
    with open(os.path.join(gt, "0.0.0"), "wb") as fh:
        fh.write(frame)
    r = run_bounded(["pca", "-k", "1", "-t", "1", "huge.zarr"], d)
    check(r is not None and r.returncode == 1 and "more than the 24 expected" in r.stderr,
          f"lying chunk: {r and (r.returncode, r.stderr[:300])}")
    with open(GENSVD, "rb") as fh:
        sanitized = b"__asan_init" in fh.read()
    if sanitized:
        print("ulimit -v: skipped (sanitizer build)", flush=True)
        return

    def vlimit():
        resource.setrlimit(resource.RLIMIT_AS, (150 << 20, 150 << 20))

    r = run_bounded(["--version"], d, preexec_fn=vlimit)
    check(r is not None and r.returncode == 1 and
          r.stderr.startswith("gensvd: error: out of memory: the virtual memory limit"),
          f"ulimit -v: {r and (r.returncode, r.stderr[:300])} (None: it hung)")


def run_vlimited(args, d, mib):
    def vlimit():
        resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))
    return run_bounded(args, d, limit=60, preexec_fn=vlimit)


def vlimit_tests(work, small):
    """7.: the thread-count x ulimit -v sweep."""
    with open(GENSVD, "rb") as fh:
        if b"__asan_init" in fh.read():
            print("ulimit -v sweep: skipped (sanitizer build)", flush=True)
            return
    d = os.path.join(work, "vlimit")
    os.makedirs(d)
    rng_m = random.Random(7)
    with open(os.path.join(d, "m.tsv"), "w") as fh:
        for _ in range(300):
            fh.write("\t".join(f"{rng_m.random():.4f}" for _ in range(40)) + "\n")
    base = next((mib for mib in range(64, 4096, 32)
                 if (r := run_vlimited(["--version"], d, mib)) and r.returncode == 0), None)
    check(base is not None, "ulimit -v: --version runs under some limit below 4 GiB")
    if base is None:
        return
    # pca's Gram runs BLAS on two threads at once only with two or more 256-column tiles, and
    # its scan starts a decoding thread only with two or more chunk rows
    mid = os.path.join(d, "mid.zarr")
    subprocess.run([GENSVD, "simulate", "-q", "-t", "1", "-m", "400", "-n", "300", "-c", "100,300",
                    mid], check=True)
    # (name, command, 1 when two threads run BLAS at once: some limits must be refused)
    cases = (("pca", ["pca", "-k", "2", "-t", "2", "-o", "out.zarr", mid], 1),
             ("pca 1 tile", ["pca", "-k", "2", "-t", "2", "-o", "out.zarr", small], 0),
             ("pdist store", ["pdist", "-t", "2", "-o", "out.zarr", small], 0),
             ("pdist dgemm", ["pdist", "-m", "euclidean", "-t", "2", "-o", "out.zarr", "m.tsv"],
              1))
    for name, args, two_blas in cases:
        refused = 0
        for mib in range(base, base + 2048, 32):
            r = run_vlimited(args, d, mib)
            ok = r is not None and (r.returncode == 0 or (
                r.returncode == 1 and "out of memory" in r.stderr))
            check(ok, f"ulimit -v {mib} MiB {name}: {r and (r.returncode, r.stderr[-300:])} "
                      "(None: it hung)")
            if not ok or r.returncode == 0:
                break
            refused += 1
        check(ok and r.returncode == 0, f"ulimit -v sweep {name}: never ran below {mib} MiB")
        check(refused > 0 or not two_blas, f"ulimit -v sweep {name}: no limit was refused")
        print(f"ulimit -v sweep {name}: --version from {base} MiB, refused cleanly at {refused} "
              f"limits, ran at {mib} MiB", flush=True)
        subprocess.run(["rm", "-rf", os.path.join(d, "out.zarr")])


def main():
    with tempfile.TemporaryDirectory(prefix="gensvd-reliability-") as work:
        inp = os.path.join(work, "in.zarr")
        small = os.path.join(work, "small.zarr")
        for out, m, n in ((inp, "20000", "1200"), (small, "200", "20")):
            r = subprocess.run([GENSVD, "simulate", "-q", "-t", "1", "-m", m, "-n", n, "-c",
                                "2000,1200", out], stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                print("cannot simulate the input:", r.stderr)
                return 1
        print(f"seed {SEED}, {KILLS} kills per command", flush=True)
        kill_tests(work, inp)
        stale_tests(work, inp)
        concurrent_test(work, inp, small)
        signal_tests(work)
        efbig_test(work, inp)
        hostile_tests(work)
        vlimit_tests(work, small)
    print(f"test_reliability: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
