#!/usr/bin/env python3
"""Write hostile-input Zarr v2 (and v3: cases v3_*) stores for gensvd's error-path tests, and EXPECTED.tsv.

usage: python testdata/bad/make_bad.py [OUTDIR]      (default: the folder of this script)

Needs only the standard library and numcodecs (either tests/requirements-zarr{2,3}.txt env).
Every case is a store `<case>.zarr/` with a root `.zgroup` and (usually) an array `a`; the case's
defect is described in CASES below. EXPECTED.tsv (tab-separated, lines starting with '#' are
comments) has exactly four columns: case, argument for `gensvd dump` (relative to testdata/bad),
expected exit code, and a substring that stderr must contain. README.md (also generated) adds a
one-line description of each defect.
"""

import bz2
import gzip
import json
import os
import shutil
import struct
import sys
import zlib

import numcodecs

HERE = os.path.dirname(os.path.abspath(__file__))


def zarray(shape=(100,), chunks=(100,), dtype="<i4", compressor=None, fill_value=0,
           order="C", filters=None, **extra):
    m = {"zarr_format": 2, "shape": list(shape) if isinstance(shape, tuple) else shape,
         "chunks": list(chunks), "dtype": dtype,
         "compressor": compressor, "fill_value": fill_value, "order": order, "filters": filters}
    m.update(extra)
    return m


def i4_bytes(n, start=0):
    return b"".join(struct.pack("<i", start + i) for i in range(n))


def _i4(data):
    import numpy as np  # a numcodecs dependency
    return np.frombuffer(data, dtype="<i4")


def blosc(data, cname="lz4", shuffle=1):
    return numcodecs.Blosc(cname=cname, clevel=5, shuffle=shuffle).encode(_i4(data))


BLOSC_CFG = {"blocksize": 0, "clevel": 5, "cname": "lz4", "id": "blosc", "shuffle": 1}
ZSTD_CFG = {"id": "zstd", "level": 1}
ZLIB_CFG = {"id": "zlib", "level": 1}
GZIP_CFG = {"id": "gzip", "level": 1}
LZ4_CFG = {"acceleration": 1, "id": "lz4"}


def vlen(items, n_items=None, lens=None):
    """numcodecs vlen-utf8 chunk: u32le item count, then u32le length + bytes per item."""
    out = struct.pack("<I", len(items) if n_items is None else n_items)
    for i, s in enumerate(items):
        b = s.encode("utf-8")
        out += struct.pack("<I", len(b) if lens is None or lens[i] is None else lens[i]) + b
    return out


