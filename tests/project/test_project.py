#!/usr/bin/env python3
"""gensvd project and pca --fit-samples against independent oracles (numpy, plink2).

usage: test_project.py GENSVD [REALDATA_DIR]

Cases
  self     HapMap3 (957 x 14,389), pca --method exact --loadings, then project the same store:
           every sample's scores equal Z^T V computed by numpy from the saved means, scales and
           loadings (float32 standardisation as gensvd's, float64 products) to 1e-12 relative
           to each PC's largest score, and equal pca's own scores to 1e-6 (pca's exact Gram is
           accumulated from float32 ssyrk tiles, which bounds its own scores at ~2e-7:
           measured 1.6e-7).
  plink2   hold out MEX (48), fit on the other 909 (autosomes): gensvd pca --scaler hwe
           --method exact --loadings + project vs plink2 --pca 10 meanimpute allele-wts + --score
           (both allele rows, variance-standardize, no-mean-imputation, scoresums): plink2's
           PCk_SUM = sign_k sqrt(M_used) x gensvd's score (allele weights = V sqrt(M) / 2 per
           allele, REF = -ALT); 1e-5 relative to each PC's largest score (plink2 prints 6
           significant digits; measured 3.3e-6).  The same with biallelic-var-wts (one row per
           variant, weights V sqrt(M), scored on the MAJ column): sign sqrt(M_used) x score.
           gensvd's own allele weights (pca --plink PREFIX --loadings: PREFIX.eigenvec.allele)
           have plink2's rows (CHROM, ID, REF, ALT, A1 in its order) and its weights up to
           each PC's sign (1e-5 relative to each PC's largest; measured 5.7e-6), and plink2
           --score with them gives sqrt(M_used) x gensvd's score, sign included (1e-5).
           What bounds that 3e-6 is plink2's PCA, not the projection:
  score    the projection step alone: plink2 --score with gensvd's own loadings as weights (17
           digits, each PC scaled so its largest score prints with 6 full digits) and the
           exact allele frequencies (ALT count / OBS_CT of plink2's .afreq, 17 digits) equals
           gensvd project to 1e-6 (measured 5.6e-7: plink2's 6 printed digits).
  oracle   numpy float64 SVD of the standardised fit matrix, held-out scores Z_h^T U_k: gensvd
           (--gram-f64) within 1e-6 per PC after a per-PC scale (measured 1.3e-7); plink2's
           --pca allele weights are printed for comparison (measured 2.0e-6).
           Skipped without plink2.
  shrink   hold out CHD, fit on the rest: the held-out centroid's distance (PC1-4) to CHB's
           reference centroid shrinks with --shrinkage-correction ap and oadp (measured 3.23 ->
           0.89 / 0.87); AP factors in (0, 1].
  fit      pca --fit-samples (all but CHD) = pca --samples + project, to 1e-12; sample order,
           sample_pca_fitted, N_fitted, explained variance over the fitted samples.
  kg       1000 Genomes (khuman_chr22): hold out JPT, fit on CEU/CHB/YRI (--gram-f64); the
           held-out scores equal numpy's (Patterson standardisation rounded to float32 as
           gensvd's, float64 SVD, Z_h^T V_k) to 1e-9 relative per PC (measured 6.5e-14).
  swap     a generated store (zarr-python): allele swaps flip the dosage, strand-ambiguous
           swaps, other alleles and other contigs are dropped and counted; scores = numpy over
           the matched variants to 1e-12; a store whose contigs are all named chrN fails with
           the naming hint.
Last line: "N passed, N failed"; exit 1 on failure.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import zarr

G = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
STORE = os.path.join(REPO, "testdata", "realdata", "hapmap3.vcz")
REAL = None
for d in ([sys.argv[2]] if len(sys.argv) > 2 else []) + [
        os.path.join(REPO, "..", "shared", "realdata"), "/work/shared/realdata"]:
    if os.path.exists(os.path.join(d, "hapmap3_957x14389", "hapmap3_957.bed")):
        REAL = os.path.join(d, "hapmap3_957x14389")
        break
PLINK2 = os.environ.get("PLINK2", "plink2")
T = tempfile.mkdtemp(prefix="project_test.")
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
        print("ok  ", what)
    else:
        failed += 1
        print("FAIL", what)


def run(*args, ok=True):
    # pca on the CPU (--device auto would take a GPU): compared with numpy and plink2 closer than
    # the GPU's float32 rounding
    argv = [G, args[0], "--device", "cpu", *args[1:]] if args[0] == "pca" else [G, *args]
    p = subprocess.run(argv, capture_output=True, text=True)
    if ok and p.returncode != 0:
        print(p.stderr)
        raise SystemExit(f"FAIL gensvd {' '.join(args)}: exit {p.returncode}")
    return p


def path(name):
    return os.path.join(T, name)


def rel(a, b):
    """max over PCs of max |a - b| / max |b| per PC"""
    return float((np.abs(a - b) / np.abs(b).max(axis=0)).max())


def dosages(store, idx=None, v=None):
    gt = zarr.open(store, mode="r")["call_genotype"][:] if v is None else \
        zarr.open(store, mode="r")["call_genotype"][v[0]:v[1]]
    if idx is not None:
        gt = gt[:, idx]
    miss = (gt < 0).any(axis=2)
    d = (gt > 0).sum(axis=2).astype(np.float64)
    d[miss] = np.nan
    return d


def numpy_scores(pcs, d, rows=None, flip=None, ploidy=2):
    """Z^T V over the variant rows `rows` of the reference (d: the target's dosages, one row
    per reference row in `rows`), standardised as gensvd does (float32)."""
    a = zarr.open(pcs, mode="r")
    mean, sd, inc = a["variant_pca_mean"][:], a["variant_pca_scale"][:], a["variant_pca_included"][:]
    V = a["sample_pca_component"][:]
    if rows is None:
        rows = np.arange(len(mean))
    keep = inc[rows]
    rows, d = rows[keep], d[keep]
    if flip is not None:
        f = flip[keep]
        d[f] = ploidy - d[f]
    c = mean[rows].astype(np.float32)[:, None]
    s = (1.0 / sd[rows]).astype(np.float32)[:, None]
    z = ((d.astype(np.float32) - c) * s).astype(np.float32).astype(np.float64)
    z[np.isnan(d)] = 0
    return z.T @ V[rows]


def pops():
    f = os.path.join(REAL, "hapmap3_957.populations.tsv")
    return {l.split("\t")[1]: l.split("\t")[2].strip() for l in open(f).readlines()[1:]}


def write_ids(name, ids):
    with open(path(name), "w") as f:
        f.write("\n".join(ids) + "\n")
    return path(name)


def case_self():
    run("pca", STORE, "-k", "10", "--method", "exact", "--loadings", "-o", path("self.zarr"), "-q")
    run("project", STORE, "--pcs", path("self.zarr"), "-o", path("self_proj.zarr"), "-q")
    y = zarr.open(path("self_proj.zarr"), mode="r")["sample_pca_projection"][:]
    x = zarr.open(path("self.zarr"), mode="r")["sample_pca_projection"][:]
    oracle = numpy_scores(path("self.zarr"), dosages(STORE))
    e1, e2 = rel(y, oracle), rel(y, x)
    check(e1 < 1e-12, f"self: project = numpy Z^T V ({e1:.2g} <= 1e-12)")
    check(e2 < 1e-6, f"self: project = pca's own scores, float32 Gram ({e2:.2g} <= 1e-6)")
    run("pca", STORE, "-k", "10", "--method", "exact", "--gram-f64", "--loadings",
        "-o", path("self64.zarr"), "-q")
    run("project", STORE, "--pcs", path("self64.zarr"), "-o", path("self64_proj.zarr"), "-q")
    y64 = zarr.open(path("self64_proj.zarr"), mode="r")["sample_pca_projection"][:]
    x64 = zarr.open(path("self64.zarr"), mode="r")["sample_pca_projection"][:]
    e3 = rel(y64, x64)
    check(e3 < 1e-9, f"self: project = pca --gram-f64's own scores ({e3:.2g} <= 1e-9)")
    t1 = run("project", STORE, "--pcs", path("self.zarr"), "--format", "tsv", "-q", "-t", "1").stdout
    tsv = run("project", STORE, "--pcs", path("self.zarr"), "--format", "tsv", "-q", "-t", "3").stdout
    check(t1 == tsv, "self: -t 1 and -t 3 print the same bytes")
    lines = tsv.strip().split("\n")
    t = np.array([[float(v) for v in l.split("\t")[1:]] for l in lines[1:]])
    check(lines[0].split("\t")[:3] == ["sample_id", "PC1", "PC2"] and np.array_equal(t, y),
          "self: --format tsv = the Zarr output (%.17g)")


def case_plink2():
    if shutil.which(PLINK2) is None or REAL is None:
        print("SKIP plink2: plink2 or the HapMap3 .bed not found")
        return
    p = pops()
    ids = list(zarr.open(STORE, mode="r")["sample_id"][:])
    hold = [s for s in ids if p[s] == "MEX"]
    fit = [s for s in ids if p[s] != "MEX"]
    fam = {l.split()[1]: l.split()[0] for l in open(os.path.join(REAL, "hapmap3_957.fam"))}
    for name, lst in (("fit", fit), ("hold", hold)):
        with open(path(name + ".keep"), "w") as f:
            f.write("".join(f"{fam[s]}\t{s}\n" for s in lst))
    bed = os.path.join(REAL, "hapmap3_957")
    pl = [PLINK2, "--bfile", bed, "--threads", "2"]
    subprocess.run(pl + ["--keep", path("fit.keep"), "--autosome", "--mac", "1", "--freq",
                         "--pca", "10", "meanimpute", "allele-wts", "--out", path("pl")],
                   check=True, capture_output=True)
    with open(path("pl.ids"), "w") as f:
        f.write("".join(sorted({l.split("\t")[1] + "\n"
                                for l in open(path("pl.eigenvec.allele")).readlines()[1:]})))
    ids, P = score_sums(pl, path("pl.eigenvec.allele"), ("2", "5"), 6, path("pl.afreq"), "pl")
    run("pca", STORE, "--samples", write_ids("fit.ids", fit), "--variants", "0:14266", "-k", "10",
        "--scaler", "hwe", "--method", "exact", "--loadings", "-o", path("hwe.zarr"), "--plink",
        path("gw"), "-q")
    run("project", STORE, "--pcs", path("hwe.zarr"), "--samples", write_ids("hold.ids", hold),
        "-o", path("hwe_proj.zarr"), "-q")
    b = zarr.open(path("hwe_proj.zarr"), mode="r")
    y = b["sample_pca_projection"][:]
    check(ids == list(b["sample_id"][:]), "plink2: same held-out samples")
    m = zarr.open(path("hwe.zarr"), mode="r").attrs["M_used"]
    sign = np.sign((P * y).sum(axis=0))
    e = rel(sign * np.sqrt(m) * y, P)
    check(b.attrs["variants_matched"] == m, f"plink2: every one of the {m} fitted variants matched")
    check(e < 1e-5, f"plink2: PC_SUM = sign sqrt(M_used) x gensvd score ({e:.2g} <= 1e-5)")
    case_allele_wts(pl, y, m)
    # biallelic-var-wts: one row per variant (weights V sqrt(M)), scored on its MAJ column
    subprocess.run(pl + ["--keep", path("fit.keep"), "--autosome", "--mac", "1", "--freq",
                         "--pca", "10", "meanimpute", "biallelic-var-wts", "--out", path("plv")],
                   check=True, capture_output=True)
    _, P = score_sums(pl, path("plv.eigenvec.var"), ("2", "3"), 5, path("plv.afreq"), "plv")
    sign = np.sign((P * y).sum(axis=0))
    e = rel(sign * np.sqrt(m) * y, P)
    check(e < 1e-5, f"plink2: var-wts PC_SUM = sign sqrt(M_used) x gensvd score ({e:.2g})")
    case_score_step(pl, y, P)


def score_sums(pl, weights, cols, first, freq, out, n=10):
    """plink2 --score WEIGHTS COLS (variance-standardize, no mean imputation, the frequencies
    of FREQ, score columns FIRST..FIRST + n - 1) on the held-out samples: their IDs and their
    PC1..PCn sums."""
    subprocess.run(pl + ["--keep", path("hold.keep"), "--extract", path("pl.ids"), "--read-freq",
                         freq, "--score", weights, *cols, "header-read", "no-mean-imputation",
                         "variance-standardize", "cols=+scoresums", "--score-col-nums",
                         f"{first}-{first + n - 1}", "--out", path(out)],
                   check=True, capture_output=True)
    rows = [ln.rstrip("\n").split("\t") for ln in open(path(out + ".sscore")).readlines()]
    c0 = rows[0].index("PC1_SUM")
    return [r[1] for r in rows[1:]], np.array([[float(v) for v in r[c0:c0 + n]] for r in rows[1:]])


def allele_wts(p):
    rows = [ln.rstrip("\n").split("\t") for ln in open(p)]
    return rows[0], [tuple(r[:5]) for r in rows[1:]], np.array([[float(v) for v in r[5:]]
                                                                for r in rows[1:]])


def case_allele_wts(pl, y, m):
    """gensvd's PREFIX.eigenvec.allele against plink2's own and through plink2 --score."""
    hp, kp, wp = allele_wts(path("pl.eigenvec.allele"))
    hg, kg, wg = allele_wts(path("gw.eigenvec.allele"))
    check(hg == hp and kg == kp, f"allele weights: plink2's header and rows (CHROM, ID, REF, "
          f"ALT, A1; {len(kg)} rows against its {len(kp)})")
    if wg.shape != wp.shape:
        return
    sign = np.sign((wg * wp).sum(axis=0))
    e = rel(sign * wg, wp)
    check(e < 1e-5, f"allele weights = plink2's up to each PC's sign ({e:.2g} <= 1e-5)")
    _, S = score_sums(pl, path("gw.eigenvec.allele"), ("2", "5"), 6, path("pl.afreq"), "gws")
    e = rel(np.sqrt(m) * y, S)
    check(e < 1e-5, f"plink2 --score with gensvd's allele weights = sqrt(M_used) x gensvd score, "
          f"sign included ({e:.2g} <= 1e-5)")


def exact_afreq(src, dst):
    """plink2's .afreq with ALT_FREQS rewritten as the exact ALT count / OBS_CT (17 digits)."""
    lines = open(src).read().splitlines()
    out = [lines[0]]
    for line in lines[1:]:
        f = line.split("\t")
        n = int(f[5])
        k = round(float(f[4]) * n)
        f[4] = "%.17g" % (k / n)
        out.append("\t".join(f))
    with open(dst, "w") as fh:
        fh.write("\n".join(out) + "\n")


