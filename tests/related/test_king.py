#!/usr/bin/env python3
"""KING kinship (`gensvd pdist --metric king|ibs0`, `--min-kinship`) and `gensvd related`
against plink2 2.00a3.5 as the oracle, on the same genotypes (the .bed is written from the store
by tests/pca/pca_oracle.py write-bed; KING does not depend on which allele is counted):

  - the square kinship matrix equals plink2 --make-king square bin (float64) to 1e-12, with the
    same sample order and 0.5 on the diagonal; the same bytes for -t 1 / -t 2, banded --memory,
    the scalar popcounts, the AVX2 engine (GENSVD_CPU_LEVEL=avx2), the generic kernel and a
    --part/--finalize job array;
  - ibs0 and n_sites equal numpy's opposite-homozygote and jointly-called counts (plink2's
    NSNP is one higher than the jointly called sites for a few pairs of HapMap3, e.g. NA12341
    and NA12815: 14,219 against 14,218 counted by numpy and gensvd; its other counts agree);
  - --min-kinship X (TSV with --counts, and Zarr pair arrays read by zarr-python) equals the
    pairs of --make-king-table counts --king-table-filter X: same pairs, HETHET, IBS0,
    HET1_HOM2, HET2_HOM1 equal, NSNP equal to numpy's, kinship to 1e-12;
  - `gensvd related --king-cutoff C` keeps exactly plink2 --king-cutoff C's .king.cutoff.in.id
    (TSV, and the sample_unrelated mask of the Zarr output);
on the HapMap3 autosomes (957 samples, cryptic relatives among them), the 1000 Genomes chr22
subset, simulated missing-call patterns (segments whose few missing calls are counted apart and
segments counted with the called mask, a sample missing at 99% of 90,000 variants; in one band
and in several, every engine the same bytes), and simulated families with planted relatives
(parent-offspring, full sibs, half sibs,
first cousins; unlinked SNPs, 1% missing calls), whose kinships must also land on the expected
0.25, 0.25, 0.125, 0.0625 (and ~0 for unrelated founders) within sampling error.
Usage: test_king.py GENSVD
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import zarr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checklib import (apart_calls, check, check_apart, on_cpu, summary,  # noqa: E402
                      write_calls)

GENSVD = sys.argv[1]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = sys.executable
ORACLE = os.path.join(ROOT, "tests", "pca", "pca_oracle.py")


def run(args, env=None):
    e = dict(os.environ, **(env or {}))
    r = subprocess.run(on_cpu(args), capture_output=True, text=True, env=e)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {r.returncode}\n{r.stderr[-800:]}")
    return r.stdout


def gensvd(*args, env=None):
    return run([GENSVD, *args, "-q"], env)


def plink2(*args):
    return run(["plink2", *args, "--threads", "2"])


def square_tsv(text):
    rows = text.strip().split("\n")
    ids = rows[0].split("\t")[1:]
    return ids, np.array([[float(x) for x in r.split("\t")[1:]] for r in rows[1:]])


def kin0(path):
    """{(id1, id2) sorted: (nsnp, hethet, ibs0, id1 het & id2 hom, id2 het & id1 hom,
    kinship)} of a plink2 .kin0 written with counts cols=id,nsnp,hethet,ibs0,ibs1,kinship.
    plink2 2.00a3.5 writes HET1_HOM2 as the sites where IID2 is het and IID1 hom (numpy
    counts so, e.g. NA06986 / NA06984 of the chr22 data: 61 sites with NA06984 het), the
    other way round from the column names, so the two are swapped here."""
    out = {}
    for line in open(path).read().strip().split("\n")[1:]:
        a, b, n, hh, i0, h2, h1, k = line.split("\t")
        key, (h1, h2) = ((a, b), (h1, h2)) if a < b else ((b, a), (h2, h1))
        out[key] = (int(n), int(hh), int(i0), int(h1), int(h2), float(k))
    return out


def in_ids(path):
    return sorted(line.split("\t")[-1] for line in open(path).read().strip().split("\n")[1:])


def suite(tag, store, tmp, variants=None, chrom=None, filters=(0.0884,),
          cutoffs=(0.0884, 0.177)):
    bed = os.path.join(tmp, tag)
    run([PY, ORACLE, "write-bed", store, bed])
    sel = ["--chr", chrom] if chrom else []
    rng = ["--variants", variants] if variants else []
    pk = os.path.join(tmp, tag + "_k")
    plink2("--bfile", bed, *sel, "--make-king", "square", "bin", "--out", pk)
    plink2("--bfile", bed, *sel, "--make-king-table", "counts",
           "cols=id,nsnp,hethet,ibs0,ibs1,kinship", "--out", pk)
    pids = [line.split("\t")[-1] for line in open(pk + ".king.id").read().strip().split("\n")[1:]]
    P = np.fromfile(pk + ".king.bin").reshape(len(pids), len(pids))
    z = zarr.open_group(store, mode="r")
    gt = z["call_genotype"][slice(*[int(v) if v else None for v in variants.split(":")])
                            if variants else slice(None)]
    called = (gt >= 0).all(axis=2)
    dose = np.where(called, (gt > 0).sum(axis=2), -1)
    C = called.astype(np.float64)
    H0, H2 = (dose == 0).astype(np.float64), (dose == 2).astype(np.float64)
    NS = C.T @ C  # jointly called sites (exact: integers below 2^53)
    I0 = H0.T @ H2 + H2.T @ H0  # opposite homozygotes

    out = gensvd("pdist", store, "-m", "king", *rng, "-t", "2")
    ids, K = square_tsv(out)
    check(f"{tag} king sample order", ids == pids)
    diff = float(np.nanmax(np.abs(K - P))) if K.shape == P.shape else np.inf
    check(f"{tag} king = plink2 --make-king square (1e-12)", diff <= 1e-12, f"max diff {diff}")
    check(f"{tag} king diagonal 0.5", np.all(np.diag(K) == 0.5))
    print(f"{tag}: {len(ids)} samples, king max |gensvd - plink2| = {diff:.3g}")
    variants_n = called.shape[0]
    for label, extra, env in [("-t 1 --memory 24M (bands)", ["-t", "1", "--memory", "24M"], None),
                              ("scalar", ["-t", "2"], {"GENSVD_PDIST_SIMD": "scalar"}),
                              ("the AVX2 engine", ["-t", "2"], {"GENSVD_CPU_LEVEL": "avx2"}),
                              ("generic", ["-t", "2", "--kernel", "generic"], None)]:
        if label == "generic" and len(pids) ** 2 * variants_n > 2e9:
            continue  # the float64 pair loop: the smaller data sets only
        again = gensvd("pdist", store, "-m", "king", *rng, *extra, env=env)
        check(f"{tag} king same bytes with {label}", again == out)

    # ibs0 and n_sites against numpy's counts
    zo = os.path.join(tmp, tag + "_ibs0.zarr")
    gensvd("pdist", store, "-m", "ibs0", *rng, "-t", "2", "--counts", "-o", zo)
    g = zarr.open_group(zo, mode="r")
    D, N = g["distance"][:], g["n_sites"][:]
    off = ~np.eye(len(pids), dtype=bool)
    check(f"{tag} n_sites = jointly called sites (numpy)", np.array_equal(N[off], NS[off]))
    check(f"{tag} ibs0 = opposite homozygotes / n_sites (numpy, 1e-12)",
          np.nanmax(np.abs(D - I0 / NS)[off]) <= 1e-12 and np.all(np.diag(D) == 0))

    index = {s: i for i, s in enumerate(pids)}
    for x in filters:
        pf = os.path.join(tmp, f"{tag}_f{x}")
        plink2("--bfile", bed, *sel, "--make-king-table", "counts",
               "cols=id,nsnp,hethet,ibs0,ibs1,kinship", "--king-table-filter", str(x), "--out", pf)
        want = kin0(pf + ".kin0")
        got = {}
        out = gensvd("pdist", store, "-m", "king", *rng, "--min-kinship", str(x), "--counts")
        check(f"{tag} --min-kinship header", out.startswith(
            "#ID1\tID2\tNSNP\tHETHET\tIBS0\tHET1_HOM2\tHET2_HOM1\tKINSHIP\n"))
        for line in out.strip().split("\n")[1:]:
            a, b, n, hh, i0, h1, h2, k = line.split("\t")
            key, (h1, h2) = ((a, b), (h1, h2)) if a < b else ((b, a), (h2, h1))
            got[key] = (int(n), int(hh), int(i0), int(h1), int(h2), float(k))
        check(f"{tag} --min-kinship {x}: the pairs of --king-table-filter",
              sorted(got) == sorted(want), f"{len(got)} vs {len(want)} pairs")
        same = all(got[p][1:5] == want[p][1:5] and got[p][0] == NS[index[p[0]], index[p[1]]] and
                   abs(got[p][0] - want[p][0]) <= 1 and
                   abs(got[p][5] - P[index[p[0]], index[p[1]]]) <= 1e-12 for p in got if p in want)
        check(f"{tag} --min-kinship {x}: counts equal, kinship to 1e-12", same)
        zp = os.path.join(tmp, f"{tag}_pairs{x}.zarr")
        gensvd("pdist", store, "-m", "king", *rng, "--min-kinship", str(x), "-o", zp)
        g = zarr.open_group(zp, mode="r")
        zid = list(g["sample_id"][:])
        zpairs = {}
        for i, j, k, n, hh, i0, h1, h2 in zip(*(g[a][:] for a in (
                "pair_i", "pair_j", "kinship", "n_sites", "hethet", "ibs0", "het1_hom2",
                "het2_hom1"))):
            a, b = zid[i], zid[j]
            key, (h1, h2) = ((a, b), (h1, h2)) if a < b else ((b, a), (h2, h1))
            zpairs[key] = (int(n), int(hh), int(i0), int(h1), int(h2), float(k))
        check(f"{tag} --min-kinship {x} Zarr pairs = TSV", zpairs == got)
        check(f"{tag} --min-kinship {x} Zarr attributes",
              g.attrs["metric"] == "king" and g.attrs["n_pairs"] == len(got) and
              g.attrs["min_kinship"] == x)

    for c in cutoffs:
        pc = os.path.join(tmp, f"{tag}_c{c}")
        plink2("--bfile", bed, *sel, "--king-cutoff", str(c), "--out", pc)
        want = in_ids(pc + ".king.cutoff.in.id")
        out = gensvd("related", store, *rng, "--king-cutoff", str(c))
        lines = out.strip().split("\n")
        check(f"{tag} related {c}: header", lines[0] == "#IID")
        got = sorted(lines[1:])
        check(f"{tag} related --king-cutoff {c} = plink2 .king.cutoff.in.id", got == want,
              f"{len(got)} vs {len(want)} kept, differ: {sorted(set(got) ^ set(want))[:6]}")
        zr = os.path.join(tmp, f"{tag}_rel{c}.zarr")
        gensvd("related", store, *rng, "--king-cutoff", str(c), "-o", zr)
        g = zarr.open_group(zr, mode="r")
        mask = g["sample_unrelated"][:]
        zid = list(g["sample_id"][:])
        check(f"{tag} related {c}: Zarr mask = the kept IDs",
              mask.dtype == bool and sorted(s for s, k in zip(zid, mask) if k) == want and
              g["sample_unrelated"].attrs["_ARRAY_DIMENSIONS"] == ["samples"])
        check(f"{tag} related {c}: attributes",
              g.attrs["n_unrelated"] == len(want) and g.attrs["king_cutoff"] == c and
              g.attrs["n_removed"] == len(zid) - len(want))
        print(f"{tag}: --king-cutoff {c}: {len(want)} of {len(zid)} kept")
    return ids, K


def simulate(path, seed=7, n_fam=12, n_unrel=80, m=20000, missing=0.01):
    """Families of unlinked SNPs: founders g1 x g2 -> A, B (full sibs); A x s1 -> a1 and
    A x s3 -> h (half sibs); B x s2 -> b1 (a1, b1 first cousins); plus unrelated founders."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.5, m)

    def founder():
        return (rng.random((m, 2)) < p[:, None]).astype(np.int8)

    def child(x, y):
        pick = np.arange(m)
        return np.stack([x[pick, rng.integers(0, 2, m)], y[pick, rng.integers(0, 2, m)]], axis=1)

    calls, ids, rel = [], [], []
    for f in range(n_fam):
        g1, g2, s1, s2, s3 = (founder() for _ in range(5))
        A, B = child(g1, g2), child(g1, g2)
        a1, h, b1 = child(A, s1), child(A, s3), child(B, s2)
        for name, x in [("g1", g1), ("g2", g2), ("A", A), ("B", B), ("s1", s1), ("s2", s2),
                        ("s3", s3), ("a1", a1), ("b1", b1), ("h", h)]:
            calls.append(x)
            ids.append(f"f{f}_{name}")
        rel += [(f"f{f}_g1", f"f{f}_A", "parent-offspring"), (f"f{f}_A", f"f{f}_B", "full sibs"),
                (f"f{f}_a1", f"f{f}_h", "half sibs"), (f"f{f}_a1", f"f{f}_b1", "first cousins")]
    for u in range(n_unrel):
        calls.append(founder())
        ids.append(f"u{u}")
    gt = np.stack(calls, axis=1)  # variants x samples x 2
    gt[rng.random(gt.shape[:2]) < missing] = -1
    write_calls(path, gt, ids, (5000, 100, 2))
    return rel


