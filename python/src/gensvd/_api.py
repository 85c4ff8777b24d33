"""The user's functions: pca, project, pdist, ldprune, related, simulate, open_info, read,
write and build_info.

The analysis functions take the options of the command of the same name, from the library's
tables (gensvd._options): ``gensvd.pca(source, n_components=10, method="auto", ...)`` is
``gensvd pca SOURCE -k 10 --method auto ...``. A bad option raises gensvd.UsageError (a
ValueError) or a TypeError before any input is read; an output (``output=``) is checked before
any input is read too.
"""

import json
import os

from . import _gensvd as _g
from . import _messages, _options, _progress, _results, _runner, _sources
from ._options import CONTEXT_INT, CONTEXT_STRING, SOURCE_OPTIONS

_REMOTE = {k: v for k, v in {**CONTEXT_INT, **CONTEXT_STRING}.items()}


def _context(func, kw):
    ctx = _g.Context()
    for name in CONTEXT_INT:
        v = kw.get(name)
        if v is None:
            continue
        if not isinstance(v, (int, bool)):
            raise TypeError(f"{func}(): {name} must be an int, not {type(v).__name__}")
        ctx.set_int(name.replace("_", "-"), int(v))
    for name in CONTEXT_STRING:
        v = kw.get(name)
        if v is None:
            continue
        if not isinstance(v, (str, os.PathLike)):
            raise TypeError(f"{func}(): {name} must be a str, not {type(v).__name__}")
        ctx.set_string(name.replace("_", "-"), os.fspath(v))
    ctx.set_log_level(_runner.log_level())
    return ctx


def _dest(ctx, func, output, force, zarr_format, shard):
    if not isinstance(output, (str, os.PathLike)):
        raise TypeError(f"{func}(): output must be a path or URL, not {type(output).__name__}")
    dest = _g.Dest(ctx, os.fspath(output))
    if force:
        dest.set_int("force", 1)
    if zarr_format is not None:
        dest.set_int("zarr-format", int(zarr_format))
    if shard is not None:
        dest.set_string("shard", shard if isinstance(shard, str) else ",".join(
            str(int(x)) for x in (shard if isinstance(shard, (tuple, list)) else (shard,))))
    dest.check()  # before any input is read
    return dest


def _command(func, source, positional, given):
    parts = [] if source is None else [_sources.describe(source)]
    for k, v in given.items():
        if k in positional:
            parts.append(repr(v) if isinstance(v, (str, int, float)) else f"<{type(v).__name__}>")
        else:
            parts.append(f"{k}={v!r}" if isinstance(v, (str, int, float, bool, tuple, list))
                         else f"{k}=<{type(v).__name__}>")
    return f"gensvd.{func}({', '.join(parts)})"


def _is_dataset(obj):
    try:
        import xarray as xr
    except ImportError:
        return False
    return isinstance(obj, xr.Dataset)


def _merge(ds, new, analysis):
    """sgkit's merge: the input Dataset with the result's variables added (sample_id and
    variant identities it has already are not repeated), the group attributes under
    attrs["gensvd_<analysis>"]."""
    for name, var in new.variables.items():
        for dim, n in zip(var.dims, var.shape):
            if dim in ds.sizes and ds.sizes[dim] != n:
                raise ValueError(f"merge=True: the result's '{name}' has {n} {dim}, the "
                                 f"Dataset {ds.sizes[dim]}: pass merge=False")
    keep = [n for n in new.data_vars if n not in ds.variables or n.startswith(
        ("sample_pca", "variant_pca", "variant_ld", "sample_unrelated"))]
    out = ds.assign({n: new[n].variable for n in keep})
    out.attrs = dict(ds.attrs)
    out.attrs[f"gensvd_{analysis}"] = dict(new.attrs)
    return out


def _run(func, analysis, spec, positional, bound, *, source_arg="source", pcs=None,
         words=None):
    kw = dict(bound)
    source = kw.pop(source_arg, None) if source_arg else None
    given = {k: v for k, v in bound.items() if k != source_arg and (
        k not in _options.BINDING_OPTIONS and k not in _REMOTE and k not in
        _options.OUTPUT_OPTIONS or k == "output")}
    # types first, before anything is opened
    by_py = {p: (o, k) for p, o, k, _d in spec}
    for name, value in kw.items():
        if name in by_py and value is not None:
            _options.check_option(func, name, by_py[name][1], value)
    merge = kw.get("merge", True)
    selection = {k: kw.get(k) for k in SOURCE_OPTIONS}
    if merge and _is_dataset(source) and analysis != _g.LDPRUNE and (
            selection["samples"] is not None or selection["sample_mask"] is not None):
        raise ValueError(f"{func}(): merge=True adds the result to the Dataset, which needs "
                         f"every sample: select them in the Dataset (ds.isel) or pass "
                         f"merge=False")
    ctx = _context(func, kw)
    opt = _g.Options(ctx, analysis)
    for name, (option, kind) in by_py.items():
        value = kw.get(name)
        if value is not None and option != "command":
            _options.set_option(opt, option, kind, value)
    command = kw.get("command")
    opt.set_string("command", command if command is not None else _command(
        func, source, positional, {k: v for k, v in given.items() if k != "command"}))
    dest = None
    if kw.get("output") is not None:
        dest = _dest(ctx, func, kw["output"], kw.get("force"), kw.get("zarr_format"),
                     kw.get("shard"))
    if pcs is not None:
        if isinstance(pcs, (str, os.PathLike)):
            opt.set_string("pcs", os.fspath(pcs))
        else:
            opt.set_pcs(_results.find_result(pcs))
    src = None
    if source_arg:
        src, _ids = _sources.make_source(ctx, source, selection)
    rep = _progress.reporter(kw.get("progress"))
    if rep is not None:
        ctx.set_progress(rep)
    try:
        res = _runner.call(ctx, _g.run, ctx, opt, src, dest, words=words)
    finally:
        ctx.set_progress(None)
        close = getattr(rep, "close", None)
        if close:
            close()
    return res, source, merge


