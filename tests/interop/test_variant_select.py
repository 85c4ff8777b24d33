#!/usr/bin/env python3
"""--var-filter, --var-filter-except, --chr and the variant lists (--extract, --exclude and
their -bed and -range forms) against plink2 on the same genotypes: the VCF FILTER column as
bio2zarr stores it, the contigs, variant IDs and positional ranges.

usage: test_variant_select.py GENSVD TESTDATA_DIR

testdata/realdata/khuman_chr22.vcf.gz (3,492 variants, every FILTER PASS) gets FILTER values
written here: LowQual on every 5th record, "q10;LowQual" on every 7th, '.' (missing) on every
11th, PASS elsewhere; bio2zarr's vcf2zarr converts it (Zarr 2 and 3).  Checked on each store:
- the variants kept: `gensvd ldprune` (window 50, step 5, r^2 0.2) keeps the same variant IDs as
  plink2 `--indep-pairwise 50 5 0.2` with `--var-filter`, with `--var-filter LowQual`
  (gensvd's --var-filter-except LowQual), and without either (where the kept sets differ);
- KING: `pdist -m king --var-filter` equals plink2 `--var-filter --make-king square` to 1e-12,
  and with a `--variant-mask` too, plink2 with `--extract` of the mask's variants;
- PCA: `pca --var-filter --scaler hwe -k 4 --plink` eigenvalues equal plink2 `--var-filter
  --pca 4` to 1e-4 relative (plink2 prints 6 digits; its divisor counts the monomorphic
  variants it reads, gensvd's only those used);
- errors: --var-filter on a store without variant_filter (HapMap3's) exits 1 naming the store
  and the arrays; an exception that is no filter of the store is warned about; pdist --axis
  variants refuses --var-filter (exit 2);
- --chr on HapMap3 (contigs 1..22, 23, 25, 26 as PLINK numbers them) against plink2 --chr on a
  .bed of the same store: ldprune's kept variants for 1-22, "2,chr4,20-22" and "X,MT", and for
  --not-chr, --autosome, --autosome-par (-xy) and --from-/--to-bp/kb/mb as plink2 takes them
  (plink2's codes: X is 23, MT 26), KING for 1-5; --chr Z (no such contig) fails naming it, 22-1 is
  refused;
- the variant lists on HapMap3 against plink2 --extract/--exclude [bed0|bed1] (check_lists);
  errors naming the file and line, warnings for lists that choose nothing;
- --hwe [--hwe-midp] on HapMap3 against plink2 --hwe [midp] (check_hwe): ldprune's kept
  variants, pca's dropped count, haploid calls refused.
Exit 77 (skipped) without bio2zarr's vcf2zarr or plink2."""

import gzip
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import zarr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checklib import check, on_cpu, summary  # noqa: E402

VCF2ZARR = os.path.join(os.path.dirname(sys.executable), "vcf2zarr")
PLINK2 = shutil.which("plink2")
if not os.path.exists(VCF2ZARR) or not PLINK2:
    print("skipped: needs bio2zarr's vcf2zarr next to %s and plink2" % sys.executable)
    sys.exit(77)


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600,
                          **kw)


def write_vcf(src, dst):
    """The VCF with FILTER values and their header lines."""
    n = 0
    with gzip.open(src, "rt") as f, open(dst, "w") as out:
        for line in f:
            if line.startswith("##"):
                out.write(line)
                continue
            if line.startswith("#"):
                out.write('##FILTER=<ID=LowQual,Description="low quality">\n')
                out.write('##FILTER=<ID=q10,Description="quality below 10">\n')
                out.write(line)
                continue
            n += 1
            c = line.rstrip("\n").split("\t")
            c[6] = ("LowQual" if n % 5 == 0 else "q10;LowQual" if n % 7 == 0 else "."
                    if n % 11 == 0 else "PASS")
            out.write("\t".join(c) + "\n")


def kept_ids(store, mask):
    ids = zarr.open_group(store, mode="r")["variant_id"][:]
    keep = zarr.open_group(mask, mode="r")["variant_ld_keep"][:].astype(bool)
    return set(str(i) for i in ids[keep])


