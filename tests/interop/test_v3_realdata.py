#!/usr/bin/env python3
"""Zarr v3 copies of the bundled real data give byte-identical gensvd results.

usage: test_v3_realdata.py GENSVD TESTDATA_DIR

1. testdata/realdata/hapmap3.vcz (VCF Zarr, Zarr v2) is copied to Zarr v3 with zarr-python 3
   into a temporary folder, twice: (a) call_genotype sharded (inner chunks 500 x 250 x 2 in
   shards 2000 x 500 x 2, blosc zstd bitshuffle, index with crc32c), the other arrays with
   zarr-python's default codecs, consolidated metadata in the root zarr.json; (b) unsharded,
   no consolidated metadata, chunk keys "c.i.j.k".  _ARRAY_DIMENSIONS become dimension_names.
2. testdata/realdata/khuman_chr22.vcf.gz is converted by bio2zarr's vcf2zarr with
   --zarr-format 3 (the same command testdata/make_realdata.sh uses for the committed v2 store).
`gensvd pca` (TSV scores) and `gensvd pdist` (TSV; euclidean, and ibs on a variant range) on each v3 store must
equal, byte for byte, the same commands on the v2 original; `gensvd info` must say "format v3".
Exit 77 (skipped) without zarr-python 3 (and, for part 2 only, without bio2zarr).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")
try:
    import numpy as np
    import zarr
    from zarr.codecs import BloscCodec
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import make_v3_fixtures
    if int(zarr.__version__.split(".")[0]) < 3:
        raise ImportError("zarr-python 3 needed")
except ImportError as e:
    print("skipped: %s" % e)
    sys.exit(77)

FAILED = []


def hapmap_layout(name, a):
    if name == "call_genotype":
        return dict(chunks=(500, 250, 2), shards=(2000, 500, 2),
                    compressors=[BloscCodec(cname="zstd", clevel=7, shuffle="bitshuffle")])
    return None


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode,
                                                p.stderr.decode("utf-8", "replace")[-500:]))
    return p.stdout


def compare(gensvd, v2, v3, label):
    info = run([gensvd, "info", "--no-sizes", v3]).decode()
    if "format v3" not in info:
        FAILED.append("%s: gensvd info does not say format v3" % label)
    for args in (["pca", "-k", "5"], ["pca", "-k", "3", "--threads", "1"],
                 ["pdist"], ["pdist", "-m", "ibs", "--variants", "100:3000"]):
        a = run([gensvd] + args + [v2])
        b = run([gensvd] + args + [v3])
        ok = a == b and len(a) > 0
        print("%s %s: %s %s" % ("ok  " if ok else "FAIL", label, " ".join(args),
                                "" if ok else "(outputs differ)"))
        if not ok:
            FAILED.append("%s %s" % (label, " ".join(args)))


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    gensvd, testdata = argv[1], argv[2]
    real = os.path.join(testdata, "realdata")
    tmp = tempfile.mkdtemp()
    try:
        hap = os.path.join(real, "hapmap3.vcz")
        for sharded, consolidated, tag in [(True, True, "sharded"), (False, False, "plain")]:
            dst = os.path.join(tmp, "hapmap3_%s.vcz" % tag)
            make_v3_fixtures.copy_v3(
                hap, dst, hapmap_layout if sharded else None, consolidated,
                None if sharded else {"name": "default", "configuration": {"separator": "."}})
            compare(gensvd, hap, dst, "hapmap3 v3 %s" % tag)
        vcf2zarr = os.path.join(os.path.dirname(sys.executable), "vcf2zarr")
        if os.path.exists(vcf2zarr):
            dst = os.path.join(tmp, "khuman_v3.vcz")
            run([vcf2zarr, "convert", "--zarr-format", "3", "-Q", "-p", "0", "-l", "1000", "-w",
                 "100", os.path.join(real, "khuman_chr22.vcf.gz"), dst])
            compare(gensvd, os.path.join(real, "khuman_chr22.vcz"), dst, "khuman vcf2zarr v3")
        else:
            print("bio2zarr not installed: the vcf2zarr --zarr-format 3 part is skipped")
    except RuntimeError as e:
        FAILED.append(str(e))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in FAILED:
        print("FAIL %s" % f)
    print("%s" % ("all identical" if not FAILED else "%d failed" % len(FAILED)))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