def _dataset_result(func, analysis, res, source, merge):
    out = _results.convert(res)
    if analysis == _g.PCA and not isinstance(out, _results.Result):
        out = _results.add_eigenvalues(
            _results.add_smartpca_rows(_results.add_loading(out), res), res)
    if merge and _is_dataset(source) and not isinstance(out, _results.Result):
        return _merge(source, out, _results.ANALYSIS_NAMES[analysis])
    return out


def _words(spec, groups):
    """{option name: (python name, is a flag)} of a function's keywords, for its messages."""
    names = {o: (p, k == _g.OPTION_FLAG) for p, o, k, _d in spec}
    for group in groups:
        for py, default in group.items():
            names.setdefault(py.replace("_", "-"), (py, default is False))
    return names


def _make(func, analysis, positional, doc, *, source=True, convert=None, extra=None):
    spec = _options.analysis_options(analysis)
    extra = dict(extra if extra is not None else {**_options.OUTPUT_OPTIONS,
                                                 **_options.BINDING_OPTIONS})
    inputs = _options.source_options(analysis)
    context = _options.context_options(analysis)
    sig = _options.signature(positional, spec, [inputs, context, extra])
    names = [p for p, _d in positional]

    words = _messages.Words(_words(spec, [inputs, context, extra]))

    def f(*args, **kwargs):
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{func}(): {e}") from None
        arguments = dict(bound.arguments)
        pcs = arguments.pop("pcs", None) if analysis == _g.PROJECT else None
        try:
            res, src, merge = _run(func, analysis, spec, names, arguments,
                                   source_arg="source" if source else None, pcs=pcs,
                                   words=words)
            if convert is not None:
                return convert(res, arguments)
            return _dataset_result(func, analysis, res, src, merge)
        except _g.GensvdError as e:
            _messages.rewrite_error(e, words)
            raise

    f.__name__ = f.__qualname__ = func
    f.__signature__ = sig
    lines = [doc.rstrip(), "", "Options (the command line's, with its defaults):"]
    for p, o, k, d in spec:
        if o != "command":
            lines.append(f"    {p}={d!r}  (--{o})")
    lines += ["", "Input options: " + ", ".join(inputs) if inputs else "",
              "Context: " + ", ".join(context), "Output and binding: " + ", ".join(extra),
              "command: the text recorded as the output's 'command' attribute."]
    f.__doc__ = "\n".join(lines)
    return f


def _stored_pdist(output, attrs, arguments):
    """The arrays a pdist wrote at output (distance, n_sites, the IDs) read back through the
    library, which reads every store and format it writes, as a Dataset with the run's
    attributes."""
    import xarray as xr
    context = {k: arguments[k] for k in _REMOTE if arguments.get(k) is not None}
    names = [a["path"].strip("/") for a in open_info(output, **context)["arrays"]]
    return xr.Dataset({n: read(output, n, **context) for n in names
                       if n in ("distance", "n_sites", "sample_id", "variant_index")},
                      attrs=dict(attrs))


def _pdist_convert(res, arguments):
    out = _results.convert(res)
    if isinstance(out, _results.Result):
        return out
    if "pair_i" in out.variables:  # min_kinship's pairs, held in memory (no output)
        return out
    if "distance" not in out.variables:  # written to the output as computed
        output = os.fspath(arguments.get("output"))
        try:
            import xarray as xr
            out = xr.open_zarr(output)  # lazily, as dask arrays
        except Exception:  # a store this xarray cannot open (format 3 under zarr-python 2,
            # a bucket without fsspec): read back through the library, into memory
            out = _stored_pdist(output, out.attrs, arguments)
        if "distance" not in out.variables:
            return out
    da = out["distance"]
    if "n_sites" in out.variables and out["n_sites"].dims == da.dims:
        da = da.assign_coords(n_sites=out["n_sites"])
    for ids in ("sample_id", "variant_index"):
        if ids in out.variables and len(da.dims) == 2 and out[ids].dims == da.dims[:1]:
            values = out[ids].values
            da = da.assign_coords({da.dims[0]: values, da.dims[1]: values})
    da.attrs = {**out.attrs, **da.attrs}
    return da


