#!/usr/bin/env python3
"""The pointer gensvd gives for an input that is not Zarr is a command that works.

usage: test_convert_hint.py GENSVD TESTDATA_DIR

testdata/realdata/khuman_chr22.vcf.gz, as VCF and, through plink2, as a PLINK 1 fileset, a
PLINK 2 fileset and BGEN: `gensvd pca FILE` exits 1 with one line in the message style that
names the file and the conversion; the commands it names (plink2, bio2zarr's vcf2zarr and
plink2zarr) are run as printed, and the store they make holds what the independent oracle
says: the VCF's conversion dumps byte-identical call_genotype and sample_id to the committed
store (testdata/make_realdata.sh made it with vcf2zarr), the PLINK and BGEN ones the same
samples, and `gensvd pca` reads each.  Exit 77 (skipped) without bio2zarr or plink2.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

BIN = os.path.dirname(sys.executable)
TOOLS = {"vcf2zarr": os.path.join(BIN, "vcf2zarr"), "plink2zarr": os.path.join(BIN, "plink2zarr"),
         "plink2": shutil.which("plink2")}
if not all(t and os.path.exists(t) for t in TOOLS.values()):
    print("skipped: needs vcf2zarr and plink2zarr next to %s, and plink2" % sys.executable)
    sys.exit(77)

FAILED = []


def check(cond, what):
    print("%s %s" % ("ok  " if cond else "FAIL", what))
    if not cond:
        FAILED.append(what)


def run(cmd, cwd):
    p = subprocess.run(cmd, capture_output=True, cwd=cwd, timeout=600)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def hint_commands(err):
    """The commands of the pointer, in order: plink2 ... and vcf2zarr/plink2zarr convert A B."""
    cmds = re.findall(r"(plink2 --[^,)]*|(?:vcf2zarr|plink2zarr) convert \S+ [^\s)]+)", err)
    return [c.split() for c in cmds]


def follow(gensvd, d, name, kind, want_cmds):
    """gensvd pca NAME fails pointing at the conversion; its commands, run, make NAME's store."""
    rc, out, err = run([gensvd, "pca", name], d)
    lines = err.splitlines()
    check(rc == 1 and out == b"" and len(lines) == 1 and
          lines[0].startswith("gensvd pca: error: %s: not a Zarr store; gensvd reads Zarr" % name)
          and kind in lines[0], "%s: exit 1, one error naming it and the %s conversion: %s" %
          (name, kind, err))
    cmds = hint_commands(err)
    check([c[0] for c in cmds] == want_cmds,
          "%s: the pointer runs %s: %s" % (name, want_cmds, cmds))
    store = None
    for c in cmds:
        exe = TOOLS[c[0]]
        args = c[1:]
        if c[0] != "plink2":
            args = args[:1] + ["-Q"] + args[1:]  # no progress bars in the test log
            store = c[-1]
        rc, _, e = run([exe] + args, d)
        check(rc == 0, "%s: `%s` ran: %s" % (name, " ".join(c), e[-500:]))
    return store


def main():
    gensvd, testdata = sys.argv[1], sys.argv[2]
    gensvd = os.path.abspath(gensvd)
    ref = os.path.join(os.path.abspath(testdata), "realdata", "khuman_chr22.vcz")
    vcf = os.path.join(os.path.abspath(testdata), "realdata", "khuman_chr22.vcf.gz")
    with tempfile.TemporaryDirectory(prefix="gensvd-hint-") as d:
        shutil.copy(vcf, os.path.join(d, "k.vcf.gz"))
        plink = [TOOLS["plink2"], "--vcf", "k.vcf.gz", "--out"]
        for args in (["kb", "--make-bed"], ["kp", "--make-pgen"], ["kg", "--export", "bgen-1.2"]):
            rc, _, e = run(plink + args, d)
            check(rc == 0, "plink2 %s: %s" % (" ".join(args), e[-300:]))
        made = {
            "k.vcf.gz": follow(gensvd, d, "k.vcf.gz", "VCF", ["vcf2zarr"]),
            "kb.bed": follow(gensvd, d, "kb.bed", "PLINK 1", ["plink2zarr"]),
            "kp.pgen": follow(gensvd, d, "kp.pgen", "PLINK 2", ["plink2", "plink2zarr"]),
            "kg.bgen": follow(gensvd, d, "kg.bgen", "BGEN", ["plink2", "vcf2zarr"]),
        }
        _, ref_ids, _ = run([gensvd, "dump", ref + "/sample_id"], d)
        _, ref_gt, _ = run([gensvd, "dump", ref + "/call_genotype"], d)
        for src, store in made.items():
            if not store:
                continue
            rc, ids, e = run([gensvd, "dump", store + "/sample_id"], d)
            check(rc == 0 and ids == ref_ids and len(ids) > 0,
                  "%s -> %s: the samples of the committed store %s" % (src, store, e[-300:]))
            rc, _, e = run([gensvd, "pca", "-q", "-k", "3", store, "--format", "tsv"], d)
            check(rc == 0 and e == "", "%s -> %s: pca reads it %s" % (src, store, e[-300:]))
        rc, gt, e = run([gensvd, "dump", made["k.vcf.gz"] + "/call_genotype"], d)
        check(rc == 0 and gt == ref_gt, "k.vcf.gz -> k.vcz: call_genotype byte-identical to the "
              "committed store's")
    print("%d failed" % len(FAILED))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
