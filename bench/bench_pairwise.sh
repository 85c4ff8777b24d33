#!/usr/bin/env bash
# sgkit.pairwise_distance against gensvd.pairwise_distance, the same call on the same array in
# one sitting: M rows (the vectors) x N columns of dosages 0..2 as float64, a fraction MISS of
# them NaN (missing: each pair is compared where both rows are present), metrics euclidean and
# correlation (the two sgkit has).  sgkit gets the array as a dask array in chunks of all rows x
# CHUNK columns (its map step per chunk, then its reduction; numba compiled on a small array
# before the clock starts); gensvd gets the numpy array (read in place).  Reported: each call's
# wall time, the ratio, and the largest difference between the two results.
#
# Usage: bench/bench_pairwise.sh [MxN]   (default 2000x20000)
#   PY=python (default build/python/venv/bin/python: ctest -R '^python$' installs the package
#   there), MISS (default 0.01), CHUNK (default 10000), THREADS (default 2: both tools; dask's
#   threaded scheduler gets as many workers).  Run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-build/python/venv/bin/python}
SHAPE=${1:-2000x20000}
export MISS=${MISS:-0.01} CHUNK=${CHUNK:-10000} THREADS=${THREADS:-2} SHAPE
"$PY" -c "import gensvd, sgkit" 2>/dev/null || {
    echo "bench_pairwise.sh: $PY cannot import gensvd and sgkit: run ctest -R '^python\$' in" \
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
print(f"{'metric':<12} {'gensvd_s':>9} {'sgkit_s':>9} {'ratio':>7} {'max_diff':>9}")
with dask.config.set(scheduler="threads", num_workers=threads):
    for metric in ("euclidean", "correlation"):
        sgkit.pairwise_distance(small, metric=metric).compute()  # numba compiles here
        t = time.perf_counter()
        got = gensvd.pairwise_distance(x, metric, threads=threads).compute()
        tg = time.perf_counter() - t
        t = time.perf_counter()
        ref = np.asarray(sgkit.pairwise_distance(xd, metric=metric).compute())
        ts = time.perf_counter() - t
        diff = float(np.nanmax(np.abs(got - ref)))
        print(f"{metric:<12} {tg:9.2f} {ts:9.2f} {ts / tg:6.1f}x {diff:9.2g}", flush=True)
PY