def check_ldprune(gensvd, store, vcf, tmp, tag):
    sets = {}
    for name, ours, theirs in (("--var-filter", ["--var-filter"], ["--var-filter"]),
                               ("--var-filter-except LowQual", ["--var-filter-except", "LowQual"],
                                ["--var-filter", "LowQual"]),
                               ("no filter", [], [])):
        mask = os.path.join(tmp, "keep.zarr")
        r = run(on_cpu([gensvd, "ldprune", store, "--window", "50", "--step", "5", "--r2", "0.2",
                        *ours, "-o", mask, "-f", "-q"]))
        if not check(f"{tag} ldprune {name}: exit 0", r.returncode == 0, r.stderr):
            continue
        p = run([PLINK2, "--vcf", vcf, *theirs, "--indep-pairwise", "50", "5", "0.2",
                 "--out", os.path.join(tmp, "p")])
        want = set(open(os.path.join(tmp, "p.prune.in")).read().split())
        got = kept_ids(store, mask)
        sets[name] = got
        check(f"{tag} ldprune {name}: plink2's variants ({len(want)})", got == want,
              f"{len(got)} kept, {len(got ^ want)} differ: {sorted(got ^ want)[:5]} {p.stderr}")
    if len(sets) == 3:
        check(f"{tag}: the filters change what is kept", len(
            {frozenset(s) for s in sets.values()}) == 3, str([len(s) for s in sets.values()]))


def check_king(gensvd, store, vcf, tmp, tag):
    out = os.path.join(tmp, "k.zarr")
    r = run(on_cpu([gensvd, "pdist", store, "-m", "king", "--var-filter", "-o", out, "-f",
                    "-q"]))
    if not check(f"{tag} pdist -m king --var-filter: exit 0", r.returncode == 0, r.stderr):
        return
    p = run([PLINK2, "--vcf", vcf, "--var-filter", "--make-king", "square", "bin",
             "--out", os.path.join(tmp, "k")])
    n = len(zarr.open_group(out, mode="r")["sample_id"][:])
    want = np.fromfile(os.path.join(tmp, "k.king.bin")).reshape(n, n)
    got = zarr.open_group(out, mode="r")["distance"][:]
    err = np.nanmax(np.abs(got - want))
    check(f"{tag} KING = plink2 --var-filter --make-king", err <= 1e-12, f"{err:.3g} {p.stderr}")
    # with a variant mask as well (every third variant off): both apply
    ids = zarr.open_group(store, mode="r")["variant_id"][:]
    keep = np.arange(len(ids)) % 3 != 0
    mask = os.path.join(tmp, "m.zarr")
    zarr.open_group(mask, mode="w", zarr_format=2).create_array("variant_ld_keep", data=keep)
    with open(os.path.join(tmp, "m.txt"), "w") as f:
        f.write("\n".join(str(i) for i in ids[keep]) + "\n")
    r = run(on_cpu([gensvd, "pdist", store, "-m", "king", "--var-filter", "--variant-mask", mask,
                    "-o", out, "-f", "-q"]))
    p = run([PLINK2, "--vcf", vcf, "--var-filter", "--extract", os.path.join(tmp, "m.txt"),
             "--make-king", "square", "bin", "--out", os.path.join(tmp, "k")])
    want = np.fromfile(os.path.join(tmp, "k.king.bin")).reshape(n, n)
    got = zarr.open_group(out, mode="r")["distance"][:] if r.returncode == 0 else want + 1
    err = np.nanmax(np.abs(got - want))
    check(f"{tag} KING --var-filter --variant-mask = plink2 --var-filter --extract", err <= 1e-12,
          f"{err:.3g} {r.stderr} {p.stderr}")


