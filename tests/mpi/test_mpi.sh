#!/usr/bin/env bash
# tests/mpi/test_mpi.sh GENSVD - `mpirun -n R gensvd pca|pdist|project|related|ldprune` (Open MPI) gives the same
# bytes as one process without mpirun: pca for R = 1..4, randomized and exact, with loadings
# (exact also with --gram-kernel amx and i8 for R = 2, 3 where the CPU has AMX),
# on simulated data with missing calls (several Gram groups per rank) and on the bundled
# HapMap3 store, also read over http by two ranks; pca rebalanced by kept variants (a mask
# that drops most of the first half), --fit-samples (with --eigensoft), --outlier-iter (with --tw, --eigensoft); pdist for
# R = 2..4 with the bit-plane and generic kernels, p-distance and --haplotypes, square and condensed, with and without --memory bands; a corrupt chunk
# stops every rank with exit 1, names the cause, and leaves no output; so does rank 0 out of
# memory for the loadings it gathers; project (mean and least squares, shrinkage corrections,
# a variant range) and related for R = 1..3, a corrupt chunk stopping each, float dosages
# refused by project; ldprune (whole contigs per rank) for R = 1..3 on the HapMap3 store and
# pca --ld-prune for R = 2, 3, a corrupt chunk stopping each; --mind counted in parts (pca,
# ldprune, related, pdist -m king for R = 2, 3; a corrupt chunk and rank 0 out of memory
# while counting stop every rank); one rank failing before the others' first agreement (its
# device) ends the run (MPI_Abort) instead of hanging; info and simulate refuse to start.  The single-process results are checked against numpy elsewhere
# (pca_oracles, pca_scale); here the oracle is the one-process run of the same binary, which
# shares no reduction order with the distributed runs.
set -u
G=$1
# shellcheck source=tests/testlib.sh
source "$(dirname "$0")/../testlib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v mpirun >/dev/null || { echo "mpirun not found: skipped"; exit 77; }
"$G" --version | grep -q '^mpi: Open MPI' || { echo "gensvd built without MPI: skipped"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/gsvd_mpi.XXXXXX")
trap 'rm -rf "$T"' EXIT
MR=(mpirun --oversubscribe -n)
[ "$(id -u)" = 0 ] && MR=(mpirun --allow-run-as-root --oversubscribe -n)
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none

"$G" simulate "$T/sim.vcz" -m 40000 -n 400 -r 0.01 -c 2500,400 -q || exit 1
for data in "$T/sim.vcz" "$ROOT/testdata/realdata/hapmap3.vcz"; do
    for meth in randomized exact; do
        base=$T/one_$meth
        "$G" pca --device cpu "$data" -k 5 --method "$meth" --loadings -q -o "$base.zarr" --format tsv >"$base.tsv" ||
            { echo "FAIL one process $meth $data"; exit 1; }
        for r in 1 2 3 4; do
            out=$T/r${r}_$meth
            "${MR[@]}" "$r" "$G" pca --device cpu "$data" -k 5 --method "$meth" --loadings -q -t 1 \
                -o "$out.zarr" --format tsv >"$out.tsv" 2>"$out.err"
            check "$meth -n $r exit ($data)" test $? = 0
            check "$meth -n $r TSV bytes ($data)" cmp -s "$base.tsv" "$out.tsv"
            check "$meth -n $r Zarr bytes ($data)" same_store "$base.zarr" "$out.zarr"
        done
        rm -rf "$T"/*.zarr
    done
done

# exact with the AMX Gram tiles, bf16 (amx) and int8 (i8), where this CPU has them: the same
# bytes for R = 1..3
for kern in amx i8; do
    if "$G" pca --device cpu "$T/sim.vcz" -k 5 --method exact --gram-kernel $kern --loadings -q \
        -o "$T/one_$kern.zarr" --format tsv >"$T/one_$kern.tsv" 2>"$T/one_$kern.err"; then
        for r in 2 3; do
            "${MR[@]}" "$r" "$G" pca --device cpu "$T/sim.vcz" -k 5 --method exact --gram-kernel $kern \
                --loadings -q -t 1 -o "$T/r${r}_$kern.zarr" --format tsv \
                >"$T/r${r}_$kern.tsv" 2>/dev/null
            check "exact $kern -n $r exit" test $? = 0
            check "exact $kern -n $r TSV bytes" cmp -s "$T/one_$kern.tsv" "$T/r${r}_$kern.tsv"
            check "exact $kern -n $r Zarr bytes" same_store "$T/one_$kern.zarr" "$T/r${r}_$kern.zarr"
        done
    else
        echo "exact $kern: skipped ($(tail -n 1 "$T/one_$kern.err"))"
    fi
done

# a remote store: two ranks read their parts over http from the loopback server (stdlib
# Python), also when the first requests of every chunk fail with 503 (the retries)
"$G" pca --device cpu "$T/sim.vcz" -k 5 --method randomized -q --format tsv >"$T/local.tsv"
for mode in normal 503; do
    python3 "$ROOT/tests/net/mock_http_server.py" --root "$T" --mode "$mode" >"$T/port.$mode" 2>/dev/null &
    srv=$!
    for _ in $(seq 100); do [ -s "$T/port.$mode" ] && break; sleep 0.1; done
    port=$(head -n 1 "$T/port.$mode")
    "${MR[@]}" 2 "$G" pca --device cpu "http://127.0.0.1:$port/sim.vcz" -k 5 --method randomized -q -t 1 \
        --format tsv >"$T/http_$mode.tsv" 2>"$T/http_$mode.err"
    check "http ($mode) -n 2: exit" test $? = 0
    check "http ($mode) -n 2: same bytes as the local store, one process" \
        cmp -s "$T/local.tsv" "$T/http_$mode.tsv"
    kill "$srv" 2>/dev/null
    wait "$srv" 2>/dev/null
done

# -v on rank 0 prints the plan of every rank, and the ranks of its node
"${MR[@]}" 3 "$G" pca --device cpu "$T/sim.vcz" -k 3 -v -t 1 --format tsv >/dev/null 2>"$T/plan.err"
check "plan names rank 2's part" grep -q 'rank 2: variants 24576:40000' "$T/plan.err"
check "plan: 3 ranks on rank 0's node, local rank 0" \
    grep -q "distributed: 3 ranks (3 on rank 0's node, which is its local rank 0)" "$T/plan.err"

# rebalancing by kept variants: a mask (written here as a raw Zarr v2 array) keeps 1 in 50 of
# the first half's variants and all of the second half's, so a split by variants leaves rank 0
# almost idle; after the first pass every rank's kept count is within one Gram group (8,192
# variants at 64 samples) of an even share, and the bytes stay those of one process
"$G" simulate "$T/wide.vcz" -m 120000 -n 64 -r 0.01 -c 5000,64 -q || exit 1
python3 - "$T/mask.zarr" <<'PY'
import json, os, sys
a = os.path.join(sys.argv[1], "variant_ld_keep")
os.makedirs(a)
open(os.path.join(sys.argv[1], ".zgroup"), "w").write('{"zarr_format": 2}')
json.dump({"zarr_format": 2, "shape": [120000], "chunks": [120000], "dtype": "|u1",
           "compressor": None, "fill_value": 0, "filters": None, "order": "C"},
          open(os.path.join(a, ".zarray"), "w"))
open(os.path.join(a, "0"), "wb").write(bytes(1 if v >= 60000 or v % 50 == 0 else 0
                                             for v in range(120000)))
PY
mopts=(-k 4 --method randomized --loadings --variant-mask "$T/mask.zarr")
"$G" pca --device cpu "$T/wide.vcz" "${mopts[@]}" -q -o "$T/m1.zarr" --format tsv >"$T/m1.tsv" ||
    { echo "FAIL one process --variant-mask"; exit 1; }
for r in 2 3; do
    "${MR[@]}" "$r" "$G" pca --device cpu "$T/wide.vcz" "${mopts[@]}" -v -t 1 -o "$T/mr.zarr" --format tsv \
        >"$T/mr.tsv" 2>"$T/mr.err"
    check "rebalanced -n $r: exit" test $? = 0
    check "rebalanced -n $r: TSV bytes" cmp -s "$T/m1.tsv" "$T/mr.tsv"
    check "rebalanced -n $r: Zarr bytes (loadings included)" same_store "$T/m1.zarr" "$T/mr.zarr"
    # "rank i: variants a:b (n), kept K" before and after; even share = total / r
    kept() { sed -n "/$1/,/singular\|pass 1 /p" "$T/mr.err" | sed -n 's/.*rank [0-9]*: variants .*, kept \([0-9]*\)$/\1/p'; }
    before=$(kept 'parts of the first pass' | head -n "$r" | tr '\n' ' ')
    after=$(kept 'rebalanced by kept variants' | head -n "$r" | tr '\n' ' ')
    check "rebalanced -n $r: plan printed before and after ($before/ $after)" \
        test "$(echo "$before" | wc -w)" = "$r" -a "$(echo "$after" | wc -w)" = "$r"
    # shellcheck disable=SC2086
    check "rebalanced -n $r: uneven by variants ($before)" \
        awk -v r="$r" 'BEGIN { t = 0; for (i = 1; i < ARGC; i++) t += ARGV[i];
            for (i = 1; i < ARGC; i++) if (ARGV[i] - t / r > 8192 || t / r - ARGV[i] > 8192) exit 0;
            exit 1 }' $before
    # shellcheck disable=SC2086
    check "rebalanced -n $r: within a group of an even share ($after)" \
        awk -v r="$r" 'BEGIN { t = 0; for (i = 1; i < ARGC; i++) t += ARGV[i];
            for (i = 1; i < ARGC; i++) if (ARGV[i] - t / r > 8192 || t / r - ARGV[i] > 8192) exit 1;
            exit 0 }' $after
    check "rebalanced -n $r: the moved rows are cached on the next pass" \
        grep -q 'after the move: .* bytes of new blocks cached' "$T/mr.err"
    rm -rf "$T/mr.zarr"
done

# --fit-samples: fit on every third sample, project the others (rank 0 holds the loadings)
awk 'NR > 1 && NR % 3 == 0 { print $1 }' "$T/local.tsv" >"$T/fit.txt"
# (with --eigensoft: smartpca's least-squares rows of every sample, on rank 0)
"$G" pca --device cpu "$T/sim.vcz" -k 4 --method randomized --fit-samples "$T/fit.txt" -q -o "$T/f1.zarr" \
    --format tsv --eigensoft "$T/f1" >"$T/f1.tsv" || { echo "FAIL one process --fit-samples"; exit 1; }
for r in 2 3; do
    "${MR[@]}" "$r" "$G" pca --device cpu "$T/sim.vcz" -k 4 --method randomized --fit-samples "$T/fit.txt" \
        -q -t 1 -o "$T/fr.zarr" --format tsv --eigensoft "$T/fr" --force >"$T/fr.tsv" 2>"$T/fr.err"
    check "--fit-samples -n $r: exit" test $? = 0
    check "--fit-samples -n $r: TSV bytes" cmp -s "$T/f1.tsv" "$T/fr.tsv"
    check "--fit-samples -n $r: Zarr bytes" same_store "$T/f1.zarr" "$T/fr.zarr"
    check "--fit-samples -n $r: --eigensoft bytes" cmp -s "$T/f1.evec" "$T/fr.evec"
    rm -rf "$T/fr.zarr"
done
# a fit sample outside --samples: found by every rank after the fit, before the shared
# projection; every rank stops (none left waiting), exit 1 naming the cause, no output
awk 'NR > 1 { print $1 }' "$T/local.tsv" | grep -vxF "$(head -n 1 "$T/fit.txt")" >"$T/sub.txt"
timeout 300 "${MR[@]}" 2 "$G" pca --device cpu "$T/sim.vcz" -k 4 --method randomized -q -t 1 \
    --samples "$T/sub.txt" --fit-samples "$T/fit.txt" -o "$T/fbad.zarr" 2>"$T/fbad.err"
check "--fit-samples outside --samples -n 2: exit 1" test $? = 1
check "--fit-samples outside --samples -n 2: the cause named" \
    grep -q "fit samples are not in the sample set" "$T/fbad.err"
check "--fit-samples outside --samples -n 2: no output" test ! -e "$T/fbad.zarr"

# smartpca's outlier removal (every rank removes the same samples in each round, rank 0
# projects them) and Tracy-Widom statistics and --eigensoft's .eval (exact's Gram summed over
# the ranks)
for meth in exact randomized; do
    oopts=(-k 4 --method "$meth" --outlier-iter 3 --outlier-sigma 3 --outlier-project)
    [ "$meth" = exact ] && oopts+=(--tw)
    "$G" pca --device cpu "$T/sim.vcz" "${oopts[@]}" -q -o "$T/o1.zarr" --outlier-out "$T/o1.txt" \
        --eigensoft "$T/o1" --format tsv >"$T/o1.tsv" ||
        { echo "FAIL one process --outlier-iter $meth"; exit 1; }
    check "--outlier-iter $meth: removes someone" test "$(wc -l <"$T/o1.txt")" -gt 1
    for r in 2 3; do
        "${MR[@]}" "$r" "$G" pca --device cpu "$T/sim.vcz" "${oopts[@]}" -q -t 1 -o "$T/or.zarr" \
            --outlier-out "$T/or.txt" --eigensoft "$T/or" --format tsv >"$T/or.tsv" 2>"$T/or.err"
        check "--outlier-iter $meth -n $r: exit" test $? = 0
        check "--outlier-iter $meth -n $r: TSV bytes" cmp -s "$T/o1.tsv" "$T/or.tsv"
        check "--outlier-iter $meth -n $r: --outlier-out bytes" cmp -s "$T/o1.txt" "$T/or.txt"
        check "--outlier-iter $meth -n $r: Zarr bytes" same_store "$T/o1.zarr" "$T/or.zarr"
        check "--outlier-iter $meth -n $r: --eigensoft .evec bytes" cmp -s "$T/o1.evec" "$T/or.evec"
        if [ "$meth" = exact ]; then
            check "--outlier-iter exact -n $r: --eigensoft .eval bytes" cmp -s "$T/o1.eval" "$T/or.eval"
        else
            check "--outlier-iter randomized -n $r: no .eval" test ! -e "$T/or.eval"
        fi
        # --outlier-out and --eigensoft, like -o, replace only with --force
        rm -rf "$T/or.zarr" "$T/or.txt" "$T/or.evec" "$T/or.eval"
    done
    rm -f "$T/o1.evec" "$T/o1.eval"
    rm -rf "$T/o1.zarr" "$T/o1.txt"
done

# rank0_oom NAME SIZE CAUSE OUT CMD...: CMD on 3 ranks with malloc of SIZE bytes failing on
# rank 0 only (tests/mpi/fail_malloc.c): exit 1, CAUSE on rank 0, ranks 1 and 2 naming rank 0
# once, no output OUT, no rank left waiting
rank0_oom() {
    local name=$1 size=$2 cause=$3 out=$4
    shift 4
    timeout 600 "${MR[@]}" 1 -x LD_PRELOAD="$T/fail_malloc.so" -x GSVD_TEST_FAIL_SIZE="$size" \
        "$@" -o "$out" : -n 2 "$@" -o "$out" >/dev/null 2>"$T/oom.err"
    check "$name: exit 1" test $? = 1
    check "$name: the cause on rank 0" grep -q "$cause" "$T/oom.err"
    for k in 1 2; do
        check "$name: rank $k names rank 0, once" \
            test "$(grep -c "rank $k: rank 0 of 3 failed (out of memory); stopping rank $k" "$T/oom.err")" = 1
    done
    check "$name: no internal error" test "$(grep -ci internal "$T/oom.err")" = 0
    check "$name: no output" test ! -e "$out"
}

# rank 0 out of memory for the loadings it gathers (a malloc shim fails that one size on rank 0
# only): every rank ends with its own message naming rank 0 and the cause, no output
if ${CC:-cc} -shared -fPIC -O1 -o "$T/fail_malloc.so" "$ROOT/tests/mpi/fail_malloc.c" -ldl 2>/dev/null; then
    rows=$((40000 * 5 * 8)) # 40,000 variants x k = 5 float64 loadings
    rank0_oom "rank 0 out of memory" $((rows + 1)) \
        "rank 0: no memory for the $rows bytes of variant rows that rank 0 gathers" "$T/oom.zarr" \
        "$G" pca --device cpu "$T/sim.vcz" -k 5 --method randomized --loadings -q -t 1
else
    echo "no C compiler for the malloc shim: the out-of-memory case is skipped"
fi

# a corrupt chunk in the last rank's part: every rank stops, exit 1, no output
cp -r "$T/sim.vcz" "$T/bad.vcz"
printf 'garbage' >"$T/bad.vcz/call_genotype/15.0.0"
for meth in randomized exact; do
    "${MR[@]}" 3 "$G" pca --device cpu "$T/bad.vcz" -k 3 --method "$meth" -t 1 -o "$T/bad_out.zarr" \
        >/dev/null 2>"$T/bad.err"
    check "corrupt chunk ($meth): exit 1" test $? = 1
    check "corrupt chunk ($meth): the failing rank names the chunk" \
        grep -q "^gensvd pca: error: rank 2: .*: corrupt chunk 'call_genotype/15.0.0' of array 'call_genotype'" "$T/bad.err"
    check "corrupt chunk ($meth): the others name rank 2" grep -q 'rank 1: rank 2 of 3 failed' "$T/bad.err"
    check "corrupt chunk ($meth): no output" test ! -e "$T/bad_out.zarr"
    check "corrupt chunk ($meth): no staging left" \
        test -z "$(find "$T" -maxdepth 1 -name '.bad_out.zarr*' -print -quit)"
done

# pdist: bit-plane (euclidean, ibs, king: its counts travel to rank 0 too) and generic
# (canberra) kernels, square and condensed,
# one band and --memory bands, Zarr and TSV; rank 0 writes what every rank computed.  Each of
# the 16 cases runs under one R, R = 2, 3, 4 in turn, so that every metric and every layout and
# band setting meets every R (48 runs before, the same coverage)
"$G" simulate "$T/psim.vcz" -m 6000 -n 900 -r 0.01 -c 1500,900 -q || exit 1
n_case=0
for metric in euclidean canberra ibs king; do
    for layout in square condensed; do
        for mem in "" "--memory 24M"; do
            # shellcheck disable=SC2086
            opts=(-m "$metric" --layout "$layout" $mem -q)
            "$G" pdist --device cpu "$T/psim.vcz" "${opts[@]}" -o "$T/d1.zarr" --format tsv >"$T/d1.tsv" ||
                { echo "FAIL one process pdist ${opts[*]}"; exit 1; }
            r=$((2 + n_case % 3))
            n_case=$((n_case + 1))
            for r in $r; do
                "${MR[@]}" "$r" "$G" pdist --device cpu "$T/psim.vcz" "${opts[@]}" -t 1 -o "$T/dr.zarr" \
                    --format tsv >"$T/dr.tsv" 2>"$T/dr.err"
                check "pdist ${opts[*]} -n $r: exit" test $? = 0
                check "pdist ${opts[*]} -n $r: Zarr bytes" same_store "$T/d1.zarr" "$T/dr.zarr"
                check "pdist ${opts[*]} -n $r: TSV bytes" cmp -s "$T/d1.tsv" "$T/dr.tsv"
                rm -rf "$T/dr.zarr"
            done
            rm -rf "$T/d1.zarr"
        done
    done
done
# phased haplotypes: p-distance (the samples' haplotypes as features) and --haplotypes (each
# haplotype an item), one band and --memory bands, on the phased 1000 Genomes store
KH=$ROOT/testdata/realdata/khuman_chr22.vcz
for opts in "-m p-distance" "-m p-distance --memory 2M" "--haplotypes -m hamming --memory 3M"; do
    # shellcheck disable=SC2086
    "$G" pdist --device cpu "$KH" $opts -q -o "$T/h1.zarr" --format tsv >"$T/h1.tsv" ||
        { echo "FAIL one process pdist $opts"; exit 1; }
    for r in 2 3; do
        # shellcheck disable=SC2086
        "${MR[@]}" "$r" "$G" pdist --device cpu "$KH" $opts -q -t 1 -o "$T/hr.zarr" --format tsv \
            >"$T/hr.tsv" 2>"$T/hr.err"
        check "pdist $opts -n $r: exit" test $? = 0
        check "pdist $opts -n $r: Zarr bytes" same_store "$T/h1.zarr" "$T/hr.zarr"
        check "pdist $opts -n $r: TSV bytes" cmp -s "$T/h1.tsv" "$T/hr.tsv"
        rm -rf "$T/hr.zarr"
    done
    rm -rf "$T/h1.zarr"
done
# KING pairs above a threshold (--min-kinship): rank 0 writes the list of every rank's bands
"$G" pdist --device cpu "$T/psim.vcz" -m king --min-kinship -0.01 --counts -q >"$T/k1.tsv" &&
    "$G" pdist --device cpu "$T/psim.vcz" -m king --min-kinship -0.01 -q -o "$T/k1.zarr" ||
    { echo "FAIL one process pdist --min-kinship"; exit 1; }
for r in 2 3; do
    "${MR[@]}" "$r" "$G" pdist --device cpu "$T/psim.vcz" -m king --min-kinship -0.01 --counts --memory 24M \
        -t 1 -q >"$T/kr.tsv" 2>"$T/kr.err"
    check "pdist --min-kinship -n $r: exit" test $? = 0
    check "pdist --min-kinship -n $r: TSV bytes" cmp -s "$T/k1.tsv" "$T/kr.tsv"
    "${MR[@]}" "$r" "$G" pdist --device cpu "$T/psim.vcz" -m king --min-kinship -0.01 --memory 24M -t 1 -q \
        -o "$T/kr.zarr" 2>"$T/kr.err"
    check "pdist --min-kinship -n $r: Zarr exit" test $? = 0
    check "pdist --min-kinship -n $r: Zarr bytes" same_store "$T/k1.zarr" "$T/kr.zarr"
    rm -rf "$T/kr.zarr"
done
# a corrupt chunk stops every rank; no output
cp -r "$T/psim.vcz" "$T/pbad.vcz"
printf 'garbage' >"$T/pbad.vcz/call_genotype/3.0.0"
"${MR[@]}" 3 "$G" pdist --device cpu "$T/pbad.vcz" --memory 24M -t 1 -o "$T/pbad_out.zarr" >/dev/null 2>"$T/pbad.err"
check "pdist corrupt chunk: exit 1" test $? = 1
check "pdist corrupt chunk: the cause is named" grep -q 'call_genotype/3.0.0' "$T/pbad.err"
check "pdist corrupt chunk: no output" test ! -e "$T/pbad_out.zarr"

# standard input reaches rank 0 only: refused
printf 'a\t0\t1\nb\t1\t2\n' | "${MR[@]}" 2 "$G" pdist --device cpu - >/dev/null 2>"$T/stdin.err"
check "pdist - under mpirun: usage exit" test $? = 2
check "pdist - under mpirun: message" grep -q 'not standard input' "$T/stdin.err"
check "pdist - under mpirun: said once" test "$(grep -c 'not standard input' "$T/stdin.err")" = 1

# project: each rank scans its part of the variants (runs of 256), the parts' exact sums are
# added; the scores of the HapMap3 samples on their own PCs (k 4) and of the simulated
# samples on PCs of every other sample, with the mean and the least-squares treatment of
# missing calls, the shrinkage corrections and a variant range; TSV and Zarr bytes of one
# process for R = 1..3
HM=$ROOT/testdata/realdata/hapmap3.vcz
"$G" pca --device cpu "$HM" -k 4 --loadings -q -o "$T/hm_pcs.zarr" &&
    awk 'NR > 1 && NR % 2 == 0 { print $1 }' "$T/local.tsv" >"$T/even.txt" &&
    awk 'NR > 1 && NR % 2 == 1 { print $1 }' "$T/local.tsv" >"$T/odd.txt" &&
    "$G" pca --device cpu "$T/sim.vcz" -k 4 --loadings --samples "$T/even.txt" -q -o "$T/sim_pcs.zarr" ||
    { echo "FAIL the reference PCs of project"; exit 1; }
n_case=0
for pcase in "hm|--missing mean" "hm|--missing lsq" "sim|--missing lsq --shrinkage-correction oadp" \
    "sim|--shrinkage-correction ap --variants 1000:37000"; do
    if [ "${pcase%%|*}" = hm ]; then in=(--pcs "$T/hm_pcs.zarr" "$HM"); else
        in=(--pcs "$T/sim_pcs.zarr" --samples "$T/odd.txt" "$T/sim.vcz"); fi
    # shellcheck disable=SC2206
    popts=(${pcase#*|} -q)
    "$G" project "${in[@]}" "${popts[@]}" -o "$T/p1.zarr" --format tsv >"$T/p1.tsv" ||
        { echo "FAIL one process project ${popts[*]}"; exit 1; }
    check "project ${popts[*]}: scores in the TSV" test "$(wc -l <"$T/p1.tsv")" -gt 100
    # every R for the HapMap3 cases, one R each (2, 3) for the simulated ones
    rs="1 2 3"
    [ "${pcase%%|*}" = sim ] && rs=$((2 + n_case % 2)) && n_case=$((n_case + 1))
    for r in $rs; do
        "${MR[@]}" "$r" "$G" project "${in[@]}" "${popts[@]}" -t 1 -o "$T/pr.zarr" --format tsv \
            >"$T/pr.tsv" 2>"$T/pr.err"
        check "project ${popts[*]} -n $r: exit" test $? = 0
        check "project ${popts[*]} -n $r: TSV bytes" cmp -s "$T/p1.tsv" "$T/pr.tsv"
        check "project ${popts[*]} -n $r: Zarr bytes" same_store "$T/p1.zarr" "$T/pr.zarr"
        rm -rf "$T/pr.zarr"
    done
    rm -rf "$T/p1.zarr"
done
# -v on rank 0 prints every rank's part
"${MR[@]}" 3 "$G" project --pcs "$T/hm_pcs.zarr" "$HM" -v -t 1 >/dev/null 2>"$T/pplan.err"
check "project plan names rank 2's part" grep -q 'rank 2: variants 9728:14389' "$T/pplan.err"
# a corrupt chunk in one rank's part stops every rank: exit 1, the cause named, no output
"${MR[@]}" 3 "$G" project --pcs "$T/sim_pcs.zarr" "$T/bad.vcz" -t 1 -o "$T/pbad.zarr" \
    >/dev/null 2>"$T/projbad.err"
check "project corrupt chunk: exit 1" test $? = 1
check "project corrupt chunk: the failing rank names the chunk" \
    grep -q "^gensvd project: error: rank 2: .*corrupt chunk 'call_genotype/15.0.0'" "$T/projbad.err"
check "project corrupt chunk: the others name rank 2" grep -q 'rank 1: rank 2 of 3 failed' "$T/projbad.err"
check "project corrupt chunk: no output" test ! -e "$T/pbad.zarr"
# float dosages (a raw float64 Zarr v2 array beside the calls) have no bound for the exact
# sums: one process projects them, several refuse, rank 0 saying why once, and write nothing
"$G" simulate "$T/small.vcz" -m 600 -n 50 -r 0.01 -c 200,50 -q &&
    "$G" pca --device cpu "$T/small.vcz" -k 3 --loadings -q -o "$T/small_pcs.zarr" ||
    { echo "FAIL the small reference"; exit 1; }
rm -f "$T/small.vcz/.zmetadata"
python3 - "$T/small.vcz/dos" <<'PY'
import json, os, struct, sys
os.makedirs(sys.argv[1])
json.dump({"zarr_format": 2, "shape": [600, 50], "chunks": [600, 50], "dtype": "<f8",
           "compressor": None, "fill_value": None, "filters": None, "order": "C"},
          open(os.path.join(sys.argv[1], ".zarray"), "w"))
open(os.path.join(sys.argv[1], "0.0"), "wb").write(
    struct.pack("<30000d", *[float((v * 7 + i) % 3) for v in range(600) for i in range(50)]))
PY
"$G" project --pcs "$T/small_pcs.zarr" "$T/small.vcz" --array dos -q >"$T/fl1.tsv"
check "project float dosages, one process: exit 0" test $? = 0
"${MR[@]}" 2 "$G" project --pcs "$T/small_pcs.zarr" "$T/small.vcz" --array dos -t 1 -o "$T/fl.zarr" \
    >/dev/null 2>"$T/fl.err"
check "project float dosages -n 2: exit 1" test $? = 1
check "project float dosages -n 2: rank 0 says why, once" \
    test "$(grep -c '^gensvd project: error: rank 0: .*dos: float input has no bound for exact sums' "$T/fl.err")" = 1
check "project float dosages -n 2: no output" test ! -e "$T/fl.zarr"

# related: the KING bands shared out as pdist -m king's, the selection on rank 0 and sent to
# every rank; the HapMap3 store (related pairs), one band and --memory bands, R = 1..3
"$G" related --device cpu "$HM" -q -o "$T/rel1.zarr" --format tsv >"$T/rel1.tsv" ||
    { echo "FAIL one process related"; exit 1; }
check "related: removes someone" test "$(wc -l <"$T/rel1.tsv")" -lt 958
for mem in "" "--memory 3M"; do
    for r in 1 2 3; do
        # shellcheck disable=SC2086
        "${MR[@]}" "$r" "$G" related --device cpu "$HM" $mem -q -t 1 -o "$T/relr.zarr" --format tsv \
            >"$T/relr.tsv" 2>"$T/relr.err"
        check "related $mem -n $r: exit" test $? = 0
        check "related $mem -n $r: TSV bytes" cmp -s "$T/rel1.tsv" "$T/relr.tsv"
        check "related $mem -n $r: Zarr bytes" same_store "$T/rel1.zarr" "$T/relr.zarr"
        rm -rf "$T/relr.zarr"
    done
done
"${MR[@]}" 3 "$G" related --device cpu "$T/pbad.vcz" --memory 24M -t 1 -o "$T/rbad.zarr" \
    >/dev/null 2>"$T/rbad.err"
check "related corrupt chunk: exit 1" test $? = 1
check "related corrupt chunk: the cause is named" grep -q 'call_genotype/3.0.0' "$T/rbad.err"
check "related corrupt chunk: no output" test ! -e "$T/rbad.zarr"

# ldprune: whole contigs per rank (the HapMap3 store's 22 contigs), the keep flags gathered in
# variant order; a variant window with a step, and a bp window with a missingness filter; TSV
# and Zarr bytes of one process for R = 1..3
for ldcase in "--window 50 --step 5 --r2 0.05" "--window 500kb --r2 0.02 --max-missing 0"; do
    # shellcheck disable=SC2206
    lopts=($ldcase -q)
    "$G" ldprune "$HM" "${lopts[@]}" -o "$T/ld1.zarr" --format tsv >"$T/ld1.tsv" ||
        { echo "FAIL one process ldprune ${lopts[*]}"; exit 1; }
    check "ldprune ${lopts[*]}: prunes some" test "$(awk -F'\t' 'NR > 1 && $4 == 0' "$T/ld1.tsv" | wc -l)" -gt 100
    for r in 1 2 3; do
        "${MR[@]}" "$r" "$G" ldprune "$HM" "${lopts[@]}" -t 1 -o "$T/ldr.zarr" --format tsv \
            >"$T/ldr.tsv" 2>"$T/ldr.err"
        check "ldprune ${lopts[*]} -n $r: exit" test $? = 0
        check "ldprune ${lopts[*]} -n $r: TSV bytes" cmp -s "$T/ld1.tsv" "$T/ldr.tsv"
        check "ldprune ${lopts[*]} -n $r: Zarr bytes" same_store "$T/ld1.zarr" "$T/ldr.zarr"
        rm -rf "$T/ldr.zarr"
    done
    rm -rf "$T/ld1.zarr"
done
# pca --ld-prune prunes the same way (whole contigs per rank, the mask on every rank) before
# its fit
"$G" pca --device cpu "$HM" -k 4 --ld-prune 0.05,50,5 --loadings -q -o "$T/pl1.zarr" --format tsv \
    >"$T/pl1.tsv" || { echo "FAIL one process pca --ld-prune"; exit 1; }
for r in 2 3; do
    "${MR[@]}" "$r" "$G" pca --device cpu "$HM" -k 4 --ld-prune 0.05,50,5 --loadings -q -t 1 \
        -o "$T/plr.zarr" --format tsv >"$T/plr.tsv" 2>"$T/plr.err"
    check "pca --ld-prune -n $r: exit" test $? = 0
    check "pca --ld-prune -n $r: TSV bytes" cmp -s "$T/pl1.tsv" "$T/plr.tsv"
    check "pca --ld-prune -n $r: Zarr bytes" same_store "$T/pl1.zarr" "$T/plr.zarr"
    rm -rf "$T/plr.zarr"
done
# -v on rank 0 prints every rank's part, cut between contigs
"${MR[@]}" 3 "$G" ldprune "$HM" --window 50 -v -t 1 >/dev/null 2>"$T/ldplan.err"
check "ldprune plan names rank 2's part" grep -q 'rank 2: variants 9844:14389' "$T/ldplan.err"
# a corrupt chunk in rank 2's part (the last contigs) stops every rank: exit 1, no output
cp -r "$HM" "$T/ldbad.vcz"
printf 'garbage' >"$T/ldbad.vcz/call_genotype/7.0.0"
"${MR[@]}" 3 "$G" ldprune "$T/ldbad.vcz" --window 50 -t 1 -o "$T/ldbad.zarr" >"$T/ldbad.tsv" \
    2>"$T/ldbad.err"
check "ldprune corrupt chunk: exit 1" test $? = 1
check "ldprune corrupt chunk: the failing rank names the chunk" \
    grep -q "^gensvd ldprune: error: rank 2: .*corrupt chunk 'call_genotype/7.0.0'" "$T/ldbad.err"
check "ldprune corrupt chunk: the others name rank 2" grep -q 'rank 1: rank 2 of 3 failed' "$T/ldbad.err"
check "ldprune corrupt chunk: no output" test ! -e "$T/ldbad.zarr"
check "ldprune corrupt chunk: no table" test ! -s "$T/ldbad.tsv"
"${MR[@]}" 3 "$G" pca --device cpu "$T/ldbad.vcz" -k 3 --ld-prune 0.05,50,5 -t 1 -o "$T/plbad.zarr" \
    >/dev/null 2>"$T/plbad.err"
check "pca --ld-prune corrupt chunk: exit 1" test $? = 1
check "pca --ld-prune corrupt chunk: the others name rank 2" grep -q 'rank 1: rank 2 of 3 failed' "$T/plbad.err"
check "pca --ld-prune corrupt chunk: no output" test ! -e "$T/plbad.zarr"

# --mind: each rank counts the missing calls of its part of the variants (whole chunk rows)
# and the integer counts are summed, so every rank removes the samples one process removes
# (118 of HapMap3's 957 at 0.003): the same bytes and the same count line for pca, ldprune,
# related and pdist -m king at R = 2, 3.  A corrupt chunk in rank 2's part of the count and
# rank 0 out of memory while counting stop every rank: exit 1, the cause and each other
# rank's line once, no output, and no rank left waiting (timeout)
for mcmd in "pca --device cpu -k 4 --loadings" "ldprune --window 50 --r2 0.1" \
    "related --device cpu" "pdist --device cpu -m king"; do
    # shellcheck disable=SC2206
    mopts=($mcmd --mind 0.003)
    "$G" "${mopts[@]}" "$HM" -v -o "$T/mind1.zarr" --format tsv >"$T/mind1.tsv" 2>"$T/mind1.err" ||
        { echo "FAIL one process ${mopts[*]}"; exit 1; }
    check "${mopts[*]}: one process removes 118" grep -q -- '--mind 0.003: 118 of 957 samples removed' "$T/mind1.err"
    for r in 2 3; do
        timeout 600 "${MR[@]}" "$r" "$G" "${mopts[@]}" "$HM" -v -t 1 -o "$T/mindr.zarr" --format tsv \
            >"$T/mindr.tsv" 2>"$T/mindr.err"
        check "${mopts[*]} -n $r: exit" test $? = 0
        check "${mopts[*]} -n $r: TSV bytes" cmp -s "$T/mind1.tsv" "$T/mindr.tsv"
        check "${mopts[*]} -n $r: Zarr bytes" same_store "$T/mind1.zarr" "$T/mindr.zarr"
        check "${mopts[*]} -n $r: the same samples removed" \
            grep -q -- 'rank 0: .*--mind 0.003: 118 of 957 samples removed' "$T/mindr.err"
        rm -rf "$T/mindr.zarr"
    done
    rm -rf "$T/mind1.zarr"
done
for mcmd in "pca --device cpu -k 3" "ldprune --window 50"; do
    # shellcheck disable=SC2206
    mopts=($mcmd --mind 0.003 -t 1)
    timeout 600 "${MR[@]}" 3 "$G" "${mopts[@]}" "$T/ldbad.vcz" -o "$T/mindbad.zarr" >/dev/null \
        2>"$T/mindbad.err"
    check "${mopts[*]} corrupt chunk: exit 1" test $? = 1
    check "${mopts[*]} corrupt chunk: rank 2 names the chunk" \
        grep -q "^gensvd ${mcmd%% *}: error: rank 2: .*corrupt chunk 'call_genotype/7.0.0'" "$T/mindbad.err"
    for k in 0 1; do
        check "${mopts[*]} corrupt chunk: rank $k names rank 2, once" \
            test "$(grep -c "rank $k: rank 2 of 3 failed" "$T/mindbad.err")" = 1
    done
    check "${mopts[*]} corrupt chunk: no output" test ! -e "$T/mindbad.zarr"
done
if [ -f "$T/fail_malloc.so" ]; then
    # the counts of 957 samples and the variant count: (957 + 1) x 8 bytes, on rank 0 only
    rank0_oom "--mind rank 0 out of memory" 7664 "rank 0: out of memory" "$T/mindoom.zarr" \
        "$G" ldprune "$HM" --window 50 --mind 0.003 -t 1
fi

# lone_failure NAME STATUS CAUSE OUT RANK0... -- OTHERS...: rank 0 runs RANK0 and ranks 1-2
# OTHERS, each with -o OUT; rank 0 fails alone before the others' next agreement, so the run
# must end at once (no timeout) with its status and CAUSE on rank 0 (MPI_Abort), no output
lone_failure() {
    local name=$1 want=$2 cause=$3 out=$4 first=() others=()
    shift 4
    while [ $# -gt 0 ] && [ "$1" != -- ]; do first+=("$1"); shift; done
    shift
    others=("$@")
    timeout 300 "${MR[@]}" 1 "${first[@]}" -o "$out" : -n 2 "${others[@]}" -o "$out" \
        >/dev/null 2>"$T/lone.err"
    local st=$?
    check "$name: ends, no waiting (exit $st)" test "$st" != 124
    check "$name: its status, $want" test "$st" = "$want"
    check "$name: rank 0 says why" grep -q "$cause" "$T/lone.err"
    check "$name: no output" test ! -e "$out"
}
# its device (asked for a GPU this host lacks; the others the CPU), also with --mind (the
# others then wait in the count's agreement), and an input only rank 0 cannot open
if ! "$G" related --device gpu "$HM" -q >/dev/null 2>&1; then
    for extra in "" "--mind 0.003"; do
        # shellcheck disable=SC2086
        lone_failure "one rank without its device $extra" 3 '^gensvd related: error: rank 0: ' \
            "$T/dev.zarr" "$G" related --device gpu "$HM" $extra -t 1 \
            -- "$G" related --device cpu "$HM" $extra -t 1
    done
else
    echo "this host has a usable GPU: the one-rank device failure is skipped"
fi
for ucmd in "pca --device cpu -k 3" "ldprune --window 50"; do
    # shellcheck disable=SC2086
    lone_failure "${ucmd%% *}: one rank without its input" 1 \
        "^gensvd ${ucmd%% *}: error: rank 0: .*no-such.vcz" "$T/unreach.zarr" \
        "$G" $ucmd -t 1 "$T/no-such.vcz" -- "$G" $ucmd -t 1 "$HM"
done

# commands that do not run distributed say so instead of racing on one output
"${MR[@]}" 2 "$G" info "$T/sim.vcz" >"$T/info2.out" 2>"$T/info2.err"
check "info under mpirun -n 2: usage exit" test $? = 2
check "info under mpirun -n 2: message" \
    grep -q '^gensvd info: error: runs as one process; only pca, pdist, project, related and ldprune run distributed' "$T/info2.err"
check "info under mpirun -n 2: nothing on stdout" test ! -s "$T/info2.out"
"${MR[@]}" 2 "$G" simulate "$T/s2.vcz" -m 100 -n 10 >/dev/null 2>"$T/sim2.err"
check "simulate under mpirun -n 2: usage exit" test $? = 2
check "simulate under mpirun -n 2: message" grep -q 'only pca, pdist, project, related and ldprune run distributed' "$T/sim2.err"
check "simulate under mpirun -n 2: rank 0 says it, once, in the usage style" \
    test "$(grep -c "^gensvd simulate: error: runs as one process\|^Try 'gensvd simulate --help'\.$" "$T/sim2.err")" = 2
check "simulate under mpirun -n 2: no output" test ! -e "$T/s2.vcz"

report
