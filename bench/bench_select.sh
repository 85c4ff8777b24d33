#!/usr/bin/env bash
# Variant and sample lists, in one run on the same data: the simulated 1,000,000 variants x
# 2,000 samples of bench_pca.sh (1% missing calls; the same genotypes as a .bed written by
# tests/pca/pca_oracle.py write-bed, both cached in bench/out/).  LD pruning at window 50
# (`ldprune --window 50 --step 5 --r2 0.2`, plink2 `--indep-pairwise 50 5 0.2`):
#   without lists, then with 24 positional ranges left out (a long-range-LD region file, 1-based:
#   gensvd --exclude-range, plink2 --exclude bed1) and every tenth sample removed (gensvd
#   --remove, plink2 --remove with the .fam's FID IID pairs).
# Reported: wall time and peak RSS (/usr/bin/time %M) of each, the ratio gensvd/plink2 with the
# lists, what the lists cost each tool (with / without), and whether the kept variants agree.
#
# Usage: bench/bench_select.sh   (needs .venv/zarr3 and plink2)
#   GENSVD=path (default build/cli/gensvd), PY=python (default .venv/zarr3/bin/python),
#   THREADS (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
w=$out/select
mkdir -p "$w"
sim_pair 1000000 2000
# 24 ranges of 0.5-2 Mb over the contig's 100 Mb (positions 1, 101, ...), and every tenth sample
awk 'BEGIN { for (i = 0; i < 24; i++) { a = 2000000 + i * 4000000; print "1", a, a + 500000 + (i % 4) * 500000, "r" i } }' >"$w/ranges.txt"
awk 'NR % 10 == 0 {print $2}' "$B.fam" >"$w/remove.ids"
awk 'NR % 10 == 0 {print $1, $2}' "$B.fam" >"$w/remove.fid"

. bench/warm.sh
run_g() { tm "$G" ldprune "$S" --window 50 --step 5 --r2 0.2 -t "$T" "$@" -o "$w/g.zarr" -f -q; }
run_p() { tm plink2 --bfile "$B" "$@" --indep-pairwise 50 5 0.2 --threads "$T" --out "$w/p" >/dev/null; }
printf '%-58s %9s %9s\n' tool wall_s rss_MB
warm "$S" "$B.bed"
run_g
g0=$wall
printf '%-58s %9.2f %9d\n' "gensvd ldprune (no lists)" "$wall" $((rss / 1024))
run_g --exclude-range "$w/ranges.txt" --remove "$w/remove.ids"
g1=$wall
printf '%-58s %9.2f %9d\n' "gensvd ldprune --exclude-range --remove" "$wall" $((rss / 1024))
run_p
p0=$wall
printf '%-58s %9.2f %9d\n' "plink2 --indep-pairwise (no lists)" "$wall" $((rss / 1024))
run_p --exclude bed1 "$w/ranges.txt" --remove "$w/remove.fid"
p1=$wall
printf '%-58s %9.2f %9d\n' "plink2 --indep-pairwise --exclude bed1 --remove" "$wall" $((rss / 1024))
"$PY" - "$w/g.zarr" "$B.bim" "$w/p.prune.in" "$g0" "$g1" "$p0" "$p1" <<'PY'
import sys, numpy as np, zarr
keep = zarr.open_group(sys.argv[1], mode="r")["variant_ld_keep"][:].astype(bool)
ids = [l.split("\t")[1] for l in open(sys.argv[2])]
got = {ids[i] for i in np.flatnonzero(keep)}
want = set(open(sys.argv[3]).read().split())
g0, g1, p0, p1 = (float(v) for v in sys.argv[4:8])
print(f"with the lists: gensvd / plink2 {g1 / p1:.2f}x; the lists cost gensvd {g1 - g0:+.2f} s, "
      f"plink2 {p1 - p0:+.2f} s; kept variants equal: {got == want} ({len(got)} / {len(want)})")
PY