def check_pca(gensvd, store, vcf, tmp, tag):
    """plink2's eigenvalues divide by every variant it reads, monomorphic ones too; gensvd's by
    those it uses (M_used): compared on one scale."""
    pre, out = os.path.join(tmp, "g"), os.path.join(tmp, "g.zarr")
    r = run(on_cpu([gensvd, "pca", store, "--var-filter", "--scaler", "hwe", "-k", "4",
                    "--plink", pre, "-o", out, "-f", "-q"]))
    if not check(f"{tag} pca --var-filter: exit 0", r.returncode == 0, r.stderr):
        return
    p = run([PLINK2, "--vcf", vcf, "--var-filter", "--pca", "4", "--out",
             os.path.join(tmp, "p")])
    m_read = [int(w.split()[0]) for w in open(os.path.join(tmp, "p.log"))
              if "variants remaining after main filters" in w]
    m_used = zarr.open_group(out, mode="r").attrs["M_used"]
    got = np.loadtxt(pre + ".eigenval") * m_used / m_read[0]
    want = np.loadtxt(os.path.join(tmp, "p.eigenval"))
    rel = np.max(np.abs(got - want) / want)
    check(f"{tag} pca eigenvalues = plink2 --var-filter --pca ({m_read[0]} variants read, "
          f"{m_used} used)", rel <= 1e-4, f"{rel:.3g}: {got} vs {want} {p.stderr[-300:]}")


def check_errors(gensvd, hapmap, store, tmp):
    r = run(on_cpu([gensvd, "pca", hapmap, "--var-filter", "-k", "2", "--format", "tsv"]))
    check("no variant_filter: exit 1, naming the store and the arrays",
          r.returncode == 1 and "hapmap3.vcz" in r.stderr and "variant_filter" in r.stderr
          and r.stdout == "", r.stderr)
    r = run(on_cpu([gensvd, "ldprune", store, "--window", "50", "--r2", "0.2",
                    "--var-filter-except", "LowQual,nosuch", "-o", os.path.join(tmp, "w.zarr")]))
    check("an unknown exception: warned", r.returncode == 0 and "nosuch" in r.stderr, r.stderr)
    r = run(on_cpu([gensvd, "pdist", store, "--axis", "variants", "--var-filter",
                    "--format", "tsv"]))
    check("pdist --axis variants --var-filter: usage error", r.returncode == 2, r.stderr)


def hapmap_bed(hapmap, tmp, name="hapmap3"):
    """HapMap3 as a .bed (pca_oracle.py write-bed), made once: its prefix, or None."""
    bed = os.path.join(tmp, name)
    if os.path.exists(bed + ".bim"):
        return bed
    oracle = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pca",
                          "pca_oracle.py")
    r = run([sys.executable, oracle, "write-bed", hapmap, bed])
    return bed if check(f"HapMap3 as a .bed ({name})", r.returncode == 0, r.stderr[-300:]) else None


def same_pruning(gensvd, hapmap, bed, tmp, ours, theirs):
    """ldprune (window 50, step 5, r2 0.2) with options `ours` keeps the variants of plink2
    --indep-pairwise 50 5 0.2 with `theirs` on the .bed of the same genotypes."""
    ids = [line.split()[1] for line in open(bed + ".bim")]
    tag = " ".join(ours)
    mask = os.path.join(tmp, "prune.zarr")
    r = run(on_cpu([gensvd, "ldprune", hapmap, "--window", "50", "--step", "5", "--r2", "0.2",
                    "-o", mask, "-f", "-q"] + ours))
    if not check(f"ldprune {tag}: exit 0", r.returncode == 0, r.stderr):
        return
    if os.path.exists(os.path.join(tmp, "prune.prune.in")):
        os.remove(os.path.join(tmp, "prune.prune.in"))  # not the last case's
    p = run([PLINK2, "--bfile", bed, "--indep-pairwise", "50", "5", "0.2",
             "--out", os.path.join(tmp, "prune")] + theirs)
    if not check(f"plink2 {' '.join(theirs)}: prune.in written",
                 os.path.exists(os.path.join(tmp, "prune.prune.in")), p.stderr[-300:]):
        return
    want = set(open(os.path.join(tmp, "prune.prune.in")).read().split())
    keep = zarr.open_group(mask, mode="r")["variant_ld_keep"][:].astype(bool)
    got = {ids[i] for i in np.flatnonzero(keep)}
    check(f"ldprune {tag}: plink2 {' '.join(theirs)}'s variants ({len(want)})", got == want,
          f"{len(got)} kept, {len(got ^ want)} differ {p.stderr[-200:]}")


