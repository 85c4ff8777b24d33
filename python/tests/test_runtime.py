"""How the package runs: a numpy input is read in place (peak RSS of a child process: the
input and the run's own working set, not a second copy), a dask input chunk by chunk, Ctrl-C
cancels within a second leaving nothing behind, two calls in two threads run at once (the GIL
released) and give the bytes of one call alone, and a failing chunk callback's exception
reaches the caller."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import gensvd
from conftest import HAPMAP, leftovers

MAKE = """
import json, resource, sys, time
import numpy as np
import gensvd

def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

def genotypes(m, n, seed=1):
    gt = np.empty((m, n, 2), dtype=np.int8)  # filled in blocks: no big temporary
    rng = np.random.default_rng(seed)
    for i in range(0, m, 2000):
        gt[i:i + 2000] = rng.integers(0, 2, size=(min(2000, m - i), n, 2), dtype=np.int8)
    return gt
"""


def child(code, *args, timeout=600):
    r = subprocess.run([sys.executable, "-c", MAKE + textwrap.dedent(code), *map(str, args)],
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("kind", ["numpy", "Dataset", "dask"])
def test_inputs_are_not_copied(kind):
    out = child("""
        kind = sys.argv[1]
        m, n = 250000, 800  # 400 MB of int8 genotypes
        if kind == "dask":
            import dask.array as da
            src = da.map_blocks(lambda b, block_info=None: genotypes(
                b.shape[0], n, seed=block_info[None]["chunk-location"][0]),
                da.empty((m, n, 2), dtype=np.int8, chunks=(2000, n, 2)), dtype=np.int8)
            size = m * n * 2 / 2**20
        else:
            src = genotypes(m, n)
            size = src.nbytes / 2**20
            if kind == "Dataset":
                import xarray as xr
                src = xr.Dataset({"call_genotype": (("variants", "samples", "ploidy"), src)})
        base = peak_mib()
        res = gensvd.pca(src, 4, threads=2, merge=False)
        assert res.sample_pca_projection.shape == (n, 4)
        print(json.dumps({"base": base, "peak": peak_mib(), "input": size}))
    """, kind)
    grew = out["peak"] - out["base"]
    # the run's own working set (~100 MB here: the genotype cache at 2 bits a call, the scan's
    # blocks, OpenBLAS's buffers) and no copy: a copy alone would be the whole input
    assert grew < 0.5 * out["input"], out


def test_ctrl_c_cancels_within_a_second_and_leaves_nothing(tmp_path):
    code = MAKE + textwrap.dedent("""
        gt = genotypes(60000, 400)
        started = []
        def progress(what, done, total):
            if not started:
                started.append(1)
                print("started", flush=True)
        try:
            gensvd.pca(gt, 4, method="subspace", power_iter=5000, cache=0,
                       threads=2,
                       output=sys.argv[1], progress=progress)
            print("finished", flush=True)
        except KeyboardInterrupt:
            print("interrupted", time.time(), flush=True)
    """)
    p = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "out.zarr")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "started"
        time.sleep(1.0)  # well inside the run: passes over the array
        sent = time.time()
        p.send_signal(signal.SIGINT)
        line = p.stdout.readline().split()
        p.wait(timeout=60)
    finally:
        p.kill()
    assert line and line[0] == "interrupted", p.stderr.read()[-2000:]
    assert float(line[1]) - sent < 1.0, f"KeyboardInterrupt after {float(line[1]) - sent:.2f} s"
    assert p.returncode == 0
    assert not leftovers(tmp_path, "out") and not list(tmp_path.iterdir())


def test_two_threads_at_once_give_each_calls_bytes():
    jobs = {"a": (str(HAPMAP), {"method": "randomized"}),
            "b": (str(HAPMAP), {"variants": (0, 12000), "scaler": "hwe"})}
    alone = {t: gensvd.pca(src, 6, threads=1, **kw) for t, (src, kw) in jobs.items()}
    events = {t: [] for t in jobs}
    results = {}

    def run(tag):
        src, kw = jobs[tag]
        results[tag] = gensvd.pca(src, 6, threads=1, progress=lambda *_: events[tag].append(
            time.monotonic()), **kw)

    for _ in range(3):  # the shorter run must start before the longer one ends
        for e in events.values():
            e.clear()
        threads = [threading.Thread(target=run, args=(t,)) for t in jobs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if max(e[0] for e in events.values()) < min(e[-1] for e in events.values()):
            break
    assert max(e[0] for e in events.values()) < min(e[-1] for e in events.values()), (
        "the two runs never overlapped: is the GIL released?")
    for tag in jobs:
        for name in ("sample_pca_projection", "sample_pca_singular_value"):
            np.testing.assert_array_equal(results[tag][name].values, alone[tag][name].values)


def test_failing_chunk_callback_raises_its_exception(tmp_path):
    da = pytest.importorskip("dask.array")

    def block(b, block_info=None):
        if block_info[None]["chunk-location"][0] == 3:
            raise ArithmeticError("chunk 3 is broken")
        return np.zeros(b.shape, dtype=np.int8)

    gt = da.map_blocks(block, da.empty((10000, 20, 2), dtype=np.int8, chunks=(1000, 20, 2)),
                       dtype=np.int8)
    with pytest.raises(ArithmeticError, match="chunk 3 is broken"):
        gensvd.pca(gt, 2, output=tmp_path / "o.zarr")
    assert not list(tmp_path.iterdir())


def test_dask_chunks_are_computed_once_per_run():
    """pca keeps the 2-bit codes of what it read, so a dask array's chunks are computed once
    for all its passes; with cache=0 once a pass."""
    da = pytest.importorskip("dask.array")
    counts = {}

    def block(b, block_info=None):  # two populations: PC1 separates them
        i = block_info[None]["chunk-location"][0]
        counts[i] = counts.get(i, 0) + 1
        rng = np.random.default_rng(i)
        p = rng.uniform(0.1, 0.9, size=(b.shape[0], 1, 1))
        q = np.clip(p + rng.normal(0, 0.2, size=p.shape), 0.02, 0.98)
        freq = np.concatenate([np.repeat(p, 150, axis=1), np.repeat(q, 150, axis=1)], axis=1)
        return (rng.random(b.shape) < freq).astype(np.int8)

    gt = da.map_blocks(block, da.empty((20000, 300, 2), dtype=np.int8, chunks=(1000, 300, 2)),
                       dtype=np.int8)
    kw = {"method": "subspace", "power_iter": 4, "threads": 2, "merge": False}
    kept = gensvd.pca(gt, 4, **kw)
    assert sorted(counts) == list(range(20)) and set(counts.values()) == {1}, counts
    counts.clear()
    reread = gensvd.pca(gt, 4, cache=0, **kw)
    passes = int(reread.attrs["iterations"])
    assert passes > 2 and int(kept.attrs["iterations"]) == passes
    assert sorted(counts) == list(range(20)) and set(counts.values()) == {passes}, counts
    np.testing.assert_allclose(kept.sample_pca_projection.values[:, 0],
                               reread.sample_pca_projection.values[:, 0], rtol=1e-4, atol=1e-3)


def test_blas_probe_child_is_skipped_when_set(monkeypatch):
    from gensvd import _blas

    monkeypatch.setenv("OPENBLAS_CORETYPE", "Haswell")
    assert _blas.prepare("/nonexistent") is None
    monkeypatch.delenv("OPENBLAS_CORETYPE")
    # OpenBLAS is loaded in this process already: nothing to choose
    assert _blas._openblas_loaded() and _blas.prepare("/nonexistent") is None
    assert os.environ.get("OPENBLAS_CORETYPE") is None
