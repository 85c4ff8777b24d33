#!/usr/bin/env bash
# LD pruning benchmark (issue 16 item 1): gensvd ldprune against plink2 --indep-pairwise on the
# same genotypes, in one sitting.  Data: `gensvd simulate` (Balding-Nichols, 3 populations,
# Fst 0.05, no missing calls, one contig; simulate plants no LD, so no variant pair is above
# the threshold and every pair of every window is evaluated: the worst case for both tools),
# written to .bed with tests/pca/pca_oracle.py write-bed (cached in bench/out/ldprune_MxN/).
# Reported: wall time and peak RSS (/usr/bin/time), the ratio gensvd / plink2, and whether the
# kept sets agree.
# Usage: bench/bench_ldprune.sh [VARIANTS] [SAMPLES] [WINDOW] [STEP] [R2] [THREADS]
#        defaults 1000000 2000 1000 100 0.2 2; GENSVD=path, PY=python
set -euo pipefail
cd "$(dirname "$0")/.."
M=${1:-1000000}
N=${2:-2000}
W=${3:-1000}
S=${4:-100}
R2=${5:-0.2}
T=${6:-2}
G=${GENSVD:-build/cli/gensvd}
PY=${PY:-.venv/zarr3/bin/python}
dir=bench/out/ldprune_${M}x${N}
mkdir -p "$dir"
store=$dir/sim.vcz
if [ ! -d "$store" ]; then
    "$G" simulate "$store" --variants "$M" --samples "$N" --seed 1 -q
fi
if [ ! -f "$dir/sim.bed" ]; then
    "$PY" tests/pca/pca_oracle.py write-bed "$store" "$dir/sim"
fi
tm() { /usr/bin/time -f "%e %M" -o "$1" "${@:2}"; }
. bench/warm.sh
warm "$store"
tm "$dir/gensvd.time" "$G" ldprune "$store" --window "$W" --step "$S" --r2 "$R2" -t "$T" \
    --format tsv -q >"$dir/gensvd.tsv"
warm "$dir/sim.bed" "$dir/sim.bim" "$dir/sim.fam"
tm "$dir/plink2.time" plink2 --bfile "$dir/sim" --indep-pairwise "$W" "$S" "$R2" --threads "$T" \
    --out "$dir/plink2" --silent
read -r gw gm <"$dir/gensvd.time"
read -r pw pm <"$dir/plink2.time"
agree=$("$PY" - "$dir" <<'PY'
import sys
d = sys.argv[1]
ids = [l.split()[1] for l in open(d + "/sim.bim")]
mine = {ids[int(l.split("\t")[0])] for l in open(d + "/gensvd.tsv").read().splitlines()[1:]
        if l.split("\t")[3] == "1"}
pl = set(open(d + "/plink2.prune.in").read().split())
print(f"{'yes' if mine == pl else 'NO'} (gensvd keeps {len(mine)}, plink2 {len(pl)})")
PY
)
printf "ldprune %sx%s window %s step %s r2 %s threads %s\n" "$M" "$N" "$W" "$S" "$R2" "$T"
printf "%-8s %8s %10s\n" tool wall_s peak_MiB
printf "%-8s %8s %10d\n" gensvd "$gw" $((gm / 1024))
printf "%-8s %8s %10d\n" plink2 "$pw" $((pm / 1024))
printf "ratio gensvd/plink2: %s; kept sets agree: %s\n" \
    "$(awk -v a="$gw" -v b="$pw" 'BEGIN { printf "%.2f", a / b }')" "$agree"
