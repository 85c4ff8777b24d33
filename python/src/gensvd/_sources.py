"""Sources: what the functions' first argument may be, as a library source.

- a path or URL (str or os.PathLike): the store, opened by the library (every store kind the
  ``gensvd`` program reads);
- an xarray.Dataset in sgkit's layout: ``call_genotype`` (or the variable named by ``array=``)
  and, where present, ``sample_id``, ``variant_contig``, ``contig_id``, ``variant_position``,
  ``variant_allele``, ``variant_id``, ``variant_filter``, ``filter_id``; numpy-backed variables
  are read in place (no copy), dask-backed ones
  chunk by chunk (only the chunks being read are in memory);
- an xarray.DataArray, a numpy array or a dask array: variants x samples x ploidy genotypes
  (any integer dtype, negative = missing) or variants x samples dosages (integer with negative
  = missing, or float with NaN = missing).
"""

import os
import tempfile

import numpy as np

from . import _gensvd as _g

_DTYPES = {
    np.dtype(np.bool_): _g.DTYPE_BOOL,
    np.dtype(np.int8): _g.DTYPE_INT8, np.dtype(np.int16): _g.DTYPE_INT16,
    np.dtype(np.int32): _g.DTYPE_INT32, np.dtype(np.int64): _g.DTYPE_INT64,
    np.dtype(np.uint8): _g.DTYPE_UINT8, np.dtype(np.uint16): _g.DTYPE_UINT16,
    np.dtype(np.uint32): _g.DTYPE_UINT32, np.dtype(np.uint64): _g.DTYPE_UINT64,
    np.dtype(np.float32): _g.DTYPE_FLOAT32, np.dtype(np.float64): _g.DTYPE_FLOAT64,
}

# sgkit's variables the library reads besides the genotypes, and their dimensions
_EXTRA = {
    "sample_id": ("samples",),
    "variant_contig": ("variants",),
    "contig_id": ("contigs",),
    "variant_position": ("variants",),
    "variant_allele": ("variants", "alleles"),
    "variant_id": ("variants",),
    "variant_filter": ("variants", "filters"),
    "filter_id": ("filters",),
}
_GENO_DIMS = ("variants", "samples", "ploidy")


def _xarray():
    try:
        import xarray
    except ImportError:
        return None
    return xarray


def _is_dask(a):
    return type(a).__module__.split(".")[0] == "dask" and hasattr(a, "chunks")


def _native(a, what):
    """a numpy array the library reads as it is (a copy only for another byte order or
    float16); TypeError for other dtypes."""
    dt = a.dtype
    if dt.kind in "iub" or dt in (np.float32, np.float64):
        if not dt.isnative:
            a = a.astype(dt.newbyteorder("="))
        return a
    if dt == np.float16:
        return a.astype(np.float32)
    raise TypeError(f"{what}: dtype {dt} (gensvd reads integer, bool and float arrays)")


def _strings(values):
    out = []
    for v in np.asarray(values).ravel():
        if isinstance(v, bytes):
            v = v.decode("utf-8", "replace")
        out.append("" if v is None else str(v))
    return out


class _Chunks:
    """Fills the library's chunks of a dask array (called from its worker threads)."""

    def __init__(self, arr):
        self.arr = arr
        self.shape = tuple(int(n) for n in arr.shape)
        self.regular = all(all(c == cs[0] for c in cs[:-1]) and cs[-1] <= cs[0]
                           for cs in arr.chunks if cs)
        self.chunks = tuple(max(max(cs), 1) if cs else 1 for cs in arr.chunks)
        self.dtype = np.dtype(arr.dtype)

    def __call__(self, index, mv):
        if self.regular:
            block = self.arr.blocks[tuple(index)]
        else:
            block = self.arr[tuple(slice(i * c, min((i + 1) * c, n))
                                   for i, c, n in zip(index, self.chunks, self.shape))]
        block = np.asarray(block.compute(scheduler="synchronous"))
        out = np.frombuffer(mv, dtype=self.dtype).reshape(self.chunks)
        out[tuple(slice(0, e) for e in block.shape)] = block