def check_chr(gensvd, hapmap, tmp):
    bed = hapmap_bed(hapmap, tmp)
    if not bed:
        return
    # the same options for both tools: --chr lists, --not-chr, --autosome[-par], and positions
    # on one contig (--from-bp/--to-bp, both bounds included)
    for opts in (["--chr", "1-22"], ["--chr", "2,chr4,20-22"], ["--chr", "X,MT"],
                 ["--not-chr", "X,MT"], ["--not-chr", "1-20"], ["--chr", "1-5", "--not-chr", "3"],
                 ["--autosome"], ["--autosome-par"], ["--autosome", "--not-chr", "2-21"],
                 ["--chr", "6", "--from-bp", "25000000", "--to-bp", "35000000"],
                 ["--chr", "chr2", "--from-bp", "100000000"], ["--chr", "X", "--to-bp", "60000000"],
                 # plink2's other names: --autosome-xy, and the bounds in kb or Mb (a start
                 # rounded up, an end down: rs2070501 lies at 22:15464609, rs9605145 at
                 # 22:15644904)
                 ["--autosome-xy"], ["--chr", "6", "--from-mb", "25", "--to-mb", "35.5"],
                 ["--chr", "22", "--from-kb", "15464.6091"],
                 ["--chr", "22", "--from-kb", "15464.609", "--to-kb", "15644.9045"],
                 ["--chr", "22", "--from-mb", "15.4646089", "--to-kb", "15790.3729"]):
        same_pruning(gensvd, hapmap, bed, tmp, opts, opts)
    for opts, what in ((["--autosome", "--chr", "1"], "--autosome"),
                       (["--from-bp", "5"], "--from-bp"),
                       (["--chr", "1,2", "--to-bp", "5"], "--to-bp"),
                       (["--chr", "1-2", "--from-bp", "5"], "--from-bp"),
                       (["--chr", "1", "--from-bp", "500", "--to-bp", "400"], "--to-bp 400"),
                       (["--chr", "1", "--from-bp", "12x"], "12x"),
                       (["--chr", "1", "--from-bp", "5", "--from-kb", "1"], "given twice"),
                       (["--chr", "1", "--to-mb", "1e3"], "1e3"),
                       (["--not-chr", "1-26"], "--not-chr")):
        r = run(on_cpu([gensvd, "pca", hapmap, "-k", "2", "--format", "tsv"] + opts))
        check(f"{' '.join(opts)}: refused, naming {what}", r.returncode in (1, 2)
              and what in r.stderr and r.stdout == "" and "[" not in r.stderr, r.stderr)
    out = os.path.join(tmp, "kc.zarr")
    r = run(on_cpu([gensvd, "pdist", hapmap, "-m", "king", "--chr", "1-5", "-o", out, "-f",
                    "-q"]))
    p = run([PLINK2, "--bfile", bed, "--chr", "1-5", "--make-king", "square", "bin", "--out",
             os.path.join(tmp, "kc")])
    if check("pdist -m king --chr 1-5: exit 0", r.returncode == 0, r.stderr + p.stderr):
        got = zarr.open_group(out, mode="r")["distance"][:]
        want = np.fromfile(os.path.join(tmp, "kc.king.bin")).reshape(got.shape)
        err = np.nanmax(np.abs(got - want))
        check("KING --chr 1-5 = plink2 --chr 1-5 --make-king", err <= 1e-12, f"{err:.3g}")
    r = run(on_cpu([gensvd, "pca", hapmap, "--chr", "1-22,5,Z", "-k", "2", "--format", "tsv"]))
    check("--chr 1-22,5,Z: Z warned about, 5 (inside 1-22) not", r.returncode == 0
          and "'Z'" in r.stderr and "'5'" not in r.stderr, r.stderr)
    r = run(on_cpu([gensvd, "pca", hapmap, "--chr", "Z", "-k", "2", "--format", "tsv"]))
    check("--chr Z: exit 1, naming the item", r.returncode == 1 and "'Z'" in r.stderr
          and r.stdout == "", r.stderr)
    r = run(on_cpu([gensvd, "pca", hapmap, "--chr", "22-1", "-k", "2", "--format", "tsv"]))
    check("--chr 22-1: refused, nothing read", r.returncode in (1, 2) and "22-1" in r.stderr
          and r.stdout == "", r.stderr)


