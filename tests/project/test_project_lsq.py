#!/usr/bin/env python3
"""gensvd project --missing lsq (least squares over each sample's called variants, smartpca's
lsqproject) against independent oracles.

usage: test_project_lsq.py GENSVD

HapMap3 (957 x 14,389): pca --method exact --loadings on the autosomes (--variants 0:14266, as
smartpca keeps) of 857 random samples; the other 100 are held out and projected from copies of the store (zarr-python) where 30% and 80% of their calls are
blanked at random (call_genotype -1, call_genotype_mask set), and from the store as it is.
Cases
  oracle    lsq scores = numpy's lstsq per sample over its called variants (z standardised in
            float32 as gensvd does, from the pcs store's means, scales and loadings) to 1e-6
            relative to each PC's largest score, at 30% and 80% missing.
  default   the default's TSV is byte-identical with and without --missing mean, and its Zarr
            output has no lsq attributes; lsq writes missing "lsq" and samples_singular 0, and
            the same bytes with -t 1 and -t 3 (957 samples: four sample groups).
  complete  on the complete held-out samples lsq = mean to 1e-6 (V'V = I up to the float32
            Gram's rounding).
  recovery  at 80% missing, lsq scores against the same samples' complete-data scores: PC1-2
            correlation > 0.95, and the mean absolute difference (PC1-4) under a third of mean
            imputation's (whose scores shrink by the missing fraction).
  singular  a sample with every call blanked, and one with fewer calls than components: NaN
            scores and one warning line counting them; the others unchanged.
  shrink    --shrinkage-correction ap divides lsq's scores by the same factors as mean's;
            oadp with lsq: finite, equal to oadp with mean on complete samples to 1e-5, the
            NaN samples stay NaN.
  smartpca  (skipped without /usr/lib/eigensoft/smartpca) smartpca 8.0 with poplistname (the
            857 as the reference) and lsqproject: YES on .bed files of the 80%-missing store.
            Its .evec rows, reference and held-out alike, are its lsqproject fits a rescaled
            per PC: row = a_q f_q / s_q up to sign, where, over the reference samples, f_q =
            sum a_q y_q / sum a_q^2 with y their mean-imputed scores (= U S: smartpca scales the
            fits to match its eigenvectors on the reference; its lsqproj and seteigscale).
            f_q is 1 when the reference has no missing call; HapMap3's 0.15% make the fits a
            little longer than y, f_q = 0.9982 to 0.9987. Asserted: f written out again in
            numpy from the reference's dosages alone (its own SVD, least squares per sample)
            equals f from gensvd's outputs (project --missing lsq of the reference, pca's
            scores) to 1e-6; smartpca's held-out rows = gensvd's lsq scores f / s, and its
            reference rows = the same of the reference, to 1e-6 (measured 5.4e-7 and 6.1e-7:
            its 6 printed decimals and float32 standardisation); without f the rows are 3e-4
            off (> 1e-5, so the data tell the factor apart). Mean imputation's scores do not
            fit its rows (0.011 after their best scale).
  eigensoft `pca --fit-samples --eigensoft` on the same store (smartpca's poplistname run in
            one command): the same samples in smartpca's order, the labels from an .ind file,
            its eigenvalues, and the rows of the reference and the held-out samples = smartpca's
            to one unit of the 6th decimal both print.
Last line: "N passed, N failed"; exit 1 on failure.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import zarr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checklib import check, check_eval, check_snpwt, on_cpu, summary  # noqa: E402

G = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
STORE = os.path.join(REPO, "testdata", "realdata", "hapmap3.vcz")
SMARTPCA = "/usr/lib/eigensoft/smartpca"
K = 10
AUTOSOMES = 14266  # HapMap3's autosomal variants come first; smartpca keeps only those
T = tempfile.mkdtemp(prefix="project_lsq.")


def path(name):
    return os.path.join(T, name)


def run(*args, ok=True):
    p = subprocess.run(on_cpu([G, *args]), capture_output=True, text=True)
    if ok and p.returncode != 0:
        print(p.stderr)
        raise SystemExit(f"FAIL gensvd {' '.join(args)}: exit {p.returncode}")
    return p


def rel(a, b):
    """max over PCs of max |a - b| / max |b| per PC"""
    return float((np.abs(a - b) / np.abs(b).max(axis=0)).max())


def write_ids(name, ids):
    with open(path(name), "w") as f:
        f.write("\n".join(ids) + "\n")
    return path(name)


def blank(dst, cols, frac, seed, extra=None):
    """A copy of STORE with a fraction frac of the calls of samples cols missing (extra: a
    dict sample column -> calls to keep, the rest blanked)."""
    shutil.copytree(STORE, dst)
    g = zarr.open(dst, mode="r+")
    gt = g["call_genotype"][:]
    rng = np.random.default_rng(seed)
    m = gt.shape[0]
    for c in cols:
        gt[rng.random(m) < frac, c, :] = -1
    for c, keep in (extra or {}).items():
        rows = np.ones(m, bool)
        rows[rng.choice(m, size=keep, replace=False)] = False
        gt[rows, c, :] = -1
    g["call_genotype"][:] = gt
    if "call_genotype_mask" in g:
        g["call_genotype_mask"][:] = gt < 0
    return dst


def dosages(store, cols):
    gt = zarr.open(store, mode="r")["call_genotype"][:][:, cols]
    d = (gt > 0).sum(axis=2).astype(np.float64)
    d[(gt < 0).any(axis=2)] = np.nan
    return d


def lstsq_scores(pcs, d):
    """numpy's least squares per sample (columns of d) over its called, included variants."""
    a = zarr.open(pcs, mode="r")
    inc = a["variant_pca_included"][:].astype(bool)
    c = a["variant_pca_mean"][:][inc].astype(np.float32)[:, None]
    s = (1.0 / a["variant_pca_scale"][:][inc]).astype(np.float32)[:, None]
    V = a["sample_pca_component"][:][inc]
    d = d[:len(inc)][inc]  # the pcs cover the autosomes, the first rows
    z = ((d.astype(np.float32) - c) * s).astype(np.float32).astype(np.float64)
    out = np.empty((d.shape[1], V.shape[1]))
    for i in range(d.shape[1]):
        o = ~np.isnan(d[:, i])
        out[i] = np.linalg.lstsq(V[o], z[o, i], rcond=None)[0]
    return out


