#!/usr/bin/env python3
"""Write a matrix of Zarr v3 arrays with zarr-python 3, for check_dump_v3.py.

usage: make_v3_fixtures.py OUTDIR
       make_v3_fixtures.py --vcf-like SRC_V2_STORE OUTDIR   (testdata/zarr/v3/vcf_like.zarr)

Stores written under OUTDIR (each a group of arrays; the array name says what it holds):
  dtypes.zarr   every data type gensvd reads (bool, int8..uint64, float16/32/64, string,
                fixed_length_utf32, null_terminated_bytes) x unsharded / sharded
  codecs.zarr   int32 / float64 / int8 under each codec chain: bytes only (little, big),
                zstd (with checksum), gzip, crc32c, zstd + crc32c, blosc (lz4 noshuffle, zstd
                shuffle, zstd bitshuffle, blosclz), transpose (2-D reversed, 3-D permuted)
                x unsharded / sharded (index at end or start, index with or without crc32c)
  keys.zarr     chunk_key_encoding default and v2, separators "/" and ".", 0-d arrays
  fill.zarr     fill values: numbers, true, "NaN", "Infinity", "-Infinity", hex bits
                ("0x7fc00000" written into zarr.json after the fact), 64-bit extremes; with
                missing chunks and missing inner chunks of shards
  consolidated.zarr  a nested group with consolidated metadata in the root zarr.json
  root_array.zarr    the store is one sharded array (its zarr.json at the root)
With --vcf-like, SRC_V2_STORE (testdata/zarr/v2py/vcf_like.zarr) is copied to OUTDIR/
vcf_like.zarr as Zarr v3 (copy_v3): call_genotype sharded (index at the end, crc32c),
call_DS sharded with the index at the start and no crc32c, consolidated metadata.
Needs zarr-python 3 (tests/requirements-zarr3.txt).
"""

import json
import os
import shutil
import sys
import warnings

import numpy as np
import zarr
from zarr.codecs import (BloscCodec, BytesCodec, Crc32cCodec, GzipCodec, ShardingCodec,
                         TransposeCodec, ZstdCodec)

warnings.filterwarnings("ignore")

RNG = np.random.default_rng(14)


def values(dtype, shape):
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == "bool":
        return (RNG.integers(0, 2, n) == 1).reshape(shape)
    if dtype == "str":
        words = ["", "a", "bc", "déf", "tab\there", "日本", "long string " * 3]
        return np.array([words[i % len(words)] + str(i) for i in range(n)],
                        dtype=object).reshape(shape)
    d = np.dtype(dtype)
    if d.kind == "U":
        return np.array(["u%d" % (i % 100) for i in range(n)], dtype=d).reshape(shape)
    if d.kind == "S":
        return np.array([b"s%d" % (i % 100) for i in range(n)], dtype=d).reshape(shape)
    if d.kind == "f":
        v = RNG.standard_normal(n) * 1000
        v[::7] = np.nan
        v[1::11] = np.inf
        v[2::13] = -np.inf
        return v.astype(d).reshape(shape)
    info = np.iinfo(d)
    v = RNG.integers(info.min, info.max, n, dtype=d, endpoint=True)
    v[0] = info.min
    v[-1] = info.max
    return v.reshape(shape)


def create(group, name, data, chunks, shards=None, **kw):
    a = group.create_array(name, shape=data.shape, chunks=chunks, shards=shards,
                           dtype=data.dtype if data.dtype != object else str, **kw)
    a[...] = data
    return a


def dtypes_store(root):
    g = zarr.open_group(os.path.join(root, "dtypes.zarr"), mode="w", zarr_format=3)
    for dt in ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float16", "float32", "float64", "str", "<U4", "S3"]:
        name = {"str": "string", "<U4": "utf32", "S3": "bytes3"}.get(dt, dt)
        data = values(dt, (13, 7))
        create(g, name, data, (4, 3))
        create(g, name + "_sharded", data, (4, 3), shards=(8, 6))
        create(g, name + "_1d", values(dt, (11,)), (4,), shards=(8,))