def check_hwe(gensvd, hapmap, tmp):
    """--hwe P [--hwe-midp] (and --geno) against plink2 --hwe P [midp] on a .bed of HapMap3: ldprune's kept
    variants (with --maf and --chr beside it too; the .fam's sexes are unknown, so plink2 tests
    no X variant, and neither Y nor MT: gensvd's rule), pca's count of dropped variants against
    plink2's log, and the refusal of haploid calls."""
    bed = hapmap_bed(hapmap, tmp)
    if not bed:
        return
    for ours, theirs in ((["--hwe", "0.01"], ["--hwe", "0.01"]),
                         (["--hwe", "1e-3", "--hwe-midp"], ["--hwe", "1e-3", "midp"]),
                         (["--hwe", "0.05", "--maf", "0.05"], ["--hwe", "0.05", "--maf", "0.05"]),
                         (["--hwe", "0.2", "--chr", "1-5,X,XY"],
                          ["--hwe", "0.2", "--chr", "1-5,X,XY"]),
                         # plink2's --geno, under its name and ours
                         (["--geno", "0.001", "--hwe", "0.01"], ["--geno", "0.001", "--hwe", "0.01"]),
                         (["--max-missing", "0.002"], ["--geno", "0.002"])):
        same_pruning(gensvd, hapmap, bed, tmp, ours, theirs)
    p = run([PLINK2, "--bfile", bed, "--hwe", "0.01", "--write-snplist", "--out",
             os.path.join(tmp, "hs")])
    removed = [line for line in open(os.path.join(tmp, "hs.log")) if line.startswith("--hwe:")]
    r = run(on_cpu([gensvd, "pca", hapmap, "--hwe", "0.01", "-k", "2", "--format", "tsv"]))
    n = removed[0].split()[1] if removed else "?"
    check(f"pca --hwe 0.01: '{n} --hwe' as plink2 removes", r.returncode == 0
          and f", {n} --hwe," in r.stderr, r.stderr + "".join(removed))
    hap = os.path.join(tmp, "haploid.vcz")
    run([gensvd, "simulate", "-q", "-m", "200", "-n", "20", "-p", "1", hap, "-f"])
    r = run(on_cpu([gensvd, "ldprune", hap, "--window", "50", "--r2", "0.2", "--hwe", "0.01",
                    "-o", os.path.join(tmp, "x.zarr"), "-f"]))
    check("--hwe on haploid calls: exit 1, saying why", r.returncode == 1 and "diploid" in r.stderr
          and "haploid.vcz" in r.stderr, r.stderr)