def scores(store, *extra, name=None, samples="hold.ids"):
    out = path(name or (os.path.basename(store) + "_".join(extra) + ".zarr"))
    p = run("project", store, "--pcs", path("pcs.zarr"), "--samples", path(samples), "-o",
            out, "-q", *extra)
    return zarr.open(out, mode="r"), p


def setup():
    ids = [str(x) for x in zarr.open(STORE, mode="r")["sample_id"][:]]
    rng = np.random.default_rng(3)
    hold = np.sort(rng.choice(len(ids), size=100, replace=False))
    fit = np.setdiff1d(np.arange(len(ids)), hold)
    write_ids("fit.ids", [ids[i] for i in fit])
    write_ids("hold.ids", [ids[i] for i in hold])
    run("pca", STORE, "--samples", path("fit.ids"), "-k", str(K), "--variants", f"0:{AUTOSOMES}",
        "--method", "exact", "--loadings", "-o", path("pcs.zarr"), "-q")
    return ids, fit, hold


def case_oracle(hold):
    for frac in (0.3, 0.8):
        st = blank(path(f"miss{int(frac * 100)}.vcz"), hold, frac, int(frac * 10))
        z, _ = scores(st, "--missing", "lsq")
        y = z["sample_pca_projection"][:]
        want = lstsq_scores(path("pcs.zarr"), dosages(st, hold))
        e = rel(y, want)
        check(f"oracle: {frac:.0%} missing: lsq = numpy lstsq per sample ({e:.2g} <= 1e-6)",
              e <= 1e-6)