def case_score_step(pl, y, P):
    """plink2 --score with gensvd's loadings, and both PCAs against a float64 numpy SVD."""
    a = zarr.open(path("hwe.zarr"), mode="r")
    inc = a["variant_pca_included"][:]
    rows = np.nonzero(inc)[0]
    V = a["sample_pca_component"][:][rows]
    bim = [line.split() for line in open(os.path.join(REAL, "hapmap3_957.bim"))]
    alt = zarr.open(STORE, mode="r")["variant_allele"][:]
    b = zarr.open(path("hwe_proj.zarr"), mode="r")
    ids = list(zarr.open(STORE, mode="r")["sample_id"][:])
    ix = {s: i for i, s in enumerate(ids)}
    fit = [ix[s] for s in open(path("fit.ids")).read().split()]
    hold = [ix[s] for s in b["sample_id"][:]]
    D = dosages(STORE, v=(0, len(inc)))[inc]
    p = np.nanmean(D[:, fit], axis=1) / 2
    sd = np.sqrt(2 * p * (1 - p))
    Z = (D - 2 * p[:, None]) / sd[:, None]
    Z[np.isnan(Z)] = 0
    mx = np.abs(Z[:, hold].T @ V).max(axis=0)
    c = 9.5 * 10.0 ** np.floor(np.log10(mx)) / mx
    with open(path("gw.txt"), "w") as f:
        f.write("ID\tA1\t" + "\t".join(f"PC{i + 1}" for i in range(10)) + "\n")
        for r, j in enumerate(rows):
            f.write(f"{bim[j][1]}\t{alt[j][1]}\t" +
                    "\t".join("%.17g" % (V[r, i] * c[i]) for i in range(10)) + "\n")
    exact_afreq(path("pl.afreq"), path("plx.afreq"))
    _, Q = score_sums(pl, path("gw.txt"), ("1", "2"), 3, path("plx.afreq"), "gw")
    e = rel(y * c, Q)
    check(e < 1e-6, f"score: plink2 --score with gensvd's loadings = gensvd project ({e:.2g} <= 1e-6)")
    # float64 oracle: held-out scores on the fit matrix's top-10 left singular vectors
    U = np.linalg.svd(Z[:, fit], full_matrices=False)[0][:, :10]
    O = Z[:, hold].T @ U
    run("pca", STORE, "--samples", path("fit.ids"), "--variants", f"0:{len(inc)}", "-k", "10",
        "--scaler", "hwe", "--method", "exact", "--loadings", "--gram-f64", "-o",
        path("f64.zarr"), "-q")
    run("project", STORE, "--pcs", path("f64.zarr"), "--samples", path("hold.ids"), "-o",
        path("f64_proj.zarr"), "-q")
    y64 = zarr.open(path("f64_proj.zarr"), mode="r")["sample_pca_projection"][:]

    def off(X):  # after the best per-PC scale (sign and normalisation differ by tool)
        return rel(X * ((X * O).sum(0) / (X * X).sum(0)), O)
    eg, ep = off(y64), off(P)
    check(eg < 1e-6, f"oracle: gensvd --gram-f64 = float64 SVD ({eg:.2g} <= 1e-6; plink2 --pca "
          f"allele weights {ep:.2g})")


