#!/usr/bin/env bash
# The Python drop-ins against the calls they stand in for, on the same array in one sitting:
# M rows x N columns of dosages 0..2 as float64.
#   pairwise_distance  sgkit.pairwise_distance(x, metric) against gensvd.pairwise_distance(x,
#                      metric), a fraction MISS of the entries NaN (missing: each pair compared
#                      where both rows are present), metrics euclidean and correlation (sgkit's
#                      two); sgkit gets a dask array in chunks of all rows x CHUNK columns (its
#                      map per chunk, then its reduction; numba compiled on a small array before
#                      the clock starts), gensvd the numpy array (read in place).  Reported: each
#                      call's wall time, the ratio, the largest difference of the two results.
#   svd_compressed     dask.array.linalg.svd_compressed(a, 10, n_power_iter=P) for P = 0 (dask's
#                      default) and 2, against gensvd.svd_compressed(a, 10), no missing entries,
#                      dask in the same chunks.  Reported: wall times, the ratio, and each one's
#                      largest relative error of the 10 singular values against numpy's exact
#                      SVD (numpy.linalg.svd of a, float64; its time beside).
#
# Usage: bench/bench_dropin.sh [MxN]   (default 2000x20000)
#   PY=python (default build/python/venv/bin/python: ctest -R '^python$' installs the package
#   there), PARTS (default "pairwise svd": which of the two), MISS (default 0.01), CHUNK (default 10000), THREADS (default 2: both tools; dask's
#   threaded scheduler gets as many workers).  Run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-build/python/venv/bin/python}
SHAPE=${1:-2000x20000}
export PARTS=${PARTS:-pairwise svd} MISS=${MISS:-0.01} CHUNK=${CHUNK:-10000} THREADS=${THREADS:-2} SHAPE
"$PY" -c "import gensvd, sgkit" 2>/dev/null || {
    echo "bench_dropin.sh: $PY cannot import gensvd and sgkit: run ctest -R '^python\$' in" \
         "build/ first (it installs the package into build/python/venv)" >&2
    exit 1
}
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores," \
     "$(date -u +%Y-%m-%d), $SHAPE, missing $MISS, sgkit chunks of $CHUNK columns"
"$PY" - <<'PY'
import os, time
import dask
import dask.array as da
import numpy as np
import gensvd
import sgkit

m, n = (int(v) for v in os.environ["SHAPE"].split("x"))
miss, chunk, threads = float(os.environ["MISS"]), int(os.environ["CHUNK"]), int(os.environ["THREADS"])
rng = np.random.default_rng(1)
x = rng.integers(0, 3, size=(m, n)).astype(np.float64)
x[rng.random(x.shape) < miss] = np.nan
xd = da.from_array(x, chunks=(m, min(chunk, n)))
small = da.from_array(x[:20, :200], chunks=(20, 100))
parts = os.environ["PARTS"].split()
with dask.config.set(scheduler="threads", num_workers=threads):
    if "pairwise" in parts:
        print(f"{'metric':<12} {'gensvd_s':>9} {'sgkit_s':>9} {'ratio':>7} {'max_diff':>9}")
    for metric in ("euclidean", "correlation") if "pairwise" in parts else ():
        sgkit.pairwise_distance(small, metric=metric).compute()  # numba compiles here
        t = time.perf_counter()
        got = gensvd.pairwise_distance(x, metric, threads=threads).compute()
        tg = time.perf_counter() - t
        t = time.perf_counter()
        ref = np.asarray(sgkit.pairwise_distance(xd, metric=metric).compute())
        ts = time.perf_counter() - t
        diff = float(np.nanmax(np.abs(got - ref)))
        print(f"{metric:<12} {tg:9.2f} {ts:9.2f} {ts / tg:6.1f}x {diff:9.2g}", flush=True)

    if "svd" not in parts:
        raise SystemExit(0)
    a = rng.integers(0, 3, size=(m, n)).astype(np.float64)
    ad = da.from_array(a, chunks=(m, min(chunk, n)))
    t = time.perf_counter()
    exact = np.linalg.svd(a, compute_uv=False)[:10]
    tn = time.perf_counter() - t
    err = lambda s: float(np.max(np.abs(np.asarray(s) - exact) / exact))
    t = time.perf_counter()
    got = [x.compute() for x in gensvd.svd_compressed(a, 10, threads=threads)]
    tg = time.perf_counter() - t
    print(f"\n{'svd_compressed k=10':<28} {'wall_s':>8} {'ratio':>7} {'max_rel_err_s':>14}")
    print(f"{'numpy.linalg.svd (exact)':<28} {tn:8.2f} {'':>7} {'':>14}")
    print(f"{'gensvd.svd_compressed':<28} {tg:8.2f} {'1.0x':>7} {err(got[1]):14.2g}")
    for p in (0, 2):
        t = time.perf_counter()
        ref = [x.compute() for x in da.linalg.svd_compressed(ad, 10, n_power_iter=p, seed=0)]
        td = time.perf_counter() - t
        print(f"{f'dask n_power_iter={p}':<28} {td:8.2f} {td / tg:6.1f}x {err(ref[1]):14.2g}",
              flush=True)
PY