def case_default():
    a = run("project", STORE, "--pcs", path("pcs.zarr"), "--samples", path("hold.ids"),
            "--format", "tsv", "-q").stdout
    b = run("project", STORE, "--pcs", path("pcs.zarr"), "--samples", path("hold.ids"),
            "--format", "tsv", "-q", "--missing", "mean").stdout
    check("default: --missing mean prints the default's bytes", a == b and len(a) > 1000)
    z, _ = scores(STORE, name="plain.zarr")
    l, p = scores(STORE, "--missing", "lsq")
    check("default: no lsq attributes without --missing lsq",
          "missing" not in z.attrs and "samples_singular" not in z.attrs)
    check("default: lsq attributes missing = lsq, samples_singular = 0",
          l.attrs.get("missing") == "lsq" and l.attrs.get("samples_singular") == 0)
    # every sample of the 80%-missing store (957: four groups of 256), -t 1 and -t 3
    t1, t3 = (run("project", path("miss80.vcz"), "--pcs", path("pcs.zarr"), "--missing", "lsq",
                  "--format", "tsv", "-q", "-t", t).stdout for t in ("1", "3"))
    check("default: lsq prints the same bytes with -t 1 and -t 3", t1 == t3 and len(t1) > 1000)
    return z["sample_pca_projection"][:], l["sample_pca_projection"][:]


def case_complete(mean, lsq, hold):
    d = dosages(STORE, hold)
    inc = zarr.open(path("pcs.zarr"), mode="r")["variant_pca_included"][:].astype(bool)
    print(f"     held-out calls missing in the store itself: {np.isnan(d[:len(inc)][inc]).mean():.3%}")
    e = rel(lsq, mean)
    # HapMap3's own 0.15% missing calls move lsq off mean by about that fraction: the equality
    # is asserted on a store where those calls are filled (with the reference allele)
    st = path("full.vcz")
    shutil.copytree(STORE, st)
    g = zarr.open(st, mode="r+")
    gt = g["call_genotype"][:]
    gt[gt < 0] = 0
    g["call_genotype"][:] = gt
    if "call_genotype_mask" in g:
        g["call_genotype_mask"][:] = False
    zm, _ = scores(st, name="full_mean.zarr")
    zl, _ = scores(st, "--missing", "lsq", name="full_lsq.zarr")
    ef = rel(zl["sample_pca_projection"][:], zm["sample_pca_projection"][:])
    check(f"complete: lsq = mean on complete samples ({ef:.2g} <= 1e-6; with HapMap3's own "
          f"missing calls {e:.2g})", ef <= 1e-6)
    return zm["sample_pca_projection"][:]


def case_recovery(full):
    st = path("miss80.vcz")
    zl, _ = scores(st, "--missing", "lsq", name="r_lsq.zarr")
    zm, _ = scores(st, name="r_mean.zarr")
    yl, ym = zl["sample_pca_projection"][:], zm["sample_pca_projection"][:]
    cl = [float(np.corrcoef(yl[:, q], full[:, q])[0, 1]) for q in range(2)]
    cm = [float(np.corrcoef(ym[:, q], full[:, q])[0, 1]) for q in range(2)]
    dl = float(np.abs(yl[:, :4] - full[:, :4]).mean())
    dm = float(np.abs(ym[:, :4] - full[:, :4]).mean())
    print(f"     80% missing vs complete: corr PC1-2 lsq {cl[0]:.4f} {cl[1]:.4f}, mean "
          f"{cm[0]:.4f} {cm[1]:.4f}; mean |diff| PC1-4 lsq {dl:.3g}, mean {dm:.3g}")
    check(f"recovery: 80% missing: lsq's PC1-2 correlate > 0.95 with the complete scores "
          f"({min(cl):.4f})", min(cl) > 0.95)
    check(f"recovery: mean |diff| to the complete scores: lsq {dl:.3g} < mean's {dm:.3g} / 3",
          dl < dm / 3)


