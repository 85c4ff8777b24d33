#!/usr/bin/env bash
# gensvd pdist against the independent scipy oracle (tests/pdist/pdist_oracle.py).
#
# usage: tests/pdist/test_pdist_scipy.sh GENSVD PY
#   GENSVD  the gensvd binary;  PY  python of the zarr 3 test venv (.venv/zarr3/bin/python)
#   PDIST_TEST_TMP  scratch folder (default: mktemp -d, removed at the end)
#   PDIST_TESTS_FULL=1  hapmap3 on all variants and in the selftest
#
# Cases (every oracle case runs gensvd twice, --format tsv and -o OUT.zarr, and checks values,
# NaN pattern, diagonal 0, symmetry, n_sites, sample_id, attrs, dtypes, TSV == Zarr bitwise):
#   selftest   the oracle against scipy pdist without gensvd (khuman, random; hapmap3 subset
#              with PDIST_TESTS_FULL=1)
#   khuman     no missing: every metric, minkowski p=3 and p=1.5, ibs/cityblock @scale (= pairwise)
#   sim        simulated N=60 M=500 2% missing: every metric pairwise, minkowski p=3 / 1.5,
#              ibs/cityblock/sqeuclidean/euclidean/hamming @scale [SCALE-CONTRACT], -t 1 and -t 3
#   disjoint   zarr-python store: samples 0/1 share no called site (NaN), sample 2 all missing
#   hapmap3    real missing data (957 samples): ibs on --variants 0:4000, cityblock@scale and
#              hamming on --variants 9000:11000 (PDIST_TESTS_FULL=1: ibs, cityblock, both @scale,
#              on all 14389 variants, ~1 min more)
#   n_sites    written with missing calls; without them only with --counts (gensvd's help),
#              the brief said always: absent is accepted only without missing calls
#   array      --array dosage_f8 / dosage_f4: 2-D float (variants x samples, NaN missing,
#              non-integer values; f8 must not be rounded to f4); dosage_i1: int8, -1 missing
#   N=1 / N=2  1x1 zero matrix; every metric on two samples
#   error      --missing error: exit 1 with missing calls, exit 0 (and correct) without
#   usage      bad metric, bad -p, bad --missing, bad --format, unknown option -> exit 2;
#              missing input -> exit 1
# Last line: "N passed, N failed"; exit 1 on failure.
set -uo pipefail
if [ $# -ne 2 ]; then
    echo "usage: $0 GENSVD PY" >&2
    exit 2
fi
G=$1
PY=$2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
ORACLE="$here/pdist_oracle.py"
KH="$repo/testdata/realdata/khuman_chr22.vcz"
HM="$repo/testdata/realdata/hapmap3.vcz"
if [ -n "${PDIST_TEST_TMP:-}" ]; then
    T=$PDIST_TEST_TMP
    mkdir -p "$T"
else
    T=$(mktemp -d)
    trap 'rm -rf "$T"' EXIT
fi
PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); echo "  ok   $*"; }
bad() { FAIL=$((FAIL + 1)); echo "  FAIL $*"; }

# step LABEL CMD...: a setup command that must succeed
step() {
    local label=$1
    shift
    if "$@"; then ok "$label"; else bad "$label (exit $?)"; fi
}

# run the oracle, add its counts
oracle() {
    local out
    out=$("$PY" "$ORACLE" "$@" 2>&1)
    local rc=$?
    echo "$out" | grep -v '^  ok ' | grep -v -E '^[0-9]+ passed, [0-9]+ failed$'
    local last
    last=$(echo "$out" | tail -n 1)
    if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        PASS=$((PASS + BASH_REMATCH[1]))
        FAIL=$((FAIL + BASH_REMATCH[2]))
        echo "  -> $last"
        if [ $rc -ne 0 ] && [ "${BASH_REMATCH[2]}" = 0 ]; then bad "oracle $1 exit $rc"; fi
    else
        bad "oracle $1 crashed (rc $rc): $(echo "$out" | tail -n 3)"
    fi
}

# expect_rc LABEL RC CMD...: exit status RC, and a message on stderr for non-zero
expect_rc() {
    local label=$1 want=$2
    shift 2
    "$@" >"$T/out.txt" 2>"$T/err.txt"
    local rc=$?
    if [ $rc -eq "$want" ]; then
        if [ "$want" -ne 0 ] && [ ! -s "$T/err.txt" ]; then
            bad "$label: exit $rc but nothing on stderr"
        else
            ok "$label: exit $rc $(head -c 160 "$T/err.txt" | tr '\n' ' ')"
        fi
    else
        bad "$label: exit $rc, expected $want; stderr: $(head -c 300 "$T/err.txt" | tr '\n' ' ')"
    fi
}

START=$SECONDS
sec() { echo "$1  [${SECONDS}s]"; }

ALL="euclidean sqeuclidean cityblock hamming ibs chebyshev cosine correlation braycurtis canberra minkowski:3 minkowski:1.5"

if ! "$G" pdist --help >/dev/null 2>&1; then
    echo "gensvd pdist --help fails: is pdist built?"
fi

sec "== selftest (oracle against scipy, no gensvd)"
if [ "${PDIST_TESTS_FULL:-0}" = 1 ]; then oracle selftest "$KH" "$HM"; else oracle selftest "$KH"; fi

sec "== simulated stores"
step "simulate sim.vcz" "$G" simulate "$T/sim.vcz" -m 500 -n 60 -K 3 --missing 0.02 --seed 3 \
    --chunks 128,25 -q -t 2