def codecs_store(root):
    g = zarr.open_group(os.path.join(root, "codecs.zarr"), mode="w", zarr_format=3)
    chains = {
        "raw": dict(compressors=None),
        "raw_big": dict(compressors=None, serializer=BytesCodec(endian="big")),
        "zstd": dict(compressors=[ZstdCodec(level=3, checksum=True)]),
        "gzip": dict(compressors=[GzipCodec(level=5)]),
        "crc32c": dict(compressors=[Crc32cCodec()]),
        "zstd_crc32c": dict(compressors=[ZstdCodec(level=1), Crc32cCodec()]),
        "blosc_lz4_noshuffle": dict(compressors=[BloscCodec(cname="lz4", shuffle="noshuffle")]),
        "blosc_zstd_shuffle": dict(compressors=[BloscCodec(cname="zstd", clevel=7,
                                                           shuffle="shuffle")]),
        "blosc_zstd_bitshuffle": dict(compressors=[BloscCodec(cname="zstd",
                                                              shuffle="bitshuffle")]),
        "blosc_blosclz": dict(compressors=[BloscCodec(cname="blosclz", clevel=9)]),
    }
    for dt in ["int32", "float64", "int8"]:
        data = values(dt, (13, 7))
        for cname, kw in chains.items():
            create(g, "%s_%s" % (dt, cname), data, (4, 3), **kw)
            create(g, "%s_%s_sharded" % (dt, cname), data, (4, 3), shards=(8, 6), **kw)
        create(g, "%s_transpose" % dt, data, (4, 3), filters=[TransposeCodec(order=(1, 0))])
    d3 = values("int16", (9, 5, 3))
    create(g, "int16_3d_transpose", d3, (4, 2, 3), filters=[TransposeCodec(order=(2, 0, 1))])
    create(g, "int16_3d", d3, (4, 2, 3), shards=(8, 4, 3))
    create(g, "str_gzip", values("str", (10,)), (3,), compressors=[GzipCodec(level=1)])
    create(g, "str_sharded_zstd", values("str", (10, 3)), (3, 2), shards=(6, 2),
           compressors=[ZstdCodec(level=1)])
    # sharding_indexed written by hand: index at the start, index without crc32c, inner transpose
    for name, inner, idx_codecs, loc in [
        ("sharded_index_start", [BytesCodec(), ZstdCodec(level=1)],
         [BytesCodec(), Crc32cCodec()], "start"),
        ("sharded_index_nocrc", [BytesCodec()], [BytesCodec()], "end"),
        ("sharded_inner_transpose", [TransposeCodec(order=(1, 0)), BytesCodec(endian="big"),
                                     Crc32cCodec()], [BytesCodec(endian="big")], "end"),
    ]:
        data = values("int32", (13, 7))
        a = g.create_array(name, shape=data.shape, dtype=data.dtype, chunks=(8, 6),
                           serializer=ShardingCodec(chunk_shape=(4, 3), codecs=inner,
                                                    index_codecs=idx_codecs,
                                                    index_location=loc),
                           compressors=None, filters=None)
        a[...] = data


def keys_store(root):
    g = zarr.open_group(os.path.join(root, "keys.zarr"), mode="w", zarr_format=3)
    data = values("int32", (9, 5, 2))
    for enc, sep in [("default", "/"), ("default", "."), ("v2", "."), ("v2", "/")]:
        name = "%s_%s" % (enc, "slash" if sep == "/" else "dot")
        cke = {"name": enc, "configuration": {"separator": sep}}
        create(g, name, data, (4, 2, 1), chunk_key_encoding=cke)
        create(g, name + "_sharded", data, (4, 2, 1), shards=(8, 4, 2), chunk_key_encoding=cke)
    for enc in ["default", "v2"]:
        a = g.create_array("scalar_" + enc, shape=(), dtype="float64",
                           chunk_key_encoding={"name": enc})
        a[...] = 2.5


