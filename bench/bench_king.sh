#!/usr/bin/env bash
# KING kinship benchmark (issue 16 item 3), in one run on the same data: 2,000 samples x
# 200,000 variants, 1% missing calls (gensvd simulate; the same genotypes as a .bed written by
# tests/pca/pca_oracle.py write-bed, both cached in bench/out/):
#   gensvd pdist -m king -o OUT.zarr (square float64 Zarr: open, read, decode, count, write)
#   plink2 --make-king square bin (square float64 binary) --threads T
#   gensvd related --king-cutoff 0.0884 against plink2 --king-cutoff 0.0884 (kept sets compared)
# Reported: wall time, pair-variants per second (N(N-1)/2 x M / time), peak RSS
# (/usr/bin/time %M), the throughput ratio gensvd/plink2, and the max |gensvd - plink2| over
# the N x N kinships.  The simulated variants all lie on contig "1", so plink2 uses all of them.
#
# Usage: bench/bench_king.sh   (needs .venv/zarr3 and plink2)
#   GENSVD=path (default build/cli/gensvd), PY=python (default .venv/zarr3/bin/python),
#   THREADS (default 2, as the issue's comparison), N, M (defaults 2000, 200000)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-2000}
M=${M:-200000}
. bench/common.sh
rate() { "$PY" -c "import sys; n,m,t=int(sys.argv[1]),int(sys.argv[2]),float(sys.argv[3]); print(f'{n*(n-1)/2*m/t:.3g}')" "$@"; }

S=$out/king_${N}x${M}.vcz
B=$out/king_${N}x${M}
[ -d "$S" ] || "$G" simulate -n "$N" -m "$M" -r 0.01 -s 11 -c 10000,"$N" -q "$S"
[ -f "$B.bed" ] || "$PY" tests/pca/pca_oracle.py write-bed "$S" "$B" >/dev/null

. bench/warm.sh
printf '%-44s %9s %12s %9s\n' tool wall_s pairvar/s rss_MB
warm "$S"
tm "$G" pdist "$S" -m king -t "$T" -o "$out/king_gensvd.zarr" -f -q
gw=$wall grss=$rss
printf '%-44s %9.2f %12s %9d\n' "gensvd pdist -m king -t $T (Zarr)" "$gw" "$(rate "$N" "$M" "$gw")" $((grss / 1024))
warm "$B.bed"
tm plink2 --bfile "$B" --make-king square bin --threads "$T" --out "$out/king_plink2" >/dev/null
pw=$wall prss=$rss
printf '%-44s %9.2f %12s %9d\n' "plink2 --make-king square bin --threads $T" "$pw" "$(rate "$N" "$M" "$pw")" $((prss / 1024))
"$PY" - "$out/king_gensvd.zarr" "$out/king_plink2.king.bin" "$gw" "$pw" <<'PY'
import sys, numpy as np, zarr
got = zarr.open_group(sys.argv[1], mode="r")["distance"][:]
ref = np.fromfile(sys.argv[2], dtype="<f8").reshape(got.shape)
print(f"throughput gensvd / plink2: {float(sys.argv[4]) / float(sys.argv[3]):.2f}x, "
      f"max |gensvd - plink2| = {np.max(np.abs(got - ref)):.3g}")
PY

tm "$G" related "$S" --king-cutoff 0.0884 -t "$T" -q >"$out/king_related.txt"
rw=$wall rrss=$rss
tm plink2 --bfile "$B" --king-cutoff 0.0884 --threads "$T" --out "$out/king_cut" >/dev/null
cw=$wall crss=$rss
printf '%-44s %9.2f %12s %9d\n' "gensvd related --king-cutoff 0.0884" "$rw" - $((rrss / 1024))
printf '%-44s %9.2f %12s %9d\n' "plink2 --king-cutoff 0.0884" "$cw" - $((crss / 1024))
if cmp -s <(tail -n +2 "$out/king_related.txt" | sort) \
    <(tail -n +2 "$out/king_cut.king.cutoff.in.id" | cut -f2 | sort); then
    echo "related: the same $(($(wc -l <"$out/king_related.txt") - 1)) samples kept as plink2"
else
    echo "related: kept sets DIFFER from plink2"
fi
