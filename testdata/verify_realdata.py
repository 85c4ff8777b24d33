#!/usr/bin/env python3
"""Check testdata/realdata/*.vcz (written by bio2zarr) against the original files.

usage: verify_realdata.py [--gensvd GENSVD] [REALDATA_DIR [VCZ_DIR]]
  REALDATA_DIR  default ../shared/realdata relative to the repository root
  VCZ_DIR       default testdata/realdata
  --gensvd      also check `GENSVD dump VCZ/call_genotype` (whole, and a slice across a chunk
                boundary) and `GENSVD dump VCZ/sample_id` against the same oracles

Independent oracles, not bio2zarr:
  hapmap3.vcz       PLINK 1.9 `--bfile ... --keep-allele-order --recode A` (.raw dosages of the
                    .bim A1 allele = VCF ALT) for every call, and the .bim/.fam text columns.
  khuman_chr22.vcz  a plain gzip parse of the VCF's GT fields (both haplotypes, phasing), and its
                    CHROM/POS/ID/REF/ALT columns and sample header.
Also checks that every labelled sample of the population tables is in sample_id.
Works with zarr-python 2.18 or 3.x. Last line "N passed, N failed"; exit 1 on any failure.
"""

import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import zarr

warnings.filterwarnings("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

passed = 0
failed = 0
GENSVD = None


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s%s" % (what, (": " + detail) if detail else ""))


def open_group(path):
    if int(zarr.__version__.split(".")[0]) >= 3:
        return zarr.open_group(path, mode="r", zarr_format=2)
    return zarr.open_group(path, mode="r")


class Group:
    """Reads arrays of a local Zarr v2 group; chunks missing on disk read as the fill value, or
    as 0 / "" when fill_value is null (bio2zarr writes fill_value null and skips all-zero
    chunks, which zarr-python 2 would leave uninitialised)."""

    def __init__(self, path):
        self.path = path
        self.g = open_group(path)

    def read(self, name):
        import json
        a = np.asarray(self.g[name][...])
        with open(os.path.join(self.path, name, ".zarray")) as f:
            meta = json.load(f)
        sep = meta.get("dimension_separator") or "."
        grid = [-(-s // c) for s, c in zip(meta["shape"], meta["chunks"])]
        for idx in np.ndindex(*grid):
            key = sep.join(str(i) for i in idx) or "0"
            if os.path.exists(os.path.join(self.path, name, *key.split("/"))):
                continue
            if meta["fill_value"] is not None and a.dtype.kind not in "OTU":
                fill = meta["fill_value"]
            else:
                fill = "" if a.dtype.kind in "OTU" else 0
            sl = tuple(slice(i * c, (i + 1) * c) for i, c in zip(idx, meta["chunks"]))
            if a.dtype.kind == "O":
                sub = a[sl]
                for j in np.ndindex(*sub.shape):
                    sub[j] = fill
            else:
                a[sl] = fill
        return a


def strs(a):
    return [str(x) for x in np.asarray(a).ravel().tolist()]


def first_diff(a, b):
    d = np.argwhere(a != b)
    return "%d differences, first at %s: %s vs %s" % (
        len(d), tuple(d[0]), a[tuple(d[0])], b[tuple(d[0])]) if len(d) else ""


def gensvd_dump(target, slice_spec=None):
    """Run `GENSVD dump [--slice S] target`; return stdout lines, or None (reported) on error."""
    cmd = [GENSVD, "dump"] + (["--slice", slice_spec] if slice_spec else []) + [target]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        err = p.stderr.decode("utf-8", "replace").strip().splitlines()
        check(False, " ".join(cmd[1:]), "exit %d: %s" % (p.returncode, err[-1] if err else ""))
        return None
    text = p.stdout.decode("utf-8")
    return text[:-1].split("\n") if text else []


def gensvd_genotypes(vcz, slice_spec=None):
    """call_genotype as dumped by gensvd (3-D contract: a line per variant, a tab-separated cell
    per sample, alleles joined by '/'), as an int8 array; None on error."""
    lines = gensvd_dump(os.path.join(vcz, "call_genotype"), slice_spec)
    if lines is None:
        return None
    try:
        return np.array([[[int(x) for x in cell.split("/")] for cell in line.split("\t")]
                         for line in lines], dtype=np.int8)
    except ValueError as e:
        check(False, "gensvd dump %s/call_genotype output" % vcz, str(e))
        return None


def check_gensvd(name, vcz, samples, compare):
    """compare(gt_array, variant_offset) -> (ok, detail)."""
    lines = gensvd_dump(os.path.join(vcz, "sample_id"))
    if lines is not None:
        check(lines == samples, "%s: gensvd dump sample_id" % name)
    gt = gensvd_genotypes(vcz)
    if gt is not None:
        ok, detail = compare(gt, 0)
        check(ok, "%s: gensvd dump call_genotype" % name, detail)
    # a slice across the first variant-chunk boundary and inside the sample axis
    v0 = int(open_group(vcz)["call_genotype"].chunks[0]) - 7
    spec = "%d:%d,3:%d" % (v0, v0 + 15, len(samples) - 2)
    gt = gensvd_genotypes(vcz, spec)
    if gt is not None:
        ok, detail = compare(gt, (v0, 3, len(samples) - 2))
        check(ok, "%s: gensvd dump --slice %s call_genotype" % (name, spec), detail)


def plink_exe():
    for name in ("plink1.9", "plink"):
        p = shutil.which(name)
        if p:
            return p
    return None


def verify_hapmap3(src, vcz):
    prefix = os.path.join(src, "hapmap3_957x14389", "hapmap3_957")
    g = Group(vcz)
    with open(prefix + ".fam") as f:
        fam = [line.split() for line in f if line.strip()]
    with open(prefix + ".bim") as f:
        bim = [line.split() for line in f if line.strip()]
    gt = np.asarray(g.read("call_genotype"))
    check(gt.shape == (len(bim), len(fam), 2), "hapmap3 call_genotype shape",
          "%s vs (%d, %d, 2)" % (gt.shape, len(bim), len(fam)))
    check(gt.shape == (14389, 957, 2), "hapmap3 size is 14389 x 957 x 2", str(gt.shape))
    check(strs(g.read("sample_id")) == [r[1] for r in fam], "hapmap3 sample_id == .fam IID")
    check(strs(g.read("variant_id")) == [r[1] for r in bim], "hapmap3 variant_id == .bim ID")
    pos = np.asarray(g.read("variant_position"))
    check(pos.tolist() == [int(r[3]) for r in bim], "hapmap3 variant_position == .bim pos")
    al = np.asarray(g.read("variant_allele")).astype(object)
    check(al[:, 0].tolist() == [r[5] for r in bim] and al[:, 1].tolist() == [r[4] for r in bim],
          "hapmap3 variant_allele == .bim [A2, A1] (REF, ALT)")
    contigs = strs(g.read("contig_id"))
    vc = np.asarray(g.read("variant_contig"))
    check([contigs[i] for i in vc.tolist()] == [r[0] for r in bim],
          "hapmap3 contig_id[variant_contig] == .bim chrom")

    plink = plink_exe()
    if plink is None:
        check(False, "hapmap3 genotypes vs PLINK", "plink1.9 not found")
        return
    tmp = tempfile.mkdtemp(prefix="gensvd-verify-")
    try:
        subprocess.run([plink, "--bfile", prefix, "--keep-allele-order", "--recode", "A",
                        "--allow-extra-chr", "--out", os.path.join(tmp, "r"), "--silent"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(os.path.join(tmp, "r.raw")) as f:
            header = f.readline().split()
            rows = [line.split() for line in f]
    finally:
        shutil.rmtree(tmp)
    snp_cols = header[6:]
    check([c.rsplit("_", 1)[0] for c in snp_cols] == [r[1] for r in bim],
          "hapmap3 .raw columns == .bim IDs")
    check([c.rsplit("_", 1)[1] for c in snp_cols] == [r[4] for r in bim],
          "hapmap3 .raw counted allele == .bim A1")
    check([r[1] for r in rows] == [r[1] for r in fam], "hapmap3 .raw samples == .fam")
    raw = np.array([[(-1 if v == "NA" else int(v)) for v in r[6:]] for r in rows],
                   dtype=np.int16).T  # variants x samples
    missing = (gt == -1).any(axis=2)
    dos = np.where(missing, -1, (gt > 0).sum(axis=2)).astype(np.int16)
    check(np.array_equal(dos, raw), "hapmap3 dosage(call_genotype) == PLINK --recode A",
          first_diff(dos, raw))
    check(not ((gt == -1).any(axis=2) & (gt != -1).any(axis=2)).any(),
          "hapmap3 missing calls have both alleles -1")
    check(int((raw < 0).sum()) > 0, "hapmap3 has missing calls (as SOURCES.md says)")
    check(not np.asarray(g.read("call_genotype_phased")).any(), "hapmap3 calls are unphased")
    if GENSVD:
        def compare(got, sl):
            want = raw if not sl else raw[sl[0]:sl[0] + 15, sl[1]:sl[2]]
            if got.ndim != 3 or got.shape[:2] != want.shape:
                return False, "shape %s vs %s" % (got.shape, want.shape)
            d = np.where((got == -1).any(axis=2), -1, (got > 0).sum(axis=2)).astype(np.int16)
            return bool(np.array_equal(d, want)), first_diff(d, want)
        check_gensvd("hapmap3", vcz, [r[1] for r in fam], compare)


def parse_gt(field):
    gtf = field.split(":", 1)[0]
    sep = "|" if "|" in gtf else "/"
    return [(-1 if a == "." else int(a)) for a in gtf.split(sep)], sep == "|"


def verify_khuman(src, vcz):
    path = os.path.join(src, "khuman_1kg_chr22", "Khuman.vcf.gz")
    g = Group(vcz)
    samples = None
    chrom, pos, ids, ref, alt, calls, phased = [], [], [], [], [], [], []
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.startswith("##"):
                continue
            cols = line.rstrip("\n").split("\t")
            if line.startswith("#CHROM"):
                samples = cols[9:]
                continue
            chrom.append(cols[0])
            pos.append(int(cols[1]))
            ids.append(cols[2])
            ref.append(cols[3])
            alt.append(cols[4].split(","))
            check_fmt = cols[8].split(":")[0] == "GT"
            if not check_fmt:
                raise SystemExit("unexpected FORMAT %r" % cols[8])
            row, ph = zip(*(parse_gt(c) for c in cols[9:]))
            calls.append(row)
            phased.append(ph)
    ploidy = max(len(c) for row in calls for c in row)
    exp = np.full((len(calls), len(samples), ploidy), -2, dtype=np.int8)
    for i, row in enumerate(calls):
        for j, c in enumerate(row):
            exp[i, j, :len(c)] = c
    gt = np.asarray(g.read("call_genotype"))
    check(gt.shape == exp.shape, "khuman call_genotype shape", "%s vs %s" % (gt.shape, exp.shape))
    check(gt.shape == (3492, 203, 2), "khuman size is 3492 x 203 x 2", str(gt.shape))
    if gt.shape == exp.shape:
        check(np.array_equal(gt, exp), "khuman call_genotype == VCF GT (both haplotypes)",
              first_diff(gt, exp))
    ph = np.asarray(g.read("call_genotype_phased"))
    check(np.array_equal(ph, np.array(phased)), "khuman call_genotype_phased == VCF '|'")
    check(strs(g.read("sample_id")) == samples, "khuman sample_id == VCF header")
    check(np.asarray(g.read("variant_position")).tolist() == pos, "khuman variant_position == POS")
    check(strs(g.read("variant_id")) == ids, "khuman variant_id == ID")
    al = np.asarray(g.read("variant_allele")).astype(object)
    check(all(al[i, 0] == ref[i] and [a for a in al[i, 1:] if a] == alt[i]
              for i in range(len(ref))), "khuman variant_allele == REF, ALT")
    contigs = strs(g.read("contig_id"))
    vc = np.asarray(g.read("variant_contig"))
    check([contigs[i] for i in vc.tolist()] == chrom, "khuman contig_id[variant_contig] == CHROM")
    if GENSVD:
        def compare(got, sl):
            want = exp if not sl else exp[sl[0]:sl[0] + 15, sl[1]:sl[2]]
            if got.shape != want.shape:
                return False, "shape %s vs %s" % (got.shape, want.shape)
            return bool(np.array_equal(got, want)), first_diff(got, want)
        check_gensvd("khuman", vcz, samples, compare)
    ac = (exp > 0).sum(axis=(1, 2))
    npoly = int(((ac > 0) & (ac < 2 * len(samples))).sum())
    check(npoly == 1194, "khuman has 1,194 polymorphic sites (as SOURCES.md says)", str(npoly))


def verify_labels(vcz_dir):
    h = Group(os.path.join(vcz_dir, "hapmap3.vcz"))
    hs = set(strs(h.read("sample_id")))
    with open(os.path.join(vcz_dir, "hapmap3_957.populations.tsv")) as f:
        next(f)
        rows = [line.split("\t") for line in f if line.strip()]
    check(len(rows) == 957 and all(r[1] in hs for r in rows),
          "hapmap3_957.populations.tsv covers all 957 samples")
    k = Group(os.path.join(vcz_dir, "khuman_chr22.vcz"))
    ks = set(strs(k.read("sample_id")))
    with open(os.path.join(vcz_dir, "khuman_pop.info")) as f:
        rows = [line.split() for line in f if line.strip()]
    check(len(rows) == 203 and all(r[0] in ks for r in rows),
          "khuman_pop.info covers all 203 samples")


def main(argv):
    global GENSVD
    args = list(argv[1:])
    if "--gensvd" in args:
        i = args.index("--gensvd")
        if i + 1 >= len(args):
            sys.stderr.write("verify_realdata.py: --gensvd needs a path\n")
            return 2
        GENSVD = args[i + 1]
        del args[i:i + 2]
    src = args[0] if len(args) > 0 else os.path.join(REPO, "..", "shared", "realdata")
    vcz_dir = args[1] if len(args) > 1 else os.path.join(HERE, "realdata")
    if not os.path.isdir(src):
        # the original files live outside the repository (../shared/realdata beside the
        # checkout); without them there is nothing to verify against: skip, do not fail
        print(f"skip: source folder {src} not found (pass it as the first argument)")
        return 77
    verify_hapmap3(src, os.path.join(vcz_dir, "hapmap3.vcz"))
    verify_khuman(src, os.path.join(vcz_dir, "khuman_chr22.vcz"))
    verify_labels(vcz_dir)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
