#!/usr/bin/env bash
# plink2's QC filters with the pruning, in one run on the same data: the simulated 1,000,000
# variants x 2,000 samples of bench_pca.sh (3 populations, 1% missing calls; the same genotypes
# as a .bed, both cached in bench/out/).  LD pruning at window 50 (`ldprune --window 50 --step 5
# --r2 0.2`, plink2 `--indep-pairwise 50 5 0.2`), without filters, then with plink2's QC step:
#   gensvd --autosome --mind 0.0101 --max-missing 0.02 --maf 0.01 --hwe 1e-6
#   plink2 --autosome --mind 0.0101 --geno 0.02 --maf 0.01 --hwe 1e-6
# (--mind 0.0101 leaves out the samples missing more than ~1% of their calls: about a sixth
# here).  Reported: wall time and peak RSS of each, the ratio gensvd/plink2 with the filters,
# what the filters cost each tool, and whether the kept variants agree.
# Usage: bench/bench_qc.sh   (needs .venv/zarr3 and plink2)
#   GENSVD=path (default build/cli/gensvd), PY=python (default .venv/zarr3/bin/python),
#   THREADS (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
w=$out/qc
mkdir -p "$w"
sim_pair 1000000 2000
QC_G=(--autosome --mind 0.0101 --max-missing 0.02 --maf 0.01 --hwe 1e-6)
QC_P=(--autosome --mind 0.0101 --geno 0.02 --maf 0.01 --hwe 1e-6)

. bench/warm.sh
run_g() { tm "$G" ldprune "$S" --window 50 --step 5 --r2 0.2 -t "$T" "$@" -o "$w/g.zarr" -f -q; }
run_p() { tm plink2 --bfile "$B" "$@" --indep-pairwise 50 5 0.2 --threads "$T" --out "$w/p" >/dev/null; }
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(date -u +%Y-%m-%d)"
printf '%-34s %9s %9s\n' tool wall_s rss_MB
warm "$S" "$B.bed"
run_g
g0=$wall
printf '%-34s %9.2f %9d\n' "gensvd ldprune" "$wall" $((rss / 1024))
run_g "${QC_G[@]}"
g1=$wall
printf '%-34s %9.2f %9d\n' "gensvd ldprune + QC" "$wall" $((rss / 1024))
run_p
p0=$wall
printf '%-34s %9.2f %9d\n' "plink2 --indep-pairwise" "$wall" $((rss / 1024))
run_p "${QC_P[@]}"
p1=$wall
printf '%-34s %9.2f %9d\n' "plink2 --indep-pairwise + QC" "$wall" $((rss / 1024))
"$PY" - "$w/g.zarr" "$B.bim" "$w/p.prune.in" "$g0" "$g1" "$p0" "$p1" <<'PY'
import sys, numpy as np, zarr
keep = zarr.open_group(sys.argv[1], mode="r")["variant_ld_keep"][:].astype(bool)
ids = [l.split("\t")[1] for l in open(sys.argv[2])]
got = {ids[i] for i in np.flatnonzero(keep)}
want = set(open(sys.argv[3]).read().split())
g0, g1, p0, p1 = (float(v) for v in sys.argv[4:8])
print(f"with the QC filters: gensvd / plink2 {g1 / p1:.2f}x; they cost gensvd {g1 - g0:+.2f} s, "
      f"plink2 {p1 - p0:+.2f} s; kept variants equal: {got == want} ({len(got)} / {len(want)})")
PY
