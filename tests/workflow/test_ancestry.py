#!/usr/bin/env python3
"""scripts/ancestry.sh (ldprune -> related -> pca on the unrelated, pruned set -> project
everyone) on the bundled HapMap3 store, checked against oracles that are not gensvd:
  - the unrelated set equals plink2 --king-cutoff 0.0884 on the .bed the store came from
    (autosomes; skipped when plink2 or the .bed is absent);
  - the fitted samples' projected scores equal pca's own scores (sample_pca_projection) to
    1e-6 of the largest score (two code paths: the Gram's eigenvectors vs the loadings pass);
  - the population labels (HapMap3's, not used by any step): the African, East Asian and
    European centroids on PC1-2 are separated by more than 5 pooled within-population
    standard deviations, and every relative that `related` removed (so not fitted) lands
    nearest to its own continental group's centroid on PC1-4;
  - summary.tsv: 11 populations, 957 samples, fitted = the unrelated set.
usage: test_ancestry.py GENSVD TESTDATA_REALDATA SHARED_REALDATA
Last line "N passed, N failed"; exit 1 on failure."""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checklib import check, summary  # noqa: E402

G, REAL, SHARED = sys.argv[1:4]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def dump(path):
    out = subprocess.run([G, "dump", path], check=True, capture_output=True, text=True).stdout
    return out.splitlines()


CONT = {"YRI": "AFR", "LWK": "AFR", "ASW": "AFR", "MKK": "AFR", "CHB": "EAS", "JPT": "EAS",
        "CHD": "EAS", "CEU": "EUR", "TSI": "EUR"}

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "anc")
    r = subprocess.run([os.path.join(ROOT, "scripts/ancestry.sh"), G, out,
                        os.path.join(REAL, "hapmap3.vcz"),
                        os.path.join(REAL, "hapmap3_957.populations.tsv")],
                       capture_output=True, text=True)
    check("ancestry.sh exits 0", r.returncode == 0, r.stderr[-500:])
    if r.returncode != 0:
        summary()
        sys.exit(1)
    pops = {}
    with open(os.path.join(REAL, "hapmap3_957.populations.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            v = dict(zip(head, line.rstrip("\n").split("\t")))
            pops[v["IID"]] = v["population"]
    unrelated = set(open(os.path.join(out, "unrelated.txt")).read().split())

    # plink2 --king-cutoff on the original .bed (autosomes)
    bed = os.path.join(SHARED, "hapmap3_957x14389", "hapmap3_957")
    plink2 = shutil.which("plink2")
    if plink2 and os.path.exists(bed + ".bed"):
        pr = os.path.join(tmp, "pl")
        subprocess.run([plink2, "--bfile", bed, "--chr", "1-22", "--king-cutoff", "0.0884",
                        "--threads", "2", "--out", pr], check=True, capture_output=True)
        keep = set()
        for line in open(pr + ".king.cutoff.in.id"):
            if not line.startswith("#"):
                keep.add(line.split()[-1])
        check("unrelated set = plink2 --king-cutoff", keep == unrelated,
              f"gensvd {len(unrelated)}, plink2 {len(keep)}, differ {len(keep ^ unrelated)}")
    else:
        print("skip plink2 --king-cutoff (plink2 or the .bed not found)")

    # projection of everyone vs pca's scores of the fitted samples
    rows = [l.split("\t") for l in open(os.path.join(out, "projection.tsv")).read().splitlines()]
    ids = [r[0] for r in rows[1:]]
    proj = np.array([[float(x) for x in r[1:]] for r in rows[1:]])
    check("projection: 957 samples x 10 PCs", proj.shape == (957, 10), str(proj.shape))
    pid = dump(os.path.join(out, "pcs.zarr/sample_id"))
    pscore = np.array([[float(x) for x in l.split("\t")] for l in
                       dump(os.path.join(out, "pcs.zarr/sample_pca_projection"))])
    check("pca fitted the unrelated set", set(pid) == unrelated and len(pid) == len(unrelated))
    at = {s: i for i, s in enumerate(ids)}
    sub = proj[[at[s] for s in pid]]
    err = np.abs(sub - pscore).max() / np.abs(pscore).max()
    check("fitted samples: projected = pca scores (1e-6)", err < 1e-6, f"{err:.3g}")

    # geography from the labels
    lab = np.array([pops[s] for s in ids])
    cont = np.array([CONT.get(p, "") for p in lab])
    fitted = np.array([s in unrelated for s in ids])
    pc12 = proj[:, :2]
    sd = np.sqrt(np.mean([pc12[lab == p].var(axis=0).sum() for p in set(lab)]))
    cent = {c: pc12[(cont == c) & fitted].mean(axis=0) for c in ("AFR", "EAS", "EUR")}
    for a, b in (("AFR", "EAS"), ("AFR", "EUR"), ("EAS", "EUR")):
        d = np.linalg.norm(cent[a] - cent[b])
        check(f"{a}-{b} centroids > 5 sd apart", d > 5 * sd, f"{d:.2f} vs sd {sd:.2f}")
    pc14 = proj[:, :4]
    c4 = {c: pc14[(cont == c) & fitted].mean(axis=0) for c in ("AFR", "EAS", "EUR")}
    removed = [i for i in range(len(ids)) if not fitted[i] and cont[i]]
    wrong = [ids[i] for i in removed
             if min(c4, key=lambda c: np.linalg.norm(pc14[i] - c4[c])) != cont[i]]
    check("relatives (not fitted) land in their continental cluster", not wrong and removed,
          f"{len(removed)} removed, wrong: {wrong[:5]}")

    summ = [l.split("\t") for l in open(os.path.join(out, "summary.tsv")).read().splitlines()]
    check("summary header", summ[0] == ["population", "samples", "fitted", "mean_PC1",
                                        "mean_PC2"], str(summ[0]))
    check("summary: 11 populations, 957 samples, fitted = unrelated",
          len(summ) == 12 and sum(int(r[1]) for r in summ[1:]) == 957 and
          sum(int(r[2]) for r in summ[1:]) == len(unrelated))
    for r in summ[1:]:
        m = lab == r[0]
        ok = abs(float(r[3]) - proj[m, 0].mean()) < 0.006 and \
            abs(float(r[4]) - proj[m, 1].mean()) < 0.006
        check(f"summary {r[0]} means", ok, str(r))

sys.exit(summary())