def patterns(path, n=400, m=90000):
    """Unrelated samples whose missing calls take every path of the KING counts: segments with
    1% missing calls (counted apart), a stretch with 50% (the masked pair counts), one sample
    missing at 99% of the variants and one heterozygous everywhere (their total passes 65,535
    within a band and is read out mid-band), one never missing."""
    # sample 2 heterozygous everywhere: 73,000 sites het where sample 0 is missing
    gt = apart_calls(n, m, 11, 0.01, slice(20000, 26000), [0, 1])
    write_calls(path, gt, [f"p{i}" for i in range(n)], (10000, 200, 2))


def patterns_paths(store):
    """The patterns store's segments are counted both ways, in one band and in several (read
    again, or replayed from the kept planes), with every engine, to the same bytes (suite()
    holds them to plink2)."""
    want = {}
    rest = ["--variants", "0:24576"]  # three segments, the planes kept for the second band
    for label, extra, env in [("one band", [], None), ("bands", ["--memory", "8M"], None),
                              ("bands, AVX2", ["--memory", "8M"], {"GENSVD_CPU_LEVEL": "avx2"}),
                              ("bands, scalar", ["--memory", "8M"],
                               {"GENSVD_PDIST_SIMD": "scalar"}),
                              ("part, one band", rest, None),
                              ("part, replayed", rest + ["--memory", "12M"], None)]:
        e = dict(os.environ, **(env or {}))
        r = subprocess.run(on_cpu([GENSVD, "pdist", store, "-m", "king", "-t", "2", "-v"] + extra),
                           capture_output=True, text=True, env=e)
        check_apart("patterns", label, r, want)


