#!/usr/bin/env bash
# One row of bench/README.md's host table (issue 33 item 5): on this host, in one sitting, the
# ratios of gensvd to its anchors and the compute limits, naming the CPU model and the date.
#   P1, P2, P3   gensvd default against plink2 --pca (P1) and --pca approx (P2, P3), and
#                --accuracy bulk at P2 (bench/bench_pca_scale.sh: its stores, limits and log)
#   pass         P2's median cached pass against the FMA compute limit (bench/gemm_limit.c fma
#                on the widest vectors, and fma256: ymm) and P2's peak RSS
#   KING         gensvd pdist -m king against plink2 --make-king square, 1,000,000 variants x
#                2,000 samples, 1% missing (bench/bench_king.sh N=2000 M=1000000): throughput
#   ldprune      gensvd ldprune --window 50 --step 5 --r2 0.2 against plink2 --indep-pairwise
#                50 5 0.2, 1,000,000 x 2,000 (bench/bench_ldprune.sh): time ratio
#   ibs          gensvd pdist -m ibs against PLINK 1.9 --distance square bin 1-ibs flat-missing
#                on KING's store: throughput ratio and pair-variants/s
# Every tool gets THREADS threads (default 2, as the issue's comparisons).  The parts' own
# outputs stay in bench/out/host/ (FORCE=1 reruns the PCA tools).  Run it on an idle machine.
# Usage: bench/bench_host.sh   (needs .venv/zarr3, plink2, plink1.9: scripts/setup.sh --tests)
#   PARTS="pca king ldprune ibs" picks parts; P1_DIMS, P2_DIMS, P3_DIMS, KING_M, LD_M
#   (smaller shapes check the script itself), GENSVD=path, PY=python
set -euo pipefail
cd "$(dirname "$0")/.."
G=${GENSVD:-build/cli/gensvd}
PY=${PY:-.venv/zarr3/bin/python}
PARTS=${PARTS:-pca king ldprune ibs}
T=${THREADS:-2}
KING_M=${KING_M:-1000000}
LD_M=${LD_M:-1000000}
out=bench/out
host=$out/host
mkdir -p "$host"
export GENSVD=$G PY THREADS=$T
PLINK1=$(command -v plink1.9 || command -v plink || true)
row=()

if [[ " $PARTS " == *" pca "* ]]; then
    RES=$host/scale SIZES="P1 P2 P3" TOOLS="gensvd gensvd_bulk plink2_approx plink2_exact" \
        bash bench/bench_pca_scale.sh | tee "$host/pca.txt"
fi
if [[ " $PARTS " == *" king "* ]]; then
    N=2000 M=$KING_M bash bench/bench_king.sh | tee "$host/king.txt"
fi
if [[ " $PARTS " == *" ldprune "* ]]; then
    bash bench/bench_ldprune.sh "$LD_M" 2000 50 5 0.2 "$T" | tee "$host/ldprune.txt"
fi
if [[ " $PARTS " == *" ibs "* ]] && [ -n "$PLINK1" ]; then
    S=$out/king_2000x${KING_M}.vcz
    B=$out/king_2000x${KING_M}
    [ -d "$S" ] || "$G" simulate -n 2000 -m "$KING_M" -r 0.01 -s 11 -c 10000,2000 -q "$S"
    [ -f "$B.bed" ] || "$PY" tests/pca/pca_oracle.py write-bed "$S" "$B" >/dev/null
    . bench/warm.sh
    warm "$S"
    /usr/bin/time -f "%e %M" -o "$host/ibs_gensvd.time" "$G" pdist "$S" -m ibs -t "$T" \
        -o "$host/ibs.zarr" -f -q
    warm "$B.bed"
    /usr/bin/time -f "%e %M" -o "$host/ibs_plink1.time" "$PLINK1" --bfile "$B" \
        --distance square bin 1-ibs flat-missing --threads "$T" --out "$host/ibs_plink1" >/dev/null
    read -r gw _ <"$host/ibs_gensvd.time"
    read -r pw _ <"$host/ibs_plink1.time"
    printf 'ibs: gensvd %.2f s (%s pair-variants/s), PLINK 1.9 %.2f s: %sx faster\n' "$gw" \
        "$("$PY" -c "print(f'{2000*1999/2*$KING_M/$gw:.3g}')")" "$pw" \
        "$(awk -v a="$gw" -v b="$pw" 'BEGIN { printf "%.2f", b / a }')" | tee "$host/ibs.txt"
fi

# the row, from what the parts wrote
val() { sed -n "$2" "$host/$1" 2>/dev/null | head -n 1; }
p1=$(val pca.txt 's/.*target P1 default <= 0.15 x plink2 --pca (\([0-9.]*x\)).*/\1/p')
p2=$(val pca.txt 's/.*target P2 default <= 0.1 x plink2 --pca approx (\([0-9.]*x\)).*/\1/p')
p3=$(val pca.txt 's/.*target P3 default <= 0.1 x plink2 --pca approx (\([0-9.]*x\)).*/\1/p')
bulk=$(val pca.txt 's/.*target P2 --accuracy bulk <= 0.5 x plink2 --pca approx (\([0-9.]*x\)[,)].*/\1/p')
fma=$(val pca.txt 's/.*cached pass = \([0-9.]*\) x the FMA compute limit (fma;.*/\1x/p')
fma256=$(val pca.txt 's/.*cached pass = \([0-9.]*\) x the FMA compute limit (fma256;.*/\1x/p')
rss=$(val pca.txt 's/.*target P2 default peak RSS <= 1.0 GB, issue 33 (\([0-9]* MB\)).*/\1/p')
king=$(val king.txt 's/^throughput gensvd \/ plink2: \([0-9.]*x\).*/\1/p')
ld=$(val ldprune.txt 's/^ratio gensvd\/plink2: \([0-9.]*\);.*/\1x/p')
ibs=$(val ibs.txt 's/.*: \([0-9.]*x\) faster$/\1/p')
limit=$(val pca.txt 's/^limit (a pass.s two products at the FMA compute limit, widest vectors, all cores): \(.*\)/\1/p')
echo
echo "host: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, $(date -u +%Y-%m-%d)"
echo "$("$G" --version | grep '^cpu kernels: ')"
echo "| date | CPU | P1 / plink2 --pca | P2 / --pca approx | P3 / --pca approx | P2 bulk / --pca approx | P2 pass / FMA limit (ymm) | P2 RSS | KING throughput | ldprune time | ibs vs PLINK 1.9 | FMA limit, P2 pass |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
row=("$(date -u +%Y-%m-%d)" "$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
    "${p1:--}" "${p2:--}" "${p3:--}" "${bulk:--}" "${fma:--} (${fma256:--})" "${rss:--}"
    "${king:--}" "${ld:--}" "${ibs:--}" "${limit:--}")
printf '|'
printf ' %s |' "${row[@]}"
printf '\n'
