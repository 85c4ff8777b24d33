"""Drop-in calls for sgkit's and dask's users: the same arguments and the same result as
sgkit.pairwise_distance and dask.array.linalg.svd_compressed, computed by gensvd."""

import contextlib
import numbers
import re

import numpy as np

from . import _api
from . import _gensvd as _g

# sgkit.pairwise_distance's ploidy-free integer values: up to the largest ploidy gensvd takes
_MAX_INT_VALUE = 100


def _is_dask(x):
    return type(x).__module__.split(".")[0] == "dask"


def _matrix(func, name, a, threads):
    """a (numpy, dask or xarray array, or anything numpy.asarray takes) as a numpy or dask
    array, checked to be two-dimensional (ValueError) and threads an int (TypeError), naming
    the drop-in's function and argument."""
    if not isinstance(threads, numbers.Integral):
        raise TypeError(f"{func}(): threads must be an int, not {type(threads).__name__}")
    if hasattr(a, "variable") and hasattr(a, "dims"):  # an xarray DataArray
        a = a.data
    if not _is_dask(a):
        a = np.asarray(a)
    if a.ndim != 2:
        raise ValueError(f"{func}(): {name} must be two-dimensional, not {a.ndim}-D")
    return a


@contextlib.contextmanager
def _in_words_of(func, under, renames):
    """Errors raised inside as the drop-in's own: the function underneath (``under()``) named
    as the drop-in ``func()``, and its words as the drop-in's (renames: {word: the drop-in's},
    whole words: its keywords, and "samples" for the rows of the matrix, which gensvd reads
    as samples); each exception keeps its class, code and cause."""
    try:
        yield
    except (_g.GensvdError, TypeError, ValueError) as e:
        if e.args and isinstance(e.args[0], str):
            text = e.args[0].replace(f"{under}()", f"{func}()")
            for old, new in renames.items():
                text = re.sub(rf"\b{old}\b", new, text)
            e.args = (text, *e.args[1:])
        raise


def _with_missing_as_nan(x):
    """x (rows: the vectors) as gensvd reads it, with sgkit's missing values (negative or NaN)
    missing: integers 0..100 as they are (negative is missing for gensvd too), other numbers
    as float64 with the negative ones NaN; a dask array chunk by chunk, lazily."""
    if _is_dask(x):
        import dask.array as da
        x = x.astype(np.float64)
        return da.where(x < 0, np.nan, x), None
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
    data, ploidy = _with_missing_as_nan(_matrix("pairwise_distance", "x", x, threads))
    if ploidy is not None:
        options.setdefault("ploidy", ploidy)
    with _in_words_of("pairwise_distance", "pdist", {"samples": "rows"}):
        dist = _api.pdist(data, metric, transpose=True, device=device, threads=threads,
                          **options)
    values = np.asarray(dist.values if hasattr(dist, "values") else dist, dtype=np.float64)
    return _as_dask(values)[0]


def _as_dask(*arrays):
    """The arrays as single-chunk dask arrays, as dask's functions return them (numpy arrays
    where dask is not installed)."""
    try:
        import dask.array as da
    except ImportError:
        return arrays
    return tuple(da.from_array(a, chunks=a.shape or -1) for a in arrays)


def _plain_values(a):
    """a as gensvd.pca reads a matrix whose every number is a value (none missing but NaN):
    integers 0..100 and bools as they are (with a ploidy that holds them), anything else as
    float64; a dask array lazily."""
    if _is_dask(a):
        return (a if a.dtype == np.float64 else a.astype(np.float64)), None
    if a.dtype.kind == "b":
        return a.astype(np.int8), 1
    if a.dtype.kind in "iu" and a.size and 0 <= int(a.min()) and int(a.max()) <= _MAX_INT_VALUE:
        return a, max(int(a.max()), 1)
    return a.astype(np.float64, copy=False), None


def svd_compressed(a, k, iterator="power", n_power_iter=0, n_oversamples=10, seed=None,
                   compute=False, coerce_signs=True, *, threads=0, device="cpu", **options):
    """The rank-k thin singular value decomposition u, s, v of the 2-D array a (a ~ u diag(s)
    v), as ``dask.array.linalg.svd_compressed(a, k, ...)`` returns it: u (m, k) and v (k, n)
    orthonormal, s descending, v's rows signed as dask's ``coerce_signs`` signs them (each
    row's sum >= 0; ``coerce_signs=False``: gensvd's rule, the largest entry of each column of
    u positive), all three as dask arrays (numpy arrays without dask).

    Computed by gensvd.pca(a, k, transpose=True, scaler="none"): the rows of a are the
    observations and nothing is centred. Up to 5,000 rows the exact method (the Gram matrix of
    the rows, float32 products summed in float64: singular values to ~1e-7 relative); above,
    randomized subspace iterations to pca's default tolerance, which leaves the values that
    lie in a flat noise bulk as estimates (~1e-2; ``accuracy="bulk"`` converges every one).
    ``iterator``, ``n_power_iter``, ``n_oversamples`` and ``compute`` are dask's tuning and are
    not used; ``seed`` (an int) seeds the random start. NaN entries are missing, taken as their
    column's mean. threads, device and the other keywords: as gensvd.pca's (``method=``,
    ``accuracy=``, ``tol=``, ...).
    """
    del iterator, n_power_iter, n_oversamples, compute  # dask's tuning of its own method
    data, ploidy = _plain_values(_matrix("svd_compressed", "a", a, threads))
    if ploidy is not None:
        options.setdefault("ploidy", ploidy)
    if seed is not None:
        if not isinstance(seed, numbers.Integral):
            raise TypeError("svd_compressed(): seed must be an int (gensvd's start is not drawn "
                            "from a RandomState)")
        options.setdefault("seed", int(seed))
    with _in_words_of("svd_compressed", "pca", {"n_components": "k", "samples": "rows"}):
        r = _api.pca(data, k, transpose=True, scaler="none", loadings=True, threads=threads,
                     device=device, merge=False, **options)
    s = np.asarray(r["sample_pca_singular_value"], dtype=np.float64)
    u = np.asarray(r["sample_pca_projection"], dtype=np.float64) / np.where(s > 0, s, 1)
    v = np.asarray(r["sample_pca_component"], dtype=np.float64).T.copy()
    v[~np.isfinite(v)] = 0  # columns with no value at all: no part in the decomposition
    if coerce_signs:
        signs = np.where(v.sum(axis=1) >= 0, 1.0, -1.0)
        u *= signs
        v *= signs[:, None]
    return _as_dask(u, s, v)
