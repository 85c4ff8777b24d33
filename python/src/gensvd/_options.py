"""Keyword arguments from the library's option tables.

Every analysis' options, their types and defaults come from the library itself
(``gensvd_options_name``, ``_type``, ``_value``): the names of the command line with ``-``
written ``_``, its defaults and accepted values. The input, resource and remote-store options
(a source's selection, the context's settings) have no such table in the library: they are
listed here, with the names of the command line's COMMON OPTIONS.
"""

import inspect
import numbers
import os

from . import _gensvd as _g

# Python names that differ from the option's (sgkit's name for the number of components).
RENAME = {"components": "n_components"}

# The input options each command takes (its COMMON OPTIONS), by analysis, plus two for sources
# in memory (chunk_variants, source_name): Python name -> default as the command line shows it
# (None: not given).  Here, as for the analyses' options, only what a call gives is set: the
# library's defaults (and, for the context, the environment's: GENSVD_CONCURRENCY, ...) hold
# for the rest.
_INPUT = {"array": None, "transpose": False, "ploidy": 2, "variants": None, "samples": None,
          "maf": None, "max_missing": None, "hwe": None, "hwe_midp": False,
          "variant_mask": None, "sample_mask": None, "all_contigs": False, "chr": None,
          "not_chr": None, "autosome": False, "autosome_par": False, "from_bp": None,
          "to_bp": None, "var_filter": False, "extract": None, "exclude": None,
          "extract_bed": None, "exclude_bed": None, "extract_range": None,
          "exclude_range": None, "keep": None, "remove": None, "mind": None}
_LISTS = ("extract", "exclude", "extract_bed", "exclude_bed", "extract_range", "exclude_range",
          "keep", "remove")
_CONTIGS = ("chr", "not_chr", "autosome", "autosome_par", "from_bp", "to_bp")
_MEMORY = {"chunk_variants": None, "source_name": None}
SOURCE_OPTIONS = {**_INPUT, **_MEMORY}
_INPUT_BY_ANALYSIS = {
    _g.PCA: ("array", "transpose", "ploidy", "variants", "samples", "maf", "max_missing",
             "hwe", "hwe_midp", *_CONTIGS, "var_filter", *_LISTS, "mind", "variant_mask",
             "sample_mask"),
    _g.PDIST: ("array", "transpose", "ploidy", "variants", "samples", *_CONTIGS, "var_filter",
               *_LISTS, "mind", "variant_mask", "sample_mask", "all_contigs"),
    _g.LDPRUNE: ("array", "transpose", "ploidy", "variants", "samples", "maf", "max_missing",
                 "hwe", "hwe_midp", *_CONTIGS, "var_filter", *_LISTS, "mind"),
    _g.RELATED: ("array", "variants", "samples", *_CONTIGS, "var_filter", *_LISTS, "mind",
                 "all_contigs"),
    _g.PROJECT: ("array", "transpose", "ploidy", "variants", "samples", *_CONTIGS, "var_filter",
                 *_LISTS, "mind"),
    _g.SIMULATE: (),
}

# The context's settings (gensvd_ctx_set_int / _string), with the command line's names; the
# credentials have no command-line option (the program takes them from the environment).
CONTEXT_INT = {"threads": 0, "concurrency": 32, "retries": 8, "timeout": 60,
               "no_sign_request": False}
CONTEXT_STRING = {"device": "auto", "endpoint": None, "s3_addressing": "auto",
                  "gcs_token_file": None, "gcs_token": None, "aws_access_key_id": None,
                  "aws_secret_access_key": None, "aws_session_token": None, "aws_region": None,
                  "cache_dir": None}
_DEVICE = (_g.PCA, _g.PDIST, _g.RELATED)  # the commands with --device
_CACHE_DIR = (_g.PCA,)  # with --cache-dir

# The output (gensvd_dest) and what the binding adds.
OUTPUT_OPTIONS = {"output": None, "force": False, "zarr_format": None, "shard": None}
BINDING_OPTIONS = {"progress": False, "merge": True}


def source_options(analysis):
    """The input keywords of an analysis' function: {name: default}."""
    names = _INPUT_BY_ANALYSIS[analysis]
    return {**{n: _INPUT[n] for n in names}, **(_MEMORY if names else {})}


def context_options(analysis):
    """The context keywords of an analysis' function: {name: default}."""
    out = dict(CONTEXT_INT)
    for name, default in CONTEXT_STRING.items():
        if (name == "device" and analysis not in _DEVICE) or (
                name == "cache_dir" and analysis not in _CACHE_DIR):
            continue
        out[name] = default
    return out


def py_name(option):
    return RENAME.get(option, option.replace("-", "_"))


def _value(text, kind):
    if kind == _g.OPTION_INT:
        return int(text)
    if kind == _g.OPTION_DOUBLE:
        return float(text)
    if kind == _g.OPTION_FLAG:
        return text == "1"
    return text if text != "" else None


def analysis_options(analysis):
    """[(python name, option name, kind, default)] of an analysis, in the library's order
    ("command", which every analysis takes, last)."""
    ctx = _g.Context()
    opt = _g.Options(ctx, analysis)
    return [(py_name(n), n, k, _value(v, k)) for n, k, v in opt.list()]


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _is_real(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _joined(v, sep):
    return sep.join(str(x) for x in v)


def check_option(func, name, kind, value):
    """A TypeError for a value of the wrong type (before any work)."""
    ok = (
        (kind == _g.OPTION_INT and (_is_int(value) or isinstance(value, str)))
        or (kind == _g.OPTION_DOUBLE and (_is_real(value) or isinstance(value, str)))
        or (kind == _g.OPTION_FLAG and (isinstance(value, bool) or value in (0, 1)))
        or (kind == _g.OPTION_STRING
            and (isinstance(value, (str, os.PathLike)) or _is_real(value)
                 or isinstance(value, (tuple, list))))
    )
    if not ok:
        want = {_g.OPTION_INT: "an int", _g.OPTION_DOUBLE: "a number",
                _g.OPTION_FLAG: "a bool", _g.OPTION_STRING: "a str"}[kind]
        raise TypeError(f"{func}(): {name} must be {want}, not {type(value).__name__}")


def set_option(opt, option, kind, value):
    """Set one analysis option (its value checked by check_option); a bad value raises
    gensvd.UsageError (a ValueError) with the library's message."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if option == "fit-samples" and isinstance(value, (list, tuple)):
        opt.set_strings(option, [str(x) for x in value])
    elif isinstance(value, (tuple, list)):  # ld-prune (r2, window, step), part (i, n), chunks
        opt.set_string(option, _joined(value, "/" if option == "part" else ","))
    elif isinstance(value, str):
        opt.set_string(option, value)
    elif kind == _g.OPTION_FLAG:
        opt.set_int(option, int(bool(value)))
    elif _is_int(value):
        opt.set_int(option, int(value))
    else:
        opt.set_double(option, float(value))


def signature(positional, analysis_opts, groups):
    """An inspect.Signature: the positional parameters (name, default or inspect._empty), the
    analysis' options, then each group's ({name: default}), keyword-only."""
    params = []
    for name, default in positional:
        params.append(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                        default=default))
    seen = {p.name for p in params}
    for group in [{p: d for p, _o, _k, d in analysis_opts}, *groups]:
        for name, default in group.items():
            if name in seen:
                continue
            seen.add(name)
            params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                            default=default))
    return inspect.Signature(params)
