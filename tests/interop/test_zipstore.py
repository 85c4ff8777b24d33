#!/usr/bin/env python3
"""gensvd reads zipped Zarr stores (.vcz.zip) exactly as the same store unzipped.

usage: test_zipstore.py GENSVD

Run with zarr-python 2 or 3 (each venv).  The library writes a small VCF-Zarr-like group
(call_genotype int8 variants x samples x ploidy with missing calls, sample_id strings,
variant_position int32) twice: into zarr.storage.ZipStore and into a directory, consolidated
and not (and, with zarr-python 3, as Zarr v2 and v3).  Python's zipfile also zips the
directory with DEFLATE, at the archive root and under a top-level directory.  For each archive:
`gensvd info` succeeds and lists the arrays, `gensvd dump` of every array prints exactly what
it prints for the directory, and the call_genotype dump equals the numpy values formatted
independently; `gensvd pca --method exact` gives identical scores.  Then broken archives
(truncated, a flipped data byte, the encryption flag, compression method 12, an entry named
"../x", two entries at one offset) must each exit 1 with a message naming the archive and
what is wrong.  Exit 77 (skipped) without zarr-python.
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile
import warnings
import zipfile

warnings.filterwarnings("ignore")
try:
    import numpy as np
    import zarr
except ImportError as e:
    print("skipped: %s" % e)
    sys.exit(77)

ZV = int(zarr.__version__.split(".")[0])
GENSVD = sys.argv[1]
FAILED = []
PASSED = [0]


def check(cond, what):
    if cond:
        PASSED[0] += 1
    else:
        FAILED.append(what)
        print("FAIL: %s" % what)


def run(*args):
    p = subprocess.run([GENSVD] + list(args), capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def data():
    rng = np.random.default_rng(14)
    gt = rng.integers(0, 2, size=(30, 9, 2), dtype=np.int8)
    gt += rng.integers(0, 2, size=gt.shape, dtype=np.int8) * (rng.random(gt.shape) < 0.3)
    gt = np.minimum(gt, 1).astype(np.int8)
    gt[rng.random(gt.shape) < 0.05] = -1
    samples = np.array(["S%02d" % i for i in range(9)], dtype=object)
    pos = np.arange(1, 31, dtype=np.int32) * 100
    return gt, samples, pos


def write_group(store, fmt, consolidated):
    gt, samples, pos = data()
    if ZV < 3:
        import numcodecs

        g = zarr.group(store=store, overwrite=True)
        a = g.array("call_genotype", gt, chunks=(8, 4, 2))
        a.attrs["_ARRAY_DIMENSIONS"] = ["variants", "samples", "ploidy"]
        a = g.array("sample_id", samples, chunks=(4,), dtype=object,
                    object_codec=numcodecs.VLenUTF8())
        a.attrs["_ARRAY_DIMENSIONS"] = ["samples"]
        a = g.array("variant_position", pos, chunks=(8,))
        a.attrs["_ARRAY_DIMENSIONS"] = ["variants"]
    else:
        g = zarr.open_group(store=store, mode="w", zarr_format=fmt)
        kw = {} if fmt == 3 else {}
        dims = lambda d: ({"dimension_names": d} if fmt == 3 else {})  # noqa: E731
        a = g.create_array("call_genotype", shape=gt.shape, dtype="int8", chunks=(8, 4, 2),
                           **dims(["variants", "samples", "ploidy"]), **kw)
        a[...] = gt
        a = g.create_array("sample_id", shape=samples.shape, dtype=str, chunks=(4,),
                           **dims(["samples"]))
        a[...] = samples.astype(str)
        a = g.create_array("variant_position", shape=pos.shape, dtype="int32", chunks=(8,),
                           **dims(["variants"]))
        a[...] = pos
        if fmt == 2:
            g["call_genotype"].attrs["_ARRAY_DIMENSIONS"] = ["variants", "samples", "ploidy"]
            g["sample_id"].attrs["_ARRAY_DIMENSIONS"] = ["samples"]
            g["variant_position"].attrs["_ARRAY_DIMENSIONS"] = ["variants"]
    if consolidated:
        zarr.consolidate_metadata(store)


def make_pair(tmp, tag, fmt, consolidated):
    """Write the group into a ZipStore and a directory; return (zip path, directory path)."""
    zpath = os.path.join(tmp, tag + ".vcz.zip")
    dpath = os.path.join(tmp, tag + ".vcz")
    if ZV < 3:
        zs = zarr.ZipStore(zpath, mode="w")
        write_group(zs, fmt, consolidated)
        zs.close()
        write_group(zarr.DirectoryStore(dpath), fmt, consolidated)
    else:
        zs = zarr.storage.ZipStore(zpath, mode="w")
        write_group(zs, fmt, consolidated)
        zs.close()
        write_group(zarr.storage.LocalStore(dpath), fmt, consolidated)
    return zpath, dpath


def zip_dir(dpath, zpath, method, top=None):
    with zipfile.ZipFile(zpath, "w", compression=method) as zf:
        for base, dirs, files in os.walk(dpath):
            dirs.sort()
            for f in sorted(files):
                full = os.path.join(base, f)
                rel = os.path.relpath(full, dpath)
                zf.write(full, rel if top is None else top + "/" + rel)
    return zpath


def zip64_dir(dpath, zpath):
    """The directory as a hand-built ZIP64 archive (every size and offset in ZIP64 fields)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz"))
    from make_zip_corpus import build_zip
    entries = []
    for base, dirs, files in os.walk(dpath):
        dirs.sort()
        for f in sorted(files):
            full = os.path.join(base, f)
            entries.append((os.path.relpath(full, dpath), open(full, "rb").read(), 8))
    blob = build_zip(entries, zip64=True)
    open(zpath, "wb").write(blob)
    with zipfile.ZipFile(zpath) as zf:  # Python's reader is the oracle that it is a valid zip
        check(zf.testzip() is None and len(zf.namelist()) == len(entries), "zip64 archive valid")
    return zpath


