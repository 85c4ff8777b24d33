"""Drop-in calls for sgkit's users: the same arguments and the same result as sgkit's function
of the same name, computed by gensvd."""

import numbers

import numpy as np

from . import _api

# sgkit.pairwise_distance's ploidy-free integer values: up to the largest ploidy gensvd takes
_MAX_INT_VALUE = 100


def _is_dask(x):
    return type(x).__module__.split(".")[0] == "dask"


def _with_missing_as_nan(x):
    """x (rows: the vectors) as gensvd reads it, with sgkit's missing values (negative or NaN)
    missing: integers 0..100 as they are (negative is missing for gensvd too), other numbers
    as float64 with the negative ones NaN; a dask array chunk by chunk, lazily."""
    if _is_dask(x):
        import dask.array as da
        x = x.astype(np.float64)
        return da.where(x < 0, np.nan, x), None
    x = np.asarray(x)
    if x.ndim != 2:
        raise ValueError(f"pairwise_distance(): x must be two-dimensional, not {x.ndim}-D")
    if x.dtype.kind in "iu" and x.size:
        top = int(x.max())
        if top <= _MAX_INT_VALUE:
            return x, max(top, 1)
    if x.dtype.kind == "b":
        return x.astype(np.int8), 1
    x = x.astype(np.float64, copy=False)
    negative = x < 0
    if negative.any():
        x = np.where(negative, np.nan, x)
    return x, None


def pairwise_distance(x, metric="euclidean", split_every=None, device="cpu", *, threads=0,
                      **options):
    """The distance between every pair of row vectors of the 2-D array x, as
    ``sgkit.pairwise_distance(x, metric, split_every, device)`` computes it: negative and NaN
    values are missing and each pair is compared over the columns both rows have (gensvd's
    ``missing="pairwise"``); a pair with no such column gets NaN.

    x: a numpy, dask or xarray array (rows: the vectors, M of them). metric: "euclidean" or
    "correlation" as sgkit, or any other metric of gensvd.pdist for real-valued data
    ("sqeuclidean", "cityblock", "cosine", ...). split_every: accepted for sgkit's call and
    not used (no dask reduction runs). device: "cpu", "gpu" or "auto". threads and the other
    keywords: as gensvd.pdist's.

    Returns the (M, M) float64 distances as a dask array, as sgkit returns them
    (``.compute()`` gives the numpy array; the distances are computed by this call), or as a
    numpy array where dask is not installed.
    """
    del split_every  # sgkit's tuning of its dask reduction: nothing here to tune
    if getattr(x, "ndim", 2) != 2:
        raise ValueError(f"pairwise_distance(): x must be two-dimensional, not {x.ndim}-D")
    if not isinstance(threads, numbers.Integral):
        raise TypeError(f"pairwise_distance(): threads must be an int, not "
                        f"{type(threads).__name__}")
    if hasattr(x, "variable") and hasattr(x, "dims"):  # an xarray DataArray
        x = x.data
    data, ploidy = _with_missing_as_nan(x)
    if ploidy is not None:
        options.setdefault("ploidy", ploidy)
    dist = _api.pdist(data, metric, transpose=True, device=device, threads=threads,
                      **options)
    values = np.asarray(dist.values if hasattr(dist, "values") else dist, dtype=np.float64)
    try:
        import dask.array as da
    except ImportError:
        return values
    return da.from_array(values, chunks=values.shape or -1)
