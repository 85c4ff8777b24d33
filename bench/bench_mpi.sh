#!/usr/bin/env bash
# Distributed pca (issue 13): `mpirun -n R gensvd pca` with R = 1, 2 ranks x (cores / R) threads
# on this machine, against one process without mpirun, in one sitting: wall time, speed-up,
# peak RSS per rank, the bytes each rank exchanges per pass and the time the exchange took
# (from -v), and a check that every run wrote the same bytes.  The data is bench_pca_scale.sh's
# P2 (100,000 variants x 20,000 samples, 3 populations, Fst 0.05, 1% missing), k = 10.
# Usage: bench/bench_mpi.sh        (needs a GENSVD_MPI build and openmpi-bin)
#   P2_DIMS="VARIANTS SAMPLES" changes the shape; METHOD=exact benchmarks the Gram path.
set -euo pipefail
cd "$(dirname "$0")/.."
G=${GENSVD:-build/cli/gensvd}
out=bench/out
res=$out/mpi
mkdir -p "$res"
read -r M N <<<"${P2_DIMS:-100000 20000}"
METHOD=${METHOD:-auto}
store=$out/sim_${M}x${N}.vcz # the store bench_pca_scale.sh makes for P2
cores=$(nproc)
MR=(mpirun --oversubscribe --bind-to none -n)
[ "$(id -u)" = 0 ] && MR=(mpirun --allow-run-as-root --oversubscribe --bind-to none -n)
export OMPI_MCA_btl=self,vader

"$G" --version | grep -q '^mpi: Open MPI' || { echo "gensvd built without MPI" >&2; exit 1; }
[ -f "$store/.zmetadata" ] || "$G" simulate "$store" -m "$M" -n "$N" -K 3 --fst 0.05 \
    --missing 0.01 --seed 1 --force -q

run() { # name ranks cmd...
    local name=$1 ranks=$2
    shift 2
    local t0 t1
    t0=$(date +%s.%N)
    /usr/bin/time -f "%M" -o "$res/$name.rss" "$@" >"$res/$name.tsv" 2>"$res/$name.err"
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc >"$res/$name.wall"
    echo "$ranks" >"$res/$name.ranks"
}

args=(pca "$store" -k 10 --method "$METHOD" --format tsv -v)
run one 1 "$G" "${args[@]}" -t "$cores"
run mpi1 1 "${MR[@]}" 1 "$G" "${args[@]}" -t "$cores"
run mpi2 2 "${MR[@]}" 2 "$G" "${args[@]}" -t $((cores / 2 > 0 ? cores / 2 : 1))

echo "data: $M variants x $N samples, k = 10, method $METHOD; $cores cores; $(mpirun --version | head -n 1)"
printf '| run | ranks x threads | wall s | speed-up | peak RSS MB (largest rank) | passes | exchange per pass (bytes per rank, s) | same bytes as one process |\n'
printf '| --- | --- | ---: | ---: | ---: | ---: | --- | --- |\n'
base=$(cat "$res/one.wall")
for name in one mpi1 mpi2; do
    r=$(cat "$res/$name.ranks")
    w=$(cat "$res/$name.wall")
    rss=$(awk '{printf "%.0f", $1 / 1024}' "$res/$name.rss")
    passes=$(grep -c '^\[I::run_iterative\].* pass [0-9]* (' "$res/$name.err" || true)
    ex=$({ grep 'exchange of' "$res/$name.err" || true; } |
        sed -n 's/.*exchange of \([0-9]*\) bytes per rank.* in \([0-9.]*\) s.*/\1 B, \2 s/p' | tail -n 1)
    same=no
    cmp -s "$res/one.tsv" "$res/$name.tsv" && same=yes
    printf '| %s | %s x %s | %.2f | %.2f | %s | %s | %s | %s |\n' "$name" "$r" \
        "$([ "$r" = 1 ] && echo "$cores" || echo $((cores / r)))" "$w" \
        "$(echo "$base / $w" | bc -l)" "$rss" "${passes:-?}" "${ex:-none (one process)}" "$same"
done
echo "per-pass times (-v, rank 0):"
for name in one mpi2; do
    echo "  $name: $(grep -o 'pass [0-9]* ([0-9.]* s)' "$res/$name.err" | sed 's/pass \([0-9]*\) (\([0-9.]*\) s)/\2/' | tr '\n' ' ')"
done

# The model for R nodes: per pass, max(read + decode, products) / R + the exchange of
# N x l x 16 bytes (hi and lo parts, a ring allreduce moves about twice that per node).  The
# per-core rates come from this run (one process): products from the median cached pass,
# decoding from the first pass less a cached one.  Predicted for the UK Biobank shape.
times=$(grep -o 'pass [0-9]* ([0-9.]* s)' "$res/one.err" | sed 's/pass [0-9]* (\([0-9.]*\) s)/\1/')
first=$(echo "$times" | head -n 1)
cached=$(echo "$times" | tail -n +2 | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
rates=$(awk -v M="$M" -v N="$N" -v cores="$cores" -v c="$cached" -v f="$first" 'BEGIN {
    printf "%.4g %.4g %.3f %.3f\n", 4 * M * N * 20 / (c * cores), M * N / ((f - c) * cores), c, f }')
read -r prod dec cached first <<<"$rates"
echo "per-core rates from the one-process run: products $prod flop/s (cached pass ${cached} s), decoding $dec calls/s (first pass ${first} s)"
echo "model, UK Biobank shape (500,000 samples x 1,000,000 variants, k = 20: l = 30), 32 cores a node, 25 Gb/s:"
model() { # nodes cores-per-node variants
    awk -v p="$prod" -v d="$dec" -v nodes="$1" -v cpn="$2" -v M="$3" 'BEGIN {
        N = 500000; l = 30; cores = cpn * nodes; bw = 25e9 / 8
        prod = 4 * M * N * l / (p * cores); dec = M * N / (d * cores)
        bytes = N * l * 16; ex = 2 * (nodes - 1) / nodes * bytes / bw
        first = dec + prod + ex; later = prod + ex
        printf "  %2d nodes x %3d cores, %.0e variants: first pass %.1f s (decode %.1f, products %.1f, exchange %.2f), later passes %.1f s, 8 passes %.0f s; cache %.1f GB a node; %.0f MB exchanged a pass\n",
            nodes, cpn, M, first, dec, prod, ex, later, first + 7 * later, M * N / 4 / nodes / 1e9, bytes / 1e6
    }'
}
model 16 32 1e6
model 64 32 1e6
echo "the anchor's shape (DistPCA: 500,000 x 3,000,000, k = 20, 18.3 min on 4 nodes x 128 cores):"
model 4 128 3e6
