#!/usr/bin/env bash
# Zarr v3 read benchmark (Zarr v3 issue, item 7): the simulated VCF-Zarr store (default
# 1,000,000 variants x 2,000 samples, `gensvd simulate ... --seed 1`, as bench/bench_io.sh makes
# it) as Zarr v2 and as a sharded Zarr v3 copy (same seed, same 1000 x 2000 x 2 inner chunks,
# shards of SHARD_ROWS variants: `--zarr-format 3 --shard ROWS,SAMPLES`), read in one sitting:
#   cat of the stored bytes         the page-cache read limit (no decode)
#   gensvd dump --stats             full read + decode of call_genotype, v2 and v3, local disk
#                                   and over loopback HTTP (tests/net/mock_http_server.py: files
#                                   from disk, keep-alive, single Range per request)
#   zarr-python 3 (+ fsspec/aiohttp over HTTP): the same array read shard by shard, summed
# Every reader's sum of the decoded array must agree.  Each timing is the best of REPEAT runs
# (default 2; the first also warms the page cache).  Prints wall time, decoded MB/s, peak RSS and
# the ratios the issue targets: sharded v3 / v2 wall time locally (<= 1.1) and gensvd's
# throughput over zarr-python 3's on the same v3 store (>= 3).
# Usage: bench/bench_v3_read.sh [VARIANTS] [SAMPLES] [SHARD_ROWS]   (needs .venv/net)
#   GENSVD=path (default build/cli/gensvd), PY=python with zarr 3 + fsspec + aiohttp
#   (default .venv/net/bin/python), REPEAT=n
set -euo pipefail
cd "$(dirname "$0")/.."
M=${1:-1000000}
N=${2:-2000}
R=${3:-20000}
G=${GENSVD:-build/cli/gensvd}
PY=${PY:-.venv/net/bin/python}
REPEAT=${REPEAT:-2}
out=bench/out
v2=sim_${M}x${N}.vcz
v3=sim_${M}x${N}_v3_shard${R}.vcz
mkdir -p "$out"
if [ ! -f "$out/$v2/.zmetadata" ]; then
    echo "making $out/$v2 with gensvd simulate ..." >&2
    "$G" simulate "$out/$v2" -m "$M" -n "$N" -K 3 --fst 0.05 --missing 0.01 --seed 1 --force -q
fi
if [ ! -f "$out/$v3/zarr.json" ]; then
    echo "making $out/$v3 with gensvd simulate --zarr-format 3 --shard $R,$N ..." >&2
    "$G" simulate "$out/$v3" -m "$M" -n "$N" -K 3 --fst 0.05 --missing 0.01 --seed 1 --force -q \
        --zarr-format 3 --shard "$R,$N"
fi
bytes=$((M * N * 2))
stored2=$(du -sb "$out/$v2/call_genotype" | cut -f1)
stored3=$(du -sb "$out/$v3/call_genotype" | cut -f1)
objs2=$(find "$out/$v2/call_genotype" -type f | wc -l)
objs3=$(find "$out/$v3/call_genotype" -type f | wc -l)

python3 tests/net/mock_http_server.py --root bench >"$out/.v3_port" 2>"$out/.v3_server.log" &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s "$out/.v3_port" ] && break; sleep 0.1; done
port=$(head -1 "$out/.v3_port")
http="http://127.0.0.1:$port/out"

best() { # best NAME COMMAND...: "NAME<TAB>seconds<TAB>peakKB<TAB>stdout" of the fastest run
    local name=$1 i t0 t1 res t bt="" brss="" bres=""
    shift
    for i in $(seq "$REPEAT"); do
        t0=$(date +%s.%N)
        res=$(/usr/bin/time -f "%M" -o "$out/.rss" "$@")
        t1=$(date +%s.%N)
        t=$(echo "$t1 - $t0" | bc)
        if [ -z "$bt" ] || [ "$(echo "$t < $bt" | bc)" = 1 ]; then
            bt=$t brss=$(cat "$out/.rss") bres=$res
        fi
    done
    printf '%s\t%s\t%s\t%s\n' "$name" "$bt" "$brss" "$bres"
}
sum='awk '"'"'$1=="sum"{printf "%d\n", $2}'"'"
py_read='
import sys, warnings, numpy as np, zarr
warnings.filterwarnings("ignore")
a = zarr.open_array(sys.argv[1] + "/call_genotype", mode="r")
step = (a.shards or a.chunks)[0]
s = 0
for i in range(0, a.shape[0], step):
    s += int(a[i:i + step].sum(dtype=np.int64))
print(s)
'
zv=$("$PY" -c 'import zarr, fsspec, numcodecs; print(f"zarr {zarr.__version__}, numcodecs {numcodecs.__version__}, fsspec {fsspec.__version__}")')
{
    best "cat stored bytes, v2 (no decode)" sh -c "cat '$out/$v2'/call_genotype/* >/dev/null && echo -"
    best "cat stored bytes, v3 (no decode)" sh -c "find '$out/$v3/call_genotype' -type f -exec cat {} + >/dev/null && echo -"
    best "gensvd dump --stats, v2 local" sh -c "$G dump '$out/$v2/call_genotype' --stats | $sum"
    best "gensvd dump --stats, v3 local" sh -c "$G dump '$out/$v3/call_genotype' --stats | $sum"
    best "gensvd dump --stats, v2 http://" sh -c "$G dump '$http/$v2/call_genotype' --stats | $sum"
    best "gensvd dump --stats, v3 http://" sh -c "$G dump '$http/$v3/call_genotype' --stats | $sum"
    best "zarr-python 3, v3 local" "$PY" -c "$py_read" "$out/$v3"
    best "zarr-python 3, v3 http://" "$PY" -c "$py_read" "$http/$v3"
    best "zarr-python 3, v2 local" "$PY" -c "$py_read" "$out/$v2"
} >"$out/v3_read.tsv"

echo "read+decode of call_genotype ${M} x ${N} x 2 int8 ($((bytes / 1000000)) MB decoded;" \
    "v2 $((stored2 / 1000000)) MB in $objs2 objects, v3 $((stored3 / 1000000)) MB in $objs3 shards" \
    "of $R x $N x 2), $(nproc) CPUs, $("$G" --version | head -1), $zv, best of $REPEAT, $(date -u +%Y-%m-%d)"
awk -F'\t' -v bytes="$bytes" '
    { name[NR] = $1; t[NR] = $2; rss[NR] = $3; res[NR] = $4 }
    END {
        ref = res[3]
        for (i = 1; i <= NR; i++) {
            printf "%-36s %7.2f s %7.0f MB/s  peak RSS %6.0f MB", name[i], t[i], bytes / t[i] / 1e6,
                   rss[i] / 1024
            if (i > 2) printf "  sum %s", (res[i] == ref ? "agrees" : "DIFFERS " res[i])
            printf "\n"
        }
        printf "sharded v3 / v2, gensvd local:      %.2fx wall time (target <= 1.1)\n", t[4] / t[3]
        printf "sharded v3 / v2, gensvd http://:    %.2fx wall time\n", t[6] / t[5]
        printf "gensvd / zarr-python 3, v3 local:   %.1fx throughput (target >= 3)\n", t[7] / t[4]
        printf "gensvd / zarr-python 3, v3 http://: %.1fx throughput\n", t[8] / t[6]
        printf "gensvd v3 local vs cat of its bytes: %.2fx the page-cache read time\n", t[4] / t[2]
    }
' "$out/v3_read.tsv"
