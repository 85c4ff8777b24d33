#!/usr/bin/env bash
# tests/pdist/test_pdist_parts.sh GENSVD - `pdist --part I/N` + `--finalize` (job arrays
# without MPI): parts run in any order and finalized give the one-process output byte for byte
# (checked against scipy by pdist_scipy / pdist_engine), with one band or --memory bands, for
# the bit-plane and generic kernels; a finalize with a part missing names it and leaves nothing;
# parts of different options are refused; a finalize that failed half-way can be run again;
# an existing OUT needs --force (at --part and at --finalize); bad uses of --part are usage
# errors.
set -u
G=$1
# shellcheck source=tests/testlib.sh
source "$(dirname "$0")/../testlib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/gsvd_parts.XXXXXX")
trap 'rm -rf "$T"' EXIT
"$G" simulate "$T/s.vcz" -m 5000 -n 2300 -r 0.01 -c 1000,2300 -q || exit 1

for opts in "-m ibs" "-m euclidean --memory 40M" "-m canberra --memory 40M"; do
    # shellcheck disable=SC2086
    "$G" pdist --device cpu "$T/s.vcz" $opts -q -o "$T/one.zarr" || { echo "FAIL one process $opts"; exit 1; }
    for order in "1 2 3" "3 1 2"; do
        for i in $order; do
            # shellcheck disable=SC2086
            "$G" pdist --device cpu "$T/s.vcz" $opts -q --part "$i/3" -o "$T/p.zarr"
            check "$opts part $i/3: exit" test $? = 0
        done
        check "$opts ($order): nothing at OUT before finalize" test ! -e "$T/p.zarr"
        "$G" pdist --device cpu --finalize "$T/p.zarr" -q
        check "$opts ($order): finalize exit" test $? = 0
        check "$opts ($order): same bytes as one process" same_store "$T/one.zarr" "$T/p.zarr"
        check "$opts ($order): parts directory gone" test ! -e "$T/p.zarr.gensvd-parts"
        rm -rf "$T/p.zarr"
    done
    rm -rf "$T/one.zarr"
done

# more parts than bands: the idle parts write metadata only
"$G" pdist --device cpu "$T/s.vcz" -m ibs -q -o "$T/one.zarr"
for i in 1 2 3 4 5; do "$G" pdist --device cpu "$T/s.vcz" -m ibs -q --part "$i/5" -o "$T/p5.zarr"; done
"$G" pdist --device cpu --finalize "$T/p5.zarr" -q
check "5 parts for 3 bands: same bytes" same_store "$T/one.zarr" "$T/p5.zarr"

# a missing part: named, nothing written, the parts kept
"$G" pdist --device cpu "$T/s.vcz" -m ibs -q --part 1/3 -o "$T/m.zarr"
"$G" pdist --device cpu "$T/s.vcz" -m ibs -q --part 3/3 -o "$T/m.zarr"
"$G" pdist --device cpu --finalize "$T/m.zarr" 2>"$T/m.err"
check "missing part: exit 1" test $? = 1
check "missing part: named" grep -q '1 of 3 parts missing (2)' "$T/m.err"
check "missing part: no output" test ! -e "$T/m.zarr"
"$G" pdist --device cpu "$T/s.vcz" -m ibs -q --part 2/3 -o "$T/m.zarr"
"$G" pdist --device cpu --finalize "$T/m.zarr" -q
check "missing part run later: finalize exit" test $? = 0
check "missing part run later: same bytes" same_store "$T/one.zarr" "$T/m.zarr"

# parts of other options
"$G" pdist --device cpu "$T/s.vcz" -m ibs -q --part 1/2 -o "$T/x.zarr"
"$G" pdist --device cpu "$T/s.vcz" -m cityblock -q --part 2/2 -o "$T/x.zarr"
"$G" pdist --device cpu --finalize "$T/x.zarr" 2>"$T/x.err"
check "mixed options: exit 1" test $? = 1
check "mixed options: says which part differs" grep -q "part 2's .zattrs differs" "$T/x.err"
check "mixed options: no output" test ! -e "$T/x.zarr"

# an existing OUT needs --force: already at --part (before any work: the finalize would refuse
# it), and at --finalize
"$G" pdist --device cpu "$T/s.vcz" -m ibs -q --part 1/1 -o "$T/one.zarr" 2>"$T/p.err"
check "existing output, --part: exit 1" test $? = 1
check "existing output, --part: message" grep -q 'one.zarr: output exists' "$T/p.err"
check "existing output, --part: no parts" test ! -e "$T/one.zarr.gensvd-parts"
"$G" pdist --device cpu "$T/s.vcz" -m ibs -q --part 1/1 -o "$T/one.zarr" -f
check "existing output, --part --force: exit 0" test $? = 0
"$G" pdist --device cpu --finalize "$T/one.zarr" 2>"$T/f.err"
check "existing output: exit" test $? = 1
check "existing output: message" grep -q 'one.zarr: output exists' "$T/f.err"
"$G" pdist --device cpu --finalize "$T/one.zarr" -f -q
check "existing output --force: exit 0" test $? = 0

# usage errors
"$G" pdist --device cpu "$T/s.vcz" --part 2/3 2>/dev/null
check "--part without -o: usage" test $? = 2
"$G" pdist --device cpu "$T/s.vcz" --part 2/3 --layout condensed -o "$T/c.zarr" 2>/dev/null
check "--part condensed: usage" test $? = 2
"$G" pdist --device cpu "$T/s.vcz" --part 4/3 -o "$T/c.zarr" 2>/dev/null
check "--part 4/3: usage" test $? = 2
"$G" pdist --device cpu "$T/s.vcz" --part 0/3 -o "$T/c.zarr" 2>/dev/null
check "--part 0/3: usage" test $? = 2
"$G" pdist --device cpu --finalize "$T/c.zarr" "$T/s.vcz" 2>/dev/null
check "--finalize with INPUT: usage" test $? = 2
"$G" pdist --device cpu "$T/s.vcz" -m ibs -q --part 1/1 -o "$T/v3.zarr"
"$G" pdist --device cpu --finalize "$T/v3.zarr" --zarr-format 3 2>"$T/v3.err"
check "--finalize --zarr-format 3: usage" test $? = 2
check "--finalize --zarr-format 3: message" grep -q 'gathers the parts as they are, in Zarr format 2' "$T/v3.err"
check "--finalize --zarr-format 3: no output, the parts kept" test ! -e "$T/v3.zarr" -a -d "$T/v3.zarr.gensvd-parts"
"$G" pdist --device cpu --finalize "$T/none.zarr" 2>"$T/n.err"
check "--finalize without parts: exit 1" test $? = 1
check "--finalize without parts: message" grep -q 'no parts to finalize' "$T/n.err"

report
