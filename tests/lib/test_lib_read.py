#!/usr/bin/env python3
"""The library's store reader (gensvd_source_node, gensvd_array_*) against zarr-python and the
store's files, through tests/lib/lib_read (include/gensvd.h only).

For every store given (local Zarr v2 or v3 directories), and the Zarr v3 fixture matrix that
tests/interop/make_v3_fixtures.py writes (every data type, codec chain, sharding, key
encoding, fill value):
  tree     gensvd_source_node's walk equals zarr-python's members, depth first, sorted by name
  facts    shape, chunks, data type (the public enum and NumPy's type string), item size,
           dimension names, format, order, chunk and shard counts against zarr-python and the
           metadata; gensvd_array_stored_bytes against the sizes of the chunk files on disk
  values   gensvd_array_read_blocks of the whole array and of a slice that crosses chunk
           boundaries equals zarr-python's values (missing chunks as the fill value,
           tests/interop/check_dump.py's expected_values); the blocks are the chunk rows of
           axis 0 cut to the region, in order; 1 and 3 threads give the same bytes

Usage: test_lib_read.py LIB_READ MAKE_V3_FIXTURES STORE...   (the zarr 3 test venv's python)
Last line "N passed, N failed"; exit 1 on a failure.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "interop"))
from checklib import check, summary  # noqa: E402
import check_dump  # noqa: E402
import check_dump_v3  # noqa: E402
import store_facts  # noqa: E402

# enum gensvd_dtype, by NumPy kind and item size
DTYPES = {("b", 1): 1, ("i", 1): 2, ("i", 2): 3, ("i", 4): 4, ("i", 8): 5, ("u", 1): 6,
          ("u", 2): 7, ("u", 4): 8, ("u", 8): 9, ("f", 4): 10, ("f", 8): 11, ("f", 2): 13}
STRING, BYTES, UTF32 = 12, 14, 15


def lib(lib_read, *args):
    r = subprocess.run([lib_read, *args], capture_output=True, timeout=300)
    if r.returncode != 0:
        print(r.stderr.decode("utf-8", "replace").strip())
    return r.returncode, r.stdout.decode("utf-8")


def public_dtype(f):
    if f["kind"] == "O":
        return STRING
    if f["kind"] == "S":
        return BYTES
    if f["kind"] == "U":
        return UTF32
    return DTYPES[(f["kind"], f["itemsize"])]


def check_facts(lib_read, store, path, f):
    label = f"{store}/{path}"
    rc, out = lib(lib_read, "array", store, path)
    if not check(f"{label}: facts", rc == 0):
        return
    got = dict(line.split("\t", 1) for line in out.splitlines())
    nums = lambda s: tuple(int(x) for x in s.split(",")) if s else ()  # noqa: E731
    want = {
        "ndim": str(len(f["shape"])), "shape": f["shape"], "chunks": f["chunks"],
        "dtype": str(public_dtype(f)), "typestr": f["typestr"], "order": f["order"],
        "zarr-format": str(f["zarr_format"]), "item-size": str(f["itemsize"]),
        "chunk-count": str(f["chunk_count"]), "shard-count": str(f["shard_count"]),
        "dims": ",".join(f["dims"]), "stored-bytes": str(f["stored_bytes"]),
        "stored-objects": str(f["stored_objects"]),
    }
    for k, v in want.items():
        g = nums(got.get(k, "")) if k in ("shape", "chunks") else got.get(k)
        check(f"{label}: {k}", g == v, f"{g!r} != {v!r}")


def expected(store, path, fmt):
    if fmt == 3:
        return check_dump_v3.expected_values(store, path)[0]
    return check_dump.expected_values(store, path)[0]


def decode(raw, f, shape):
    if f["kind"] == "O":
        parts = raw.split(b"\0")[:-1]
        return np.array([p.decode("utf-8") for p in parts], dtype=object).reshape(shape)
    dt = np.dtype(f["typestr"].replace(">", "<").replace("|O", "O")).newbyteorder("=")
    return np.frombuffer(raw, dtype=dt).reshape(shape)


def same(a, b, kind):
    if kind == "f":
        return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))
    if kind == "O":
        return a.shape == b.shape and all(str(x) == ("" if y is None else str(y))
                                          for x, y in zip(a.ravel(), b.ravel()))
    if kind == "S":  # zarr-python and NumPy compare without trailing NULs too
        return a.shape == b.shape and [x.rstrip(b"\0") for x in a.ravel().tolist()] == \
            [bytes(y).rstrip(b"\0") for y in b.ravel().tolist()]
    return a.shape == b.shape and bool(np.array_equal(a, b))


def block_plan(start, stop, c0):
    """The blocks gensvd_array_read_blocks promises: chunk rows of axis 0 cut to the region."""
    if not start:
        return [((), ())]
    if any(b <= a for a, b in zip(start, stop)):
        return []
    out, lo = [], start[0]
    while lo < stop[0]:
        hi = min((lo // c0 + 1) * c0, stop[0])
        out.append(((lo,) + tuple(start[1:]), (hi - lo,) + tuple(b - a for a, b in
                                                                 zip(start[1:], stop[1:]))))
        lo = hi
    return out


def check_values(lib_read, store, path, f, vals, tmp, region=None):
    shape = f["shape"]
    start = tuple(r[0] for r in region) if region else tuple(0 for _ in shape)
    stop = tuple(r[1] for r in region) if region else tuple(shape)
    label = f"{store}/{path}" + (f" [{region}]" if region else "")
    args = ["--slice", ",".join(f"{a}:{b}" for a, b in zip(start, stop))] if region else []
    outs = []
    for threads in ("1", "3"):
        out = os.path.join(tmp, f"values{threads}")
        rc, blocks = lib(lib_read, "--threads", threads, *args, "read", store, path, out)
        if not check(f"{label}: read ({threads} threads)", rc == 0):
            return
        with open(out, "rb") as fp:
            outs.append((fp.read(), blocks))
    check(f"{label}: the same bytes and blocks with 1 and 3 threads", outs[0] == outs[1])
    got_blocks = [tuple(tuple(int(x) for x in p.split(",")) if p else () for p in line.split("\t"))
                  for line in outs[0][1].splitlines()]
    plan = block_plan(start, stop, f["chunks"][0] if shape else 1)
    check(f"{label}: one block per chunk row of axis 0, in order", got_blocks == plan,
          f"{got_blocks[:4]} != {plan[:4]}")
    want = vals[tuple(slice(a, b) for a, b in zip(start, stop))] if shape else vals
    try:
        got = decode(outs[0][0], f, tuple(b - a for a, b in zip(start, stop)))
    except (ValueError, UnicodeDecodeError) as e:
        check(f"{label}: values of the region's shape and type", False, str(e))
        return
    check(f"{label}: values equal zarr-python's", same(got, np.asarray(want), f["kind"]),
          f"{got.ravel()[:6]} != {np.asarray(want).ravel()[:6]}")


def check_store(lib_read, store, tmp):
    nodes = store_facts.tree(store)
    rc, out = lib(lib_read, "tree", store)
    got = [(int(d), k, p) for d, k, p in (line.split("\t") for line in out.splitlines())]
    check(f"{store}: the tree equals zarr-python's", rc == 0 and got == nodes,
          f"{got[:5]} != {nodes[:5]}")
    for _, kind, path in nodes:
        if kind != "array":
            continue
        f = store_facts.array_facts(store, path)
        check_facts(lib_read, store, path, f)
        vals = expected(store, path, f["zarr_format"])
        check_values(lib_read, store, path, f, vals, tmp)
        if f["shape"] and 0 not in f["shape"]:
            region = [(n // 4, max(n // 4 + 1, (3 * n) // 4 + 1)) for n in f["shape"]]
            check_values(lib_read, store, path, f, vals, tmp,
                         [(a, min(b, n)) for (a, b), n in zip(region, f["shape"])])


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    lib_read, make_v3 = argv[1], argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        fix = os.path.join(tmp, "v3")
        r = subprocess.run([sys.executable, make_v3, fix], capture_output=True, timeout=600)
        if not check("the v3 fixture matrix is written", r.returncode == 0, r.stderr[-500:]):
            return summary()
        stores = argv[3:] + sorted(os.path.join(fix, s) for s in os.listdir(fix))
        for store in stores:
            check_store(lib_read, store.rstrip("/"), tmp)
    return summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
