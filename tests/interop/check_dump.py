#!/usr/bin/env python3
"""Compare `gensvd dump` with zarr-python, array by array.

usage: check_dump.py [-v] [--no-slices] GENSVD STORE [ARRAY ...]

For every array in the local Zarr v2 store STORE (found by walking the folder for .zarray files),
or only the named ARRAYs, run `GENSVD dump STORE/ARRAY` and compare its stdout with the values
zarr-python reads. Then, for a few arrays per store, run `GENSVD dump --slice SPEC STORE/ARRAY`.
Works with zarr-python 2.18 and 3.x (tests/requirements-zarr{2,3}.txt).

Dump contract (TSV on stdout, no header):
  0-d: one line. 1-D: one value per line. 2-D: one line per row, tab-separated.
  N-D (N>=3): one line per index tuple over axes 0..N-3 (C order); cells along axis N-2
  tab-separated; each cell the values along the last axis joined by '/'.
  bool 1/0; integers exact decimal; floats %.17g (f8) / %.9g (f4) / %.5g (f2), nan, inf, -inf
  (compared after parsing and casting to the dtype); |S: trailing NULs stripped, bytes outside
  printable ASCII plus tab, newline, backslash as \\xHH / \\t / \\n / \\\\; <U and |O: UTF-8 with
  \\t \\n \\\\ escaped (other control characters written as \\xHH are accepted too). Missing chunks read as fill_value; fill_value null reads as 0 / "".
  --slice a:b,c:d,... per-axis start:stop, omitted trailing axes are whole.
  --stats: "count", and for numbers "nan" (NaNs, skipped by the rest), "min", "max" (nan when
  no value is left) and "sum" (%.17g): against numpy (integer sums exact up to 32-bit types).

Last line: "N passed, N failed"; exit status 1 if anything failed.
"""

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import zarr

warnings.filterwarnings("ignore")
ZARR_MAJOR = int(zarr.__version__.split(".")[0])
TIMEOUT = 120


# ---------------------------------------------------------------------------------------------
# expected values


def find_arrays(store):
    out = []
    for root, dirs, files in os.walk(store):
        dirs.sort()
        if ".zarray" in files:
            rel = os.path.relpath(root, store)
            out.append("" if rel == "." else rel.replace(os.sep, "/"))
    return sorted(out)


def open_array(store, path):
    if ZARR_MAJOR >= 3:
        if path:
            return zarr.open_array(store=store, path=path, mode="r", zarr_format=2)
        return zarr.open_array(store=store, mode="r", zarr_format=2)
    return zarr.open_array(store, path=path or None, mode="r")


def read_meta(store, path):
    with open(os.path.join(store, path, ".zarray"), "rb") as f:
        return json.loads(f.read().decode("utf-8"))


def kind_of(meta):
    dt = meta["dtype"]
    if not isinstance(dt, str):
        return "other", None
    if dt == "|O":
        return "O", None
    d = np.dtype(dt)
    return d.kind, d


def null_fill(kind, dtype):
    if kind == "O":
        return ""
    if kind == "S":
        return b""
    if kind == "U":
        return ""
    return np.zeros((), dtype=dtype)[()]


def fill_for(meta, kind, dtype):
    fv = meta.get("fill_value")
    if fv is None:
        return null_fill(kind, dtype)
    if kind == "O":
        return fv if isinstance(fv, str) else ""  # zarr-python 2 writes 0 for vlen-utf8
    if kind in "SU":
        if kind == "S":
            import base64
            return base64.b64decode(fv) if isinstance(fv, str) else b""
        return fv if isinstance(fv, str) else ""
    if kind == "f" and isinstance(fv, str):
        return {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}[fv]
    if kind == "b":
        return bool(fv)
    return fv


