#!/usr/bin/env python3
"""bio2zarr's own zipped stores read exactly as the unzipped store.

usage: test_bio2zarr_zip.py GENSVD TESTDATA_DIR

testdata/realdata/khuman_chr22.vcf.gz is converted by bio2zarr's vcf2zarr (Zarr v2, and
--zarr-format 3; the command of testdata/make_realdata.sh) and zipped by bio2zarr's zipzarr
(-k keeps the directory).  For each format, on the .vcz.zip (locally, and over http:// from
tests/net/mock_http_server.py): `gensvd info` equals the directory's (modulo the path), `dump`
of every array it lists is byte-identical, and `pca -k 5` and `pdist` print identical TSV.
zipzarr's archive is also checked independently with Python's zipfile: every member's bytes
equal the directory's file.  Exit 77 (skipped) without bio2zarr (vcf2zarr, zipzarr).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.dirname(sys.executable)
VCF2ZARR, ZIPZARR = os.path.join(BIN, "vcf2zarr"), os.path.join(BIN, "zipzarr")
if not (os.path.exists(VCF2ZARR) and os.path.exists(ZIPZARR)):
    print("skipped: bio2zarr (vcf2zarr, zipzarr) is not installed next to %s" % sys.executable)
    sys.exit(77)
sys.path.insert(0, os.path.join(HERE, "..", "net"))
from mock_http_server import MockServer  # noqa: E402

FAILED = []


def check(cond, what):
    print("%s %s" % ("ok  " if cond else "FAIL", what))
    if not cond:
        FAILED.append(what)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, timeout=600)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def arrays_of(info):
    """Array names from `gensvd info` (lines "  NAME  array ...")."""
    out = []
    for line in info.decode().splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1] == "array" and line.startswith("  "):
            out.append(parts[0])
    return out


def members_equal(zpath, dpath):
    with zipfile.ZipFile(zpath) as zf:
        names = [i.filename for i in zf.infolist() if not i.is_dir()]
        for n in names:
            with open(os.path.join(dpath, n), "rb") as f:
                if zf.read(n) != f.read():
                    return False, n
    files = sum(len(fs) for _, _, fs in os.walk(dpath))
    return files == len(names), "%d files, %d members" % (files, len(names))


def compare(gensvd, d, z, label):
    rc_d, info_d, err = run([gensvd, "info", "--no-sizes", d])
    rc_z, info_z, err_z = run([gensvd, "info", "--no-sizes", z])
    check(rc_d == 0 and rc_z == 0 and info_d.replace(d.encode(), b"X")
          == info_z.replace(z.encode(), b"X"), "%s: info equals the directory's %s" %
          (label, err_z[-300:]))
    names = arrays_of(info_d)
    check("call_genotype" in names and "sample_id" in names, "%s: info lists arrays" % label)
    for a in names:
        r1, o1, _ = run([gensvd, "dump", "%s/%s" % (d, a)])
        r2, o2, e2 = run([gensvd, "dump", "%s/%s" % (z, a)])
        check(r1 == r2 and o1 == o2 and (r1 != 0 or len(o1) > 0),
              "%s: dump %s identical (exit %d/%d) %s" % (label, a, r1, r2, e2[-300:]))
    for args in (["pca", "-k", "5"], ["pdist"]):
        r1, o1, _ = run([gensvd] + args + [d])
        r2, o2, e2 = run([gensvd] + args + [z])
        check(r1 == 0 and r2 == 0 and o1 == o2 and len(o1) > 0,
              "%s: %s identical %s" % (label, " ".join(args), e2[-300:]))


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    gensvd, testdata = argv[1], argv[2]
    vcf = os.path.join(testdata, "realdata", "khuman_chr22.vcf.gz")
    tmp = tempfile.mkdtemp()
    try:
        for fmt in ("2", "3"):
            d = os.path.join(tmp, "khuman_v%s.vcz" % fmt)
            rc, _, err = run([VCF2ZARR, "convert", "--zarr-format", fmt, "-Q", "-p", "0", "-l",
                              "1000", "-w", "100", vcf, d])
            check(rc == 0, "vcf2zarr --zarr-format %s %s" % (fmt, err[-300:]))
            rc, _, err = run([ZIPZARR, "-Q", "-k", d])
            z = d + ".zip"
            check(rc == 0 and os.path.isfile(z), "zipzarr v%s %s" % (fmt, err[-300:]))
            if FAILED:
                break
            ok, what = members_equal(z, d)
            check(ok, "v%s: zipzarr's members equal the directory's files (%s)" % (fmt, what))
            compare(gensvd, d, z, "bio2zarr v%s .vcz.zip" % fmt)
            srv = MockServer(tmp).start()
            try:
                url = "http://127.0.0.1:%d/%s" % (srv.port, os.path.basename(z))
                compare(gensvd, d, url, "bio2zarr v%s .vcz.zip over http" % fmt)
            finally:
                srv.shutdown()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("all identical" if not FAILED else "%d failed" % len(FAILED))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