def _add(src, name, data, what):
    """Add one array: numpy in place, dask by chunks, strings encoded."""
    if _is_dask(data):
        if data.dtype.kind in "OSU":
            return _add(src, name, np.asarray(data.compute()), what)
        data = data if data.dtype.isnative and data.dtype != np.float16 else data.astype(
            np.float32 if data.dtype == np.float16 else data.dtype.newbyteorder("="))
        if data.dtype not in _DTYPES:
            raise TypeError(f"{what}: dtype {data.dtype} (gensvd reads integer, bool and "
                            f"float arrays)")
        fill = _Chunks(data)
        src.add_chunked(name, _DTYPES[data.dtype], fill.shape, fill.chunks, fill)
        return
    a = np.asarray(data)
    if a.dtype.kind in "OSU":
        src.add_strings(name, _strings(a), a.shape)
        return
    src.add_array(name, _native(a, what))


def _check_calls(ndim, dtype, what):
    """Genotype calls are integer allele indices: a float 3-D array is a mistake, most often a
    store opened by xarray with its fill value decoded into NaN."""
    if ndim == 3 and np.dtype(dtype).kind == "f":
        raise TypeError(f"{what}: genotype calls (variants x samples x ploidy) are integer "
                        f"allele indices, not {np.dtype(dtype)}: xarray decodes a store's "
                        f"fill value into NaN floats unless it is opened with "
                        f"xr.open_zarr(..., mask_and_scale=False)")


def _geno_name(ndim):
    return "call_genotype" if ndim == 3 else "call_dosage"


def _add_dataset(src, ds, array):
    name = array or "call_genotype"
    if name not in ds.variables:
        raise ValueError(f"the Dataset has no variable '{name}'"
                         + ("" if array else ": name the genotypes with array="))
    var = ds[name]
    if var.ndim not in (2, 3):
        raise ValueError(f"'{name}' has {var.ndim} dimensions (variants x samples [x ploidy])")
    _check_calls(var.ndim, var.dtype, f"'{name}'")
    if set(var.dims[:2]) == {"variants", "samples"}:
        var = var.transpose("variants", "samples", ...)
    _add(src, name, var.data, f"'{name}'")
    for extra, dims in _EXTRA.items():
        if extra in ds.variables and ds[extra].dims == dims:
            _add(src, extra, ds[extra].data, f"'{extra}'")
    if name != "call_genotype":
        src.set_string("array", name)
    ids = ds["sample_id"].values if "sample_id" in ds.variables else None
    return None if ids is None else _strings(ids)


def _add_array(src, a, xr):
    if xr is not None and isinstance(a, xr.DataArray):
        if set(a.dims[:2]) == {"variants", "samples"}:
            a = a.transpose("variants", "samples", ...)
        a = a.data
    if not _is_dask(a):
        a = np.asarray(a)
    if a.ndim not in (2, 3):
        raise ValueError(f"a genotype array has 2 dimensions (variants x samples) or 3 "
                         f"(variants x samples x ploidy), not {a.ndim}")
    if a.dtype == np.bool_:
        raise TypeError("a bool array is a mask, not genotypes")
    _check_calls(a.ndim, a.dtype, "the genotype array")
    name = _geno_name(a.ndim)
    _add(src, name, a, "the genotype array")
    if name != "call_genotype":
        src.set_string("array", name)


def describe(source):
    """How the output's "command" attribute names the source."""
    if isinstance(source, (str, os.PathLike)):
        return repr(os.fspath(source))
    shape = getattr(source, "shape", None)
    kind = f"{type(source).__module__.split('.')[0]}.{type(source).__name__}"
    if shape is not None and not isinstance(shape, dict):
        return f"<{kind} {getattr(source, 'dtype', '')} {tuple(shape)}>"
    return f"<{kind}>"


def _read_ids(path):
    with open(path, encoding="utf-8") as f:
        return [s for s in (line.strip() for line in f) if s and not s.startswith("#")]


