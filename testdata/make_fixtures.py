#!/usr/bin/env python3
"""Write small Zarr v2 fixture stores with zarr-python, for gensvd's reader tests.

Runs under either test environment (see tests/requirements-zarr{2,3}.txt):

    .venv/zarr2/bin/python testdata/make_fixtures.py   ->  testdata/zarr/v2py/   (zarr 2.x)
    .venv/zarr3/bin/python testdata/make_fixtures.py   ->  testdata/zarr/v3py/   (zarr 3.x, zarr_format=2)

An optional argument overrides the output folder. The folder is deleted and rewritten.
Values are deterministic (numpy generators seeded from the array name). Every array's
.zattrs has `_ARRAY_DIMENSIONS` and a `fixture` string spelling out its parameters.

Stores (each a root group):
  dtypes.zarr    every dtype, same codec/layout; consolidated (.zmetadata)
  codecs.zarr    every compressor/filter configuration; NOT consolidated
  layout.zarr    order C/F, separators . and /, edge chunks, 1-D/3-D/0-d, fill values,
                 deleted chunks, nested groups; NOT consolidated
  vcf_like.zarr  VCF-Zarr (bio2zarr/sgkit) style genotype group; consolidated
  allel_like.zarr scikit-allel / MalariaGEN style (samples, calldata/GT, variants/*,
                 and a per-contig chr2/calldata/GT); consolidated
"""

import math
import os
import shutil
import sys
import zlib

import numcodecs
import numpy as np
import zarr

ZARR_MAJOR = int(zarr.__version__.split(".")[0])
HERE = os.path.dirname(os.path.abspath(__file__))

if ZARR_MAJOR >= 3:
    import warnings

    # zarr 3 warns that zarr_format=2 / numcodecs codecs are not part of the v3 spec.
    warnings.filterwarnings("ignore")


# --------------------------------------------------------------------------------------------
# zarr 2 / zarr 3 compatibility layer


def open_root(path):
    if ZARR_MAJOR >= 3:
        return zarr.open_group(path, mode="w", zarr_format=2)
    return zarr.open_group(path, mode="w")


def subgroup(g, name):
    return g.require_group(name)


DEFAULT = object()


def make_array(g, name, data, chunks, compressor, filters=None, order="C", sep=".",
               fill_value=DEFAULT, dims=None, write=True, extra_attrs=None, desc=""):
    """Create array `name` in group `g` holding `data` (numpy array)."""
    data = np.asarray(data)
    is_str = data.dtype == object
    kw = {}
    if fill_value is not DEFAULT:
        kw["fill_value"] = fill_value
    if ZARR_MAJOR >= 3:
        if is_str:
            filters = [numcodecs.VLenUTF8()] + list(filters or [])
        a = g.create_array(
            name,
            shape=data.shape,
            chunks=chunks,
            dtype=str if is_str else data.dtype,
            compressors=compressor,
            filters=filters,
            order=order,
            chunk_key_encoding={"name": "v2", "separator": sep},
            config={"write_empty_chunks": True},
            **kw,
        )
    else:
        if is_str:
            kw["object_codec"] = numcodecs.VLenUTF8()
        a = g.create_dataset(
            name,
            shape=data.shape,
            chunks=chunks,
            dtype=data.dtype,
            compressor=compressor,
            filters=filters,
            order=order,
            dimension_separator=sep,
            write_empty_chunks=True,
            **kw,
        )
    if write:
        a[...] = data
    if dims is None:
        dims = ["dim_%d" % i for i in range(data.ndim)]
    attrs = {"_ARRAY_DIMENSIONS": list(dims)}
    fx = "dtype=%s shape=%s chunks=%s compressor=%s filters=%s order=%s sep=%s fill=%s" % (
        "|O(vlen-utf8)" if is_str else data.dtype.str,
        list(data.shape), list(chunks), codec_desc(compressor),
        "[" + ",".join(codec_desc(f) for f in filters) + "]" if filters else "none",
        order, sep, "default" if fill_value is DEFAULT else fill_value)
    if desc:
        fx += " " + desc
    attrs["fixture"] = fx
    if extra_attrs:
        attrs.update(extra_attrs)
    a.attrs.update(attrs)
    return a


