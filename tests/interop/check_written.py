#!/usr/bin/env python3
"""Verify with zarr-python a Zarr v2 store written by gensvd's writer test tool.

usage: check_written.py [-v] STORE

Expected content of the root group STORE: arrays named `<dt>_<codec>`, with
  dt    in b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8 str
  codec in default blosc-lz4 blosc-zlib zstd zlib gzip lz4 none
Numeric arrays: 2-D, shape (37, 23), chunks (10, 7), little-endian dtype; value at C-order flat
index i:
  bool    i % 3 == 0
  ints    (i * 2654435761) mod 2^(8*itemsize), reinterpreted in the dtype (two's complement)
  floats  (i % 1000) * 0.25 - 100.0, except NaN where i % 97 == 5
`str_*` arrays: 1-D, shape (41,), chunks (10,), dtype |O with a vlen-utf8 filter, value f"s{i}-é";
their dtype, fill_value, filters and order as bio2zarr writes them (testdata's hapmap3.vcz
sample_id: fill_value "").
Compressor per codec: default = blosc with cname zstd; blosc-lz4 / blosc-zlib = blosc with that
cname; zstd, zlib, gzip, lz4 = that id; none = null.
Also: explicit dimension_separator, every chunk present, `_ARRAY_DIMENSIONS` in .zattrs (one name
per axis), root .zgroup, .zmetadata consistent with the files, and values read through
zarr.open_consolidated. Works with zarr-python 2.18 and 3.x.

Last line "N passed, N failed"; exit 1 on any failure.
"""

import json
import os
import sys
import warnings

import numpy as np
import zarr

warnings.filterwarnings("ignore")
ZARR_MAJOR = int(zarr.__version__.split(".")[0])