def main():
    if subprocess.run(["which", "plink2"], capture_output=True).returncode != 0:
        print("plink2 not installed (scripts/setup.sh --tests installs it)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        hm = os.path.join(ROOT, "testdata", "realdata", "hapmap3.vcz")
        contigs = run([GENSVD, "dump", hm + "/contig_id"]).split()
        codes = [int(x) for x in run([GENSVD, "dump", hm + "/variant_contig"]).split()]
        n_auto = sum(1 for c in codes if contigs[c] in {str(k) for k in range(1, 23)})
        check("hapmap3 autosomes first", all(
            contigs[c] in {str(k) for k in range(1, 23)} for c in codes[:n_auto]))
        suite("hapmap3", hm, tmp, variants=f"0:{n_auto}", chrom="1-22",
              filters=(0.0884, -0.02), cutoffs=(0.0884, 0.0442, 0.177, 0.02))
        # a job array (--part I/N, --finalize) gives the one-process square matrix
        parts, one = os.path.join(tmp, "parts.zarr"), os.path.join(tmp, "one.zarr")
        for i in (1, 2):
            gensvd("pdist", hm, "-m", "king", "--memory", "40M", "--part", f"{i}/2", "-o", parts)
        gensvd("pdist", "--finalize", parts)
        gensvd("pdist", hm, "-m", "king", "--memory", "40M", "-o", one)
        a, b = (zarr.open_group(x, mode="r")["distance"][:] for x in (parts, one))
        check("hapmap3 king --part 1/2 + 2/2 + --finalize = one process",
              np.array_equal(a, b) and np.all(np.diag(a) == 0.5))
        # a sample subset (--samples) is plink2's --keep
        ids = run([GENSVD, "dump", hm + "/sample_id"]).split()
        sub = ids[600:] + ids[:40]  # the admixed/African panels, where the relatives are
        keep, fam = os.path.join(tmp, "keep.txt"), os.path.join(tmp, "keep.fam")
        open(keep, "w").write("\n".join(sub) + "\n")
        open(fam, "w").write("".join(f"{s}\t{s}\n" for s in sub))
        plink2("--bfile", os.path.join(tmp, "hapmap3"), "--chr", "1-22", "--keep", fam,
               "--king-cutoff", "0.0442", "--out", os.path.join(tmp, "sub"))
        want = in_ids(os.path.join(tmp, "sub.king.cutoff.in.id"))
        got = sorted(gensvd("related", hm, "--variants", f"0:{n_auto}", "--samples", keep,
                            "-c", "0.0442").strip().split("\n")[1:])
        check("hapmap3 related --samples = plink2 --keep --king-cutoff", got == want,
              f"{len(got)} vs {len(want)}")
        kh = os.path.join(ROOT, "testdata", "realdata", "khuman_chr22.vcz")
        suite("khuman", kh, tmp, filters=(0.05,), cutoffs=(0.0884, 0.0442))

        pat = os.path.join(tmp, "patterns.vcz")
        patterns(pat)
        suite("patterns", pat, tmp, filters=(-0.01,), cutoffs=(0.0884,))
        patterns_paths(pat)

        sim = os.path.join(tmp, "families.vcz")
        rel = simulate(sim)
        ids, K = suite("families", sim, tmp, filters=(0.04,), cutoffs=(0.0884, 0.0442, 0.177))
        at = {s: i for i, s in enumerate(ids)}
        for kind, want, tol in [("parent-offspring", 0.25, 0.02), ("full sibs", 0.25, 0.03),
                                ("half sibs", 0.125, 0.03), ("first cousins", 0.0625, 0.025)]:
            got = [K[at[a], at[b]] for a, b, k in rel if k == kind]
            worst = max(abs(v - want) for v in got)
            check(f"families {kind}: kinship {want} +- {tol}", len(got) == 12 and worst <= tol,
                  f"n {len(got)}, mean {np.mean(got):.4f}, worst |err| {worst:.4f}")
            print(f"families: {kind}: mean {np.mean(got):.4f} (expected {want}), "
                  f"worst |error| {worst:.4f}")
        u = [at[s] for s in ids if s.startswith("u")]
        ku = K[np.ix_(u, u)][np.triu_indices(len(u), 1)]
        check("families unrelated founders ~ 0", abs(ku.mean()) < 0.005 and np.abs(ku).max() < 0.04,
              f"mean {ku.mean():.4f} max |k| {np.abs(ku).max():.4f}")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