pca = _make("pca", _g.PCA, [("source", _options.inspect.Parameter.empty),
                             ("n_components", 10)], """\
Principal components of the genotypes (``gensvd pca``).

Returns an xarray.Dataset with sgkit's names: sample_pca_projection (samples, components: the
scores U S), sample_pca_singular_value, sample_pca_explained_variance (s^2 / N),
sample_pca_explained_variance_ratio, sample_pca_eigenvalue; with loadings=True also
sample_pca_component (variants, components: the unit loadings V), sample_pca_loading (V s /
sqrt(N), sgkit's), variant_pca_mean/scale/included. With a Dataset source and merge=True (the
default, as sgkit) the input Dataset with these added.""")

project = _make("project", _g.PROJECT, [("source", _options.inspect.Parameter.empty),
                                       ("pcs", _options.inspect.Parameter.empty)], """\
Samples placed on saved principal components (``gensvd project``): pcs is a pca output with
loadings (a path or URL, or what gensvd.pca(..., loadings=True) returned).""")

pdist = _make("pdist", _g.PDIST, [("source", _options.inspect.Parameter.empty),
                                 ("metric", "euclidean")], """\
Pairwise distances between samples (``gensvd pdist``): an xarray.DataArray (samples_0,
samples_1) indexed by sample ID, with n_sites as a coordinate when it was written.  With
min_kinship (metric "king") a Dataset of the kept pairs instead: pair_i, pair_j (indices into
sample_id), kinship, n_sites and the KING counts along "pairs".""",
              convert=_pdist_convert)

ldprune = _make("ldprune", _g.LDPRUNE, [("source", _options.inspect.Parameter.empty)], """\
Variants in approximate linkage equilibrium (``gensvd ldprune``, plink2 --indep-pairwise):
a Dataset with variant_ld_keep (variants, bool), which variant_mask= of the other functions
takes as it is.""")

related = _make("related", _g.RELATED, [("source", _options.inspect.Parameter.empty)], """\
A maximal unrelated sample set from KING kinship (``gensvd related``, plink2 --king-cutoff): a
Dataset with sample_unrelated (samples, bool) and sample_id, which sample_mask= takes.""")


def _simulate_convert(res, arguments):
    return os.fspath(arguments["output"])


simulate = _make("simulate", _g.SIMULATE, [("output", _options.inspect.Parameter.empty)], """\
Balding-Nichols genotypes written as a VCF-Zarr group at output (``gensvd simulate``); returns
output (open it with xarray.open_zarr or pass it to the other functions).""",
                 source=False, convert=_simulate_convert,
                 extra={"force": False, "zarr_format": None, "shard": None, "progress": False})


def _remote_context(func, kw):
    unknown = set(kw) - set(_REMOTE)
    if unknown:
        raise TypeError(f"{func}() got unexpected keyword arguments: {', '.join(sorted(unknown))}")
    return _context(func, kw)


def open_info(url, **context):
    """The tree of groups and arrays of a store (what ``gensvd info`` shows) as a dict:
    zarr_format, consolidated, groups, and arrays with path, shape, chunks, dtype, codecs,
    stored and raw bytes, dims. Keyword arguments: the context's settings (credentials,
    endpoint, ...)."""
    ctx = _remote_context("open_info", context)
    return json.loads(_runner.call(ctx, _g.store_info, ctx, os.fspath(url)))


def read(url, array, *, start=None, stop=None, **context):
    """One array of a store (or the hyperslab [start, stop) per axis) as an xarray.DataArray
    with its dimension names (a numpy array without xarray); any store the library reads."""
    ctx = _remote_context("read", context)
    res = _runner.call(ctx, _g.store_read, ctx, os.fspath(url), array, start, stop)
    name = res.names()[0]
    a, dims = _results.array(res, name)
    try:
        import xarray as xr
    except ImportError:
        return a
    return xr.DataArray(a, dims=dims, name=name,
                        attrs=json.loads(res.array_attrs_json(name)))


def write(result, url, *, force=False, zarr_format=None, shard=None, threads=0, **context):
    """Write what a gensvd function returned (a Dataset, a DataArray or a gensvd.Result, also
    merged into an input Dataset) at url as ``gensvd CMD -o`` writes it: the same bytes. The
    output is staged and appears only when complete."""
    res = _results.find_result(result)
    ctx = _remote_context("write", dict(context, threads=threads))
    dest = _dest(ctx, "write", url, force, zarr_format, shard)
    _runner.call(ctx, _g.result_write, res, dest)


def build_info(key=None):
    """What this build and machine offer (``gensvd --version``'s lines) as a dict, or one
    line by key: backends, cuda, mpi, stores, codecs, plot, libraries, blas, cpu kernels."""
    keys = ["backends", "cuda", "mpi", "stores", "codecs", "plot", "libraries", "blas",
            "cpu kernels"]
    if key is not None:
        return _g.build_info(key)
    return {"version": _g.version()[0], **{k: _g.build_info(k) for k in keys}}