def case_singular(hold):
    st = blank(path("sing.vcz"), [], 0, 5, extra={int(hold[0]): 0, int(hold[1]): K - 1})
    out = path("sing.zarr")
    p = run("project", st, "--pcs", path("pcs.zarr"), "--samples", path("hold.ids"), "-o", out,
            "--missing", "lsq")
    z = zarr.open(out, mode="r")
    y = z["sample_pca_projection"][:]
    warn = [ln for ln in p.stderr.splitlines() if "warning" in ln]
    check("singular: no calls, and fewer calls than k: NaN rows, the others finite",
          np.isnan(y[:2]).all() and np.isfinite(y[2:]).all())
    check("singular: one warning line naming 2 samples",
          len(warn) == 1 and warn[0].startswith("gensvd project: warning: 2 of 100 samples"),
          p.stderr)
    check("singular: samples_singular = 2", z.attrs["samples_singular"] == 2)
    return st


def case_shrink(sing):
    zm, _ = scores(path("full.vcz"), "--shrinkage-correction", "ap", name="ap_mean.zarr")
    zl, _ = scores(path("miss80.vcz"), "--missing", "lsq", "--shrinkage-correction", "ap",
                   name="ap_lsq.zarr")
    l0, _ = scores(path("miss80.vcz"), "--missing", "lsq", name="ap_lsq0.zarr")
    fac = np.array(zl.attrs["shrinkage_factor"])
    e = rel(zl["sample_pca_projection"][:], l0["sample_pca_projection"][:] / fac)
    check(f"shrink: ap with lsq = lsq / the factors ({e:.2g})",
          e <= 1e-14 and np.array_equal(fac, np.array(zm.attrs["shrinkage_factor"])))
    om, _ = scores(path("full.vcz"), "--shrinkage-correction", "oadp", name="o_mean.zarr")
    ol, _ = scores(path("full.vcz"), "--shrinkage-correction", "oadp", "--missing", "lsq",
                   name="o_lsq.zarr")
    e = rel(ol["sample_pca_projection"][:], om["sample_pca_projection"][:])
    check(f"shrink: oadp with lsq = oadp with mean on complete samples ({e:.2g} <= 1e-5)",
          e <= 1e-5)
    os_, _ = scores(sing, "--shrinkage-correction", "oadp", "--missing", "lsq", name="o_s.zarr")
    y = os_["sample_pca_projection"][:]
    check("shrink: oadp with lsq leaves the NaN samples NaN, the others finite",
          np.isnan(y[:2]).all() and np.isfinite(y[2:]).all())


def write_bed(store, prefix, ids, fit):
    subprocess.run([sys.executable, os.path.join(REPO, "tests", "pca", "pca_oracle.py"),
                    "write-bed", store, prefix], check=True)
    fitset = {ids[i] for i in fit}
    lines = [ln.split("\t") for ln in open(prefix + ".fam").read().split("\n") if ln]
    with open(prefix + ".fam", "w") as f:
        for c in lines:
            f.write("\t".join(c[:5] + ["REF" if c[1] in fitset else "HOLD"]) + "\n")


def smartpca_factor(d):
    """smartpca's per-PC factor for lsqproject, written out again in numpy from the
    reference's dosages d (variants x reference samples, NaN missing) alone: its
    normalisation (p = mean / 2 over the calls, missing calls 0, monomorphic variants out),
    the top K of its SVD Z = U S V', each reference sample's least squares a over its called
    variants (V_O'V_O a = V_O'z_O = V'z, z 0 where missing) and y = Z'V = U S, the scores
    with missing calls at the mean; f_q = sum_i a_iq y_iq / sum_i a_iq^2, the scale that
    matches the fits to the eigenvectors over the reference."""
    mu = np.nanmean(d, axis=1)
    p = mu / 2
    keep = (p > 0) & (p < 1)
    called = ~np.isnan(d[keep])
    z = np.where(called, (d[keep] - mu[keep, None]) / np.sqrt(p * (1 - p))[keep, None], 0.0)
    w, U = np.linalg.eigh(z.T @ z)
    top = np.argsort(w)[::-1][:K]
    V = z @ U[:, top] / np.sqrt(w[top])
    y = z.T @ V
    outer = (V[:, :, None] * V[:, None, :]).reshape(len(V), K * K)
    gram = (called.T.astype(np.float64) @ outer).reshape(-1, K, K)  # V_O'V_O per sample
    a = np.linalg.solve(gram, y[:, :, None])[:, :, 0]
    return (a * y).sum(axis=0) / (a * a).sum(axis=0)