def check_lists(gensvd, hapmap, tmp):
    """--extract/--exclude (IDs) and the -bed (0-based) and -range (1-based) forms against
    plink2 --extract/--exclude [bed0|bed1] on a .bed of HapMap3 (ldprune's kept variants,
    KING) and numpy (pca); range bounds on variant positions, so the two conventions differ."""
    bed = hapmap_bed(hapmap, tmp, "hapmap3l")
    if not bed:
        return
    bim = [line.split() for line in open(bed + ".bim")]
    ids, pos = [b[1] for b in bim], [int(b[3]) for b in bim]
    first = {}
    for i, b in enumerate(bim):
        first.setdefault(b[0], i)
    f = {k: os.path.join(tmp, k) for k in ("ids", "ours", "theirs", "bad", "nosuch")}
    with open(f["ids"], "w") as out:  # words on lines, tabs, CRLF, and IDs of no variant
        out.write(" ".join(ids[0:600:3]) + "\r\n\t" + "\n".join(ids[1000::4]) + "\nrs_none\n")
    # ranges starting and ending on variants: chromosome 6's variants 50-400 and chromosome 2's
    # 10-300, "chr"-prefixed and with BED headers in gensvd's file
    c6, c2 = first["6"], first["2"]
    spans = [("6", pos[c6 + 50], pos[c6 + 400]), ("2", pos[c2 + 10], pos[c2 + 300])]
    with open(f["ours"], "w") as out:
        out.write("track name=regions\n# high-LD regions\n")
        out.write("".join(f"chr{c}\t{a}\t{b}\tname\n" for c, a, b in spans))
    with open(f["theirs"], "w") as out:
        out.write("".join(f"{c}\t{a}\t{b}\n" for c, a, b in spans))
    cases = (("--extract", ["--extract", f["ids"]], ["--extract", f["ids"]]),
             ("--exclude", ["--exclude", f["ids"]], ["--exclude", f["ids"]]),
             ("--extract-bed", ["--extract-bed", f["ours"]], ["--extract", "bed0", f["theirs"]]),
             ("--extract-range", ["--extract-range", f["ours"]],
              ["--extract", "bed1", f["theirs"]]),
             ("--exclude-bed --chr 1-8", ["--exclude-bed", f["ours"], "--chr", "1-8"],
              ["--exclude", "bed0", f["theirs"], "--chr", "1-8"]),
             ("--exclude-range --extract", ["--exclude-range", f["ours"], "--extract", f["ids"]],
              ["--exclude", "bed1", f["theirs"], "--extract", f["ids"]]))
    sizes = {}
    for name, ours, theirs in cases:
        mask = os.path.join(tmp, "l.zarr")
        r = run(on_cpu([gensvd, "ldprune", hapmap, "--window", "20", "--step", "2", "--r2", "0.05",
                        *ours, "-o", mask, "-f", "-q"]))
        if not check(f"ldprune {name}: exit 0", r.returncode == 0, r.stderr):
            continue
        run([PLINK2, "--bfile", bed, *theirs, "--indep-pairwise", "20", "2", "0.05", "--out",
             os.path.join(tmp, "l")])
        want = set(open(os.path.join(tmp, "l.prune.in")).read().split())
        keep = zarr.open_group(mask, mode="r")["variant_ld_keep"][:].astype(bool)
        got = {ids[i] for i in np.flatnonzero(keep)}
        sizes[name] = len(got)
        check(f"ldprune {name}: plink2's variants ({len(want)} of {len(ids)})",
              got == want and 0 < len(want) < len(ids), f"{len(got)} kept, {len(got ^ want)} differ")
    check("0-based and 1-based bounds differ on these ranges",
          sizes.get("--extract-bed") != sizes.get("--extract-range"), str(sizes))
    out = os.path.join(tmp, "kl.zarr")
    r = run(on_cpu([gensvd, "pdist", hapmap, "-m", "king", "--exclude-range", f["ours"],
                    "--extract", f["ids"], "-o", out, "-f", "-q"]))
    p = run([PLINK2, "--bfile", bed, "--exclude", "bed1", f["theirs"], "--extract", f["ids"],
             "--make-king", "square", "bin", "--out", os.path.join(tmp, "kl")])
    if check("pdist -m king --exclude-range --extract: exit 0", r.returncode == 0 and
             p.returncode == 0, r.stderr + p.stdout[-300:]):
        got = zarr.open_group(out, mode="r")["distance"][:]
        want = np.fromfile(os.path.join(tmp, "kl.king.bin")).reshape(got.shape)
        err = np.nanmax(np.abs(got - want))
        check("KING = plink2 --exclude bed1 --extract --make-king", err <= 1e-12, f"{err:.3g}")
    # pca: the variants numpy puts inside the ranges (0-based, half-open), as a --variant-mask,
    # give the same eigenvalues, to the byte, as --extract-bed
    chrom, p = np.array([b[0] for b in bim]), np.array(pos)
    keep = np.zeros(len(ids), dtype=bool)
    for c, a, b in spans:
        keep |= (chrom == c) & (p > a) & (p <= b)
    mask = os.path.join(tmp, "pm.zarr")
    zarr.open_group(mask, mode="w", zarr_format=2).create_array("variant_ld_keep", data=keep)
    vals = []
    for sel in (["--extract-bed", f["ours"]], ["--variant-mask", mask]):
        pre = os.path.join(tmp, "gl")
        r = run(on_cpu([gensvd, "pca", hapmap, *sel, "-k", "4", "--plink", pre, "-f", "-q"]))
        vals.append(open(pre + ".eigenval").read() if r.returncode == 0 else r.stderr)
    check(f"pca --extract-bed = pca with numpy's mask ({keep.sum()} variants)",
          vals[0] == vals[1] and keep.sum() > 0, str(vals))
    # errors and warnings
    base = [gensvd, "pca", hapmap, "-k", "2", "--format", "tsv"]
    r = run(on_cpu(base + ["--extract", os.path.join(tmp, "absent.txt")]))
    check("--extract of a missing file: exit 1 naming it", r.returncode == 1
          and "absent.txt" in r.stderr and r.stdout == "", r.stderr)
    with open(f["bad"], "w") as out:
        out.write("6 100 200\n6 300\n")
    r = run(on_cpu(base + ["--exclude-range", f["bad"]]))
    check("a range line of two columns: exit 1 naming the file and line 2", r.returncode == 1
          and f["bad"] + ": line 2" in r.stderr and r.stdout == "", r.stderr)
    with open(f["bad"], "w") as out:
        out.write("6 200 200\n")
    r = run(on_cpu(base + ["--extract-bed", f["bad"]]))
    check("an empty BED range: exit 1 naming line 1", r.returncode == 1
          and f["bad"] + ": line 1" in r.stderr, r.stderr)
    with open(f["nosuch"], "w") as out:
        out.write("rs_none_1 rs_none_2\n")
    r = run(on_cpu(base + ["--exclude", f["nosuch"]]))
    check("--exclude of IDs naming no variant: warned, run", r.returncode == 0
          and "none of the 2 IDs" in r.stderr, r.stderr)
    r = run(on_cpu(base + ["--extract", f["nosuch"]]))
    check("--extract of IDs naming no variant: exit 1", r.returncode == 1
          and "nosuch" in r.stderr and r.stdout == "", r.stderr)
    noid = os.path.join(tmp, "noid.vcz")
    shutil.copytree(hapmap, noid)
    shutil.rmtree(os.path.join(noid, "variant_id"))
    for fn in (".zmetadata",):
        if os.path.exists(os.path.join(noid, fn)):
            os.remove(os.path.join(noid, fn))
    r = run(on_cpu([gensvd, "pca", noid, "-k", "2", "--format", "tsv", "--extract", f["ids"]]))
    check("--extract on a store without variant_id: exit 1 naming it", r.returncode == 1
          and "variant_id" in r.stderr and "noid.vcz" in r.stderr, r.stderr)
    r = run(on_cpu([gensvd, "pdist", hapmap, "--axis", "variants", "--extract", f["ids"],
                    "--format", "tsv"]))
    check("pdist --axis variants --extract: usage error", r.returncode == 2, r.stderr)


