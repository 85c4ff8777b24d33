#!/usr/bin/env python3
"""Write the seed corpus of fuzz_zip (tests/fuzz/corpus/zip/), and build ZIP64 archives.

usage: make_zip_corpus.py OUTDIR

`build_zip(entries, zip64=...)` writes a zip by hand (Python's zipfile writes ZIP64 records only
for archives past 4 GiB or 65,535 entries): with zip64=True every central-directory size and
offset is saturated (0xFFFFFFFF) and carried in a ZIP64 extra field, and the archive ends with
a ZIP64 end-of-central-directory record and locator before a saturated classic EOCD.
tests/interop/test_zipstore.py imports it and checks that Python's zipfile reads the result.
Seeds: a tiny Zarr v2 group stored, deflated, ZIP64, under a top-level directory, with a
duplicated key, and a few broken variants (truncated, encrypted flag, bad CRC, method 12).
"""

import os
import struct
import sys
import zipfile
import zlib


def build_zip(entries, zip64=False, comment=b""):
    """entries: list of (name, data bytes, method 0 or 8); returns the archive bytes."""
    out, central = bytearray(), bytearray()
    for name, data, method in entries:
        nb = name.encode()
        comp = data
        if method == 8:
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            comp = c.compress(data) + c.flush()
        crc = zlib.crc32(data) & 0xFFFFFFFF
        lho = len(out)
        if zip64:
            lextra = struct.pack("<HHQQ", 1, 16, len(data), len(comp))
            out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, method, 0, 0, crc,
                               0xFFFFFFFF, 0xFFFFFFFF, len(nb), len(lextra)) + nb + lextra
        else:
            out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc,
                               len(comp), len(data), len(nb), 0) + nb
        out += comp
        if zip64:
            cextra = struct.pack("<HHQQQ", 1, 24, len(data), len(comp), lho)
            central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, method, 0, 0,
                                   crc, 0xFFFFFFFF, 0xFFFFFFFF, len(nb), len(cextra), 0, 0, 0,
                                   0, 0xFFFFFFFF) + nb + cextra
        else:
            central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0,
                                   crc, len(comp), len(data), len(nb), 0, 0, 0, 0, 0,
                                   lho) + nb
    cd_off = len(out)
    out += central
    n = len(entries)
    if zip64:
        z64 = len(out)
        out += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, n, n, len(central),
                           cd_off)
        out += struct.pack("<IIQI", 0x07064B50, 0, z64, 1)
        out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF,
                           0xFFFFFFFF, len(comment)) + comment
    else:
        out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, len(central), cd_off,
                           len(comment)) + comment
    return bytes(out)


def tiny_group():
    zarray = (b'{"zarr_format": 2, "shape": [4, 3], "chunks": [2, 3], "dtype": "|i1", '
              b'"compressor": null, "fill_value": 0, "order": "C", "filters": null}')
    return [(".zgroup", b'{"zarr_format": 2}', 0),
            ("g/.zarray", zarray, 0),
            ("g/.zattrs", b'{"_ARRAY_DIMENSIONS": ["variants", "samples"]}', 0),
            ("g/0.0", bytes([0, 1, 2, 1, 1, 0]), 0),
            ("g/1.0", bytes([2, 2, 0, 255, 1, 1]), 0)]


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    stored = tiny_group()
    deflated = [(n, d, 8) for n, d, _ in stored]
    seeds = {
        "01_stored": build_zip(stored),
        "02_deflated": build_zip(deflated),
        "03_zip64": build_zip(stored, zip64=True),
        "04_zip64_deflated": build_zip(deflated, zip64=True, comment=b"gensvd"),
        "05_topdir": build_zip([("x.zarr/" + n, d, m) for n, d, m in deflated]),
        "06_duplicate": build_zip(stored + [(".zgroup", b'{"zarr_format": 2} ', 8)]),
        "07_dotdot": build_zip(stored + [("../evil", b"x", 0)]),
    }
    good = seeds["01_stored"]
    seeds["08_truncated"] = good[:len(good) - 25]
    enc = bytearray(good)
    cd = enc.index(b"PK\x01\x02")
    enc[cd + 8] |= 1
    seeds["09_encrypted"] = bytes(enc)
    m12 = bytearray(good)
    m12[cd + 10] = 12
    seeds["10_method12"] = bytes(m12)
    crc = bytearray(good)
    crc[30 + len(".zgroup") + 2] ^= 0x20
    seeds["11_badcrc"] = bytes(crc)
    for name, blob in seeds.items():
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(blob)
    # the hand-built archives must be valid zips to Python's zipfile
    import io
    for name in ("01_stored", "02_deflated", "03_zip64", "04_zip64_deflated", "05_topdir"):
        with zipfile.ZipFile(io.BytesIO(seeds[name])) as zf:
            assert zf.testzip() is None, name


if __name__ == "__main__":
    main()