def fill_store(root):
    path = os.path.join(root, "fill.zarr")
    g = zarr.open_group(path, mode="w", zarr_format=3)
    cases = [
        ("i16_neg", "int16", -7), ("u8_max", "uint8", 255), ("b_true", "bool", True),
        ("f64_nan", "float64", np.nan), ("f32_inf", "float32", np.inf),
        ("f64_ninf", "float64", -np.inf), ("f32_num", "float32", 1.5),
        ("f16_num", "float16", -2.25), ("i64_min", "int64", np.iinfo(np.int64).min),
        ("u64_max", "uint64", np.iinfo(np.uint64).max), ("str_fill", "str", "none"),
        ("f32_hex", "float32", np.nan), ("f64_hex", "float64", 0.0),
    ]
    for name, dt, fv in cases:
        data = values(dt, (13, 7))
        for sh in (None, (8, 6)):
            n = name + ("_sharded" if sh else "")
            a = g.create_array(n, shape=data.shape, chunks=(4, 3), shards=sh,
                               dtype=data.dtype if dt != "str" else str, fill_value=fv)
            # some chunks (and inner chunks of shards) never written: they read as fill_value
            a[0:4, 0:3] = data[0:4, 0:3]
            a[8:13, 3:7] = data[8:13, 3:7]
    # hex-encoded floats, as the spec allows: patch zarr.json (zarr-python reads them too)
    for n in ["f32_hex", "f32_hex_sharded"]:
        patch_fill(os.path.join(path, n, "zarr.json"), "0x7fc00001")
    for n in ["f64_hex", "f64_hex_sharded"]:
        patch_fill(os.path.join(path, n, "zarr.json"), "0xc00c000000000000")  # -3.5


def patch_fill(path, value):
    with open(path) as f:
        meta = json.load(f)
    meta["fill_value"] = value
    with open(path, "w") as f:
        json.dump(meta, f, indent=2)


def consolidated_store(root):
    path = os.path.join(root, "consolidated.zarr")
    g = zarr.open_group(path, mode="w", zarr_format=3)
    g.attrs["note"] = "consolidated"
    sub = g.create_group("sub")
    create(sub, "x", values("uint16", (6, 4)), (4, 3), dimension_names=["a", "b"])
    create(g, "y", values("float32", (5,)), (2,), shards=(4,))
    zarr.consolidate_metadata(path)


def copy_v3(src, dst, layout=None, consolidated=True, chunk_key_encoding=None):
    """Copy the Zarr v2 group src to a Zarr v3 group dst with zarr-python 3: same values,
    attributes, _ARRAY_DIMENSIONS as dimension_names, fill values kept.  layout(name, array)
    may return create_array keywords (chunks, shards, codecs) replacing the v2 chunks."""
    s = zarr.open_group(src, mode="r", zarr_format=2)
    d = zarr.open_group(dst, mode="w", zarr_format=3)
    d.attrs.update(dict(s.attrs))
    for name, a in s.arrays():
        attrs = dict(a.attrs)
        dims = attrs.pop("_ARRAY_DIMENSIONS", None)
        data = a[...]
        kw = dict(dimension_names=dims, attributes=attrs)
        if chunk_key_encoding:
            kw["chunk_key_encoding"] = chunk_key_encoding
        if a.dtype == object or a.dtype.kind in "OT":
            kw["dtype"] = str
            data = np.asarray(data, dtype=object)
        else:
            kw["dtype"] = a.dtype
            if a.fill_value is not None:
                kw["fill_value"] = a.fill_value
        kw.update((layout and layout(name, a)) or {"chunks": a.chunks})
        out = d.create_array(name, shape=a.shape, **kw)
        out[...] = data
    if consolidated:
        zarr.consolidate_metadata(dst)


def vcf_like_layout(name, a):
    if name == "call_genotype":
        return dict(chunks=(5, 2, 2), shards=(10, 4, 2),
                    compressors=[BloscCodec(cname="zstd", clevel=7, shuffle="bitshuffle")])
    if name == "call_DS":
        inner = tuple(max(1, c // 2) for c in a.chunks)
        return dict(chunks=a.chunks, compressors=None, filters=None,
                    serializer=ShardingCodec(chunk_shape=inner,
                                             codecs=[BytesCodec(), ZstdCodec(level=3)],
                                             index_codecs=[BytesCodec()],
                                             index_location="start"))
    return None


def root_array_store(root):
    a = zarr.create_array(os.path.join(root, "root_array.zarr"), shape=(5, 4), chunks=(2, 2),
                          shards=(4, 4), dtype="uint16", fill_value=3, zarr_format=3)
    a[:3] = values("uint16", (3, 4))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--vcf-like":
        out = sys.argv[3]
        os.makedirs(out, exist_ok=True)
        dst = os.path.join(out, "vcf_like.zarr")
        if os.path.exists(dst):
            shutil.rmtree(dst)
        copy_v3(sys.argv[2], dst, vcf_like_layout)
        return 0
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    out = sys.argv[1]
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    dtypes_store(out)
    codecs_store(out)
    keys_store(out)
    fill_store(out)
    consolidated_store(out)
    root_array_store(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
