#!/usr/bin/env python3
"""The measuring half of scripts/gpu-check.sh: GPU against CPU on the same data, with the
standard library and numpy only (a bare GPU machine has nothing else).

  gpu_check.py pca-parity    GENSVD STORE LABEL GPUDEV OUT_TSV [--k K] [--runs R] [--variants A:B]
      pca --method exact and randomized on --device cpu and GPUDEV (R runs each there): the
      singular values (column norms of the scores) within 1e-5 relative, 1 - MEV of the score
      subspaces within 1e-5, each PC whose singular value is separated from its neighbours
      (gap > 1%) with |corr| >= 1 - 1e-5 (the documented tolerance, docs/man/gensvd-pca.md);
      the R runs on GPUDEV byte-identical (determinism)
  gpu_check.py pdist-parity  GENSVD STORE LABEL GPUDEV OUT_TSV [--variants A:B] [--samples F]
      every metric `gensvd help --spec pdist` lists (minkowski with -p 3, p-distance with
      --ignore-phase: the stores are unphased) with --counts: the
      distance and n_sites arrays bit for bit (docs/man/gensvd-pdist.md: integer counts, the
      same finish on the host), and king --min-kinship's table byte for byte
  gpu_check.py related-parity GENSVD STORE LABEL GPUDEV OUT_TSV [--variants A:B] [--samples F]
      related --format tsv: the kept samples byte for byte
  gpu_check.py bench         GENSVD STORE CASE GPUDEV WORKDIR BENCH_TSV BENCH_MD LIMITS_TSV
                             --shape MxN [--pdist METRIC] [--k K] [--time-left S]
      one timed run on GPUDEV and one on the CPU (in that order, both within S seconds; a run
      past them is killed and so reported): wall, peak RSS, the device's busy time and
      its share of the wall (gensvd -v: "cuda: device time"), the products' rate against the
      limit measured in the same call (bench/gemm_limit_cuda.cu), peak device memory (the
      backend's and nvidia-smi's samples), and whether the results agree
Each check is a row of OUT_TSV: label, command, check, value, limit, status (pass/fail).
GPUDEV is "gpu" on a GPU machine and "cpu" in the rehearsal (scripts/gpu-check.sh --rehearse),
where the same commands run on the CPU on both sides.  Exit 0 when every check passed, 1 when
one failed, 2 on a usage error.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

TOL = 1e-5  # singular values and subspaces: docs/man/gensvd-pca.md
RESULTS = []  # (label, command, check, value, limit, ok)


def record(out, label, command, check, value, limit, ok):
    RESULTS.append(ok)
    row = [label, command, check, str(value), str(limit), "pass" if ok else "fail"]
    print(("ok   " if ok else "FAIL ") + " ".join(row[:5]), flush=True)
    new = not os.path.exists(out)
    with open(out, "a") as f:
        if new:
            f.write("label\tcommand\tcheck\tvalue\tlimit\tstatus\n")
        f.write("\t".join(row) + "\n")
    return ok


def run(g, args, timeout=600):
    """gensvd ARGS: (returncode, stdout bytes, stderr text)."""
    p = subprocess.run([g] + args, capture_output=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def parse_scores(tsv):
    """The scores of pca --format tsv (samples x k) from its text."""
    lines = tsv.decode().rstrip("\n").split("\n")
    return np.array([[float(v) for v in l.split("\t")[1:]] for l in lines[1:]])


def compare_scores(a, b):
    """(max relative singular value difference, 1 - MEV, worst 1 - |corr| over the separated
    PCs, how many were separated) of two score matrices (U S)."""
    sa, sb = np.linalg.norm(a, axis=0), np.linalg.norm(b, axis=0)
    ua, ub = a / sa, b / sb
    k = a.shape[1]
    srel = float(np.max(np.abs(sa - sb) / sa))
    c = ua.T @ ub
    mev = float(1 - np.mean(np.sqrt(np.sum(c * c, axis=0))))
    worst, n_sep = 0.0, 0
    for q in range(k):
        gaps = [abs(sa[q] - sa[j]) / sa[q] for j in (q - 1, q + 1) if 0 <= j < k]
        if q == k - 1 or min(gaps) <= 0.01:  # the last PC's lower neighbour is unseen
            continue
        n_sep += 1
        worst = max(worst, 1 - abs(float(ua[:, q] @ ub[:, q])))
    return srel, mev, worst, n_sep


def pca_parity(a):
    g, store, label, dev, out = a.pos
    k, runs = a.k, a.runs
    for method in ("exact", "randomized"):
        base = ["pca", store, "-k", str(k), "--method", method, "--format", "tsv", "-q"] + (
            ["--variants", a.variants] if a.variants else [])
        cmd = f"pca -k {k} --method {method}"
        rc, cpu, err = run(g, base + ["--device", "cpu"])
        if not record(out, label, cmd, "cpu run (reference)", rc, 0, rc == 0):
            print(err[-800:])
            continue
        outs = []
        for r in range(runs):
            rc, o, err = run(g, base + ["--device", dev])
            if not record(out, label, cmd, f"{dev} run {r + 1}", rc, 0, rc == 0):
                print(err[-800:])
                break
            outs.append(o)
        if len(outs) != runs:
            continue
        same = all(o == outs[0] for o in outs)
        record(out, label, cmd, f"{runs} {dev} runs byte-identical", same, True, same)
        srel, mev, worst, n_sep = compare_scores(parse_scores(cpu), parse_scores(outs[0]))
        record(out, label, cmd, f"singular values vs cpu (max rel diff, k {k})", f"{srel:.2e}",
               TOL, srel <= TOL)
        record(out, label, cmd, "1 - MEV of the score subspaces vs cpu", f"{mev:.2e}", TOL,
               mev <= TOL)
        record(out, label, cmd, f"worst 1 - |corr| of the {n_sep} separated PCs vs cpu",
               f"{worst:.2e}", TOL, worst <= TOL)


def array_digest(g, path):
    """sha256 of `gensvd dump PATH` (f8 as %.17g: equal digests, equal bits), streamed; None
    when dump fails."""
    h = hashlib.sha256()
    with subprocess.Popen([g, "dump", "-q", path], stdout=subprocess.PIPE) as p:
        for block in iter(lambda: p.stdout.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest() if p.returncode == 0 else None


def selection(a):
    """--variants and --samples for pdist and related, when given."""
    return (["--variants", a.variants] if a.variants else []) + \
        (["--samples", a.samples_file] if a.samples_file else [])


def metrics(g):
    """The metric names gensvd pdist offers (gensvd help --spec pdist)."""
    rc, spec, _ = run(g, ["help", "--spec", "pdist"])
    for line in spec.decode().split("\n"):
        f = line.split("\t")
        if f[0] == "--metric" and len(f) > 4:
            return f[4].split()
    return []


def pdist_parity(a):
    g, store, label, dev, out = a.pos
    sel = selection(a)
    names = metrics(g)
    if not record(out, label, "help --spec pdist", "metrics listed", len(names), ">= 14",
                  len(names) >= 14):
        return
    tmp = tempfile.mkdtemp(prefix="gpu_check_pdist_")
    try:
        for m in names:
            # minkowski needs its p; p-distance reads haplotypes, and the parity stores are
            # unphased: their alleles in stored order
            extra = {"minkowski": ["-p", "3"], "p-distance": ["--ignore-phase"]}.get(m, [])
            cmd = " ".join(["pdist", "-m", m] + extra)
            outs = {}
            for side, d in (("ref", "cpu"), ("dev", dev)):
                o = os.path.join(tmp, f"{m}_{side}.zarr")
                shutil.rmtree(o, ignore_errors=True)
                rc, _, err = run(g, ["pdist", store, "-m", m, "--counts", "-o", o, "-q",
                                     "--device", d] + extra + sel)
                if not record(out, label, cmd, f"{d} run", rc, 0, rc == 0):
                    print(err[-800:])
                    break
                outs[side] = o
            if len(outs) < 2:
                continue
            for arr in ("distance", "n_sites"):
                da = array_digest(g, os.path.join(outs["ref"], arr))
                db = array_digest(g, os.path.join(outs["dev"], arr))
                record(out, label, cmd, f"{arr} bit for bit vs cpu", da is not None and da == db,
                       True, da is not None and da == db)
            for d in outs.values():
                shutil.rmtree(d, ignore_errors=True)
        tables = []
        for d in ("cpu", dev):
            rc, o, err = run(g, ["pdist", store, "-m", "king", "--min-kinship", "0.0442", "-q",
                                 "--device", d] + sel)
            record(out, label, "pdist -m king --min-kinship 0.0442", f"{d} run", rc, 0, rc == 0)
            tables.append(o if rc == 0 else None)
        same = tables[0] is not None and tables[0] == tables[1]
        pairs = tables[0].count(b"\n") - 1 if tables[0] else 0
        record(out, label, "pdist -m king --min-kinship 0.0442",
               f"table byte for byte vs cpu ({pairs} pairs)", same, True, same)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def related_parity(a):
    g, store, label, dev, out = a.pos
    outs = []
    for d in ("cpu", dev):
        rc, o, err = run(g, ["related", store, "--format", "tsv", "-q", "--device", d]
                         + selection(a))
        if not record(out, label, "related --format tsv", f"{d} run", rc, 0, rc == 0):
            print(err[-800:])
        outs.append(o if rc == 0 else None)
    same = outs[0] is not None and outs[0] == outs[1]
    kept = outs[0].count(b"\n") - 1 if outs[0] else 0
    record(out, label, "related --format tsv", f"kept samples byte for byte vs cpu ({kept} kept)",
           same, True, same)


# ---- bench ------------------------------------------------------------------------------------

DEV_TIME = re.compile(r"(cuda|cuda pdist): device time: products ([0-9.]+) ms in \d+ \(([0-9.]+) "
                      r"TFLOP/s\), kernels ([0-9.]+) ms in \d+, eigensolver ([0-9.]+) ms in \d+; "
                      r"peak device memory in use ([0-9.]+) GiB of ([0-9.]+) GiB")
H2D = re.compile(r"H2D [0-9.]+ MiB in \d+ uploads, [0-9.]+ ms of copies: ([0-9.]+) GB/s")
PLAN_BLOCK = re.compile(r"block (\d+) columns")


class Sampler:
    """nvidia-smi's memory.used every 100 ms while a run lasts (None without nvidia-smi)."""

    def __init__(self, on):
        self.p = None
        if on and shutil.which("nvidia-smi"):
            self.f = tempfile.TemporaryFile()
            self.p = subprocess.Popen(["nvidia-smi", "--query-gpu=memory.used",
                                       "--format=csv,noheader,nounits", "-lms", "100"],
                                      stdout=self.f, stderr=subprocess.DEVNULL)

    def peak_mib(self):
        if not self.p:
            return None
        self.p.terminate()
        self.p.wait()
        self.f.seek(0)
        vals = [float(v) for v in self.f.read().decode().split() if v.replace(".", "").isdigit()]
        return max(vals) if vals else None