def main():
    gensvd, testdata = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        vcf = os.path.join(tmp, "f.vcf")
        write_vcf(os.path.join(testdata, "realdata", "khuman_chr22.vcf.gz"), vcf)
        with open(vcf, "rb") as f, gzip.open(vcf + ".gz", "wb") as g:
            shutil.copyfileobj(f, g)
        for fmt in ("2", "3"):
            store = os.path.join(tmp, f"f{fmt}.vcz")
            r = run([VCF2ZARR, "convert", "--zarr-format", fmt, "-Q", "-p", "0", "-l", "1000",
                     "-w", "100", vcf + ".gz", store])
            if not check(f"vcf2zarr --zarr-format {fmt}", r.returncode == 0, r.stderr[-300:]):
                continue
            ids = zarr.open_group(store, mode="r")["filter_id"][:]
            check(f"Zarr {fmt}: bio2zarr's filters", list(ids) == ["PASS", "LowQual", "q10"],
                  str(ids))
            check_ldprune(gensvd, store, vcf, tmp, f"Zarr {fmt}")
            check_king(gensvd, store, vcf, tmp, f"Zarr {fmt}")
            check_pca(gensvd, store, vcf, tmp, f"Zarr {fmt}")
            if fmt == "2":
                check_errors(gensvd, os.path.join(testdata, "realdata", "hapmap3.vcz"), store,
                             tmp)
        check_chr(gensvd, os.path.join(testdata, "realdata", "hapmap3.vcz"), tmp)
        check_lists(gensvd, os.path.join(testdata, "realdata", "hapmap3.vcz"), tmp)
        check_hwe(gensvd, os.path.join(testdata, "realdata", "hapmap3.vcz"), tmp)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