DTYPES = ["b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "str"]
CODECS = ["default", "blosc-lz4", "blosc-zlib", "zstd", "zlib", "gzip", "lz4", "none"]
COMPRESSOR = {
    "default": ("blosc", "zstd"),
    "blosc-lz4": ("blosc", "lz4"),
    "blosc-zlib": ("blosc", "zlib"),
    "zstd": ("zstd", None),
    "zlib": ("zlib", None),
    "gzip": ("gzip", None),
    "lz4": ("lz4", None),
    "none": (None, None),
}
NUM_SHAPE, NUM_CHUNKS = (37, 23), (10, 7)
STR_SHAPE, STR_CHUNKS = (41,), (10,)


def numpy_dtype(dt):
    if dt == "b1":
        return np.dtype("|b1")
    return np.dtype(("|" if dt[1:] == "1" else "<") + dt)


def expected_values(dt):
    if dt == "str":
        a = np.empty(STR_SHAPE, dtype=object)
        a[:] = ["s%d-\u00e9" % i for i in range(STR_SHAPE[0])]
        return a
    n = NUM_SHAPE[0] * NUM_SHAPE[1]
    idx = np.arange(n)
    d = numpy_dtype(dt)
    if d.kind == "b":
        v = idx % 3 == 0
    elif d.kind in "iu":
        bits = 8 * d.itemsize
        vals = []
        for i in range(n):
            x = (i * 2654435761) % (1 << bits)
            if d.kind == "i" and x >= 1 << (bits - 1):
                x -= 1 << bits
            vals.append(x)
        v = np.array(vals, dtype=d)
    else:
        v = ((idx % 1000) * 0.25 - 100.0).astype(np.float64)
        v[idx % 97 == 5] = np.nan
        v = v.astype(d)
    return v.reshape(NUM_SHAPE)


def read_json(path):
    with open(path, "rb") as f:
        return json.loads(f.read().decode("utf-8"))


def open_consolidated(store):
    if ZARR_MAJOR >= 3:
        return zarr.open_consolidated(store, mode="r", zarr_format=2)
    return zarr.open_consolidated(store, mode="r")


def values_equal(got, exp, dt):
    if dt == "str":
        got = [str(x) for x in np.asarray(got).ravel().tolist()]
        return got == exp.ravel().tolist()
    got = np.asarray(got)
    if got.shape != exp.shape:
        return False
    if exp.dtype.kind == "f":
        return bool(np.array_equal(np.isnan(got), np.isnan(exp)) and
                    np.array_equal(np.nan_to_num(got), np.nan_to_num(exp)))
    return bool(np.array_equal(got, exp))


def first_bad(got, exp, dt):
    if dt == "str":
        g = [str(x) for x in np.asarray(got).ravel().tolist()]
        for i, (a, b) in enumerate(zip(g, exp.ravel().tolist())):
            if a != b:
                return "at %d: %r != %r" % (i, a, b)
        return "length %d != %d" % (len(g), exp.size)
    got = np.asarray(got)
    if got.shape != exp.shape:
        return "shape %s != %s" % (got.shape, exp.shape)
    bad = np.argwhere(~((got == exp) | (np.isnan(got) & np.isnan(exp))
                        if exp.dtype.kind == "f" else (got == exp)))
    i = tuple(bad[0])
    return "%d wrong values, first at %s: %r != %r" % (len(bad), i, got[i], exp[i])


def check_array(store, name, dt, codec, cgroup, zmeta):
    """Return a list of problems (empty = pass)."""
    probs = []
    adir = os.path.join(store, name)
    try:
        meta = read_json(os.path.join(adir, ".zarray"))
    except Exception as e:
        return ["cannot read %s/.zarray: %s" % (name, e)]
    shape, chunks = (STR_SHAPE, STR_CHUNKS) if dt == "str" else (NUM_SHAPE, NUM_CHUNKS)
    if meta.get("zarr_format") != 2:
        probs.append("zarr_format %r" % meta.get("zarr_format"))
    if tuple(meta.get("shape", ())) != shape:
        probs.append("shape %r != %r" % (meta.get("shape"), list(shape)))
    if tuple(meta.get("chunks", ())) != chunks:
        probs.append("chunks %r != %r" % (meta.get("chunks"), list(chunks)))
    if dt == "str":
        if meta.get("dtype") != "|O":
            probs.append("dtype %r != '|O'" % meta.get("dtype"))
        if not any(isinstance(f, dict) and f.get("id") == "vlen-utf8"
                   for f in (meta.get("filters") or [])):
            probs.append("no vlen-utf8 filter")
        bio = bio2zarr_string_meta()  # what bio2zarr writes for sample_id
        for key in ("dtype", "fill_value", "filters", "order"):
            if meta.get(key) != bio[key]:
                probs.append("%s %r, bio2zarr writes %r" % (key, meta.get(key), bio[key]))
    else:
        try:
            if np.dtype(meta.get("dtype")) != numpy_dtype(dt):
                probs.append("dtype %r != %r" % (meta.get("dtype"), numpy_dtype(dt).str))
        except TypeError:
            probs.append("dtype %r unreadable" % meta.get("dtype"))
    if meta.get("order") not in ("C", "F"):
        probs.append("order %r" % meta.get("order"))
    sep = meta.get("dimension_separator")
    if sep not in (".", "/"):
        probs.append("dimension_separator %r (must be written explicitly)" % sep)
        sep = "."
    comp = meta.get("compressor")
    want_id, want_cname = COMPRESSOR[codec]
    got_id = comp.get("id") if isinstance(comp, dict) else None
    if comp is not None and not isinstance(comp, dict):
        probs.append("compressor %r is not an object" % comp)
    elif got_id != want_id:
        probs.append("compressor id %r != %r" % (got_id, want_id))
    elif want_cname and comp.get("cname") != want_cname:
        probs.append("blosc cname %r != %r" % (comp.get("cname"), want_cname))
    # every chunk written
    grid = [-(-s // c) for s, c in zip(shape, chunks)]
    missing = [i for i in np.ndindex(*grid)
               if not os.path.isfile(os.path.join(adir, *sep.join(map(str, i)).split("/")))]
    if missing:
        probs.append("%d chunk(s) missing, e.g. %s" % (len(missing), sep.join(map(str, missing[0]))))
    # attributes
    try:
        attrs = read_json(os.path.join(adir, ".zattrs"))
        dims = attrs.get("_ARRAY_DIMENSIONS")
        if not (isinstance(dims, list) and len(dims) == len(shape) and
                all(isinstance(d, str) for d in dims)):
            probs.append("_ARRAY_DIMENSIONS %r" % (dims,))
    except Exception as e:
        probs.append("cannot read %s/.zattrs: %s" % (name, e))
        attrs = None
    # consolidated metadata agrees with the files
    if zmeta is not None:
        if zmeta.get(name + "/.zarray") != meta:
            probs.append(".zmetadata entry for %s/.zarray differs from the file" % name)
        if attrs is not None and zmeta.get(name + "/.zattrs", {}) != attrs:
            probs.append(".zmetadata entry for %s/.zattrs differs from the file" % name)
    # values, through zarr.open_consolidated when possible
    exp = expected_values(dt)
    try:
        if cgroup is not None:
            arr = cgroup[name]
        elif ZARR_MAJOR >= 3:
            arr = zarr.open_array(store=store, path=name, mode="r", zarr_format=2)
        else:
            arr = zarr.open_array(store, path=name, mode="r")
        got = arr[...]
        if dt != "str" and np.asarray(got).dtype != numpy_dtype(dt):
            probs.append("zarr-python dtype %s" % np.asarray(got).dtype)
        if not values_equal(got, exp, dt):
            probs.append("values: " + first_bad(got, exp, dt))
    except Exception as e:
        probs.append("zarr-python could not read it: %s: %s" % (type(e).__name__, e))
    return probs


def bio2zarr_string_meta():
    """The .zarray of sample_id in testdata's bio2zarr-made HapMap3 store (testdata/README.md):
    the dtype, fill_value ("") and filters a string array is written with."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "testdata", "realdata", "hapmap3.vcz", "sample_id",
                        ".zarray")
    return read_json(path)


def main(argv):
    verbose = "-v" in argv[1:]
    args = [a for a in argv[1:] if a != "-v"]
    if len(args) != 1:
        sys.stderr.write("usage: check_written.py [-v] STORE\n")
        return 2
    store = args[0].rstrip("/")
    passed = failed = 0

    def report(ok, label, msg=""):
        nonlocal passed, failed
        if ok:
            passed += 1
            if verbose:
                print("ok   %s" % label)
        else:
            failed += 1
            print("FAIL %s: %s" % (label, msg))

    try:
        zg = read_json(os.path.join(store, ".zgroup"))
        report(zg == {"zarr_format": 2}, ".zgroup", "content %r" % (zg,))
    except Exception as e:
        report(False, ".zgroup", str(e))

    zmeta = None
    try:
        zm = read_json(os.path.join(store, ".zmetadata"))
        zmeta = zm.get("metadata")
        ok = zm.get("zarr_consolidated_format") == 1 and isinstance(zmeta, dict)
        report(ok, ".zmetadata", "zarr_consolidated_format/metadata malformed")
        if not ok:
            zmeta = None
    except Exception as e:
        report(False, ".zmetadata", str(e))

    cgroup = None
    try:
        cgroup = open_consolidated(store)
        report(True, "zarr.open_consolidated")
    except Exception as e:
        report(False, "zarr.open_consolidated", "%s: %s" % (type(e).__name__, e))

    for dt in DTYPES:
        for codec in CODECS:
            name = "%s_%s" % (dt, codec)
            probs = check_array(store, name, dt, codec, cgroup, zmeta)
            report(not probs, name, "; ".join(probs))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
