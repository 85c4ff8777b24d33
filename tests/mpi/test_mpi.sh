#!/usr/bin/env bash
# tests/mpi/test_mpi.sh GENSVD - `mpirun -n R gensvd pca|pdist` (Open MPI) gives the same
# bytes as one process without mpirun: pca for R = 1..4, randomized and exact, with loadings
# (exact also with --gram-kernel amx for R = 2, 3 where the CPU has AMX),
# on simulated data with missing calls (several Gram groups per rank) and on the bundled
# HapMap3 store, also read over http by two ranks; pdist for R = 2..4 with the bit-plane and
# generic kernels, square and condensed, with and without --memory bands; a corrupt chunk
# stops every rank with exit 1, names the cause, and leaves no output.  The single-process results are checked against numpy elsewhere
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
        "$G" pca "$data" -k 5 --method "$meth" --loadings -q -o "$base.zarr" --format tsv >"$base.tsv" ||
            { echo "FAIL one process $meth $data"; exit 1; }
        for r in 1 2 3 4; do
            out=$T/r${r}_$meth
            "${MR[@]}" "$r" "$G" pca "$data" -k 5 --method "$meth" --loadings -q -t 1 \
                -o "$out.zarr" --format tsv >"$out.tsv" 2>"$out.err"
            check "$meth -n $r exit ($data)" test $? = 0
            check "$meth -n $r TSV bytes ($data)" cmp -s "$base.tsv" "$out.tsv"
            check "$meth -n $r Zarr bytes ($data)" same_store "$base.zarr" "$out.zarr"
        done
        rm -rf "$T"/*.zarr
    done
done

# exact with the AMX Gram tiles (where this CPU has them): the same bytes for R = 1..3
if "$G" pca "$T/sim.vcz" -k 5 --method exact --gram-kernel amx --loadings -q \
    -o "$T/one_amx.zarr" --format tsv >"$T/one_amx.tsv" 2>"$T/one_amx.err"; then
    for r in 2 3; do
        "${MR[@]}" "$r" "$G" pca "$T/sim.vcz" -k 5 --method exact --gram-kernel amx --loadings \
            -q -t 1 -o "$T/r${r}_amx.zarr" --format tsv >"$T/r${r}_amx.tsv" 2>/dev/null
        check "exact amx -n $r exit" test $? = 0
        check "exact amx -n $r TSV bytes" cmp -s "$T/one_amx.tsv" "$T/r${r}_amx.tsv"
        check "exact amx -n $r Zarr bytes" same_store "$T/one_amx.zarr" "$T/r${r}_amx.zarr"
    done
else
    echo "exact amx: skipped ($(tail -n 1 "$T/one_amx.err"))"
fi

# a remote store: two ranks read their parts over http from the loopback server (stdlib
# Python), also when the first requests of every chunk fail with 503 (the retries)
for mode in normal 503; do
    python3 "$ROOT/tests/net/mock_http_server.py" --root "$T" --mode "$mode" >"$T/port.$mode" 2>/dev/null &
    srv=$!
    for _ in $(seq 100); do [ -s "$T/port.$mode" ] && break; sleep 0.1; done
    port=$(head -n 1 "$T/port.$mode")
    "${MR[@]}" 2 "$G" pca "http://127.0.0.1:$port/sim.vcz" -k 5 --method randomized -q -t 1 \
        --format tsv >"$T/http_$mode.tsv" 2>"$T/http_$mode.err"
    check "http ($mode) -n 2: exit" test $? = 0
    "$G" pca "$T/sim.vcz" -k 5 --method randomized -q --format tsv >"$T/local.tsv"
    check "http ($mode) -n 2: same bytes as the local store, one process" \
        cmp -s "$T/local.tsv" "$T/http_$mode.tsv"
    kill "$srv" 2>/dev/null
    wait "$srv" 2>/dev/null
done

# -v on rank 0 prints the plan of every rank
"${MR[@]}" 3 "$G" pca "$T/sim.vcz" -k 3 -v -t 1 --format tsv >/dev/null 2>"$T/plan.err"
check "plan names rank 2's part" grep -q 'rank 2: variants 24576:40000' "$T/plan.err"

# a corrupt chunk in the last rank's part: every rank stops, exit 1, no output
cp -r "$T/sim.vcz" "$T/bad.vcz"
printf 'garbage' >"$T/bad.vcz/call_genotype/15.0.0"
for meth in randomized exact; do
    "${MR[@]}" 3 "$G" pca "$T/bad.vcz" -k 3 --method "$meth" -t 1 -o "$T/bad_out.zarr" \
        >/dev/null 2>"$T/bad.err"
    check "corrupt chunk ($meth): exit 1" test $? = 1
    check "corrupt chunk ($meth): the failing rank names the chunk" \
        grep -q 'rank 2: call_genotype/15.0.0' "$T/bad.err"
    check "corrupt chunk ($meth): the others name rank 2" grep -q 'rank 1: rank 2 of 3 failed' "$T/bad.err"
    check "corrupt chunk ($meth): no output" test ! -e "$T/bad_out.zarr"
    check "corrupt chunk ($meth): no staging left" \
        test -z "$(find "$T" -maxdepth 1 -name '.bad_out.zarr*' -print -quit)"
done

# pdist: bit-plane (euclidean, ibs, king: its counts travel to rank 0 too) and generic
# (canberra) kernels, square and condensed,
# one band and --memory bands, Zarr and TSV; rank 0 writes what every rank computed
"$G" simulate "$T/psim.vcz" -m 6000 -n 900 -r 0.01 -c 1500,900 -q || exit 1
for metric in euclidean canberra ibs king; do
    for layout in square condensed; do
        for mem in "" "--memory 24M"; do
            # shellcheck disable=SC2086
            opts=(-m "$metric" --layout "$layout" $mem -q)
            "$G" pdist "$T/psim.vcz" "${opts[@]}" -o "$T/d1.zarr" --format tsv >"$T/d1.tsv" ||
                { echo "FAIL one process pdist ${opts[*]}"; exit 1; }
            for r in 2 3 4; do
                "${MR[@]}" "$r" "$G" pdist "$T/psim.vcz" "${opts[@]}" -t 1 -o "$T/dr.zarr" \
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
# KING pairs above a threshold (--min-kinship): rank 0 writes the list of every rank's bands
"$G" pdist "$T/psim.vcz" -m king --min-kinship -0.01 --counts -q >"$T/k1.tsv" &&
    "$G" pdist "$T/psim.vcz" -m king --min-kinship -0.01 -q -o "$T/k1.zarr" ||
    { echo "FAIL one process pdist --min-kinship"; exit 1; }
for r in 2 3; do
    "${MR[@]}" "$r" "$G" pdist "$T/psim.vcz" -m king --min-kinship -0.01 --counts --memory 24M \
        -t 1 -q >"$T/kr.tsv" 2>"$T/kr.err"
    check "pdist --min-kinship -n $r: exit" test $? = 0
    check "pdist --min-kinship -n $r: TSV bytes" cmp -s "$T/k1.tsv" "$T/kr.tsv"
    "${MR[@]}" "$r" "$G" pdist "$T/psim.vcz" -m king --min-kinship -0.01 --memory 24M -t 1 -q \
        -o "$T/kr.zarr" 2>"$T/kr.err"
    check "pdist --min-kinship -n $r: Zarr exit" test $? = 0
    check "pdist --min-kinship -n $r: Zarr bytes" same_store "$T/k1.zarr" "$T/kr.zarr"
    rm -rf "$T/kr.zarr"
done
# a corrupt chunk stops every rank; no output
cp -r "$T/psim.vcz" "$T/pbad.vcz"
printf 'garbage' >"$T/pbad.vcz/call_genotype/3.0.0"
"${MR[@]}" 3 "$G" pdist "$T/pbad.vcz" --memory 24M -t 1 -o "$T/pbad_out.zarr" >/dev/null 2>"$T/pbad.err"
check "pdist corrupt chunk: exit 1" test $? = 1
check "pdist corrupt chunk: the cause is named" grep -q 'call_genotype/3.0.0' "$T/pbad.err"
check "pdist corrupt chunk: no output" test ! -e "$T/pbad_out.zarr"

# standard input reaches rank 0 only: refused
printf 'a\t0\t1\nb\t1\t2\n' | "${MR[@]}" 2 "$G" pdist - >/dev/null 2>"$T/stdin.err"
check "pdist - under mpirun: usage exit" test $? = 2
check "pdist - under mpirun: message" grep -q 'not standard input' "$T/stdin.err"

# commands that do not run distributed say so instead of racing on one output
"${MR[@]}" 2 "$G" simulate "$T/s2.vcz" -m 100 -n 10 >/dev/null 2>"$T/sim2.err"
check "simulate under mpirun -n 2: usage exit" test $? = 2
check "simulate under mpirun -n 2: message" grep -q 'only pca and pdist run distributed' "$T/sim2.err"
check "simulate under mpirun -n 2: no output" test ! -e "$T/s2.vcz"

report
