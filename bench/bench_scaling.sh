#!/usr/bin/env bash
# How the cost of PCA grows (issue 33 item 6): gensvd's default against plink2 --pca approx on
# one host, in one sitting, over
#   samples  N = 2,000, 5,000, 10,000, 20,000, 50,000 at 100,000 variants, and
#   variants M = 100,000, 300,000, 1,000,000 at 10,000 samples,
# each store `gensvd simulate -K 3 --fst 0.05 --missing 0.01 --seed 1` (and the same genotypes as
# a .bed for plink2, tests/pca/pca_oracle.py write-bed), k = 10.  Per run: wall time, peak RSS
# (/usr/bin/time), passes (gensvd: its attributes; plink2 --pca approx runs a fixed number of
# iterations and prints none) and the method gensvd chose; then the exponent of time in N and
# in M for each tool (least squares on log time against log size) and a log-log picture
# (bench/scaling_report.py, plain SVG).  Stores whose 2-bit cache would not fit a quarter of
# this machine's memory run with --cache-dir (CACHE_DIR, default bench/out).
# Results are cached per run in bench/out/scaling/ (FORCE=1 reruns; RES=dir elsewhere).
# Usage: bench/bench_scaling.sh      (needs .venv/zarr3 and plink2: scripts/setup.sh --tests)
#   N_LIST="2000 5000 10000 20000 50000" N_AT=100000 M_LIST="100000 300000 1000000"
#   M_AT=10000 (the sizes: small values check the script itself), TOOLS="gensvd plink2",
#   THREADS (default: all cores), GENSVD=path, PY=python
set -euo pipefail
cd "$(dirname "$0")/.."
G=${GENSVD:-build/cli/gensvd}
PY=${PY:-.venv/zarr3/bin/python}
N_LIST=${N_LIST:-"2000 5000 10000 20000 50000"}
N_AT=${N_AT:-100000}
M_LIST=${M_LIST:-"100000 300000 1000000"}
M_AT=${M_AT:-10000}
TOOLS=${TOOLS:-"gensvd plink2"}
T=${THREADS:-$(nproc)}
out=bench/out
res=${RES:-$out/scaling}
cache_dir=${CACHE_DIR:-$out}
mkdir -p "$res" "$out"
K=10

# plink2 links the same OpenBLAS: run it on the kernels gensvd runs (bench_pca_scale.sh)
core=$("$G" --version | sed -n "s/^blas: OpenBLAS, \([A-Za-z0-9]*\) kernels (gensvd's choice.*/\1/p")
plink_env=()
[ -n "$core" ] && plink_env=(env "OPENBLAS_CORETYPE=$core")
mem_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)

# run NAME CMD...: wall seconds and peak RSS (KB) into $res/NAME.time (cached)
run() {
    local name=$1
    shift
    if [ -s "$res/$name.time" ] && [ -z "${FORCE:-}" ]; then
        echo "$name: cached" >&2
        return 0
    fi
    echo "$name: running ..." >&2
    local t0 t1
    t0=$(date +%s.%N)
    if /usr/bin/time -f "%M" -o "$res/$name.rss" "$@" >"$res/$name.out" 2>"$res/$name.err"; then
        t1=$(date +%s.%N)
        printf '%s\t%s\n' "$(echo "$t1 - $t0" | bc)" "$(tail -n 1 "$res/$name.rss")" \
            >"$res/$name.time"
    else
        echo "$name FAILED: $(tail -n 5 "$res/$name.err")" >&2
        rm -f "$res/$name.time"
    fi
}

shapes=()
for n in $N_LIST; do shapes+=("$N_AT $n"); done
for m in $M_LIST; do shapes+=("$m $M_AT"); done
for shape in "${shapes[@]}"; do
    read -r M N <<<"$shape"
    store=$out/sim_${M}x${N}.vcz
    bed=$out/sim_${M}x${N}
    if [ ! -f "$store/.zmetadata" ]; then
        echo "simulate ${M}x${N} ..." >&2
        "$G" simulate "$store" -m "$M" -n "$N" -K 3 --fst 0.05 --missing 0.01 --seed 1 \
            --force -q
    fi
    for tool in $TOOLS; do
        name=${tool}_${M}x${N}
        case $tool in
        gensvd)
            extra=()
            # the 2-bit cache (M N / 4 bytes) beyond a quarter of memory spills to CACHE_DIR
            if [ $((M / 4 * N / 1024)) -gt $((mem_kb / 4)) ]; then
                extra=(--cache-dir "$cache_dir")
            fi
            run "$name" "$G" pca "$store" -k $K -t "$T" "${extra[@]}" -o "$res/$name.zarr" \
                --force -v ;;
        plink2)
            if [ ! -s "$bed.bed" ]; then
                echo "writing $bed.bed ..." >&2
                "$PY" tests/pca/pca_oracle.py write-bed "$store" "$bed" --chunk 10000 >/dev/null
            fi
            run "$name" "${plink_env[@]}" plink2 --bfile "$bed" --mac 1 --pca approx "$K" \
                --threads "$T" --out "$res/$name" ;;
        esac
    done
done

echo
echo "PCA cost against size, k = $K, $T threads, $(date -u +%Y-%m-%d), $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "$("$G" --version | grep '^cpu kernels: ')"
echo "plink2: $(plink2 --version 2>/dev/null | head -n 1)${core:+ (OPENBLAS_CORETYPE=$core)}"
"$PY" bench/scaling_report.py "$res" "$N_AT" "$M_AT" "$N_LIST" "$M_LIST" "$TOOLS" \
    "$res/scaling.svg"