step "simulate n1" "$G" simulate "$T/n1.vcz" -m 50 -n 1 -K 1 --seed 4 -q -t 1
step "simulate n2" "$G" simulate "$T/n2.vcz" -m 80 -n 2 -K 1 --missing 0.1 --seed 5 -q -t 1
step "make-disjoint" "$PY" "$ORACLE" make-disjoint "$T/disjoint.zarr"
step "make-array" "$PY" "$ORACLE" make-array "$T/array.zarr"

sec "== khuman (no missing): every metric"
# shellcheck disable=SC2086
oracle check --gensvd "$G" "$KH" $ALL ibs@scale cityblock@scale
oracle check --gensvd "$G" --formats zarr --extra=--counts --label "khuman --counts" "$KH" cityblock

sec "== sim (2% missing): every metric pairwise, scale [SCALE-CONTRACT]"
# shellcheck disable=SC2086
oracle check --gensvd "$G" -t 1 "$T/sim.vcz" $ALL \
    ibs@scale cityblock@scale sqeuclidean@scale euclidean@scale hamming@scale
oracle check --gensvd "$G" -t 3 --label "sim -t 3" "$T/sim.vcz" euclidean correlation ibs cityblock@scale
if "$G" pdist --device cpu "$T/sim.vcz" --metric correlation -t 1 --format tsv >"$T/t1.tsv" 2>/dev/null \
    && "$G" pdist --device cpu "$T/sim.vcz" --metric correlation -t 3 --format tsv >"$T/t3.tsv" 2>/dev/null; then
    if cmp -s "$T/t1.tsv" "$T/t3.tsv"; then
        echo "  info correlation TSV byte-identical for -t 1 and -t 3"
    else
        echo "  info correlation TSV differs between -t 1 and -t 3 (both checked against the oracle)"
    fi
fi

sec "== disjoint (pair without shared sites -> NaN, all-missing sample)"
# shellcheck disable=SC2086
oracle check --gensvd "$G" "$T/disjoint.zarr" $ALL ibs@scale cityblock@scale euclidean@scale

sec "== hapmap3 (real missing data)"
if [ "${PDIST_TESTS_FULL:-0}" = 1 ]; then
    oracle check --gensvd "$G" --formats zarr "$HM" ibs cityblock ibs@scale cityblock@scale
else
    oracle check --gensvd "$G" --formats zarr --variants 0:4000 --label "hapmap3 0:4000" "$HM" ibs
    oracle check --gensvd "$G" --formats zarr --variants 9000:11000 --label "hapmap3 9000:11000" \
        "$HM" cityblock@scale hamming
fi

sec "== --array (2-D float dosage, NaN missing)"
AR="euclidean cityblock cosine correlation chebyshev braycurtis canberra minkowski:3 hamming ibs"
# shellcheck disable=SC2086
oracle check --gensvd "$G" --array dosage_f8 --label "array f8" "$T/array.zarr" $AR
# shellcheck disable=SC2086
oracle check --gensvd "$G" --array dosage_f4 --label "array f4" "$T/array.zarr" $AR
oracle check --gensvd "$G" --array dosage_i1 --label "array i1" "$T/array.zarr" euclidean ibs \
    correlation cityblock@scale

sec "== N=1 and N=2"
oracle check --gensvd "$G" "$T/n1.vcz" euclidean cityblock ibs correlation
oracle check --gensvd "$G" --extra=--counts --label "n1 --counts" "$T/n1.vcz" euclidean
# shellcheck disable=SC2086
oracle check --gensvd "$G" "$T/n2.vcz" $ALL ibs@scale cityblock@scale

sec "== --missing error"
expect_rc "--missing error with missing calls (sim)" 1 "$G" pdist --device cpu "$T/sim.vcz" --missing error --format tsv
expect_rc "--missing error with missing calls (disjoint, -o)" 1 \
    "$G" pdist --device cpu "$T/disjoint.zarr" --missing error -o "$T/err_out.zarr"
if [ -e "$T/err_out.zarr" ]; then bad "--missing error left an output store"; else ok "--missing error: no output store"; fi
oracle check --gensvd "$G" --label "khuman --missing error" "$KH" euclidean@error ibs@error

sec "== usage errors"
expect_rc "bad metric" 2 "$G" pdist --device cpu "$KH" --metric manhattanx --format tsv
expect_rc "bad -p 0" 2 "$G" pdist --device cpu "$KH" --metric minkowski -p 0 --format tsv
expect_rc "bad -p -1" 2 "$G" pdist --device cpu "$KH" --metric minkowski -p -1 --format tsv
expect_rc "bad -p abc" 2 "$G" pdist --device cpu "$KH" --metric minkowski -p abc --format tsv
expect_rc "bad -p nan" 2 "$G" pdist --device cpu "$KH" --metric minkowski -p nan --format tsv
expect_rc "bad --missing" 2 "$G" pdist --device cpu "$KH" --missing mean --format tsv
expect_rc "bad --format" 2 "$G" pdist --device cpu "$KH" --format csvx
expect_rc "unknown option" 2 "$G" pdist --device cpu "$KH" --no-such-option --format tsv
expect_rc "missing input store" 1 "$G" pdist --device cpu "$T/does_not_exist.zarr" --format tsv
expect_rc "pdist --help" 0 "$G" pdist --help

echo "  info total $((SECONDS - START)) s"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