def timed(g, args, log, smi, limit):
    """Run gensvd ARGS, stdout to LOG.out, stderr to LOG, killed after LIMIT seconds: (rc, wall
    s, peak RSS MiB, stderr, nvidia-smi peak MiB); rc -9 when it was killed."""
    s = Sampler(smi)
    with open(log + ".out", "wb") as so, open(log, "wb") as se:
        t0 = time.monotonic()
        p = subprocess.Popen([g] + args, stdout=so, stderr=se)
        killer = threading.Timer(limit, p.kill)
        killer.start()
        _, status, ru = os.wait4(p.pid, 0)
        killer.cancel()
        wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    with open(log, errors="replace") as f:
        err = f.read()
    return p.returncode, wall, ru.ru_maxrss / 1024.0, err, s.peak_mib()


def pdist_outputs_agree(g, a, b):
    """Two large pdist arrays agree: the same dump --stats (count, NaN count, min, max, sum)
    and the same first 200 rows, bit for bit (dumping all of a 20,000-sample matrix would take
    longer than the run; the parity steps compare whole arrays on smaller stores)."""
    sa, sb = run(g, ["dump", "--stats", "-q", a])[1], run(g, ["dump", "--stats", "-q", b])[1]
    ra = run(g, ["dump", "--slice", "0:200", "-q", a])[1]
    rb = run(g, ["dump", "--slice", "0:200", "-q", b])[1]
    return len(sa) > 0 and sa == sb and len(ra) > 0 and ra == rb


