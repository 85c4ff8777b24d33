#!/usr/bin/env bash
# Projection benchmark, in one run on the same data: the simulated 1,000,000 variants x 2,000
# samples of bench_pca.sh (1% missing calls; the same genotypes as a .bed written by
# tests/pca/pca_oracle.py write-bed, both cached in bench/out/).  PCs (k = 10, --scaler hwe,
# as plink2's variance-standardize) are fitted on the first half of the samples with
# `gensvd pca --loadings` (not timed); the other half is then placed on them by
#   gensvd project --pcs FIT.zarr --samples HOLD -o OUT.zarr          (the default, mean)
#   gensvd project ... --missing lsq                                   (smartpca's lsqproject)
#   plink2 --score WEIGHTS 1 2 header-read no-mean-imputation variance-standardize
#          --read-freq FIT.afreq --keep HOLD --threads T               (gensvd's loadings as
#                                                                       its weights)
# Reported: wall time, peak RSS (/usr/bin/time %M), the time ratio gensvd/plink2, and the
# largest |gensvd - plink2| relative to each PC's largest score (plink2 prints 6 digits and
# reads frequencies to 6; the weights are written with 17).  The physical limit printed is
# the time to read and decode the store alone (gensvd dump --stats of call_genotype).
#
# Usage: bench/bench_project.sh   (needs .venv/zarr3 and plink2)
#   GENSVD=path (default build/cli/gensvd), PY=python (default .venv/zarr3/bin/python),
#   THREADS (default 2), N, M (defaults 2000, 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-2000}
M=${M:-1000000}
. bench/common.sh
w=$out/project
mkdir -p "$w"
sim_pair "$M" "$N"

# the halves, the fit and the weights (not timed)
half=$((N / 2))
awk -v h="$half" 'NR <= h {print $2}' "$B.fam" >"$w/fit.ids"
awk -v h="$half" 'NR > h {print $2}' "$B.fam" >"$w/hold.ids"
awk -v h="$half" 'NR <= h {print $1 "\t" $2}' "$B.fam" >"$w/fit.keep"
awk -v h="$half" 'NR > h {print $1 "\t" $2}' "$B.fam" >"$w/hold.keep"
"$G" pca "$S" --samples "$w/fit.ids" -k 10 --scaler hwe --loadings -t "$T" -o "$w/fit.zarr" -f -q
plink2 --bfile "$B" --keep "$w/fit.keep" --freq --threads "$T" --out "$w/fit" >/dev/null
"$PY" - "$w/fit.zarr" "$B.bim" "$w/weights.txt" <<'PY'
import sys, numpy as np, zarr
z = zarr.open_group(sys.argv[1], mode="r")
rows = np.nonzero(z["variant_pca_included"][:])[0]
V = z["sample_pca_component"][:][rows]
bim = open(sys.argv[2]).read().splitlines()
with open(sys.argv[3], "w") as f:
    f.write("ID\tA1\t" + "\t".join(f"PC{i + 1}" for i in range(V.shape[1])) + "\n")
    for r, j in enumerate(rows):
        c = bim[j].split("\t")
        f.write(f"{c[1]}\t{c[4]}\t" + "\t".join("%.17g" % v for v in V[r]) + "\n")
PY

. bench/warm.sh
printf '%-58s %9s %9s\n' tool wall_s rss_MB
warm "$S"
tm "$G" dump "$S/call_genotype" --stats -t "$T" -q >/dev/null
lw=$wall
printf '%-58s %9.2f %9d\n' "limit: gensvd dump --stats (read + decode the store)" "$lw" $((rss / 1024))
tm "$G" project "$S" --pcs "$w/fit.zarr" --samples "$w/hold.ids" -t "$T" -o "$w/mean.zarr" -f -q
gw=$wall grss=$rss
printf '%-58s %9.2f %9d\n' "gensvd project -t $T" "$gw" $((grss / 1024))
tm "$G" project "$S" --pcs "$w/fit.zarr" --samples "$w/hold.ids" --missing lsq -t "$T" \
    -o "$w/lsq.zarr" -f -q
qw=$wall qrss=$rss
printf '%-58s %9.2f %9d\n' "gensvd project --missing lsq -t $T" "$qw" $((qrss / 1024))
warm "$B.bed"
tm plink2 --bfile "$B" --keep "$w/hold.keep" --read-freq "$w/fit.afreq" \
    --score "$w/weights.txt" 1 2 header-read no-mean-imputation variance-standardize \
    cols=+scoresums --score-col-nums 3-12 --threads "$T" --out "$w/plink2" >/dev/null
pw=$wall prss=$rss
printf '%-58s %9.2f %9d\n' "plink2 --score (variance-standardize) --threads $T" "$pw" $((prss / 1024))
"$PY" - "$w/mean.zarr" "$w/lsq.zarr" "$w/plink2.sscore" "$gw" "$qw" "$pw" "$lw" <<'PY'
import sys, numpy as np, zarr
g = zarr.open_group(sys.argv[1], mode="r")
got = g["sample_pca_projection"][:]
lsq = zarr.open_group(sys.argv[2], mode="r")["sample_pca_projection"][:]
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[3])]
c0 = rows[0].index("PC1_SUM")
ref = np.array([[float(v) for v in r[c0:c0 + got.shape[1]]] for r in rows[1:]])
ids = [r[1] for r in rows[1:]]
same = ids == [str(s) for s in g["sample_id"][:]]
err = np.max(np.abs(got - ref) / np.abs(ref).max(axis=0))
gw, qw, pw, lw = (float(v) for v in sys.argv[4:8])
print(f"time gensvd / plink2: {gw / pw:.2f}x (lsq {qw / pw:.2f}x); gensvd / its read+decode "
      f"limit: {gw / lw:.2f}x")
print(f"same samples: {same}; max |gensvd - plink2| / max |PC|: {err:.2g}; lsq against the "
      f"default (1% missing): {np.max(np.abs(lsq - got) / np.abs(got).max(axis=0)):.2g}")
PY
