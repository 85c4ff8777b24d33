#!/usr/bin/env python3
"""`gensvd pdist -m p-distance` and `pdist --haplotypes` on phased calls.

Oracles:
  - VCF2Dis's published p-distance row (sample NA06984 of its example, 1000 Genomes chr22,
    testdata/realdata/khuman_vcf2dis_p_dis_row_NA06984.tsv): all 203 values to its 6 printed
    decimals, from the Zarr output and the TSV; and, where shared/realdata is present, the
    whole 203 x 203 matrix recomputed there (computed_locally/p_dis_phased_recomputed.mat);
  - numpy on the haplotype matrix read with zarr-python (allele > 0 per haplotype, missing
    where the allele is < 0): p-distance = the mean over the haplotype pairs (h against h)
    called in both of [alleles differ]; --haplotypes with hamming, cityblock, euclidean and
    jaccard = scipy's pdist on the haplotypes x variants matrix (pairwise over called ones with
    missing data), item IDs SAMPLE_0, SAMPLE_1;
  - the phase: an unphased heterozygous call is an error naming the variant and the sample, an
    unphased homozygous one is not; no call_genotype_phased is an error; --ignore-phase takes
    the stored order (HapMap3, unphased, against numpy); --ignore-phase alone is refused;
  - the bit-plane and generic kernels give the same bytes, with --memory bands too; n_sites
    counts the haplotype pairs compared.
Usage: test_pdist_haplotypes.py GENSVD
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import zarr
from scipy.spatial.distance import pdist, squareform

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checklib import check, on_cpu, summary  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KH = os.path.join(ROOT, "testdata/realdata/khuman_chr22.vcz")
HM = os.path.join(ROOT, "testdata/realdata/hapmap3.vcz")
ROW = os.path.join(ROOT, "testdata/realdata/khuman_vcf2dis_p_dis_row_NA06984.tsv")
SHARED_MAT = os.path.join(ROOT, "..", "shared/realdata/khuman_1kg_chr22/computed_locally/"
                          "p_dis_phased_recomputed.mat")


def run(args, **kw):
    return subprocess.run(on_cpu(args), capture_output=True, text=True, **kw)


def read_tsv(text):
    lines = text.strip("\n").split("\n")
    ids = lines[0].split("\t")[1:]
    rows = [ln.split("\t") for ln in lines[1:]]
    return ids, [r[0] for r in rows], np.array([[float(x) for x in r[1:]] for r in rows])


def haplotypes(store, variants=None):
    """(variants x samples x ploidy) of 1.0 (allele > 0), 0.0, NaN (allele < 0)."""
    gt = zarr.open(store, mode="r")["call_genotype"]
    g = gt[slice(*variants)] if variants else gt[:]
    h = (g > 0).astype(np.float64)
    h[g < 0] = np.nan
    return h


def p_distance(h):
    """numpy: for each pair, the mean over the (variant, haplotype) pairs called in both."""
    m, n, p = h.shape
    x = h.transpose(1, 0, 2).reshape(n, m * p)  # sample x (variant, haplotype)
    called = ~np.isnan(x)
    xv = np.nan_to_num(x)
    diff = np.zeros((n, n))
    cnt = np.zeros((n, n))
    for i in range(n):
        both = called[i] & called
        diff[i] = ((xv[i] != xv) & both).sum(axis=1)
        cnt[i] = both.sum(axis=1)
    with np.errstate(invalid="ignore"):
        return diff / cnt, cnt


def check_vcf2dis(gensvd, tmp):
    row = [ln.rstrip("\n").split("\t") for ln in open(ROW) if not ln.startswith("#")]
    head, vals = row[0][1:], [float(x) for x in row[1][1:]]
    out = os.path.join(tmp, "kh_pd.zarr")
    r = run([gensvd, "pdist", KH, "-m", "p-distance", "-o", out, "--counts", "-q"])
    if not check("khuman: pdist -m p-distance -o exit 0", r.returncode == 0, r.stderr):
        return None
    z = zarr.open(out, mode="r")
    ids = [str(x) for x in z["sample_id"][:]]
    d = z["distance"][:]
    check("khuman: 203 samples, the VCF's order", ids == head and d.shape == (203, 203))
    i = ids.index("NA06984")
    bad = [(ids[j], d[i, j], vals[j]) for j in range(203) if f"{d[i, j]:.6f}" != f"{vals[j]:.6f}"]
    check("khuman: row NA06984 = VCF2Dis's published row, all 203 values to 6 decimals",
          not bad, str(bad[:5]))
    check("khuman: attributes metric p-distance, M = 2 x 3,492 haplotype sites",
          z.attrs["metric"] == "p-distance" and z.attrs["M"] == 6984, str(dict(z.attrs)))
    check("khuman: n_sites = 2 x 3,492 for every pair (no missing call)",
          bool(np.all(z["n_sites"][:] == 6984)))
    t = run([gensvd, "pdist", KH, "-m", "p-distance", "--format", "tsv", "-q"])
    tids, rids, tv = read_tsv(t.stdout)
    check("khuman: the TSV = the Zarr output", t.returncode == 0 and tids == ids and rids == ids
          and np.array_equal(tv, d))
    if os.path.exists(SHARED_MAT):
        lines = open(SHARED_MAT).read().split("\n")[1:204]
        mat = np.array([[float(x) for x in ln.split("\t")[1:]] for ln in lines])
        names = [ln.split("\t")[0].strip() for ln in lines]
        check("khuman: the whole matrix = shared/realdata's recomputed VCF2Dis matrix "
              "(6 decimals)", names == ids and bool(np.all(np.round(d, 6) == mat)))
    else:
        print("(shared/realdata not here: the whole-matrix comparison is skipped)")
    return d


def check_numpy(gensvd, tmp, d_kh):
    h = haplotypes(KH)
    want, _ = p_distance(h)
    check("khuman: p-distance = numpy on the haplotypes to 1e-15", d_kh is not None and
          bool(np.max(np.abs(d_kh - want)) < 1e-15))
    # --haplotypes: each haplotype an item, against scipy on haplotypes x variants
    x = h.transpose(1, 2, 0).reshape(-1, h.shape[0])
    ids = [f"{s}_{k}" for s in zarr.open(KH, mode="r")["sample_id"][:] for k in range(2)]
    for metric in ("hamming", "cityblock", "euclidean", "jaccard", "p-distance"):
        r = run([gensvd, "pdist", KH, "--haplotypes", "-m", metric, "--format", "tsv", "-q"])
        cols, rows, got = read_tsv(r.stdout)
        ref = squareform(pdist(x, "hamming" if metric == "p-distance" else metric))
        check(f"khuman --haplotypes -m {metric}: 406 items SAMPLE_0/SAMPLE_1 = scipy",
              r.returncode == 0 and cols == ids and rows == ids and
              bool(np.max(np.abs(got - ref)) < 1e-13), r.stderr[-300:])


def phased_store(gensvd, tmp):
    """A simulated store with missing calls, half-missing calls and a call_genotype_phased."""
    store = os.path.join(tmp, "sim.vcz")
    subprocess.run([gensvd, "simulate", store, "-m", "1500", "-n", "90", "-K", "2", "-r",
                    "0.03", "-c", "400,40", "-s", "5", "-q"], check=True)
    g = zarr.open(store, mode="r+")
    gt = g["call_genotype"][:]
    rng = np.random.default_rng(3)
    half = rng.random(gt.shape[:2]) < 0.01  # a few calls with one allele missing
    gt[half, 1] = -1
    g["call_genotype"][:] = gt
    ph = g.create_array("call_genotype_phased", shape=gt.shape[:2], chunks=(400, 40),
                        dtype=bool) if hasattr(g, "create_array") else \
        g.create_dataset("call_genotype_phased", shape=gt.shape[:2], chunks=(400, 40),
                         dtype=bool)
    ph[:] = np.ones(gt.shape[:2], dtype=bool)
    ph.attrs["_ARRAY_DIMENSIONS"] = ["variants", "samples"]
    reconsolidate(store)
    return store, gt


def reconsolidate(store):
    """simulate writes .zmetadata: refresh it after a change (gensvd reads it first)."""
    if os.path.exists(os.path.join(store, ".zmetadata")):
        zarr.consolidate_metadata(store)


def check_missing_and_phase(gensvd, tmp):
    store, gt = phased_store(gensvd, tmp)
    h = (gt > 0).astype(np.float64)
    h[gt < 0] = np.nan
    want, cnt = p_distance(h)
    outs = []
    for extra in ([], ["--kernel", "generic"], ["--memory", "1300000"]):
        out = os.path.join(tmp, f"sim{len(outs)}.zarr")
        r = run([gensvd, "pdist", store, "-m", "p-distance", "-o", out, "--counts", "-v"] + extra)
        if not check(f"sim: p-distance {' '.join(extra)} exit 0", r.returncode == 0, r.stderr):
            return
        if extra and extra[0] == "--memory":
            check("sim: --memory 1300000 computes 2 bands", " 2 band(s)" in r.stderr, r.stderr)
        z = zarr.open(out, mode="r")
        outs.append((z["distance"][:], z["n_sites"][:]))
    d, ns = outs[0]
    off = ~np.eye(d.shape[0], dtype=bool)
    check("sim: p-distance with missing and half-missing calls = numpy (pairwise)",
          bool(np.max(np.abs(d[off] - want[off])) < 1e-15))
    check("sim: n_sites = the haplotype pairs called in both",
          bool(np.array_equal(ns[off], cnt[off].astype(ns.dtype))))
    check("sim: generic kernel and --memory bands: the same bytes",
          all(np.array_equal(o[0], d) and np.array_equal(o[1], ns) for o in outs[1:]))
    # the phase: one unphased het is an error naming it; an unphased hom is not
    g = zarr.open(store, mode="r+")
    het = np.argwhere((gt[:, :, 0] >= 0) & (gt[:, :, 1] >= 0) & (gt[:, :, 0] != gt[:, :, 1]))
    hom = np.argwhere((gt[:, :, 0] == gt[:, :, 1]) & (gt[:, :, 0] >= 0))
    ph = g["call_genotype_phased"]
    v, s = hom[0]
    ph[v, s] = False
    r = run([gensvd, "pdist", store, "-m", "p-distance", "--format", "tsv", "-q"])
    check("sim: an unphased homozygous call is accepted", r.returncode == 0, r.stderr)
    v, s = het[len(het) // 2]
    ph[v, s] = False
    sid = str(g["sample_id"][s])
    for args in (["-m", "p-distance"], ["--haplotypes", "-m", "hamming"]):
        r = run([gensvd, "pdist", store, "--format", "tsv", "-q"] + args)
        check(f"sim {args[0]}: an unphased heterozygous call is an error naming it (exit 1)",
              r.returncode == 1 and f"variant {v}" in r.stderr and sid in r.stderr and
              "--ignore-phase" in r.stderr, r.stderr)
    r = run([gensvd, "pdist", store, "-m", "p-distance", "--ignore-phase", "--format", "tsv",
             "-q"])
    _, _, got = read_tsv(r.stdout)
    check("sim: --ignore-phase takes the stored order (= numpy)", r.returncode == 0 and
          bool(np.nanmax(np.abs(got - want)) < 1e-15))
    shutil.rmtree(os.path.join(store, "call_genotype_phased"))
    reconsolidate(store)
    r = run([gensvd, "pdist", store, "-m", "p-distance", "--format", "tsv", "-q"])
    check("sim: no call_genotype_phased: an error that names it and --ignore-phase (exit 1)",
          r.returncode == 1 and "call_genotype_phased" in r.stderr and
          "--ignore-phase" in r.stderr, r.stderr)


def check_unphased_hapmap(gensvd):
    r = run([gensvd, "pdist", HM, "-m", "p-distance", "--variants", "0:2000", "--format", "tsv",
             "-q"])
    check("hapmap3 (unphased): p-distance is an error (exit 1)", r.returncode == 1 and
          "unphased heterozygous call" in r.stderr, r.stderr[-300:])
    r = run([gensvd, "pdist", HM, "-m", "p-distance", "--ignore-phase", "--variants", "0:2000",
             "--format", "tsv", "-q"])
    _, _, got = read_tsv(r.stdout)
    want, _ = p_distance(haplotypes(HM, (0, 2000)))
    check("hapmap3 --ignore-phase: = numpy on the stored order (missing calls pairwise)",
          r.returncode == 0 and bool(np.nanmax(np.abs(got - want)) < 1e-15))
    r = run([gensvd, "pdist", HM, "--ignore-phase", "-m", "hamming", "--format", "tsv"])
    check("--ignore-phase without p-distance or --haplotypes: exit 2", r.returncode == 2,
          r.stderr)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    gensvd = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="gsvd_haps.", dir=os.environ.get("TMPDIR"))
    try:
        d = check_vcf2dis(gensvd, tmp)
        check_numpy(gensvd, tmp, d)
        check_missing_and_phase(gensvd, tmp)
        check_unphased_hapmap(gensvd)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
