#!/usr/bin/env bash
# tests/fuzz/run_fuzz.sh - fuzz every libFuzzer target of a GENSVD_FUZZ=ON build for a while.
# Usage: tests/fuzz/run_fuzz.sh BUILD_DIR [SECONDS_PER_TARGET [TARGET...]]
# Each target starts from its checked-in corpus (tests/fuzz/corpus/NAME, read only: new inputs
# go to a scratch directory), runs in one process on one core for SECONDS_PER_TARGET (default 5),
# and the script fails on the first finding (crash, leak, sanitizer report, timeout, OOM),
# printing the reproducer's path; add it to the corpus once fixed.  One line per target gives
# the executions and libFuzzer's coverage (cov: edges, ft: features).  FUZZ_KEEP=DIR keeps the
# scratch corpora and logs in DIR.
set -euo pipefail
build=${1:?usage: run_fuzz.sh BUILD_DIR [SECONDS_PER_TARGET [TARGET...]]}
secs=${2:-5}
shift $(($# < 2 ? $# : 2))
here=$(cd "$(dirname "$0")" && pwd)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(meta codec chunk textmatrix http url genotype differential meta_v3 shard zip list opts cli_parse ind var_list)
work=${FUZZ_KEEP:-$(mktemp -d)}
mkdir -p "$work"
[ -n "${FUZZ_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in "${targets[@]}"; do
    bin=$build/tests/fuzz_$t
    if [ ! -x "$bin" ]; then
        echo "run_fuzz: $bin is missing (configure with CC=clang -DGENSVD_FUZZ=ON)" >&2
        exit 2
    fi
    mkdir -p "$work/$t.corpus" "$work/$t.artifacts"
    log=$work/$t.log
    if ! "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/$t.artifacts/" \
        "$work/$t.corpus" "$here/corpus/$t" >"$log" 2>&1; then
        echo "run_fuzz: fuzz_$t FAILED; last lines of $log:" >&2
        tail -n 40 "$log" >&2
        ls "$work/$t.artifacts/" >&2 || true
        status=1
        [ -n "${FUZZ_KEEP:-}" ] || cp -r "$work/$t.artifacts" "./fuzz-artifacts-$t" 2>/dev/null || true
        break
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)
    printf 'fuzz_%-13s %5ss %10s execs  %s  corpus %s\n' "$t" "$secs" "${runs:-?}" "${cov:-cov: ?}" \
        "$(find "$work/$t.corpus" "$here/corpus/$t" -type f | wc -l)"
done
exit $status
