#!/usr/bin/env bash
# GPU benchmark: gensvd on the CUDA backend against the CPU backend, same store, same options,
# in one run.  Needs a machine with an NVIDIA GPU (compute capability 8.0+) and a build with the
# CUDA backend (scripts/setup.sh builds it when the toolkit is installed; `gensvd --version`
# prints a "cuda:" line).
#   PCA     gensvd pca -k 10 --method exact and --method randomized, --device cpu and gpu:
#           wall time, peak RSS, GPU/CPU time ratio, max relative difference of the top-10
#           singular values, and the host-to-device bandwidth the CUDA backend achieved (its
#           -v report: bytes uploaded / time the copies took on the copy stream).
#   pdist   ibs, cityblock (bit-plane counts) and braycurtis (float64 pair loop) on both
#           devices: wall time, peak RSS, pair-variants/s, H2D bandwidth, outputs identical
# The store is `gensvd simulate -K 3 --fst 0.05 --missing 0.01 --seed 1` (made once, cached in
# bench/out/); logs and times go to bench/out/gpu_MxN/.
#
# Usage: bench/bench_gpu.sh [VARIANTS] [SAMPLES]       (default 200000 x 5000)
#   GENSVD=path (default build/cli/gensvd), THREADS=n (default nproc), METHODS="exact randomized"
set -euo pipefail
cd "$(dirname "$0")/.."
M=${1:-200000}
N=${2:-5000}
K=10
G=${GENSVD:-build/cli/gensvd}
T=${THREADS:-$(nproc)}
METHODS=${METHODS:-exact randomized}
store=bench/out/sim_${M}x${N}.vcz
out=bench/out/gpu_${M}x${N}

[ -x "$G" ] || { echo "bench_gpu: $G not found; build first (scripts/setup.sh)" >&2; exit 1; }
if ! "$G" --version | grep -q '^backends: cuda'; then
    echo "bench_gpu: $G has no CUDA backend (configure with -DGENSVD_CUDA=ON)" >&2
    exit 3
fi
mkdir -p "$out"
if [ ! -d "$store" ]; then
    echo "making $store ..." >&2
    "$G" simulate "$store" -m "$M" -n "$N" -K 3 --fst 0.05 --missing 0.01 --seed 1 --force
fi
if ! "$G" pca --device gpu -k 1 --variants 0:100 "$store" >/dev/null 2>"$out/probe.log"; then
    echo "bench_gpu: no usable GPU: $(cat "$out/probe.log")" >&2
    exit 3
fi
"$G" --version | grep '^cuda:'
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || true

# run NAME ARGS...: time one gensvd run; stderr (with -v) in NAME.log, "wall rss_kb" in NAME.time
run() {
    local name=$1
    shift
    /usr/bin/time -f "%e %M" -o "$out/$name.time" "$G" "$@" -v --threads "$T" --no-progress \
        >"$out/$name.out" 2>"$out/$name.log" || { echo "FAILED: $name (see $out/$name.log)" >&2; return 1; }
}

# singular values printed by the -v report of a run
svals() { sed -n 's/^gensvd pca: singular values: *//p' "$out/$1.log" | tr ' ' '\n' | grep .; }

echo
echo "== PCA: $M variants x $N samples, k = $K, $T threads"
printf '%-12s %-6s %10s %8s %12s %14s %12s\n' method device "wall s" "vs cpu" "peak RSS MB" \
    "max rel diff s" "H2D GB/s"
for m in $METHODS; do
    for d in cpu gpu; do
        run "pca_${m}_$d" pca "$store" -k "$K" --method "$m" --device "$d" --format tsv
    done
    for d in cpu gpu; do
        read -r wall rss <"$out/pca_${m}_$d.time"
        cpu_wall=$(cut -d' ' -f1 "$out/pca_${m}_cpu.time")
        diff=$(paste <(svals "pca_${m}_cpu") <(svals "pca_${m}_$d") |
            awk '{ d = ($1 - $2) / $1; if (d < 0) d = -d; if (d > w) w = d } END { printf "%.1e", w }')
        bw=$(sed -n 's/.*cuda: H2D .*: \([0-9.]*\) GB\/s.*/\1/p' "$out/pca_${m}_$d.log")
        printf '%-12s %-6s %10.2f %8.2f %12.0f %14s %12s\n' "$m" "$d" "$wall" \
            "$(awk -v a="$wall" -v b="$cpu_wall" 'BEGIN { print a / b }')" \
            "$(awk -v r="$rss" 'BEGIN { print r / 1024 }')" "$diff" "${bw:--}"
    done
done
grep -h "cuda: H2D" "$out"/pca_*_gpu.log | sed 's/^/  /' || true

echo
echo "== pdist: $N samples x $M variants (1% missing), Zarr output, $T threads"
# The same metrics on both devices: ibs and cityblock (bit-plane counts), braycurtis (the
# float64 pair loop).  The outputs must be identical: the chunk files of the two Zarr groups
# are compared byte for byte (not .zattrs and .zmetadata: they record the device and command
# line).
printf '%-11s %-6s %10s %8s %12s %16s %12s %s\n' metric device "wall s" "vs cpu" "peak RSS MB" \
    "pair-variants/s" "H2D GB/s" output
for metric in ibs cityblock braycurtis; do
    vars=$M
    [ "$metric" = braycurtis ] && vars=$((M < 20000 ? M : 20000)) # the pair loop is slow on a CPU
    for d in cpu gpu; do
        rm -rf "$out/pdist_${metric}_$d.zarr"
        run "pdist_${metric}_$d" pdist "$store" --metric "$metric" --device "$d" \
            --variants "0:$vars" -o "$out/pdist_${metric}_$d.zarr"
    done
    same=$(diff -rq --exclude=.zattrs --exclude=.zmetadata "$out/pdist_${metric}_cpu.zarr" \
        "$out/pdist_${metric}_gpu.zarr" >/dev/null && echo identical || echo DIFFERENT)
    for d in cpu gpu; do
        read -r wall rss <"$out/pdist_${metric}_$d.time"
        cpu_wall=$(cut -d' ' -f1 "$out/pdist_${metric}_cpu.time")
        bw=$(sed -n 's/.*cuda pdist: .*copies: \([0-9.]*\) GB\/s.*/\1/p' "$out/pdist_${metric}_$d.log")
        printf '%-11s %-6s %10.2f %8.2f %12.0f %16.2e %12s %s\n' "$metric" "$d" "$wall" \
            "$(awk -v a="$wall" -v b="$cpu_wall" 'BEGIN { print a / b }')" \
            "$(awk -v r="$rss" 'BEGIN { print r / 1024 }')" \
            "$(awk -v n="$N" -v m="$vars" -v w="$wall" 'BEGIN { print n * (n - 1) / 2 * m / w }')" \
            "${bw:--}" "$same"
    done
done
grep -h "cuda pdist:" "$out"/pdist_*_gpu.log | sed 's/^/  /' || true