def _variants(v):
    if isinstance(v, str):
        return v
    if isinstance(v, slice):
        if v.step not in (None, 1):
            raise ValueError("variants: a slice with a step is not a range")
        start, stop = v.start, v.stop
    else:
        start, stop = v
    if start is not None and int(start) < 0 or stop is not None and int(stop) < 0:
        raise ValueError("variants: negative indices (give A:B with 0 <= A < B)")
    return f"{int(start or 0)}:{'' if stop is None else int(stop)}"


def _mask_values(mask, var, xr, what):
    """(values as uint8, sample IDs of a Dataset's mask or None)."""
    ids = None
    if xr is not None and isinstance(mask, xr.Dataset):
        if var not in mask.variables:
            raise ValueError(f"{what}: the Dataset has no '{var}'")
        if "sample_id" in mask.variables and var.startswith("sample_"):
            ids = _strings(mask["sample_id"].values)
        mask = mask[var]
    if xr is not None and isinstance(mask, xr.DataArray):
        mask = mask.values
    m = np.asarray(mask)
    if m.ndim != 1 or m.dtype.kind not in "biu":
        raise TypeError(f"{what}: a 1-D bool or integer array, a path, or a gensvd result")
    return np.ascontiguousarray(m != 0, dtype=np.uint8), ids


def _var_filter(src, v):
    """var_filter: True (FILTER PASS or missing only), or the filters tolerated besides (a
    name or a list of names; the command line's --var-filter-except)."""
    if v is None or v is False:
        return
    if v is True:
        src.set_int("var-filter", 1)
        return
    names = [v] if isinstance(v, str) else list(v) if isinstance(v, (list, tuple)) else None
    if names is None or not all(isinstance(n, str) and n and "," not in n for n in names):
        raise TypeError("var_filter: True, or a filter name or list of names to tolerate")
    src.set_int("var-filter", 1)
    if names:
        src.set_string("var-filter-except", ",".join(names))


def _list_text(key, v):
    """The file text of an ID list (strings) or a range list ((contig, start, end) rows)."""
    if key in ("extract", "exclude", "keep", "remove"):
        ids = [i.decode() if isinstance(i, bytes) else str(i) for i in v]
        what = "sample" if key in ("keep", "remove") else "variant"
        if not all(i and not any(c.isspace() for c in i) for i in ids) or (
                what == "sample" and any(i.startswith("#") for i in ids)):
            raise ValueError(f"{key}: {what} IDs are non-empty words (no blanks"
                             + (", no leading #)" if what == "sample" else ")"))
        return "".join(i + "\n" for i in ids)
    rows = []
    for r in v:
        r = tuple(r)
        if len(r) != 3 or isinstance(r[1], (bool, float)) or isinstance(r[2], (bool, float)):
            raise TypeError(f"{key}: (contig, start, end) rows with whole-number bounds")
        contig, start, end = str(r[0]), int(r[1]), int(r[2])
        if not contig or any(c.isspace() for c in contig):
            raise ValueError(f"{key}: a contig name is a non-empty word, not {r[0]!r}")
        rows.append(f"{contig}\t{start}\t{end}\n")
    return "".join(rows)


def _var_list(src, key, v):
    """A file of variant IDs, ranges or sample IDs: a path, or the IDs / (contig, start, end)
    rows, which the library reads from a scratch file when the option is set (removed right
    after)."""
    opt = key.replace("_", "-")
    if isinstance(v, (str, os.PathLike)):
        src.set_string(opt, os.fspath(v))
        return
    if isinstance(v, (bytes, dict)) or not hasattr(v, "__iter__"):
        raise TypeError(f"{key}: a path, or a list of " + (
            "(contig, start, end)" if key.endswith(("_bed", "_range")) else "IDs"))
    text = _list_text(key, v)
    fd, path = tempfile.mkstemp(prefix="gensvd-", suffix=".txt")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        src.set_string(opt, path)
    finally:
        os.unlink(path)


