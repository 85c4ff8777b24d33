#!/usr/bin/env python3
"""gensvd ldprune streams: (1) the kept set equals the numpy model (ld_oracle.py) where the
ring of held variants must grow and wrap (bp windows of ~15 variants to a whole 200-variant
contig, from a ring that starts at 16 slots), where many short contigs (one of a single
variant, one that reappears) close windows early, and where the step jumps past the window,
for 1 and 3 threads; (2) peak
memory does not grow with the variant count: pruning 120,000 x 2,000 simulated genotypes takes
at most 16 MiB more than pruning their first 2,000 (holding every variant's bit planes, as
gensvd did before, took 68 MiB more: 92 MB of planes).  Usage: test_ldprune_stream.py GENSVD."""
import os, subprocess, sys, tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ld_oracle  # noqa: E402
from test_ldprune_sim import simulate, write_store  # noqa: E402


def keep_of(gensvd, store, window, step, r2, threads, M):
    out = subprocess.run([gensvd, "ldprune", store, "--window", window, "--step", str(step),
                          "--r2", str(r2), "--format", "tsv", "-t", str(threads)],
                         check=True, capture_output=True, text=True).stdout
    keep = np.zeros(M, bool)
    for line in out.splitlines()[1:]:
        f = line.split("\t")
        keep[int(f[0])] = f[3] == "1"
    return keep


def peak_kib(cmd):
    """Peak RSS of cmd in KiB (Linux ru_maxrss), from its own rusage.  Under AddressSanitizer
    (the CI's Debug build) freed memory is held in a quarantine that grows with what a run
    frees (+20 MiB for the 120,000 variants, +4 MiB without it): the quarantine is turned off,
    so that the program's own memory is what is measured."""
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "quarantine_size_mb=0",
                                                 "thread_local_quarantine_size_kb=0"]))
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{cmd}: exit {proc.returncode}")
    return usage.ru_maxrss


def main(argv):
    gensvd = argv[1]
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        gt, contig, pos = simulate(5, 150, 2400, 0.01)
        M = len(contig)
        # 12 contigs in runs, the fourth one again at the end, one of a single variant
        contig = np.repeat(np.arange(12), M // 12).astype(np.int8)
        contig[-150:] = 3
        contig[1000] = 11
        pos = np.cumsum(np.random.default_rng(2).integers(1, 1500, M)).astype(np.int32)
        store = os.path.join(tmp, "contigs.vcz")
        write_store(store, gt, contig, pos)
        G = np.where((gt < 0).any(2), -1, (gt > 0).sum(2)).astype(np.int8)
        for window, step, r2 in (("20kb", 1, 0.2), ("200kb", 3, 0.3), ("1000kb", 1, 0.5),
                                 ("5kb", 30, 0.2), ("8", 20, 0.1), ("300", 7, 0.2)):
            bp = int(window[:-2]) * 1000 if window.endswith("kb") else 0
            want = ld_oracle.prune(G, contig, pos, 0 if bp else int(window), step, r2, bp)
            for threads in (1, 3):
                got = keep_of(gensvd, store, window, step, r2, threads, M)
                ok = np.array_equal(got, want)
                fails += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {window},{step},{r2} -t {threads}: gensvd keeps "
                      f"{got.sum()}, model {want.sum()}, differ on {(got != want).sum()}")
        big = os.path.join(tmp, "big.vcz")
        subprocess.run([gensvd, "simulate", big, "--variants", "120000", "--samples", "2000",
                        "--seed", "1", "-q"], check=True)
        run = [gensvd, "ldprune", big, "--window", "1000", "--step", "100", "-t", "2", "-q",
               "--format", "tsv"]
        small = peak_kib(run + ["--variants", "0:2000"])
        full = peak_kib(run)
        grew = (full - small) / 1024
        ok = grew <= 16
        fails += not ok
        print(f"{'ok  ' if ok else 'FAIL'} peak RSS 2,000 variants {small / 1024:.0f} MiB, 120,000 "
              f"variants {full / 1024:.0f} MiB: +{grew:.1f} MiB "
              f"(bound 16)")
    print(f"{fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
