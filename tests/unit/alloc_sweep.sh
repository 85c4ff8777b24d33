#!/usr/bin/env bash
# Allocation-failure sweep: every allocation of a short run fails in turn, and each failure must
# surface cleanly as GSVD_ENOMEM.
# Usage: alloc_sweep.sh PROGRAM...   (Debug builds, with GSVD_FAIL_ALLOC; a PROGRAM may carry
# arguments in the same word, "test_numeric DIR", which come before the mode)
# For each program and N = 1, 2, ... it runs `GENSVD_FAIL_ALLOC_AT=N PROG --one-XXX`
# (test_codec/test_array: --one-roundtrip, test_meta: --one-parse) and requires exit 0 (done,
# or the failure was absorbed) or 3 (GSVD_ENOMEM returned).  Anything else - 1 (another error
# code), a signal, an ASan/LSan/UBSan report - fails and prints N with the end of the output.
# A program's sweep ends at the first N that exits 0 without an "out of memory" message: there
# was no N-th allocation.  Runs go JOBS (default: CPUs, at most 8) at a time.  The last line is
# "N passed, N failed"; the exit status is 1 on any failure.
set -u
if [ $# -lt 1 ]; then
    echo "usage: $0 PROGRAM..." >&2
    exit 2
fi
jobs=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
[ "$jobs" -gt 8 ] && jobs=8
[ "$jobs" -lt 1 ] && jobs=1
max=${ALLOC_SWEEP_MAX:-5000} # a safety net against a program that never runs out of failures
out=$(mktemp -d "${TMPDIR:-/tmp}/alloc_sweep.XXXXXX") || exit 2
trap 'rm -rf "$out"' EXIT
pass=0
fail=0

mode_of() {
    case "$(basename "$1")" in
    test_meta*) echo --one-parse ;;
    *) echo --one-roundtrip ;;
    esac
}

# run_one "PROG [ARGS]" MODE N: writes rc and output to $out/N.rc, $out/N.log
run_one() {
    local cmd
    read -r -a cmd <<<"$1"
    GENSVD_FAIL_ALLOC_AT=$3 "${cmd[@]}" "$2" >"$out/$3.log" 2>&1
    echo $? >"$out/$3.rc"
}

for spec in "$@"; do
    prog=${spec%% *}
    if [ ! -x "$prog" ]; then
        echo "FAIL $prog: not an executable"
        fail=$((fail + 1))
        continue
    fi
    mode=$(mode_of "$prog")
    name=$(basename "$prog")
    n=1
    done_at=0
    prog_fail=0
    while [ $done_at = 0 ] && [ $n -le "$max" ]; do
        # one batch of `jobs` runs in parallel, then judge them in order
        pids=()
        for ((k = n; k < n + jobs; k++)); do
            run_one "$spec" "$mode" $k &
            pids+=($!)
        done
        for pid in "${pids[@]}"; do
            wait "$pid"
        done
        for ((k = n; k < n + jobs; k++)); do
            rc=$(cat "$out/$k.rc")
            if [ "$rc" = 0 ] && ! grep -q "out of memory" "$out/$k.log"; then
                done_at=$k # no k-th allocation: the sweep of this program is complete
                break
            fi
            if [ "$rc" = 0 ] || [ "$rc" = 3 ]; then
                pass=$((pass + 1))
            else
                fail=$((fail + 1))
                prog_fail=$((prog_fail + 1))
                echo "FAIL $name $mode with GENSVD_FAIL_ALLOC_AT=$k: exit $rc"
                grep -v "out of memory" "$out/$k.log" | tail -n 3 | sed 's/^/    /'
            fi
        done
        rm -f "$out"/*.rc "$out"/*.log
        n=$((n + jobs))
    done
    if [ $done_at = 0 ]; then
        echo "FAIL $name: still failing allocations after $max runs"
        fail=$((fail + 1))
    else
        echo "$name: $((done_at - 1)) allocations swept, $prog_fail failed"
    fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