def case_shrink():
    if REAL is None:
        print("SKIP shrink: no population labels")
        return
    p = pops()
    ids = list(zarr.open(STORE, mode="r")["sample_id"][:])
    hold = write_ids("chd.ids", [s for s in ids if p[s] == "CHD"])
    fit = write_ids("nochd.ids", [s for s in ids if p[s] != "CHD"])
    run("pca", STORE, "--samples", fit, "-k", "10", "--method", "exact", "--loadings",
        "-o", path("nochd.zarr"), "-q")
    r = zarr.open(path("nochd.zarr"), mode="r")
    Y, rid = r["sample_pca_projection"][:, :4], list(r["sample_id"][:])
    chb = Y[[i for i, s in enumerate(rid) if p[s] == "CHB"]].mean(axis=0)
    dist = {}
    for sh in ("none", "ap", "oadp"):
        run("project", STORE, "--pcs", path("nochd.zarr"), "--samples", hold,
            "--shrinkage-correction", sh, "-o", path(f"chd_{sh}.zarr"), "-q")
        z = zarr.open(path(f"chd_{sh}.zarr"), mode="r")
        dist[sh] = float(np.linalg.norm(z["sample_pca_projection"][:, :4].mean(axis=0) - chb))
        if sh == "ap":
            fac = np.array(z.attrs["shrinkage_factor"])
            check(((fac > 0) & (fac <= 1)).all(), f"shrink: AP factors in (0, 1] ({fac[:4]})")
    print("     CHD centroid to CHB (PC1-4):", {k: round(v, 3) for k, v in dist.items()})
    check(dist["ap"] < 0.5 * dist["none"], "shrink: AP brings the CHD centroid to CHB's")
    check(dist["oadp"] < 0.5 * dist["none"], "shrink: OADP brings the CHD centroid to CHB's")