def case_smartpca(ids, fit, hold):
    if not os.path.exists(SMARTPCA):
        print("SKIP smartpca: /usr/lib/eigensoft/smartpca not found")
        return
    st = path("miss80.vcz")
    prefix = path("sp")
    write_bed(st, prefix, ids, fit)
    with open(path("pops"), "w") as f:
        f.write("REF\n")
    with open(path("par"), "w") as f:
        f.write(f"genotypename: {prefix}.bed\nsnpname: {prefix}.bim\nindivname: {prefix}.fam\n"
                f"evecoutname: {T}/sp.evec\nevaloutname: {T}/sp.eval\nnumoutevec: {K}\n"
                f"snpweightoutname: {T}/sp.snpwt\n"
                f"numthreads: 2\nfamilynames: NO\nhiprecision: YES\nnumoutlieriter: 0\n"
                f"poplistname: {T}/pops\nlsqproject: YES\n")
    p = subprocess.run([SMARTPCA, "-p", path("par")], capture_output=True, text=True)
    if not check("smartpca: exit 0", p.returncode == 0, p.stdout[-1500:] + p.stderr[-500:]):
        return
    ev = {}
    for ln in open(f"{T}/sp.evec"):
        f = ln.split()
        if f and f[0] != "#eigvals:":
            ev[f[0].split(":")[-1]] = np.array([float(x) for x in f[1:K + 1]])
    pcs = zarr.open(path("pcs.zarr"), mode="r")
    s = pcs["sample_pca_singular_value"][:]
    zh = zarr.open(path("r_lsq.zarr"), mode="r")
    zr, _ = scores(st, "--missing", "lsq", name="ref_lsq.zarr", samples="fit.ids")
    hid, rid = ([str(x) for x in z["sample_id"][:]] for z in (zh, zr))
    if not check("smartpca: every sample in its .evec", all(h in ev for h in hid + rid)):
        return
    eh, er = np.array([ev[h] for h in hid]), np.array([ev[h] for h in rid])
    # the factor from gensvd's outputs: the reference's lsq scores a and pca's scores y
    a = zr["sample_pca_projection"][:]
    pos = {str(x): i for i, x in enumerate(pcs["sample_id"][:])}
    y = pcs["sample_pca_projection"][:][[pos[r] for r in rid]]
    f_gsvd = (a * y).sum(axis=0) / (a * a).sum(axis=0)
    f = smartpca_factor(dosages(st, fit)[:AUTOSOMES])
    e = float(np.abs(f_gsvd - f).max())
    print(f"     smartpca's factor per PC: {np.round(f, 6)}")
    check(f"smartpca: its factor from gensvd's outputs = numpy's from the dosages ({e:.2g} "
          f"<= 1e-6)", e <= 1e-6)
    uh = zh["sample_pca_projection"][:] / s
    sign = np.sign((uh * eh).sum(axis=0))
    d_hold = float(np.abs(uh * f * sign - eh).max())
    d_ref = float(np.abs(a / s * f * sign - er).max())
    raw = float(np.abs(uh * sign - eh).max())
    check(f"smartpca: held-out rows = lsq scores f / s up to sign ({d_hold:.2g} <= 1e-6)",
          d_hold <= 1e-6)
    check(f"smartpca: reference rows = their lsq scores f / s up to sign ({d_ref:.2g} <= 1e-6)",
          d_ref <= 1e-6)
    check(f"smartpca: without f the held-out rows are off ({raw:.2g} > 1e-5)", raw > 1e-5)
    zm = zarr.open(path("r_mean.zarr"), mode="r")
    um = zm["sample_pca_projection"][:] / s
    um = um * np.sign((um * eh).sum(axis=0))
    c = (um * eh).sum(axis=0) / (um * um).sum(axis=0)  # its best scale
    em = float(np.abs(um * c - eh).max())
    check(f"smartpca: mean imputation does not fit its rows ({em:.2g} > 1e-3 after its best "
          f"scale)", em > 1e-3)
    case_eigensoft(st, ev, eh, er, hid, rid)


