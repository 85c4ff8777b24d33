#!/usr/bin/env bash
# scripts/tsan.sh - ThreadSanitizer over the threaded paths: build gensvd and the library's
# two-thread test with GCC's -fsanitize=thread (build-tsan/, no CUDA, MPI or PNG), then run
# lib_threads (two contexts running different analyses at once, cancel, progress) and the
# commands with two worker threads on the bundled HapMap3 store.  Fails on any report (data
# race, lock order, use after free across threads) or a failed run.  Not part of .ci/run
# (a build of its own: about ten minutes on two cores); run it after changing threads, the
# scope, the pipeline or the stores' caches (docs/dev/testing.md).
# Usage: scripts/tsan.sh [BUILD_DIR]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-tsan}
cd "$root" || exit 2
CC=gcc cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGENSVD_SANITIZE=thread \
    -DGENSVD_CUDA=OFF -DGENSVD_MPI=OFF -DGENSVD_PNG=OFF >/dev/null || exit 2
cmake --build "$build" -j"$(nproc)" --target gensvd test_lib_threads >/dev/null || exit 2

logs=$(mktemp -d "${TMPDIR:-/tmp}/gsvd_tsan.XXXXXX")
trap 'rm -rf "$logs"' EXIT
export TSAN_OPTIONS="log_path=$logs/report history_size=3"
G=$build/cli/gensvd
hm=$root/testdata/realdata/hapmap3.vcz
fail=0

"$build/tests/test_lib_threads" "$hm" "$logs" >"$logs/lib_threads.out" 2>&1 ||
    { echo "FAIL lib_threads:"; grep -v '^ok' "$logs/lib_threads.out"; fail=1; }
while IFS= read -r args; do
    # shellcheck disable=SC2086
    "$G" $args >/dev/null 2>"$logs/err" || { echo "FAIL gensvd $args: $(tail -n 2 "$logs/err")"; fail=1; }
done <<EOF
pca -t 2 -k 5 $hm
pca -t 2 -k 5 --method exact $hm -o $logs/pcs.zarr --loadings
project -t 2 $hm --pcs $logs/pcs.zarr
pdist -t 2 -m king $hm -o $logs/king.zarr
pdist -t 2 -m ibs --layout condensed $hm
ldprune -t 2 -w 50 $hm
related -t 2 $hm
dump -t 2 --stats $hm/call_genotype
EOF
for r in "$logs"/report.*; do
    [ -e "$r" ] || continue
    echo "FAIL ThreadSanitizer report $(basename "$r"):"
    head -n 40 "$r"
    fail=1
done
[ $fail = 0 ] && echo "tsan: lib_threads and 8 commands with two threads, no report"
exit $fail
