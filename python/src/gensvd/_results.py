"""Results: the library's arrays viewed by numpy without a copy (read-only, kept alive by the
views), as an xarray.Dataset with the output's names, dimensions and attributes (or, without
xarray, a gensvd.Result mapping), and back: the library's result behind a Dataset, for
gensvd.write.
"""

import collections.abc
import json

import numpy as np

from . import _gensvd as _g

ANALYSIS_NAMES = {_g.PCA: "pca", _g.PROJECT: "project", _g.PDIST: "pdist",
                  _g.LDPRUNE: "ldprune", _g.RELATED: "related", _g.SIMULATE: "simulate"}


class Result(collections.abc.Mapping):
    """A result without xarray: name -> numpy array, with ``dims`` (name -> dimension names)
    and ``attrs`` (the output's group attributes); ``to_xarray()`` makes the Dataset."""

    def __init__(self, res):
        self._res = res
        self.arrays = {}
        self.dims = {}
        for name in res.names():
            self.arrays[name], self.dims[name] = array(res, name)
        self.attrs = json.loads(res.attrs_json())
        self.analysis = ANALYSIS_NAMES.get(res.analysis, str(res.analysis))

    def __getitem__(self, name):
        return self.arrays[name]

    def __iter__(self):
        return iter(self.arrays)

    def __len__(self):
        return len(self.arrays)

    def __repr__(self):
        items = ", ".join(f"{k}{self.dims[k]}" for k in self.arrays)
        return f"<gensvd.Result {self.analysis}: {items}>"

    def to_xarray(self):
        return to_dataset(self._res)


def array(res, name):
    """(numpy array, dims): numeric arrays are read-only views of the result's memory."""
    data, dims, shape, kind = res.array(name)
    if kind == "str":
        a = np.empty(len(data), dtype=object)
        a[:] = data
        return a.reshape(shape), dims
    return np.asarray(data), dims  # the buffer protocol: no copy, read-only




def to_dataset(res):
    import xarray as xr

    data_vars = {}
    for name in res.names():
        a, dims = array(res, name)
        data_vars[name] = xr.Variable(dims, a, attrs=json.loads(res.array_attrs_json(name)))
    ds = xr.Dataset(data_vars)
    ds.attrs.update(json.loads(res.attrs_json()))
    return ds


def add_loading(ds):
    """sgkit's sample_pca_loading, the components scaled by the square root of the explained
    variance (computed here: the program's output has no such array)."""
    if "sample_pca_component" in ds.variables and "sample_pca_explained_variance" in ds.variables:
        loading = ds["sample_pca_component"] * np.sqrt(ds["sample_pca_explained_variance"])
        ds = ds.assign(sample_pca_loading=loading.transpose(*ds["sample_pca_component"].dims))
    return ds


def add_smartpca_rows(ds, res):
    """With ``smartpca_rows=True``: the rows smartpca's .evec holds (``gensvd pca
    --eigensoft``: its lsqproject fits on its scale), ``smartpca_row`` (smartpca_samples x
    components) and their samples' IDs ``smartpca_sample_id``: the samples the components are
    of and, with fit_samples, the others, as smartpca's poplistname writes them."""
    try:
        rows, dims = array(res, "smartpca_row")
        ids, _ = array(res, "smartpca_sample_id")
    except KeyError:
        return ds
    return ds.assign(smartpca_row=(dims, rows), smartpca_sample_id=(dims[:1], ids))


def add_eigenvalues(ds, res):
    """With ``all_eigenvalues=True`` and the exact method: ``gram_eigenvalue`` (eigenvalues),
    every eigenvalue of the Gram Z'Z, descending (the first k are sample_pca_singular_value
    squared; smartpca's .eval is them times (N - 1) / their sum)."""
    try:
        w, dims = array(res, "gram_eigenvalue")
    except KeyError:
        return ds
    return ds.assign(gram_eigenvalue=(dims, w))


def convert(res):
    """The result as an xarray.Dataset, or a gensvd.Result without xarray."""
    try:
        import xarray  # noqa: F401
    except ImportError:
        return Result(res)
    return to_dataset(res)


def _result_of_array(a):
    """The library's result behind a numpy array (through its bases), or None."""
    seen = 0
    obj = a
    while obj is not None and seen < 32:
        if isinstance(obj, _g.ResultArray):
            return obj.result
        if isinstance(obj, memoryview):
            obj = obj.obj
        else:
            obj = getattr(obj, "base", None)
        seen += 1
    return None


def find_result(obj):
    """The library's result an object holds: a gensvd.Result, or an xarray Dataset or
    DataArray some of whose variables are a result's arrays as gensvd returned them."""
    if isinstance(obj, Result):
        return obj._res
    if isinstance(obj, _g.Result):
        return obj
    candidates = []
    variables = getattr(obj, "variables", None)
    if variables is not None:
        candidates = [v.data for v in variables.values()]
    elif hasattr(obj, "variable"):  # a DataArray and its coordinates
        candidates = [obj.variable.data] + [c.data for c in obj.coords.values()]
    found = {id(r): r for r in (_result_of_array(d) for d in candidates
                                if isinstance(d, np.ndarray)) if r is not None}
    if len(found) > 1:
        raise ValueError("the object holds the results of several gensvd runs: write each "
                         "result (merge=False) on its own")
    if not found:
        raise TypeError("not a gensvd result (or its arrays were copied): gensvd.write takes "
                        "what a gensvd function returned")
    return next(iter(found.values()))
