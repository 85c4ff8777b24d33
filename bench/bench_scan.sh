#!/usr/bin/env bash
# Full read + decode of a VCF-Zarr call_genotype array (default 1,000,000 variants x 2,000
# samples x 2, int8, made by `gensvd simulate`): gensvd dump --stats against zarr-python 3
# and zarr-python 2 reading the same array into numpy, in one run.  Prints wall time,
# decoded throughput, ratio to gensvd, peak RSS and whether the sums agree.
# Usage: bench/bench_scan.sh [VARIANTS] [SAMPLES]     (needs scripts/setup.sh --tests first)
set -euo pipefail
cd "$(dirname "$0")/.."
M=${1:-1000000}
N=${2:-2000}
g=build/cli/gensvd
out=bench/out
store=$out/sim_${M}x${N}.vcz
mkdir -p "$out"
if [ ! -f "$store/.zmetadata" ]; then
    echo "making $store with gensvd simulate ..." >&2
    /usr/bin/time -f "simulate: %e s, peak RSS %M KB" \
        $g simulate "$store" -m "$M" -n "$N" -K 3 --fst 0.05 --missing 0.01 --seed 1 --force
fi
bytes=$((M * N * 2))
nproc=$(nproc)

# run NAME COMMAND...: prints "NAME<TAB>seconds<TAB>peakKB<TAB>sum" (the command prints the sum)
run() {
    local name=$1
    shift
    local t0 t1 res
    t0=$(date +%s.%N)
    res=$(/usr/bin/time -f "%M" -o "$out/.rss" "$@")
    t1=$(date +%s.%N)
    printf '%s\t%s\t%s\t%s\n' "$name" "$(echo "$t1 - $t0" | bc)" "$(cat "$out/.rss")" "$res"
}
py_read='
import sys, warnings, numpy as np, zarr
warnings.filterwarnings("ignore")
a = zarr.open_array(sys.argv[1] + "/call_genotype", mode="r")
x = a[:]
print(int(x.sum(dtype=np.int64)))
'
{
    run "gensvd dump --stats (threads=$nproc)" sh -c "$g dump '$store/call_genotype' --stats | awk '\$1==\"sum\"{printf \"%d\\n\", \$2}'"
    run "gensvd dump --stats (threads=1)" sh -c "$g dump -t 1 '$store/call_genotype' --stats | awk '\$1==\"sum\"{printf \"%d\\n\", \$2}'"
    run "zarr-python $(.venv/zarr3/bin/python -c 'import zarr; print(zarr.__version__)') a[:]" .venv/zarr3/bin/python -c "$py_read" "$store"
    run "zarr-python $(.venv/zarr2/bin/python -c 'import zarr; print(zarr.__version__)') a[:]" .venv/zarr2/bin/python -c "$py_read" "$store"
} >"$out/scan.tsv"

echo "read+decode of call_genotype ${M} x ${N} x 2 int8 ($((bytes / 1000000)) MB decoded), $(nproc) CPUs"
awk -F'\t' -v bytes="$bytes" '
    NR == 1 { base = $2; ref = $4 }
    { printf "%-34s %8.2f s %9.0f MB/s  %6.2fx gensvd time  peak RSS %7.0f MB  sum %s\n",
             $1, $2, bytes / $2 / 1e6, $2 / base, $3 / 1024, ($4 == ref ? "agrees" : "DIFFERS " $4) }
' "$out/scan.tsv"