def expected_gt_dump():
    gt, _, _ = data()
    lines = ["\t".join("/".join(str(int(v)) for v in cell) for cell in row) for row in gt]
    return ("\n".join(lines) + "\n").encode()


def compare(zpath, dpath, tag):
    rc, out, err = run("info", zpath)
    check(rc == 0 and b"call_genotype" in out and b"sample_id" in out,
          "%s: info exits 0 and lists the arrays (rc %d, %s)" % (tag, rc, err.strip()))
    for arr in ("call_genotype", "sample_id", "variant_position"):
        rz, oz, ez = run("dump", zpath + "/" + arr)
        rd, od, ed = run("dump", dpath + "/" + arr)
        check(rz == 0 and rd == 0 and oz == od and len(oz) > 0,
              "%s: dump %s identical to the directory (%d %d %s)" % (tag, arr, rz, rd, ez.strip()))
    rz, oz, _ = run("dump", zpath + "/call_genotype")
    check(oz == expected_gt_dump(), "%s: call_genotype dump equals numpy" % tag)
    rz, oz, _ = run("dump", zpath + "/sample_id")
    check(oz == "".join("S%02d\n" % i for i in range(9)).encode(), "%s: sample_id dump" % tag)
    rz, oz, ez = run("pca", "--method", "exact", "-k", "3", "-q", zpath)
    rd, od, ed = run("pca", "--method", "exact", "-k", "3", "-q", dpath)
    check(rz == 0 and rd == 0 and oz == od and oz.count(b"\n") == 10,
          "%s: pca --method exact scores identical (%d %d %s)" % (tag, rz, rd, ez.strip()))


def entry_offsets(zpath):
    """(name, central-directory record offset, local header offset, data offset) per entry."""
    raw = open(zpath, "rb").read()
    eocd = raw.rindex(b"PK\x05\x06")
    n, cd_size, cd_off = struct.unpack("<HII", raw[eocd + 10:eocd + 20])
    out, pos = [], cd_off
    for _ in range(n):
        nlen, xlen, clen = struct.unpack("<HHH", raw[pos + 28:pos + 34])
        lho = struct.unpack("<I", raw[pos + 42:pos + 46])[0]
        name = raw[pos + 46:pos + 46 + nlen].decode()
        lnlen, lxlen = struct.unpack("<HH", raw[lho + 26:lho + 30])
        out.append((name, pos, lho, lho + 30 + lnlen + lxlen))
        pos += 46 + nlen + xlen + clen
    return raw, out