def read_limits(path):
    lim = {}
    if os.path.exists(path):
        for line in open(path):
            f = line.rstrip("\n").split("\t")
            if len(f) >= 5:
                try:
                    lim[f[0]] = (f[1], float(f[3]), f[4])
                except ValueError:
                    pass
    return lim


def bench_row(tsv, md, row):
    cols = ["case", "device", "wall_s", "x_cpu", "peak_rss_mib", "device_busy_s", "busy_share",
            "rate", "limit", "fraction_of_limit", "gpu_mem_backend_gib", "gpu_mem_smi_mib",
            "h2d_gbs", "agreement", "note"]
    new = not os.path.exists(tsv)
    with open(tsv, "a") as f:
        if new:
            f.write("\t".join(cols) + "\n")
        f.write("\t".join(str(row.get(c, "-")) for c in cols) + "\n")
    new = not os.path.exists(md)
    with open(md, "a") as f:
        if new:
            f.write("| case | device | wall s | x cpu | peak RSS MiB | device busy s (share) | "
                    "rate | limit | fraction | peak GPU memory | agreement |\n"
                    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
        busy = "-" if row.get("device_busy_s", "-") == "-" else \
            f"{row['device_busy_s']} ({row['busy_share']})"
        mem = row.get("gpu_mem_backend_gib", "-")
        mem = "-" if mem == "-" else f"{mem} GiB"
        f.write(f"| {row['case']} | {row['device']} | {row['wall_s']} | {row.get('x_cpu', '-')} | "
                f"{row.get('peak_rss_mib', '-')} | {busy} | {row.get('rate', '-')} | "
                f"{row.get('limit', '-')} | {row.get('fraction_of_limit', '-')} | {mem} | "
                f"{row.get('agreement', '-')} |\n")


def bench(a):
    g, store, case, dev, work, tsv, md, limits = a.pos
    lim = read_limits(limits)
    n, m = a.samples, a.variants_n
    threads = str(os.cpu_count() or 1)
    if a.pdist:
        base = ["pdist", store, "-m", a.pdist, "-o", os.path.join(work, f"{case}.zarr"), "-f", "-v",
                "--no-progress", "-t", threads]
        what = f"pdist -m {a.pdist}"
    else:
        base = ["pca", store, "-k", str(a.k), "--format", "tsv", "-v", "--no-progress", "-t",
                threads]
        what = f"pca -k {a.k} (default method)"
    res = {}
    deadline = time.monotonic() + a.time_left
    # the GPU first: when the time runs out, it is the CPU's run that is cut short
    for side, d in (("gpu", dev), ("cpu", "cpu")):
        log = os.path.join(work, f"{case}_{side}.log")
        left = deadline - time.monotonic()
        if left < 5:
            res[side] = (-9, 0.0, 0.0, "", None, log)
            print(f"FAIL {case} {d}: no time left for it")
            continue
        rc, wall, rss, err, smi = timed(g, base + ["--device", d], log, d == "gpu", left)
        res[side] = (rc, wall, rss, err, smi, log)
        if rc != 0:
            print(f"FAIL {case} {d}: exit {rc}" + (f" (killed after {wall:.0f} s: out of time)"
                                                  if rc == -9 else "") + f"\n{err[-1500:]}")
        else:
            print(f"{case} {d}: {wall:.2f} s", flush=True)
        if a.pdist and rc == 0:
            os.replace(os.path.join(work, f"{case}.zarr"),
                       os.path.join(work, f"{case}_{side}.zarr"))
    agreement = "-"
    if all(res[side][0] == 0 for side in res):
        if a.pdist:
            agree = all(pdist_outputs_agree(g, os.path.join(work, f"{case}_cpu.zarr", arr),
                                            os.path.join(work, f"{case}_gpu.zarr", arr))
                        for arr in ("distance", "n_sites"))
            agreement = "stats and rows 0-199 identical" if agree else "DIFFERENT"
        else:
            ca = parse_scores(open(res["cpu"][5] + ".out", "rb").read())
            cb = parse_scores(open(res["gpu"][5] + ".out", "rb").read())
            srel, mev, _, _ = compare_scores(ca, cb)
            agreement = f"s {srel:.1e}, 1-MEV {mev:.1e}"
            agree = srel <= TOL and mev <= TOL
        RESULTS.append(agree)
    cpu_wall = res["cpu"][1] if res["cpu"][0] == 0 else None
    for side in ("cpu", "gpu"):
        rc, wall, rss, err, smi, _ = res[side]
        d = "cpu" if side == "cpu" else dev if dev == "gpu" else f"{dev} (rehearsal)"
        row = {"case": f"{case} {what}", "device": d, "wall_s": f"{wall:.2f}" if rc == 0 else
               f"over {wall:.0f} s (killed)" if rc == -9 else f"failed (exit {rc})",
               "peak_rss_mib": f"{rss:.0f}", "agreement": agreement}
        if cpu_wall and rc == 0 and side != "cpu":
            row["x_cpu"] = f"{wall / cpu_wall:.3f}"
        row.update(device_figures(err, wall, lim, a, n, m))
        if smi is not None:
            row["gpu_mem_smi_mib"] = f"{smi:.0f}"
        bench_row(tsv, md, row)
        print("\t".join(f"{k}={v}" for k, v in row.items()), flush=True)
    for side in res:
        shutil.rmtree(os.path.join(work, f"{case}_{side}.zarr"), ignore_errors=True)
    if any(res[side][0] != 0 for side in res):
        RESULTS.append(False)


def device_figures(err, wall, lim, a, n, m):
    """What a run's -v report says about the device: busy time and share of the wall, the rate
    against the limit measured in the same call, peak device memory, H2D bandwidth."""
    row = {}
    want = "cuda pdist" if a.pdist else "cuda"
    mt = [x for x in DEV_TIME.finditer(err) if x.group(1) == want]
    if mt:
        prod, rate, kern, solv, peak, _ = (float(x) for x in mt[-1].groups()[1:])
        busy = (prod + kern + solv) / 1000.0
        row["device_busy_s"] = f"{busy:.2f}"
        row["busy_share"] = f"{busy / wall:.0%}"
        row["gpu_mem_backend_gib"] = f"{peak:.2f}"
        if a.pdist:
            pv = n * (n - 1) / 2.0 * m / (kern / 1000.0) if kern > 0 else 0
            row["rate"] = f"{pv:.3g} pair-variants/s (kernel)"
            if "popc" in lim:  # popcounts per pair and word (gpu/pdist_body.h): 3, KING 5
                limit = lim["popc"][1] * 64 / (5 if a.pdist in ("king", "ibs0") else 3)
                row["limit"] = f"{limit:.3g} (popc)"
                row["fraction_of_limit"] = f"{pv / limit:.2f}"
        else:
            row["rate"] = f"{rate:.2f} TFLOP/s (products)"
            key = "ssyrk" if solv > 0 else "pass"  # the exact method solves on the device
            if key in lim:
                row["limit"] = f"{lim[key][1]:.2f} {lim[key][2]} ({key} {lim[key][0]})"
                row["fraction_of_limit"] = f"{rate / lim[key][1]:.2f}"
            blk = PLAN_BLOCK.search(err)
            if blk and key == "pass":
                row["note"] = f"block {blk.group(1)} columns"
    h = H2D.search(err)
    if h:
        row["h2d_gbs"] = h.group(1)
    return row


class Args:
    pass


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    a = Args()
    a.cmd, a.pos = argv[1], []
    a.k, a.runs, a.variants, a.pdist, a.samples, a.variants_n = 10, 3, "", "", 0, 0
    a.samples_file, a.time_left = "", 600.0
    it = iter(argv[2:])
    for x in it:
        if x == "--k":
            a.k = int(next(it))
        elif x == "--runs":
            a.runs = int(next(it))
        elif x == "--variants":
            a.variants = next(it)
        elif x == "--samples":
            a.samples_file = next(it)
        elif x == "--pdist":
            a.pdist = next(it)
        elif x == "--time-left":
            a.time_left = float(next(it))
        elif x == "--shape":
            a.variants_n, a.samples = (int(v) for v in next(it).split("x"))
        else:
            a.pos.append(x)
    table = {"pca-parity": (pca_parity, 5), "pdist-parity": (pdist_parity, 5),
             "related-parity": (related_parity, 5), "bench": (bench, 8)}
    if a.cmd not in table or len(a.pos) != table[a.cmd][1]:
        print(__doc__, file=sys.stderr)
        return 2
    table[a.cmd][0](a)
    print(f"{sum(RESULTS)} passed, {len(RESULTS) - sum(RESULTS)} failed")
    return 0 if all(RESULTS) and RESULTS else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
