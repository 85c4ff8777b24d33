#!/usr/bin/env python3
"""One tool of bench/bench_python.sh, run in its own process (the driver measures the process
with /usr/bin/time): the top-K principal components of a simulated store, printed as one JSON
line: "seconds" (the call alone, inside the process), "load_seconds" (reading and
standardising, for the in-memory tools), "s" (the top-K singular values of the standardised
matrix, on one scale for every tool).

  gensvd-path STORE K OUT      gensvd.pca(STORE, K, output=OUT): the program's run from Python
  gensvd-bulk STORE K          gensvd.pca(STORE, K, accuracy="bulk", tol=1e-6): every singular
                               value converged (sgkit's tsqr is exact up to rounding)
  gensvd-dask STORE K          gensvd.pca of the store opened with xarray (dask-backed)
  gensvd-numpy STORE K         gensvd.pca of the genotypes loaded into numpy first
  sgkit STORE K                sgkit.pca(ds, K): its defaults (tsqr, dask's local scheduler)
  sklearn STORE K              sklearn.decomposition.PCA(K, svd_solver="randomized") on the
                               Patterson-standardised matrix (samples x variants, float32)
"""
import json
import resource
import sys
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore")


def now():
    return time.perf_counter()


def cpu():
    """The process's CPU seconds, every thread's (a noisy VM moves wall time more)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


cpu_seconds = None


def open_ds(store):
    """As sgkit.load_dataset opens it, the genotypes kept as integers (the simulated store's
    call_genotype has a fill value, which xarray would otherwise turn into NaN floats)."""
    import xarray as xr
    return xr.open_zarr(store, consolidated=True, concat_characters=False,
                        mask_and_scale=False)


def gensvd_run(src, k, **kw):
    import gensvd
    import xarray  # noqa: F401  (imported before the clock starts, as in a session)
    global cpu_seconds
    t, c = now(), cpu()
    res = gensvd.pca(src, k, merge=False, **kw)
    cpu_seconds = cpu() - c
    return now() - t, res.sample_pca_singular_value.values


def standardised(store):
    """Patterson's standardisation (the simulated store has no missing call), samples x
    variants float32, monomorphic variants dropped."""
    import zarr
    gt = zarr.open_group(store, mode="r")["call_genotype"]
    m, n = gt.shape[:2]
    z = np.empty((n, m), dtype=np.float32)
    kept = 0
    for j in range(0, m, 5000):
        d = (gt[j:j + 5000] > 0).sum(axis=2).astype(np.float32)
        p = d.mean(axis=1) / 2
        sd = np.sqrt(p * (1 - p))
        ok = sd > 0
        block = (d[ok] - 2 * p[ok, None]) / sd[ok, None]
        z[:, kept:kept + block.shape[0]] = block.T
        kept += block.shape[0]
    return z[:, :kept]


def main(argv):
    tool, store, k = argv[1], argv[2], int(argv[3])
    out = {"tool": tool}
    if tool == "gensvd-path":
        out["seconds"], s = gensvd_run(store, k, output=argv[4], force=True)
    elif tool == "gensvd-bulk":
        out["seconds"], s = gensvd_run(store, k, accuracy="bulk", tol=1e-6)
    elif tool == "gensvd-dask":
        out["seconds"], s = gensvd_run(open_ds(store), k)
    elif tool == "gensvd-numpy":
        t = now()
        ds = open_ds(store)[["call_genotype", "sample_id"]].load()
        out["load_seconds"] = now() - t
        out["seconds"], s = gensvd_run(ds, k)
    elif tool == "sgkit":
        import sgkit
        ds = open_ds(store)
        # gensvd simulate writes no mask (its stores have no padding): sgkit's is the calls < 0
        ds["call_genotype_mask"] = ds.call_genotype < 0
        # its numba kernels compile on first use: once on a slice, before the clock starts
        sgkit.pca(ds.isel(variants=slice(0, 500)), n_components=2, merge=False).compute()
        t = now()
        res = sgkit.pca(ds, n_components=k, merge=False).compute()
        out["seconds"] = now() - t
        s = np.sqrt(res.sample_pca_explained_variance.values * ds.sizes["samples"])
    elif tool == "sklearn":
        from sklearn.decomposition import PCA
        t = now()
        z = standardised(store)
        out["load_seconds"] = now() - t
        t = now()
        pca = PCA(n_components=k, svd_solver="randomized", random_state=0).fit(z)
        out["seconds"] = now() - t
        s = pca.singular_values_
    else:
        raise SystemExit(f"bench_python.py: unknown tool {tool}")
    if cpu_seconds is not None:
        out["cpu_seconds"] = cpu_seconds
    out["s"] = [float(x) for x in np.sort(np.asarray(s, dtype=np.float64))[::-1][:k]]
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv)