def case_fit():
    run("pca", STORE, "--fit-samples", path("nochd.ids"), "-k", "10", "--method", "exact",
        "-o", path("fit.zarr"), "-q")
    f = zarr.open(path("fit.zarr"), mode="r")
    r = zarr.open(path("nochd.zarr"), mode="r")
    pr = zarr.open(path("chd_none.zarr"), mode="r")
    want = dict(zip(r["sample_id"][:], r["sample_pca_projection"][:]))
    want.update(zip(pr["sample_id"][:], pr["sample_pca_projection"][:]))
    ids = list(f["sample_id"][:])
    check(ids == list(zarr.open(STORE, mode="r")["sample_id"][:]), "fit: samples in store order")
    X = np.array([want[s] for s in ids])
    e = rel(f["sample_pca_projection"][:], X)
    check(e < 1e-12, f"fit: --fit-samples = pca --samples + project ({e:.2g})")
    fl = f["sample_pca_fitted"][:]
    check(fl.sum() == f.attrs["N_fitted"] == r.attrs["N"] and
          all(fl[i] == (s in set(r["sample_id"][:])) for i, s in enumerate(ids)),
          "fit: sample_pca_fitted marks the fitted samples")
    check(np.allclose(f["sample_pca_explained_variance"][:], r["sample_pca_explained_variance"][:],
                      rtol=1e-14), "fit: explained variance over the fitted samples")
    check("sample_pca_component" not in f, "fit: no loadings without --loadings")