# Each case: (name, files {relative path: bytes|str|dict}, argument, exit code, stderr substring,
#             description). dict values are written as JSON (zarr-python 2 style).
def cases():
    good = zarray(compressor=BLOSC_CFG)
    full = i4_bytes(100)
    c = []

    def add(name, files, substr, desc, arg=None, code=1):
        c.append((name, files, arg or "%s.zarr/a" % name, code, substr, desc))

    # --- chunk payloads -----------------------------------------------------------------------
    bl = blosc(full)
    add("truncated_blosc_chunk", {"a/.zarray": good, "a/0": bl[:len(bl) // 2]}, "a/0",
        "blosc chunk cut to half its length (header cbytes > file size)")
    add("truncated_blosc_header", {"a/.zarray": good, "a/0": bl[:10]}, "a/0",
        "blosc chunk shorter than the 16-byte header")
    bad_payload = bytearray(bl)
    for i in range(16, len(bad_payload)):
        bad_payload[i] ^= 0x5A
    add("corrupt_blosc_payload", {"a/.zarray": good, "a/0": bytes(bad_payload)}, "a/0",
        "valid blosc header, payload bytes scrambled")
    add("blosc_wrong_size", {"a/.zarray": good, "a/0": blosc(i4_bytes(50))}, "a/0",
        "valid blosc frame of 200 bytes for a 400-byte chunk")
    zs = numcodecs.Zstd(level=1).encode(full)
    add("truncated_zstd_chunk", {"a/.zarray": zarray(compressor=ZSTD_CFG), "a/0": zs[:len(zs) // 2]},
        "a/0", "zstd frame cut to half its length")
    add("zstd_wrong_size", {"a/.zarray": zarray(compressor=ZSTD_CFG),
                            "a/0": numcodecs.Zstd(level=1).encode(i4_bytes(50))}, "a/0",
        "valid zstd frame decoding to 200 bytes for a 400-byte chunk")
    add("zstd_too_large", {"a/.zarray": zarray(compressor=ZSTD_CFG),
                           "a/0": numcodecs.Zstd(level=1).encode(i4_bytes(200))}, "a/0",
        "valid zstd frame decoding to 800 bytes for a 400-byte chunk")
    add("zlib_wrong_size", {"a/.zarray": zarray(compressor=ZLIB_CFG),
                            "a/0": zlib.compress(i4_bytes(99), 1)}, "a/0",
        "valid zlib stream decoding to 396 bytes for a 400-byte chunk")
    add("truncated_zlib_chunk", {"a/.zarray": zarray(compressor=ZLIB_CFG),
                                 "a/0": zlib.compress(full, 1)[:20]}, "a/0",
        "zlib stream cut after 20 bytes")
    gz = bytearray(gzip.compress(full, compresslevel=1, mtime=0))
    gz[-8] ^= 0xFF  # CRC32 in the trailer
    add("gzip_bad_crc", {"a/.zarray": zarray(compressor=GZIP_CFG), "a/0": bytes(gz)}, "a/0",
        "gzip member with a wrong CRC32 trailer")
    l4 = numcodecs.LZ4().encode(full)
    add("lz4_wrong_size_prefix", {"a/.zarray": zarray(compressor=LZ4_CFG),
                                  "a/0": struct.pack("<I", 800) + l4[4:]}, "a/0",
        "numcodecs lz4 chunk whose 4-byte size prefix says 800 (chunk is 400 bytes)")
    add("truncated_lz4_chunk", {"a/.zarray": zarray(compressor=LZ4_CFG), "a/0": l4[:len(l4) // 2]},
        "a/0", "numcodecs lz4 chunk cut to half its length")
    add("raw_wrong_size", {"a/.zarray": zarray(), "a/0": full[:-1]}, "a/0",
        "uncompressed chunk of 399 bytes for a 400-byte chunk")
    add("chunk_is_directory", {"a/.zarray": zarray(), "a/0/x": b"x"}, "a/0",
        "chunk key a/0 is a directory")

    # --- vlen-utf8 -------------------------------------------------------------------------------
    vmeta = zarray(shape=(3,), chunks=(3,), dtype="|O", filters=[{"id": "vlen-utf8"}])
    add("vlen_length_past_end", {"a/.zarray": vmeta,
                                 "a/0": vlen(["ab", "cd", "ef"], lens=[None, None, 1000])},
        "a/0", "vlen-utf8 chunk whose third item length (1000) runs past the end")
    add("vlen_count_mismatch", {"a/.zarray": vmeta, "a/0": vlen(["ab", "cd"])}, "a/0",
        "vlen-utf8 chunk with 2 items for a 3-element chunk")
    add("vlen_count_huge", {"a/.zarray": vmeta,
                            "a/0": vlen(["ab", "cd", "ef"], n_items=0xFFFFFFFF)}, "a/0",
        "vlen-utf8 chunk whose item count is 2^32-1")
    add("vlen_truncated_header", {"a/.zarray": vmeta, "a/0": b"\x03\x00"}, "a/0",
        "vlen-utf8 chunk of 2 bytes (count needs 4)")
    add("vlen_invalid_utf8", {"a/.zarray": vmeta,
                              "a/0": struct.pack("<I", 3) + b"".join(
                                  struct.pack("<I", 2) + s for s in [b"ab", b"\xff\xfe", b"ef"])},
        "a/0", "vlen-utf8 chunk with an item that is not valid UTF-8")

    # --- .zarray JSON --------------------------------------------------------------------------
    add("zarray_invalid_json", {"a/.zarray": '{"zarr_format": 2, "shape": [10'}, "a/.zarray",
        ".zarray is truncated JSON")
    add("zarray_not_object", {"a/.zarray": "[1, 2, 3]"}, "a/.zarray", ".zarray is a JSON array")
    add("zarray_empty", {"a/.zarray": ""}, "a/.zarray", ".zarray is an empty file")
    add("zarray_trailing_garbage", {"a/.zarray": json.dumps(good) + " }x"}, "a/.zarray",
        ".zarray is valid JSON followed by garbage")
    add("zarr_format_3", {"a/.zarray": zarray(zarr_format=3)}, "zarr_format",
        ".zarray says zarr_format 3")
    nofmt = zarray()
    del nofmt["zarr_format"]
    add("zarr_format_missing", {"a/.zarray": nofmt}, "zarr_format", ".zarray lacks zarr_format")
    add("zarr_v3_array", {"a/zarr.json": {
        "zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "int32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        "fill_value": 0}}, "v3", "array a is a Zarr v3 node (zarr.json, no .zarray)")

    # --- shape / chunks ------------------------------------------------------------------------
    add("shape_negative", {"a/.zarray": zarray(shape=(-5,))}, "shape", "shape [-5]")
    add("shape_not_integer", {"a/.zarray": zarray(shape=(2.5,))}, "shape", "shape [2.5]")
    add("shape_not_list", {"a/.zarray": zarray(shape=10)}, "shape", "shape 10 (not a list)")
    add("shape_over_2p63", {"a/.zarray": zarray(shape=(2 ** 63,), chunks=(100,))}, "shape",
        "shape [2^63]: does not fit int64")
    add("shape_product_overflow", {"a/.zarray": zarray(shape=(2 ** 32, 2 ** 32, 2 ** 32),
                                                       chunks=(1000, 1000, 1000))}, "shape",
        "shape [2^32, 2^32, 2^32]: element count overflows 64 bits")
    add("chunk_bytes_overflow", {"a/.zarray": zarray(shape=(2 ** 40, 2 ** 40),
                                                     chunks=(2 ** 40, 2 ** 40))}, "chunks",
        "chunks [2^40, 2^40] of <i4: chunk byte size overflows size_t")
    add("chunks_zero", {"a/.zarray": zarray(shape=(10, 10), chunks=(5, 0))}, "chunks",
        "chunks [5, 0]")
    add("chunks_negative", {"a/.zarray": zarray(chunks=(-1,))}, "chunks", "chunks [-1]")
    add("chunks_length_mismatch", {"a/.zarray": zarray(shape=(10, 10), chunks=(5,))}, "chunks",
        "shape has 2 axes, chunks 1")

    # --- codecs --------------------------------------------------------------------------------
    add("codec_bz2", {"a/.zarray": zarray(compressor={"id": "bz2", "level": 1}),
                      "a/0": bz2.compress(full, 1)}, "bz2",
        "compressor bz2 (valid bz2 data; codec not supported by gensvd)")
    add("codec_foo", {"a/.zarray": zarray(compressor={"id": "foo"}), "a/0": full}, "foo",
        "compressor id foo (unknown)")
    add("codec_no_id", {"a/.zarray": zarray(compressor={"level": 1}), "a/0": full}, "compressor",
        "compressor object without id")
    fso = numcodecs.FixedScaleOffset(scale=10, offset=0, dtype="<i4", astype="<i2")
    add("filter_unknown", {"a/.zarray": zarray(filters=[
        {"id": "fixedscaleoffset", "scale": 10, "offset": 0, "dtype": "<i4", "astype": "<i2"}]),
        "a/0": fso.encode(_i4(full))}, "fixedscaleoffset",
        "filter fixedscaleoffset (valid encoding; filter not supported by gensvd)")

    # --- dtype / order / separator / fill ------------------------------------------------------
    add("dtype_c16", {"a/.zarray": zarray(dtype="<c16", fill_value=[0.0, 0.0])}, "<c16",
        "complex dtype (not supported)")
    add("dtype_M8", {"a/.zarray": zarray(dtype="<M8[ns]")}, "<M8[ns]",
        "datetime64 dtype (not supported)")
    add("dtype_xyz", {"a/.zarray": zarray(dtype="xyz")}, "xyz", "malformed dtype string")
    add("dtype_structured", {"a/.zarray": zarray(dtype=[["x", "<f4"], ["y", "<i2"]],
                                                 fill_value=None)}, "dtype",
        "structured dtype (not supported)")
    add("dtype_i3", {"a/.zarray": zarray(dtype="<i3")}, "<i3", "integer of 3 bytes")
    add("order_Z", {"a/.zarray": zarray(order="Z")}, "order", 'order "Z"')
    add("dimension_separator_dash", {"a/.zarray": zarray(dimension_separator="-")},
        "dimension_separator", 'dimension_separator "-"')
    add("fill_value_string_for_int", {"a/.zarray": zarray(fill_value="abc")}, "fill_value",
        'fill_value "abc" for <i4')
    add("fill_value_out_of_range", {"a/.zarray": zarray(dtype="|u1", fill_value=300)},
        "fill_value", "fill_value 300 for |u1")
    add("fill_value_object_for_float", {"a/.zarray": zarray(dtype="<f8", fill_value={"x": 1})},
        "fill_value", "fill_value is a JSON object for <f8")

    # --- consolidated metadata / paths ---------------------------------------------------------
    zm_good = {"zarr_consolidated_format": 1,
               "metadata": {".zgroup": {"zarr_format": 2}, "a/.zarray": zarray()}}
    trav = json.loads(json.dumps(zm_good))
    trav["metadata"]["../evil/.zarray"] = zarray()
    add("zmetadata_traversal", {".zmetadata": trav, "a/.zarray": zarray(), "a/0": full},
        ".zmetadata", 'consolidated .zmetadata with a key "../evil/.zarray"')
    trav2 = json.loads(json.dumps(zm_good))
    trav2["metadata"]["a/../../evil/.zarray"] = zarray()
    add("zmetadata_traversal_inner", {".zmetadata": trav2, "a/.zarray": zarray(), "a/0": full},
        ".zmetadata", 'consolidated .zmetadata with a key "a/../../evil/.zarray"')
    add("zmetadata_invalid_json", {".zmetadata": '{"zarr_consolidated_format": 1, "metadata": {',
                                   "a/.zarray": zarray(), "a/0": full}, ".zmetadata",
        ".zmetadata is truncated JSON")
    add("zmetadata_no_metadata", {".zmetadata": {"zarr_consolidated_format": 1},
                                  "a/.zarray": zarray(), "a/0": full}, ".zmetadata",
        '.zmetadata without the "metadata" object')
    bad_inner = json.loads(json.dumps(zm_good))
    bad_inner["metadata"]["a/.zarray"] = "not an object"
    add("zmetadata_zarray_not_object", {".zmetadata": bad_inner, "a/.zarray": zarray(),
                                        "a/0": full}, "a/.zarray",
        '.zmetadata maps "a/.zarray" to a string')
    add("path_dotdot", {"a/.zarray": zarray(), "a/0": full, "sub/.zgroup": {"zarr_format": 2}},
        "..", "array path argument contains '..' (dotdot.zarr/sub/../a)",
        arg="path_dotdot.zarr/sub/../a")

    # --- Zarr v3 (zarr.json, sharding_indexed) -------------------------------------------------
    v3_cases(add)
    return c


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    return c ^ 0xFFFFFFFF


def v3_array(shape=(8,), chunks=(8,), data_type="int32", codecs=None, fill_value=0, **extra):
    m = {"zarr_format": 3, "node_type": "array", "shape": list(shape), "data_type": data_type,
         "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunks)}},
         "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
         "codecs": codecs if codecs is not None else [{"name": "bytes",
                                                       "configuration": {"endian": "little"}}],
         "fill_value": fill_value}
    m.update(extra)
    return m


def sharding(inner=(4,), codecs=None, crc=True, location="end"):
    idx = [{"name": "bytes", "configuration": {"endian": "little"}}]
    if crc:
        idx.append({"name": "crc32c"})
    return [{"name": "sharding_indexed", "configuration": {
        "chunk_shape": list(inner),
        "codecs": codecs or [{"name": "bytes", "configuration": {"endian": "little"}}],
        "index_codecs": idx, "index_location": location}}]


def shard(chunks, entries=None, crc=True, corrupt_crc=False):
    """A shard with its index at the end: the inner chunks back to back, then (offset, nbytes)
    per inner chunk (None: empty), then the crc32c of the index.  `entries` overrides the
    index."""
    body = b""
    index = []
    for ch in chunks:
        if ch is None:
            index.append((2 ** 64 - 1, 2 ** 64 - 1))
        else:
            index.append((len(body), len(ch)))
            body += ch
    raw = b"".join(struct.pack("<QQ", o, n) for o, n in (entries or index))
    if crc:
        c = crc32c(raw) ^ (1 if corrupt_crc else 0)
        raw += struct.pack("<I", c)
    return body + raw


def v3_cases(add):
    g3 = {"zarr.json": {"zarr_format": 3, "node_type": "group"}}
    sh = v3_array(codecs=sharding())
    two = [i4_bytes(4), i4_bytes(4, 4)]

    def add3(name, files, substr, desc, **kw):
        add(name, dict(g3, **files), substr, desc, **kw)

    add3("v3_zarr_json_invalid", {"a/zarr.json": '{"zarr_format": 3, "node_type": "arr'},
         "a/zarr.json", "array zarr.json is truncated JSON")
    add3("v3_root_not_group", {"zarr.json": {"zarr_format": 3, "node_type": "folder"}},
         "zarr.json", 'root zarr.json with node_type "folder"', arg="v3_root_not_group.zarr")
    add3("v3_codec_unknown", {"a/zarr.json": v3_array(codecs=[
        {"name": "bytes", "configuration": {"endian": "little"}}, {"name": "lzma"}])},
         "lzma", "bytes -> bytes codec lzma (must_understand by default)")
    add3("v3_member_unknown", {"a/zarr.json": v3_array(foo={"bar": 1})}, "foo",
         'unknown member "foo" without "must_understand": false')
    add3("v3_data_type_complex", {"a/zarr.json": v3_array(data_type="complex64")}, "complex64",
         "data_type complex64 (not supported)")
    add3("v3_key_encoding_unknown", {"a/zarr.json": v3_array(
        chunk_key_encoding={"name": "tiled"})}, "chunk_key_encoding",
        'chunk_key_encoding "tiled"')
    add3("v3_fill_hex_short", {"a/zarr.json": v3_array(data_type="float32",
                                                       fill_value="0x7fc0")},
         "fill_value", 'fill_value "0x7fc0" for float32 (needs 8 hex digits)')
    add3("v3_shard_not_multiple", {"a/zarr.json": v3_array(codecs=sharding(inner=(3,)))},
         "multiple", "shard shape 8 with inner chunk shape 3")
    add3("v3_crc32c_mismatch", {"a/zarr.json": v3_array(codecs=[
        {"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]),
        "a/c/0": i4_bytes(8) + struct.pack("<I", crc32c(i4_bytes(8)) ^ 1)}, "a/c/0",
        "chunk with a crc32c codec whose checksum does not match")
    add3("v3_shard_index_crc", {"a/zarr.json": sh, "a/c/0": shard(two, corrupt_crc=True)},
         "a/c/0", "shard index whose crc32c does not match")
    add3("v3_shard_index_past_end", {"a/zarr.json": sh, "a/c/0": shard(
        two, entries=[(0, 16), (16, 4000)])}, "a/c/0",
        "shard index: inner chunk 1 at offset 16 with length 4000, past the end")
    add3("v3_shard_overlap", {"a/zarr.json": sh, "a/c/0": shard(
        two, entries=[(0, 16), (8, 16)])}, "a/c/0", "shard index: inner chunks 0 and 1 overlap")
    add3("v3_shard_half_empty", {"a/zarr.json": sh, "a/c/0": shard(
        two, entries=[(0, 16), (2 ** 64 - 1, 16)])}, "a/c/0",
        "shard index: inner chunk 1 with offset 2^64-1 but a length")
    add3("v3_shard_too_short", {"a/zarr.json": sh, "a/c/0": shard(two)[-20:]}, "a/c/0",
         "shard of 20 bytes, shorter than its 36-byte index")
    add3("v3_inner_chunk_too_large", {"a/zarr.json": sh, "a/c/0": shard(
        [i4_bytes(5), i4_bytes(4)])}, "a/c/0",
        "inner chunk of 20 bytes for a 4-element int32 inner chunk (16 bytes)")
    add3("v3_inner_zstd_wrong_size", {"a/zarr.json": v3_array(codecs=sharding(codecs=[
        {"name": "bytes", "configuration": {"endian": "little"}},
        {"name": "zstd", "configuration": {"level": 1, "checksum": False}}])),
        "a/c/0": shard([numcodecs.Zstd(level=1).encode(i4_bytes(8)),
                        numcodecs.Zstd(level=1).encode(i4_bytes(4))])}, "a/c/0",
        "zstd inner chunk decoding to 32 bytes for a 16-byte inner chunk")


def write(path, content):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(content, dict) or isinstance(content, list):
        content = json.dumps(content, indent=4, sort_keys=True, ensure_ascii=True)
    if isinstance(content, str):
        content = content.encode("utf-8")
    with open(path, "wb") as f:
        f.write(content)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else HERE
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        if name.endswith(".zarr"):
            shutil.rmtree(os.path.join(out, name))
    rows = ["# case\targument\texit_code\tstderr_substring"]
    readme = ["# testdata/bad: hostile Zarr v2 and v3 inputs", "",
              "Generated by `make_bad.py` (do not edit by hand). `EXPECTED.tsv`: tab-separated,",
              "lines starting with `#` are comments; columns: case, argument to `gensvd dump`",
              "(relative to this folder), expected exit code, substring stderr must contain.", "",
              "| case | argument | exit | stderr contains | defect |", "|---|---|---|---|---|"]
    seen = set()
    for name, files, arg, code, substr, desc in cases():
        substr = corrupt_message(name, substr)
        assert name not in seen, name
        seen.add(name)
        root = os.path.join(out, name + ".zarr")
        if "zarr.json" not in files:  # Zarr v3 cases bring their own root
            write(os.path.join(root, ".zgroup"), {"zarr_format": 2})
        for rel, content in files.items():
            write(os.path.join(root, *rel.split("/")), content)
        rows.append("\t".join([name, arg, str(code), substr]))
        readme.append("| %s | `%s` | %d | `%s` | %s |" % (name, arg, code, substr, desc))
    with open(os.path.join(out, "EXPECTED.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(readme) + "\n")


SHARD_INDEX_CASES = {"v3_shard_index_crc", "v3_shard_index_past_end", "v3_shard_overlap",
                     "v3_shard_half_empty", "v3_shard_too_short"}


def corrupt_message(name, key):
    """A chunk's bytes that do not decode are a corrupt chunk (or shard), named with its key and
    array: the substring stderr must contain for the cases keyed by the chunk."""
    if key not in ("a/0", "a/c/0") or name == "chunk_is_directory":
        return key
    if name in SHARD_INDEX_CASES:
        return "corrupt shard '%s' of array 'a'" % key
    if name.startswith("v3_inner_"):
        return "corrupt chunk '%s' (inner chunk 0) of array 'a'" % key
    return "corrupt chunk '%s' of array 'a'" % key


if __name__ == "__main__":
    main()