def bad_case(tmp, good, tag, mutate, cmd, want):
    raw, ents = entry_offsets(good)
    raw = bytearray(raw)
    mutate(raw, ents)
    path = os.path.join(tmp, "bad_%s.zip" % tag)
    open(path, "wb").write(bytes(raw))
    rc, out, err = run(*cmd(path))
    check(rc == 1 and path in err and want in err,
          "bad %s: exit 1 naming the archive and '%s' (rc %d, stderr %r)" % (tag, want, rc, err))


def chunk_entry(ents):
    return next(e for e in ents if e[0].startswith("call_genotype/") and "json" not in e[0]
                and not e[0].split("/")[-1].startswith("."))


def main():
    tmp = tempfile.mkdtemp(prefix="gsvd_zip_")
    try:
        fmts = [2] if ZV < 3 else [2, 3]
        for fmt in fmts:
            for cons in (True, False):
                tag = "py%d_v%d_%s" % (ZV, fmt, "cons" if cons else "plain")
                zpath, dpath = make_pair(tmp, tag, fmt, cons)
                compare(zpath, dpath, tag + "_zipstore")
                compare(zip_dir(dpath, os.path.join(tmp, tag + "_defl.zip"), zipfile.ZIP_DEFLATED),
                        dpath, tag + "_deflated")
                compare(zip_dir(dpath, os.path.join(tmp, tag + "_top.zip"), zipfile.ZIP_DEFLATED,
                                top=tag + ".vcz"), dpath, tag + "_deflated_topdir")
                compare(zip64_dir(dpath, os.path.join(tmp, tag + "_z64.zip")), dpath,
                        tag + "_zip64")
        # explicit zip:// and a --array option
        zpath = os.path.join(tmp, "py%d_v%d_cons_defl.zip" % (ZV, fmts[-1]))
        rc, out, err = run("dump", "zip://" + zpath, "--array", "sample_id")
        check(rc == 0 and out.startswith(b"S00\n"), "zip:// with --array (%d %s)" % (rc, err))
        rc, out, err = run("pca", "-q", "--method", "exact", "-k", "3", zpath, "-o",
                           os.path.join(tmp, "out.zip"))
        check(rc == 1 and "not supported" in err, "writing a .zip output is refused (%d %s)"
              % (rc, err.strip()))

        good = zip_dir(os.path.join(tmp, "py%d_v%d_cons.vcz" % (ZV, fmts[-1])),
                       os.path.join(tmp, "good_stored.zip"), zipfile.ZIP_STORED)
        gt_dump = lambda p: ["dump", p + "/call_genotype"]  # noqa: E731
        info = lambda p: ["info", p]  # noqa: E731

        def truncate(raw, ents):
            del raw[len(raw) - 30:]

        def flip(raw, ents):
            raw[chunk_entry(ents)[3]] ^= 0x55

        def encrypt(raw, ents):
            e = chunk_entry(ents)
            raw[e[1] + 8] |= 1
            raw[e[2] + 6] |= 1

        def method12(raw, ents):
            e = chunk_entry(ents)
            raw[e[1] + 10:e[1] + 12] = struct.pack("<H", 12)

        def overlap(raw, ents):
            a, b = ents[0], ents[1]
            raw[b[1] + 42:b[1] + 46] = struct.pack("<I", a[2])

        bad_case(tmp, good, "truncated", truncate, info, "no end of central directory")
        bad_case(tmp, good, "crc", flip, gt_dump, "CRC-32 mismatch")
        bad_case(tmp, good, "encrypted", encrypt, info, "is encrypted")
        bad_case(tmp, good, "method", method12, info, "compression method 12")
        bad_case(tmp, good, "overlap", overlap, info, "overlaps")
        evil = os.path.join(tmp, "bad_dotdot.zip")
        shutil.copy(good, evil)
        with zipfile.ZipFile(evil, "a") as zf:
            zf.writestr(zipfile.ZipInfo("../escape"), b"x")
        rc, out, err = run("info", evil)
        check(rc == 1 and evil in err and "'../escape'" in err,
              "bad dotdot: exit 1 naming the entry (%d %r)" % (rc, err))
        notzip = os.path.join(tmp, "bad_notzip.zip")
        open(notzip, "wb").write(b"hello, not a zip")
        rc, out, err = run("info", notzip)
        check(rc == 1 and "not a zip archive" in err, "not a zip: exit 1 (%d %r)" % (rc, err))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (PASSED[0], len(FAILED)))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
