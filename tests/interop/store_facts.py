"""What zarr-python and the files on disk say about a local Zarr store (v2 or v3), for the tests
that check `gensvd info` (tests/interop/check_info.py) and the library's store reader
(tests/lib/test_lib_read.py) against them.

    tree(store)              [(depth, "group" | "array", path)] in the order gensvd walks it:
                             the root, then depth first, each group's members sorted by name
    array_facts(store, path) a dict: zarr_format, shape, chunks (inner chunks when sharded),
                             shards (None), typestr (NumPy's, byte order as stored), itemsize,
                             kind (NumPy's dtype kind, "O" for variable-length strings), dims,
                             order ("C", "F" or "P": a v3 transpose that is neither),
                             chunk_count, shard_count (0 unsharded), stored_bytes and
                             stored_objects (the files of its chunks or shards), raw_bytes
    root_facts(store)        a dict: zarr_format, consolidated

Works with zarr-python 3 (tests/requirements-zarr3.txt).
"""

import json
import math
import os

import numpy as np
import zarr


def _meta(store, path):
    """(zarr_format, metadata dict, attributes dict) of the node at path."""
    d = os.path.join(store, path)
    if os.path.exists(os.path.join(d, "zarr.json")):
        with open(os.path.join(d, "zarr.json")) as f:
            m = json.load(f)
        return 3, m, m.get("attributes") or {}
    for name in (".zarray", ".zgroup"):
        if os.path.exists(os.path.join(d, name)):
            with open(os.path.join(d, name)) as f:
                m = json.load(f)
            attrs = {}
            if os.path.exists(os.path.join(d, ".zattrs")):
                with open(os.path.join(d, ".zattrs")) as f:
                    attrs = json.load(f)
            return 2, m, attrs
    raise FileNotFoundError(f"{d}: no Zarr metadata")


def root_facts(store):
    fmt, m, _ = _meta(store, "")
    if fmt == 3:
        consolidated = m.get("consolidated_metadata") is not None
    else:
        consolidated = os.path.exists(os.path.join(store, ".zmetadata"))
    return {"zarr_format": fmt, "consolidated": consolidated}


def tree(store):
    """The nodes of the store as zarr-python lists them."""
    node = zarr.open(store=store, mode="r")
    out = []

    def walk(n, path, depth):
        if isinstance(n, zarr.Array):
            out.append((depth, "array", path))
            return
        out.append((depth, "group", path))
        for name, m in sorted(n.members(), key=lambda kv: kv[0].encode()):
            walk(m, f"{path}/{name}" if path else name, depth + 1)

    walk(node, "", 0)
    return out


def _codec_chain(m):
    """A v3 array's codecs with the sharding codec's inner chain in its place."""
    codecs = m.get("codecs", [])
    for c in codecs:
        if c.get("name") == "sharding_indexed":
            return c, c["configuration"]["codecs"]
    return None, codecs


def _typestr(a, fmt, m):
    if fmt == 2:
        dt = m["dtype"]
        return "|O" if dt == "|O" else np.dtype(dt).str
    d = np.dtype(a.dtype)
    if d.kind in "OT":
        return "|O"
    s = d.str
    _, chain = _codec_chain(m)
    for c in chain:
        if c.get("name") == "bytes" and (c.get("configuration") or {}).get("endian") == "big" \
                and d.itemsize > 1 and d.kind not in "SUb":
            s = ">" + s[1:]
    return s


def _order(fmt, m, ndim):
    if fmt == 2:
        return m.get("order", "C")
    _, chain = _codec_chain(m)
    for c in chain:
        if c.get("name") == "transpose":
            order = list(c["configuration"]["order"])
            if order == list(range(ndim)):
                return "C"
            return "F" if order == list(range(ndim))[::-1] else "P"
    return "C"


def _files(store, path, fmt):
    """Sizes of the chunk (or shard) files of the array at path."""
    root = os.path.join(store, path)
    sizes = []
    for dirpath, dirs, files in os.walk(root):
        for f in files:
            if (fmt == 2 and f.startswith(".")) or (fmt == 3 and f == "zarr.json"):
                continue
            sizes.append(os.path.getsize(os.path.join(dirpath, f)))
    return sizes


def array_facts(store, path):
    fmt, m, attrs = _meta(store, path)
    a = zarr.open_array(store=store, path=path, mode="r") if path else \
        zarr.open_array(store=store, mode="r")
    shape = tuple(a.shape)
    chunks = tuple(a.chunks)
    shards = tuple(a.shards) if fmt == 3 and a.shards else None
    d = np.dtype(a.dtype)
    kind = "O" if d.kind in "OT" else d.kind
    itemsize = 8 if kind == "O" else d.itemsize
    if fmt == 3:
        dims = [n for n in (m.get("dimension_names") or []) if n is not None]
    else:
        dims = list(attrs.get("_ARRAY_DIMENSIONS") or [])
    sizes = _files(store, path, fmt)
    count = lambda shp: math.prod(-(-s // c) for s, c in zip(shape, shp))  # noqa: E731
    items = math.prod(shape)
    return {
        "zarr_format": fmt,
        "shape": shape,
        "chunks": chunks,
        "shards": shards,
        "typestr": _typestr(a, fmt, m),
        "itemsize": itemsize,
        "kind": kind,
        "dims": dims,
        "order": _order(fmt, m, len(shape)),
        "chunk_count": count(chunks),
        "shard_count": count(shards) if shards else 0,
        "stored_bytes": sum(sizes),
        "stored_objects": len(sizes),
        "raw_bytes": None if kind == "O" else items * itemsize,
    }