def codec_desc(c):
    if c is None:
        return "none"
    cfg = c.get_config()
    cid = cfg.pop("id")
    return cid + "(" + ",".join("%s=%s" % (k, cfg[k]) for k in sorted(cfg)) + ")"


def chunk_path(store_dir, array_path, idx, sep):
    key = sep.join(str(i) for i in idx) if idx else "0"
    return os.path.join(store_dir, array_path, *key.split("/"))


def delete_chunks(store_dir, array_path, chunk_indices, sep="."):
    for idx in chunk_indices:
        p = chunk_path(store_dir, array_path, idx, sep)
        os.remove(p)


def delete_all_chunks(store_dir, array_path):
    d = os.path.join(store_dir, array_path)
    for name in os.listdir(d):
        if name.startswith("."):
            continue
        p = os.path.join(d, name)
        if os.path.isdir(p):
            shutil.rmtree(p)
        else:
            os.remove(p)


def consolidate(store_dir):
    if ZARR_MAJOR >= 3:
        zarr.consolidate_metadata(store_dir, zarr_format=2)
    else:
        zarr.consolidate_metadata(store_dir)


# --------------------------------------------------------------------------------------------
# deterministic values


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode("utf-8")))


def int_values(dt, shape, name):
    dt = np.dtype(dt)
    info = np.iinfo(dt)
    r = rng_for(name)
    n = int(np.prod(shape))
    v = r.integers(int(info.min), int(info.max), size=n, dtype=dt.newbyteorder("="),
                   endpoint=True)
    special = [info.min, info.max, 0, 1, info.max - 1]
    if info.min < 0:
        special += [-1, -2, info.min + 1]
    for i, s in enumerate(special[:n]):
        v[i] = s
    return v.reshape(shape).astype(dt)


def float_values(dt, shape, name):
    dt = np.dtype(dt)
    info = np.finfo(dt)
    r = rng_for(name)
    n = int(np.prod(shape))
    e = 3 if dt.itemsize == 2 else 8
    v = r.standard_normal(n) * (10.0 ** r.integers(-e, e, size=n))
    v = v.astype(dt.newbyteorder("="))
    special = [np.nan, np.inf, -np.inf, -0.0, 0.0, info.max, -info.max, info.tiny,
               info.smallest_subnormal, 0.1, 1.0 / 3.0, -2.5, 1e-5]
    for i, s in enumerate(special[:n]):
        v[i] = s
    return v.reshape(shape).astype(dt)


def bool_values(shape, name):
    return rng_for(name).random(shape) < 0.4


S5_SPECIAL = [b"", b"abcde", b"ACGT", b"a\x00b", b"\t\n\\", b"\xff\x80\x01", b"x y", b"\"'",
              b"N", b"\x7f~"]
U4_SPECIAL = ["", "abcd", "\u00e9", "\u65e5\u672c", "a\tb", "\\n", "\U0001f600", "x\ny", "ACGT",
              "\u00fc\u00df"]
O_SPECIAL = ["", "sample_0", "\u00e9t\u00e9", "\u65e5\u672c\u8a9e\u30c6\u30ad\u30b9\u30c8",
             "tab\there", "nl\nx", "back\\slash", "\U0001f600 emoji", "x" * 100,
             "M\u00fcller-\u00c5str\u00f6m", "CR\rx"]


def fixed_bytes_values(shape, name, size=5):
    r = rng_for(name)
    n = int(np.prod(shape))
    out = []
    alphabet = b"ACGTN-acgt0123456789"
    for i in range(n):
        if i < len(S5_SPECIAL):
            out.append(S5_SPECIAL[i])
        else:
            k = int(r.integers(0, size + 1))
            out.append(bytes(alphabet[j] for j in r.integers(0, len(alphabet), size=k)))
    return np.array(out, dtype="|S%d" % size).reshape(shape)