def apply_selection(src, sel):
    """The input options (keyword arguments) on a source; bad values raise before any work."""
    xr = _xarray()
    if sel.get("source_name") is not None:
        src.set_string("name", str(sel["source_name"]))
    if sel.get("array") is not None and not sel.get("_array_done"):
        src.set_string("array", str(sel["array"]))
    for key, opt in (("transpose", "transpose"), ("all_contigs", "all-contigs")):
        if sel.get(key):
            src.set_int(opt, 1)
    for key, opt in (("ploidy", "ploidy"), ("chunk_variants", "chunk-variants")):
        if sel.get(key) is not None:
            src.set_int(opt, int(sel[key]))
    for key, opt in (("maf", "maf"), ("max_missing", "max-missing"), ("hwe", "hwe"),
                     ("mind", "mind")):
        if sel.get(key) is not None:
            src.set_double(opt, float(sel[key]))
    if sel.get("hwe_midp"):
        src.set_int("hwe-midp", 1)
    if sel.get("variants") is not None:
        src.set_string("variants", _variants(sel["variants"]))
    _var_filter(src, sel.get("var_filter"))
    for key, opt in (("chr", "chr"), ("not_chr", "not-chr")):
        if sel.get(key) is not None:
            c = sel[key]
            items = [c] if isinstance(c, (str, int)) else list(c) if isinstance(
                c, (list, tuple, range)) else None
            if not items or not all(isinstance(i, (str, int)) and str(i) for i in items):
                raise TypeError(f"{key}: contig names or numbers, as a string ('1-22,X') or a "
                                "list")
            src.set_string(opt, ",".join(str(i) for i in items))
    for key, opt in (("autosome", "autosome"), ("autosome_par", "autosome-par")):
        if sel.get(key):
            src.set_int(opt, 1)
    for key, opt in (("from_bp", "from-bp"), ("to_bp", "to-bp")):
        if sel.get(key) is not None:
            v = sel[key]
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise TypeError(f"{key}: a position, a whole number >= 0")
            src.set_int(opt, v)
    for key in ("extract", "exclude", "extract_bed", "exclude_bed", "extract_range",
                "exclude_range", "keep", "remove"):
        if sel.get(key) is not None:
            _var_list(src, key, sel[key])
    samples = sel.get("samples")
    if samples is not None:
        ids = _read_ids(samples) if isinstance(samples, (str, os.PathLike)) else [
            str(s) for s in samples]
        src.set_samples(ids)
    for key, opt, var in (("variant_mask", "variant-mask", "variant_ld_keep"),
                          ("sample_mask", "sample-mask", "sample_unrelated")):
        mask = sel.get(key)
        if mask is None:
            continue
        if isinstance(mask, (str, os.PathLike)):
            src.set_string(opt, os.fspath(mask))
            continue
        values, ids = _mask_values(mask, var, xr, key)
        if ids is not None:  # matched by ID, in the mask's order, as the program does
            if samples is not None:
                raise ValueError("sample_mask with sample IDs: not with samples=")
            src.set_samples([i for i, k in zip(ids, values) if k])
        else:
            src.set_mask(opt, values.tobytes())


def make_source(ctx, source, sel):
    """(a Source, the input's sample IDs or None)."""
    xr = _xarray()
    sel = dict(sel)
    ids = None
    if isinstance(source, (str, os.PathLike)):
        src = _g.Source(ctx, os.fspath(source))
    elif xr is not None and isinstance(source, xr.Dataset):
        src = _g.Source(ctx)
        ids = _add_dataset(src, source, sel.get("array"))
        sel["_array_done"] = True
    elif hasattr(source, "shape") and hasattr(source, "dtype"):
        src = _g.Source(ctx)
        _add_array(src, source, xr)
    else:
        raise TypeError(f"source: a path or URL, an xarray.Dataset, or a numpy, dask or "
                        f"xarray array, not {type(source).__name__}")
    apply_selection(src, sel)
    return src, ids