def read_evec(fn):
    """An .evec file: its eigenvalues, and per sample (ID without a FAMILY: prefix) its rows
    and its label."""
    vals, rows, labels = None, {}, {}
    for ln in open(fn):
        f = ln.split()
        if f[0] == "#eigvals:":
            vals = np.array([float(x) for x in f[1:]])
        else:
            rows[f[0].split(":")[-1]] = np.array([float(x) for x in f[1:K + 1]])
            labels[f[0].split(":")[-1]] = f[-1]
    return vals, rows, labels


def case_eigensoft(st, ev, eh, er, hid, rid):
    """gensvd pca --fit-samples --eigensoft (smartpca's poplistname run in one command): the
    same samples in the same order, the same labels from an .ind file, the rows of the
    reference and of the held-out samples = smartpca's to one unit of the 6th decimal both
    print, up to sign, and its eigenvalues (the reference's, scaled by its N - 1)."""
    fam = [ln.split() for ln in open(path("sp.fam"))]
    with open(path("sp.ind"), "w") as f:
        f.write("".join(f"{c[1]} U {c[5]}\n" for c in fam))
    run("pca", st, "--fit-samples", path("fit.ids"), "-k", str(K), "--variants",
        f"0:{AUTOSOMES}", "--method", "exact", "--eigensoft", path("g"), "--eigensoft-ind",
        path("sp.ind"), "-q", "--loadings", "-o", path("g.zarr"))
    gv, grow, glab = read_evec(path("g.evec"))
    sv, _, slab = read_evec(f"{T}/sp.evec")
    order, sorder = ([ln.split()[0].split(":")[-1] for ln in open(fn)
                      if ln.split()[0] != "#eigvals:"] for fn in (path("g.evec"), f"{T}/sp.evec"))
    check("eigensoft: --fit-samples writes every sample, in smartpca's order (reference and "
          "held-out)", order == sorder and len(order) == len(hid) + len(rid), f"{len(order)}")
    check("eigensoft: the labels from the .ind file = smartpca's", glab == slab)
    g = np.array([grow[i] for i in sorder])
    sp = np.array([ev[i] for i in sorder])
    sign = np.sign((g * sp).sum(axis=0))
    diff = np.abs(g * sign - sp)
    d = float(diff.max())
    same = float((diff < 5e-7).mean())
    # both files print 6 decimals: values within ~6e-7 (float32 standardisation) may round
    # one unit apart
    check(f"eigensoft: rows = smartpca's, reference and held-out, to one unit of the 6th "
          f"decimal both print ({d:.2g} <= 1.5e-6; {same:.2%} of the entries print the same)",
          d <= 1.5e-6)
    e = float(np.abs(gv - sv[:K]).max())
    check(f"eigensoft: eigenvalues = smartpca's (reference samples) to its 3 decimals ({e:.2g})",
          e <= 1.5e-3, f"{gv} {sv[:K]}")
    # (float32 Gram products: the eigenvalues ~3e-7 apart; --gram-f64 would print smartpca's)
    check_eval("eigensoft: the reference's", path("g.eval"), f"{T}/sp.eval", rel=5e-7)
    check_snpwt("eigensoft: the reference's", path("g"), f"{T}/sp", K, rel=2e-6)


try:
    ids, fit, hold = setup()
    case_oracle(hold)
    mean, lsq = case_default()
    full = case_complete(mean, lsq, hold)
    case_recovery(full)
    sing = case_singular(hold)
    case_shrink(sing)
    case_smartpca(ids, fit, hold)
finally:
    if not os.environ.get("KEEP"):
        shutil.rmtree(T, ignore_errors=True)
sys.exit(summary())