def make_store(out, gt, contigs, pos, alleles):
    g = zarr.open_group(out, mode="w", zarr_format=2)
    M, N, _ = gt.shape

    def arr(name, data, dims, dtype=None):
        a = g.create_array(name, shape=data.shape, chunks=data.shape if name != "call_genotype"
                           else (64, N, 2), dtype=dtype or data.dtype)
        a[:] = data
        a.attrs["_ARRAY_DIMENSIONS"] = dims
    arr("call_genotype", gt, ["variants", "samples", "ploidy"])
    arr("sample_id", np.array([f"S{i:03d}" for i in range(N)], dtype=object), ["samples"], str)
    names = sorted(set(contigs))
    arr("contig_id", np.array(names, dtype=object), ["contigs"], str)
    arr("variant_contig", np.array([names.index(c) for c in contigs], dtype="i1"), ["variants"])
    arr("variant_position", np.asarray(pos, dtype="i4"), ["variants"])
    arr("variant_allele", np.array(alleles, dtype=object), ["variants", "alleles"], str)


def case_swap():
    rng = np.random.default_rng(7)
    M, N = 300, 80
    p = rng.uniform(0.1, 0.9, size=(M, 1)) * np.r_[np.ones(N // 2), 0.6 * np.ones(N // 2)]
    gt = (rng.random((M, N, 2)) < p[:, :, None]).astype("i1")
    gt[rng.random((M, N)) < 0.02] = -1
    pos = np.arange(M) * 1000 + 500
    bases = [("C", "A"), ("G", "A"), ("T", "C"), ("A", "G")]
    al = [list(bases[j % 4]) for j in range(M)]
    for j in range(20, 30):
        al[j] = ["A", "T"]
    make_store(path("ref.vcz"), gt, ["1"] * M, pos, al)
    run("pca", path("ref.vcz"), "-k", "3", "--method", "exact", "--loadings", "-o",
        path("ref_pcs.zarr"), "-q")
    # target: swapped alleles (0-19, genotypes recoded), ambiguous swaps (20-29), other alleles
    # (30-39), another contig (40-49), the rest as they are
    tg, tal, tc = gt.copy(), [list(a) for a in al], ["1"] * M
    flip = np.zeros(M, bool)
    for j in range(0, 30):
        tal[j] = tal[j][::-1]
        x = tg[j]
        tg[j] = np.where(x < 0, x, 1 - x)
        flip[j] = j < 20
    for j in range(30, 40):
        tal[j] = [tal[j][0], "GT"]
    for j in range(40, 50):
        tc[j] = "2"
    make_store(path("tgt.vcz"), tg, tc, pos, tal)
    run("project", path("tgt.vcz"), "--pcs", path("ref_pcs.zarr"), "-o", path("tgt_proj.zarr"),
        "-q")
    z = zarr.open(path("tgt_proj.zarr"), mode="r")
    at = z.attrs
    ref_used = zarr.open(path("ref_pcs.zarr"), mode="r").attrs["M_used"]
    check((at["variants_swapped"], at["variants_ambiguous"], at["variants_allele_mismatch"],
           at["variants_not_found"]) == (20, 10, 10, 10),
          f"swap: counts swapped/ambiguous/other alleles/not found = 20/10/10/10 "
          f"({at['variants_swapped']}/{at['variants_ambiguous']}/"
          f"{at['variants_allele_mismatch']}/{at['variants_not_found']})")
    check(at["variants_matched"] + 30 == ref_used, "swap: matched = the reference's used - 30")
    used = np.r_[np.arange(0, 20), np.arange(50, M)]
    d = dosages(path("tgt.vcz"))[used]
    oracle = numpy_scores(path("ref_pcs.zarr"), d, rows=used, flip=flip[used])
    e = rel(z["sample_pca_projection"][:], oracle)
    check(e < 1e-12, f"swap: scores = numpy over the matched variants, swaps flipped ({e:.2g})")
    # flipping back by hand: the swapped rows give what the unswapped ones would
    orig = numpy_scores(path("ref_pcs.zarr"), dosages(path("ref.vcz"))[used], rows=used)
    check(rel(oracle, orig) < 1e-12, "swap: a swapped variant counts as the unswapped one")
    make_store(path("chr.vcz"), gt, ["chr1"] * M, pos, al)
    p = run("project", path("chr.vcz"), "--pcs", path("ref_pcs.zarr"), ok=False)
    check(p.returncode == 1 and "no variant of INPUT matches" in p.stderr and
          "chr1 vs 1" in p.stderr and p.stdout == "",
          "swap: contigs named chr1 vs 1: exit 1 with the naming hint")


def case_kg():
    """1000 Genomes (khuman_chr22: 3,492 x 203): hold out JPT, fit on CEU, CHB and YRI; the
    oracle is numpy alone: Patterson standardisation of the fit samples (mean imputation;
    float32 like gensvd's), float64 SVD, held-out scores Z_h^T V_k with the fit's means and
    scales."""
    store = os.path.join(REPO, "testdata", "realdata", "khuman_chr22.vcz")
    popf = os.path.join(REPO, "testdata", "realdata", "khuman_pop.info")
    pop = dict(l.split()[:2] for l in open(popf) if l.strip())
    ids = list(zarr.open(store, mode="r")["sample_id"][:])
    fit = [i for i, s in enumerate(ids) if pop[s] != "JPT"]
    hold = [i for i, s in enumerate(ids) if pop[s] == "JPT"]
    run("pca", store, "--samples", write_ids("kg_fit.ids", [ids[i] for i in fit]), "-k", "10",
        "--method", "exact", "--gram-f64", "--loadings", "-o", path("kg.zarr"), "-q")
    run("project", store, "--pcs", path("kg.zarr"), "--samples",
        write_ids("kg_hold.ids", [ids[i] for i in hold]), "-o", path("kg_proj.zarr"), "-q")
    y = zarr.open(path("kg_proj.zarr"), mode="r")["sample_pca_projection"][:]
    d = dosages(store)
    df, dh = d[:, fit], d[:, hold]
    mu = np.nanmean(np.where(np.isnan(df), np.nan, df), axis=1)
    p = mu / 2
    sd = np.sqrt(p * (1 - p))
    keep = np.isfinite(mu) & (sd > 0)
    # standardised in float32 as gensvd does (its rounding, ~1e-6 relative here with 1,108
    # variants, is not what this compares)
    c = mu[keep].astype(np.float32)[:, None]
    r = (1.0 / sd[keep]).astype(np.float32)[:, None]
    zf, zh = (np.where(np.isnan(x[keep]), 0, ((x[keep].astype(np.float32) - c) * r)
                       .astype(np.float64)) for x in (df, dh))
    u, _, _ = np.linalg.svd(zf, full_matrices=False)
    ref = zh.T @ u[:, :10]
    sign = np.sign((ref * y).sum(axis=0))
    e = rel(sign * y, ref)
    a = zarr.open(path("kg.zarr"), mode="r").attrs
    check(a["M_used"] == int(keep.sum()) and y.shape == (len(hold), 10),
          f"1000 Genomes: {a['M_used']} variants used as numpy keeps ({int(keep.sum())})")
    check(e < 1e-9, f"1000 Genomes: held-out JPT scores = numpy's float64 SVD oracle ({e:.2g} "
          "<= 1e-9)")


try:
    case_self()
    case_kg()
    case_plink2()
    case_shrink()
    if REAL is not None:
        case_fit()
    case_swap()
finally:
    shutil.rmtree(T, ignore_errors=True)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