def unicode_values(shape, name, size=4):
    r = rng_for(name)
    n = int(np.prod(shape))
    alphabet = "ACGTacgt\u00e9\u00df\u4e2d\U0001f9ec"
    out = []
    for i in range(n):
        if i < len(U4_SPECIAL):
            out.append(U4_SPECIAL[i])
        else:
            k = int(r.integers(0, size + 1))
            out.append("".join(alphabet[j] for j in r.integers(0, len(alphabet), size=k)))
    return np.array(out, dtype="<U%d" % size).reshape(shape)


def vlen_values(shape, name):
    r = rng_for(name)
    n = int(np.prod(shape))
    out = []
    for i in range(n):
        if i < len(O_SPECIAL):
            out.append(O_SPECIAL[i])
        else:
            out.append("s%d_%s" % (i, "\u00e9" * int(r.integers(0, 3))))
    a = np.empty(n, dtype=object)
    a[:] = out
    return a.reshape(shape)


def values_for(dt, shape, name):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return bool_values(shape, name)
    if dt.kind in "iu":
        return int_values(dt, shape, name)
    if dt.kind == "f":
        return float_values(dt, shape, name)
    if dt.kind == "S":
        return fixed_bytes_values(shape, name, dt.itemsize)
    if dt.kind == "U":
        return unicode_values(shape, name, dt.itemsize // 4)
    if dt.kind == "O":
        return vlen_values(shape, name)
    raise ValueError(dt)


def blosc(cname, shuffle, clevel=5):
    return numcodecs.Blosc(cname=cname, clevel=clevel, shuffle=shuffle)


LZ4_BLOSC = None  # set in main (needs numcodecs)


# --------------------------------------------------------------------------------------------
# stores

NUMERIC_DTYPES = [
    ("b1", "|b1"), ("i1", "|i1"), ("i2", "<i2"), ("i4", "<i4"), ("i8", "<i8"),
    ("u1", "|u1"), ("u2", "<u2"), ("u4", "<u4"), ("u8", "<u8"),
    ("f2", "<f2"), ("f4", "<f4"), ("f8", "<f8"),
    ("i2_be", ">i2"), ("i4_be", ">i4"), ("u8_be", ">u8"), ("f4_be", ">f4"), ("f8_be", ">f8"),
]


def store_dtypes(out):
    """dtypes.zarr: one 2-D array per dtype, shape (13, 7) chunks (5, 4) (edge chunks in both
    axes), blosc lz4 shuffle=1 clevel 5, order C, sep '.', default fill; strings 1-D (41,)
    chunks (10,). Consolidated."""
    d = os.path.join(out, "dtypes.zarr")
    g = open_root(d)
    g.attrs.update({"description": "gensvd fixture: one array per dtype"})
    comp = blosc("lz4", 1)
    for name, dt in NUMERIC_DTYPES:
        make_array(g, name, values_for(dt, (13, 7), "dtypes/" + name), (5, 4), comp,
                   dims=["rows", "cols"])
    make_array(g, "S5", values_for("|S5", (41,), "dtypes/S5"), (10,), comp, dims=["items"])
    make_array(g, "U4", values_for("<U4", (41,), "dtypes/U4"), (10,), comp, dims=["items"])
    make_array(g, "O_vlen_utf8", values_for("|O", (41,), "dtypes/O"), (10,), comp,
               filters=None, dims=["items"])
    # same string arrays uncompressed, 2-D
    make_array(g, "S5_2d_none", values_for("|S5", (6, 5), "dtypes/S5_2d"), (4, 3), None)
    make_array(g, "U4_2d_none", values_for("<U4", (6, 5), "dtypes/U4_2d"), (4, 3), None)
    make_array(g, "O_vlen_utf8_2d_none", values_for("|O", (6, 5), "dtypes/O_2d"), (4, 3), None)
    consolidate(d)


def store_codecs(out):
    """codecs.zarr: <i4 (25, 9) chunks (10, 5) under every compressor; a few other dtypes;
    delta filters. Not consolidated."""
    d = os.path.join(out, "codecs.zarr")
    g = open_root(d)
    shape, chunks = (25, 9), (10, 5)
    shuffles = [(-1, "autoshuffle"), (0, "noshuffle"), (1, "shuffle"), (2, "bitshuffle")]
    make_array(g, "none_i4", values_for("<i4", shape, "codecs/none"), chunks, None)
    for cname in ["blosclz", "lz4", "lz4hc", "zlib", "zstd"]:
        for s, sname in shuffles:
            name = "blosc_%s_%s_i4" % (cname, sname)
            # small-range values so that shuffling matters
            v = (values_for("<i4", shape, "codecs/" + name) % 1000).astype("<i4")
            make_array(g, name, v, chunks, blosc(cname, s))
    # autoshuffle resolves by itemsize: bit for 1-byte, byte otherwise
    make_array(g, "blosc_zstd_autoshuffle_i1",
               (values_for("|i1", shape, "codecs/b_i1") % 3).astype("|i1"), chunks,
               blosc("zstd", -1, 1))
    make_array(g, "blosc_zstd_bitshuffle_b1", values_for("|b1", shape, "codecs/b_b1"), chunks,
               blosc("zstd", 2, 7))
    make_array(g, "blosc_lz4_autoshuffle_f8", values_for("<f8", shape, "codecs/b_f8"), chunks,
               blosc("lz4", -1))
    make_array(g, "blosc_zlib_shuffle_u2_be", values_for(">u2", shape, "codecs/b_u2be"), chunks,
               blosc("zlib", 1, 9))
    make_array(g, "blosc_lz4hc_bitshuffle_f4", values_for("<f4", shape, "codecs/b_f4"), chunks,
               blosc("lz4hc", 2, 9))
    make_array(g, "blosc_zstd_shuffle_clevel0_i8", values_for("<i8", shape, "codecs/b_c0"),
               chunks, blosc("zstd", 1, 0))
    make_array(g, "zstd_level1_i4", values_for("<i4", shape, "codecs/zstd1"), chunks,
               numcodecs.Zstd(level=1))
    make_array(g, "zstd_level5_checksum_f8", values_for("<f8", shape, "codecs/zstd5c"), chunks,
               numcodecs.Zstd(level=5, checksum=True))
    make_array(g, "zstd_level3_nochecksum_u1", values_for("|u1", shape, "codecs/zstd3"), chunks,
               numcodecs.Zstd(level=3, checksum=False))
    make_array(g, "zlib_level1_i4", values_for("<i4", shape, "codecs/zlib1"), chunks,
               numcodecs.Zlib(level=1))
    make_array(g, "zlib_level9_f4_be", values_for(">f4", shape, "codecs/zlib9"), chunks,
               numcodecs.Zlib(level=9))
    make_array(g, "gzip_level1_i4", values_for("<i4", shape, "codecs/gzip1"), chunks,
               numcodecs.GZip(level=1))
    make_array(g, "gzip_level6_u8", values_for("<u8", shape, "codecs/gzip6"), chunks,
               numcodecs.GZip(level=6))
    make_array(g, "lz4_accel1_i4", values_for("<i4", shape, "codecs/lz4a1"), chunks,
               numcodecs.LZ4(acceleration=1))
    make_array(g, "lz4_accel10_f8", values_for("<f8", shape, "codecs/lz4a10"), chunks,
               numcodecs.LZ4(acceleration=10))
    # delta filters on sorted-ish integers (positions)
    pos = np.cumsum(rng_for("codecs/pos").integers(1, 5000, size=57)).astype("<i4")
    pos[10] = pos[9]  # a zero step
    make_array(g, "delta_i4_zlib_1d", pos, (20,), numcodecs.Zlib(level=1),
               filters=[numcodecs.Delta(dtype="<i4")])
    make_array(g, "delta_i4_none_1d", pos, (20,), None, filters=[numcodecs.Delta(dtype="<i4")])
    pos2 = (np.cumsum(rng_for("codecs/pos2").integers(0, 500, size=57)) + 100).astype("<i4")
    make_array(g, "delta_i4_astype_i2_blosc_zstd_1d", pos2, (20,), blosc("zstd", 1, 7),
               filters=[numcodecs.Delta(dtype="<i4", astype="<i2")])
    make_array(g, "delta_i8_zstd_2d", values_for("<i8", shape, "codecs/delta_i8"), chunks,
               numcodecs.Zstd(level=1), filters=[numcodecs.Delta(dtype="<i8")])
    make_array(g, "delta_u2_gzip_2d", values_for("<u2", shape, "codecs/delta_u2"), chunks,
               numcodecs.GZip(level=1), filters=[numcodecs.Delta(dtype="<u2")])
    make_array(g, "delta_i1_lz4_3d", (values_for("|i1", (7, 5, 2), "codecs/delta_i1") % 3),
               (4, 3, 2), numcodecs.LZ4(), filters=[numcodecs.Delta(dtype="|i1")])
    make_array(g, "O_vlen_utf8_zstd", values_for("|O", (23,), "codecs/O_zstd"), (10,),
               numcodecs.Zstd(level=1))
    make_array(g, "O_vlen_utf8_gzip", values_for("|O", (23,), "codecs/O_gzip"), (10,),
               numcodecs.GZip(level=1))


def genotype_like(shape, name):
    """int8 calls in 0..2 with ~5% -1 (missing); last 5 variants haploid (-2 in ploidy 1)."""
    r = rng_for(name)
    g = r.choice(np.array([0, 1, 2], dtype="i1"), size=shape, p=[0.6, 0.3, 0.1])
    g[r.random(shape) < 0.05] = -1
    if shape[-1] == 2:
        g[-5:, :, 1] = -2
    return g.astype("|i1")


def store_layout(out):
    """layout.zarr: order, separators, edge chunks, dimensionality, fill values, deleted
    chunks, nested groups. Not consolidated."""
    d = os.path.join(out, "layout.zarr")
    g = open_root(d)
    g.attrs.update({"description": "gensvd fixture: layouts and fill values",
                    "nan_in_attrs_not_tested": True})
    b = blosc("lz4", 1)
    v = values_for("<f8", (37, 23), "layout/f8")
    for order in "CF":
        for sep, sname in [(".", "dot"), ("/", "slash")]:
            make_array(g, "f8_%s_%s_37x23_c10x7" % (order, sname), v, (10, 7), b, order=order,
                       sep=sep, dims=["rows", "cols"])
    make_array(g, "i2_be_F_dot_37x23_c10x7", values_for(">i2", (37, 23), "layout/i2be"),
               (10, 7), numcodecs.Zstd(level=1), order="F")
    make_array(g, "u4_C_dot_37x23_c37x23_single_chunk", values_for("<u4", (37, 23), "layout/u4"),
               (37, 23), None)
    make_array(g, "i4_C_dot_5x3_c8x8_chunk_larger_than_shape", values_for("<i4", (5, 3), "l/i4b"),
               (8, 8), numcodecs.Zlib(level=1))
    gt = genotype_like((25, 11, 2), "layout/gt")
    make_array(g, "gt_i1_C_dot_25x11x2_c10x4x2", gt, (10, 4, 2), blosc("zstd", 2, 7),
               fill_value=-2, dims=["variants", "samples", "ploidy"])
    make_array(g, "gt_i1_F_slash_25x11x2_c10x4x2", gt, (10, 4, 2), blosc("zstd", 2, 7),
               order="F", sep="/", fill_value=-2, dims=["variants", "samples", "ploidy"])
    make_array(g, "gt_i1_C_dot_25x11x2_c10x4x1", gt, (10, 4, 1), numcodecs.Zstd(level=1),
               fill_value=-2, dims=["variants", "samples", "ploidy"])
    make_array(g, "f4_C_dot_4d_5x4x3x2_c2x3x2x1", values_for("<f4", (5, 4, 3, 2), "layout/4d"),
               (2, 3, 2, 1), numcodecs.GZip(level=1))
    make_array(g, "f8_F_slash_4d_5x4x3x2_c2x3x2x2", values_for("<f8", (5, 4, 3, 2), "l/4dF"),
               (2, 3, 2, 2), None, order="F", sep="/")
    make_array(g, "i8_1d_100_c30", values_for("<i8", (100,), "layout/i8_1d"), (30,), b)
    make_array(g, "u1_1d_1_c1", np.array([7], dtype="|u1"), (1,), None)
    make_array(g, "f8_1d_0_c5_empty", np.zeros((0,), dtype="<f8"), (5,), None)
    make_array(g, "i4_2d_0x3_c2x2_empty", np.zeros((0, 3), dtype="<i4"), (2, 2), None)
    make_array(g, "scalar_i8_0d", np.array(-1234567890123, dtype="<i8"), (), None, dims=[])
    make_array(g, "scalar_f8_0d_blosc", np.array(np.pi, dtype="<f8"), (), b, dims=[])
    make_array(g, "scalar_O_0d", np.array("scal\u00e4r", dtype=object), (), None, dims=[])

    # fill values: 2-D (12, 10) chunks (5, 4) = 3x3 chunks; chunks (0,1), (1,0), (2,2) deleted
    fshape, fchunks = (12, 10), (5, 4)
    deleted = [(0, 1), (1, 0), (2, 2)]
    fills = [
        ("fill_i4_42", "<i4", 42),
        ("fill_i1_minus1", "|i1", -1),
        ("fill_u1_255", "|u1", 255),
        ("fill_i8_min", "<i8", -(2 ** 63)),
        ("fill_u8_max", "<u8", 2 ** 64 - 1),
        ("fill_u8_be_big", ">u8", 2 ** 63 + 12345),
        ("fill_f8_1p5", "<f8", 1.5),
        ("fill_f8_nan", "<f8", np.nan),
        ("fill_f4_nan", "<f4", np.nan),
        ("fill_f2_nan", "<f2", np.nan),
        ("fill_f8_inf", "<f8", np.inf),
        ("fill_f4_neginf", "<f4", -np.inf),
        ("fill_f8_be_neginf", ">f8", -np.inf),
        ("fill_f8_neg0p1", "<f8", -0.1),
        ("fill_b1_true", "|b1", True),
        ("fill_i2_null", "<i2", None),
        ("fill_f4_null", "<f4", None),
        ("fill_u2_null", "<u2", None),
    ]
    for name, dt, fv in fills:
        full = name + "_missing_chunks"
        make_array(g, full, values_for(dt, fshape, "layout/" + name), fchunks, b,
                   fill_value=fv, dims=["rows", "cols"], desc="deleted_chunks=0.1,1.0,2.2")
        delete_chunks(d, full, deleted)
    make_array(g, "fill_f8_nan_missing_chunks_slash", values_for("<f8", fshape, "l/fs"), fchunks,
               b, sep="/", order="F", fill_value=np.nan, desc="deleted_chunks=0/1,1/0,2/2")
    delete_chunks(d, "fill_f8_nan_missing_chunks_slash", deleted, "/")
    make_array(g, "fill_i4_7_all_chunks_missing", values_for("<i4", (9, 4), "l/allm"), (4, 4),
               None, fill_value=7, write=False, desc="no chunk written")
    delete_all_chunks(d, "fill_i4_7_all_chunks_missing")
    make_array(g, "fill_f4_nan_all_chunks_missing_3d", values_for("<f4", (5, 3, 2), "l/allm3"),
               (2, 2, 2), numcodecs.Zstd(level=1), fill_value=np.nan, write=False)
    delete_all_chunks(d, "fill_f4_nan_all_chunks_missing_3d")
    make_array(g, "scalar_f4_0d_missing_fill_neginf", np.array(1.0, dtype="<f4"), (), None,
               fill_value=-np.inf, dims=[], desc="chunk 0 deleted")
    delete_chunks(d, "scalar_f4_0d_missing_fill_neginf", [()])
    # strings with a missing chunk: fill reads as the fill string (empty here)
    make_array(g, "S5_missing_chunk", values_for("|S5", (23,), "l/S5m"), (10,), None,
               desc="chunk 1 deleted")
    delete_chunks(d, "S5_missing_chunk", [(1,)])
    make_array(g, "U4_missing_chunk", values_for("<U4", (23,), "l/U4m"), (10,), b,
               desc="chunk 1 deleted")
    delete_chunks(d, "U4_missing_chunk", [(1,)])
    make_array(g, "O_vlen_utf8_missing_chunk", values_for("|O", (23,), "l/Om"), (10,), b,
               desc="chunk 1 deleted")
    delete_chunks(d, "O_vlen_utf8_missing_chunk", [(1,)])

    # nested groups
    l1 = subgroup(g, "nested")
    l1.attrs.update({"level": 1})
    l2 = subgroup(l1, "level2")
    l2.attrs.update({"level": 2})
    l3 = subgroup(l2, "level3")
    make_array(l1, "i2_C_dot_9x6_c4x4", values_for("<i2", (9, 6), "l/n1"), (4, 4), b)
    make_array(l2, "u4_F_slash_9x6_c4x4", values_for("<u4", (9, 6), "l/n2"), (4, 4),
               numcodecs.GZip(level=1), order="F", sep="/")
    make_array(l3, "f8_1d_11_c4", values_for("<f8", (11,), "l/n3"), (4,), None)
    subgroup(g, "empty_group")


def store_vcf_like(out):
    """vcf_like.zarr: VCF Zarr v0.4 shape (bio2zarr/sgkit names and codecs), 25 variants x
    11 samples x ploidy 2, variant chunks of 10 and sample chunks of 4. Consolidated."""
    d = os.path.join(out, "vcf_like.zarr")
    g = open_root(d)
    g.attrs.update({"vcf_zarr_version": "0.4", "source": "gensvd testdata/make_fixtures.py"})
    nv, ns = 25, 11
    gt_codec = blosc("zstd", 2, 7)
    codec = blosc("zstd", 1, 7)
    gt = genotype_like((nv, ns, 2), "vcf/gt")
    make_array(g, "call_genotype", gt, (10, 4, 2), gt_codec, fill_value=-2,
               dims=["variants", "samples", "ploidy"])
    make_array(g, "call_genotype_mask", gt < 0, (10, 4, 2), gt_codec,
               dims=["variants", "samples", "ploidy"])
    make_array(g, "call_genotype_phased", bool_values((nv, ns), "vcf/ph"), (10, 4), gt_codec,
               dims=["variants", "samples"])
    sid = np.empty(ns, dtype=object)
    sid[:] = ["NA%05d" % (18500 + i) for i in range(ns - 2)] + ["S\u00e9bastien", "HG-01"]
    make_array(g, "sample_id", sid, (4,), codec, dims=["samples"])
    pos = np.cumsum(rng_for("vcf/pos").integers(1, 20000, size=nv)).astype("<i4") + 16050000
    make_array(g, "variant_position", pos, (10,), codec, fill_value=-1,
               filters=[numcodecs.Delta(dtype="<i4", astype="<i4")], dims=["variants"])
    contig = np.zeros(nv, dtype="|i1")
    contig[15:] = 1
    make_array(g, "variant_contig", contig, (10,), codec, fill_value=-1, dims=["variants"])
    cid = np.empty(2, dtype=object)
    cid[:] = ["chr21", "chr22"]
    make_array(g, "contig_id", cid, (2,), codec, dims=["contigs"])
    al = np.empty((nv, 3), dtype=object)
    r = rng_for("vcf/al")
    for i in range(nv):
        ref, alt = r.choice(list("ACGT"), size=2, replace=False)
        al[i] = [ref, alt, "" if i % 4 else "ACGT"]
    make_array(g, "variant_allele", al, (10, 3), codec, dims=["variants", "alleles"])
    vid = np.empty(nv, dtype=object)
    vid[:] = ["rs%d" % (1000 + 7 * i) if i % 5 else "." for i in range(nv)]
    make_array(g, "variant_id", vid, (10,), codec, dims=["variants"])
    make_array(g, "call_DS", float_values("<f4", (nv, ns), "vcf/ds"), (10, 4), codec,
               fill_value=np.nan, dims=["variants", "samples"])
    consolidate(d)


def store_allel_like(out):
    """allel_like.zarr: scikit-allel vcf_to_zarr layout (root samples + calldata/GT + variants/*)
    and a MalariaGEN-style per-contig group chr2/{calldata/GT,variants/POS}. Consolidated."""
    d = os.path.join(out, "allel_like.zarr")
    g = open_root(d)
    nv, ns = 25, 11
    comp = blosc("zstd", -1, 1)
    samples = np.empty(ns, dtype=object)
    samples[:] = ["AB%04d-C" % i for i in range(ns)]
    make_array(g, "samples", samples, (ns,), comp, dims=["samples"])
    for prefix, seed in [("", "allel"), ("chr2/", "allel2")]:
        base = g if not prefix else subgroup(g, prefix.rstrip("/"))
        cd = subgroup(base, "calldata")
        vr = subgroup(base, "variants")
        make_array(cd, "GT", genotype_like((nv, ns, 2), seed + "/gt"), (16, 8, 2), comp,
                   fill_value=0 if not prefix else -1, dims=["variants", "samples", "ploidy"])
        pos = np.cumsum(rng_for(seed + "/pos").integers(1, 300, size=nv)).astype("<i4")
        make_array(vr, "POS", pos, (16,), comp, dims=["variants"])
        ref = np.array([bytes([c]) for c in rng_for(seed + "/ref").choice(
            np.frombuffer(b"ACGT", dtype="u1"), size=nv)], dtype="|S1")
        make_array(vr, "REF", ref, (16,), comp, dims=["variants"])
        alt = fixed_bytes_values((nv, 3), seed + "/alt", 1)
        make_array(vr, "ALT", alt, (16, 3), comp, dims=["variants", "alt_alleles"])
        make_array(vr, "FILTER_PASS", bool_values((nv,), seed + "/fp"), (16,), comp,
                   dims=["variants"])
    consolidate(d)


def zero_gzip_mtimes(out):
    """numcodecs GZip stamps the current time into each gzip header (bytes 4-7, not covered by
    any checksum); zero it so that reruns give identical bytes."""
    import json
    for root, dirs, files in os.walk(out):
        if ".zarray" not in files:
            continue
        with open(os.path.join(root, ".zarray")) as f:
            meta = json.load(f)
        if (meta.get("compressor") or {}).get("id") != "gzip":
            continue
        for croot, cdirs, cfiles in os.walk(root):
            if croot != root and os.path.exists(os.path.join(croot, ".zarray")):
                continue
            for name in cfiles:
                if name.startswith("."):
                    continue
                p = os.path.join(croot, name)
                with open(p, "r+b") as f:
                    head = f.read(8)
                    if head[:2] == b"\x1f\x8b":
                        f.seek(4)
                        f.write(b"\0\0\0\0")


def main():
    sub = "v3py" if ZARR_MAJOR >= 3 else "v2py"
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "zarr", sub)
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    store_dtypes(out)
    store_codecs(out)
    store_layout(out)
    store_vcf_like(out)
    store_allel_like(out)
    zero_gzip_mtimes(out)
    with open(os.path.join(out, "VERSIONS.txt"), "w") as f:
        f.write("generator\ttestdata/make_fixtures.py\n")
        f.write("python\t%d.%d.%d\n" % sys.version_info[:3])
        f.write("zarr\t%s\nnumcodecs\t%s\nnumpy\t%s\n" % (
            zarr.__version__, numcodecs.__version__, np.__version__))


if __name__ == "__main__":
    main()