def expected_values(store, path):
    """zarr-python's view of the array, with missing chunks replaced by the fill value (or 0 /
    "" for a null fill_value, which zarr-python leaves undefined)."""
    meta = read_meta(store, path)
    kind, dtype = kind_of(meta)
    a = open_array(store, path)
    vals = a[...]
    if kind == "O":
        vals = np.asarray(vals, dtype=object)
    else:
        vals = np.array(vals)
    shape = tuple(meta["shape"])
    chunks = tuple(meta["chunks"])
    sep = meta.get("dimension_separator") or "."
    grid = [(-(-s // c)) if c else 0 for s, c in zip(shape, chunks)]
    fill = None
    for idx in np.ndindex(*grid) if shape else [()]:
        key = sep.join(str(i) for i in idx) if idx else "0"
        if os.path.exists(os.path.join(store, path, *key.split("/"))):
            continue
        if fill is None:
            fill = fill_for(meta, kind, dtype)
        sl = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, chunks, shape))
        if kind == "O":
            sub = vals[sl] if sl else vals
            if vals.ndim == 0:
                vals = np.array(fill, dtype=object)
            else:
                for j in np.ndindex(*sub.shape):
                    vals[tuple(s.start + k for s, k in zip(sl, j))] = fill
        elif vals.ndim == 0:
            vals = np.array(fill, dtype=vals.dtype)
        else:
            vals[sl] = fill
    return vals, kind, dtype


# ---------------------------------------------------------------------------------------------
# parsing gensvd's output


class Mismatch(Exception):
    pass


def unescape_text(tok):
    out = []
    i = 0
    while i < len(tok):
        c = tok[i]
        if c == "\\":
            n = tok[i + 1:i + 2]
            if n == "\\":
                out.append("\\")
            elif n == "t":
                out.append("\t")
            elif n == "n":
                out.append("\n")
            elif n == "x" and len(tok) >= i + 4:
                # tolerated: control characters (< 0x20, 0x7f) written as \xHH
                try:
                    code = int(tok[i + 2:i + 4], 16)
                except ValueError:
                    raise Mismatch("bad \\x escape in %r" % tok)
                if not (code < 0x20 or code == 0x7F):
                    raise Mismatch("\\x escape of a printable character in %r" % tok)
                out.append(chr(code))
                i += 4
                continue
            else:
                raise Mismatch("bad escape %r in %r" % (tok[i:i + 2], tok))
            i += 2
        elif c in "\t\n":
            raise Mismatch("unescaped control character in %r" % tok)
        else:
            out.append(c)
            i += 1
    return "".join(out)


def unescape_bytes(tok):
    out = bytearray()
    i = 0
    while i < len(tok):
        c = tok[i]
        if c == "\\":
            n = tok[i + 1:i + 2]
            if n == "\\":
                out.append(0x5C)
                i += 2
            elif n == "t":
                out.append(9)
                i += 2
            elif n == "n":
                out.append(10)
                i += 2
            elif n == "x" and len(tok) >= i + 4:
                try:
                    out.append(int(tok[i + 2:i + 4], 16))
                except ValueError:
                    raise Mismatch("bad \\x escape in %r" % tok)
                i += 4
            else:
                raise Mismatch("bad escape in %r" % tok)
        elif 0x20 <= ord(c) <= 0x7E:
            out.append(ord(c))
            i += 1
        else:
            raise Mismatch("unescaped byte %r in |S value %r" % (c, tok))
    return bytes(out)


def parse_float(tok, dtype):
    t = tok.strip()
    if t != tok or not t:
        raise Mismatch("bad float token %r" % tok)
    low = t.lower()
    if low in ("nan", "-nan"):
        return np.array(np.nan, dtype=dtype)
    try:
        v = float(t)
    except ValueError:
        raise Mismatch("bad float token %r" % tok)
    with np.errstate(over="ignore"):
        return np.array(v, dtype=np.float64).astype(dtype)


def same_value(tok, exp, kind, dtype):
    """True if output token `tok` (str) encodes expected value `exp`."""
    if kind == "b":
        return tok == ("1" if bool(exp) else "0")
    if kind in "iu":
        return tok == str(int(exp))
    if kind == "f":
        got = parse_float(tok, dtype.newbyteorder("="))
        e = np.array(exp, dtype=dtype.newbyteorder("="))
        if np.isnan(e):
            return bool(np.isnan(got))
        return bool(got == e)
    if kind == "S":
        return unescape_bytes(tok) == bytes(exp).rstrip(b"\x00")
    if kind in "UO":
        return unescape_text(tok) == ("" if exp is None else str(exp))
    raise Mismatch("unsupported dtype kind %r" % kind)


def split_output(raw):
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Mismatch("stdout is not UTF-8: %s" % e)
    if text == "":
        return []
    if not text.endswith("\n"):
        raise Mismatch("stdout does not end with a newline")
    return text[:-1].split("\n")


def compare(raw, vals, kind, dtype):
    lines = split_output(raw)
    shape = vals.shape
    nd = len(shape)

    def check(tok, idx):
        exp = vals[idx] if nd else vals[()]
        if not same_value(tok, exp, kind, dtype):
            raise Mismatch("at index %s: got %r, expected %r" % (idx, tok, exp))

    if nd == 0:
        if len(lines) != 1:
            raise Mismatch("0-d: expected 1 line, got %d" % len(lines))
        check(lines[0], ())
        return
    if nd == 1:
        if len(lines) != shape[0]:
            raise Mismatch("1-D: expected %d lines, got %d" % (shape[0], len(lines)))
        for i, tok in enumerate(lines):
            check(tok, (i,))
        return
    outer = shape[:-2]
    nrows = int(np.prod(outer, dtype=np.int64)) if nd > 2 else shape[0]
    if len(lines) != nrows:
        raise Mismatch("expected %d lines, got %d" % (nrows, len(lines)))
    heads = np.ndindex(*outer) if nd > 2 else ((r,) for r in range(shape[0]))
    for line, head in zip(lines, heads):
        cells = line.split("\t") if (line or shape[-2 if nd > 2 else 1]) else []
        ncells = shape[-2] if nd > 2 else shape[1]
        if len(cells) != ncells:
            raise Mismatch("line %s: expected %d cells, got %d" % (head, ncells, len(cells)))
        for c, cell in enumerate(cells):
            if nd == 2:
                check(cell, head + (c,))
                continue
            toks = cell.split("/") if (cell or shape[-1]) else []
            if len(toks) != shape[-1]:
                raise Mismatch("cell %s: expected %d values, got %r" % (head + (c,),
                                                                       shape[-1], cell))
            for k, tok in enumerate(toks):
                check(tok, head + (c, k))


# ---------------------------------------------------------------------------------------------
# driver


def expected_stats(vals, kind):
    """What `dump --stats` must print for these values, as (key, value) pairs: numbers as
    Python ints (exact) or floats."""
    out = [("count", vals.size)]
    if kind not in "biuf":
        return out
    v = vals.ravel()
    if kind == "f":
        v = v.astype(np.float64)
        nan = int(np.isnan(v).sum())
        v = v[~np.isnan(v)]
    else:
        nan = 0
        v = [int(x) for x in v.tolist()]
    out.append(("nan", nan))
    if len(v) == 0:
        return out + [("min", float("nan")), ("max", float("nan")), ("sum", 0)]
    if kind == "f":
        with np.errstate(invalid="ignore", over="ignore"):
            return out + [("min", float(v.min())), ("max", float(v.max())),
                          ("sum", float(np.sum(v)))]
    return out + [("min", min(v)), ("max", max(v)), ("sum", sum(v))]


def same_stat(key, tok, exp, kind, itemsize):
    try:
        got = float(tok)
    except ValueError:
        return False
    if isinstance(exp, float) and np.isnan(exp):
        return bool(np.isnan(got))
    if key == "sum" and kind == "f":  # summed in another order than numpy's
        if np.isinf(exp) or np.isnan(got) or np.isinf(got):
            return got == exp
        return abs(got - exp) <= 1e-9 * max(1.0, abs(exp))
    if key == "sum" and itemsize == 8:  # 64-bit integers are summed in double
        return abs(got - exp) <= 1e-12 * max(1.0, abs(exp))
    return got == float(exp)  # integers: exact below 2**53, else both rounded to double


def check_stats(gensvd, target, vals, kind, dtype):
    """Compare `dump --stats` with numpy on the same values."""
    p = subprocess.run([gensvd, "dump", "--stats", target], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=TIMEOUT)
    if p.returncode != 0:
        raise Mismatch("--stats: exit %d: %s" % (p.returncode, p.stderr.decode()[-300:]))
    got = [line.split("\t") for line in p.stdout.decode().splitlines()]
    want = expected_stats(vals, kind)
    if [g[0] for g in got] != [w[0] for w in want]:
        raise Mismatch("--stats: keys %s, expected %s" % ([g[0] for g in got],
                                                          [w[0] for w in want]))
    itemsize = dtype.itemsize if dtype is not None else 0
    for (key, tok), (_, exp) in zip(got, want):
        if not same_stat(key, tok, exp, kind, itemsize):
            raise Mismatch("--stats: %s %s, expected %r" % (key, tok, exp))


def run_dump(gensvd, target, slice_spec=None):
    cmd = [gensvd, "dump"]
    if slice_spec is not None:
        cmd += ["--slice", slice_spec]
    cmd.append(target)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise Mismatch("timed out after %ds: %s" % (TIMEOUT, " ".join(cmd)))
    if p.returncode != 0:
        err = p.stderr.decode("utf-8", "replace").strip().splitlines()
        raise Mismatch("exit %d: %s" % (p.returncode, err[-1] if err else "(no stderr)"))
    return p.stdout


def slice_specs(shape):
    """Deterministic slices that cross chunk boundaries: inner halves of every axis, and a
    first-axis-only slice (trailing axes omitted = whole)."""
    specs = []
    parts = []
    for n in shape:
        a = n // 4
        b = max(a + 1, (3 * n) // 4 + 1)
        parts.append("%d:%d" % (a, min(b, n)))
    specs.append(",".join(parts))
    if shape[0] > 2:
        specs.append("1:%d" % (shape[0] - 1))
    return specs


def apply_slice(vals, spec):
    sl = []
    for p in spec.split(","):
        a, b = p.split(":")
        sl.append(slice(int(a), int(b)))
    return vals[tuple(sl)]


def pick_slice_arrays(infos):
    """A few arrays per store: the largest 2-D, largest 3-D+, and one 1-D, all non-empty."""
    picked = []
    for want in (lambda n: n == 2, lambda n: n >= 3, lambda n: n == 1):
        best = None
        for path, vals in infos:
            if vals is None or not want(vals.ndim) or 0 in vals.shape:
                continue
            if best is None or vals.size > best[1].size:
                best = (path, vals)
        if best:
            picked.append(best[0])
    return picked


def main(argv):
    verbose = False
    slices = True
    args = []
    for a in argv[1:]:
        if a == "-v":
            verbose = True
        elif a == "--no-slices":
            slices = False
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            args.append(a)
    if len(args) < 2:
        sys.stderr.write("usage: check_dump.py [-v] [--no-slices] GENSVD STORE [ARRAY ...]\n")
        return 2
    gensvd, store = args[0], args[1].rstrip("/")
    arrays = args[2:] or find_arrays(store)
    passed = failed = 0
    infos = []

    def report(ok, label, msg=""):
        nonlocal passed, failed
        if ok:
            passed += 1
            if verbose:
                print("ok   %s" % label)
        else:
            failed += 1
            print("FAIL %s: %s" % (label, msg))

    for path in arrays:
        label = "%s/%s" % (store, path) if path else store
        try:
            vals, kind, dtype = expected_values(store, path)
        except Exception as e:  # fixture that zarr-python cannot read
            report(False, label, "zarr-python could not read it: %s: %s" % (type(e).__name__, e))
            infos.append((path, None))
            continue
        infos.append((path, vals))
        try:
            compare(run_dump(gensvd, label), vals, kind, dtype)
            report(True, label)
        except Mismatch as e:
            report(False, label, str(e))
        try:
            check_stats(gensvd, label, vals, kind, dtype)
            report(True, label + " --stats")
        except Mismatch as e:
            report(False, label + " --stats", str(e))
    if slices:
        by_path = dict(infos)
        for path in pick_slice_arrays(infos):
            vals = by_path[path]
            meta = read_meta(store, path)
            kind, dtype = kind_of(meta)
            label = "%s/%s" % (store, path) if path else store
            for spec in slice_specs(vals.shape):
                try:
                    compare(run_dump(gensvd, label, spec), apply_slice(vals, spec), kind, dtype)
                    report(True, "%s --slice %s" % (label, spec))
                except Mismatch as e:
                    report(False, "%s --slice %s" % (label, spec), str(e))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
