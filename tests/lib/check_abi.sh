#!/usr/bin/env bash
# The ABI of libgensvd.so against the baseline checked in (abi/libgensvd.abi, abidw's output of
# a release build; libabigail, Debian's abigail-tools), the types of include/gensvd.h public
# and every other type private (opaque handles): a function or variable removed or changed (a
# signature, a struct's layout, through any type it reaches) fails, so that such a change is a
# decision made visibly (a new major version and a new baseline: docs/dev/library.md, "ABI");
# functions only added pass, with the report and a reminder to update the baseline.
# Usage: check_abi.sh LIBGENSVD.so BASELINE.abi INCLUDE_DIR
set -u
lib=$1 base=$2 inc=$3
command -v abidiff >/dev/null || { echo "abidiff not found (apt-get install abigail-tools)"; exit 77; }
out=$(abidiff --headers-dir2 "$inc" "$base" "$lib" 2>&1)
rc=$?
if [ $((rc & 3)) != 0 ]; then
    echo "$out"
    echo "FAIL abidiff could not compare (exit $rc)"
    exit 1
fi
# "Functions changes summary: R Removed, C Changed (...), A Added functions", then variables
bad=$(grep -E 'changes summary: ' <<<"$out" | grep -vE ': 0 Removed, 0 Changed')
if [ $((rc & 8)) != 0 ] || [ -n "$bad" ]; then
    echo "$out"
    echo "FAIL the ABI changed incompatibly against $base: undo the change, or make it a new"
    echo "     major version (GENSVD_VERSION_MAJOR and project(VERSION): a new SONAME) with a new"
    echo "     baseline (docs/dev/library.md, \"ABI\")"
    exit 1
fi
if [ $((rc & 4)) != 0 ]; then
    echo "$out"
    echo "ok   functions were added; record them in the baseline:"
    echo "     abidw --headers-dir include --no-corpus-path --short-locs --no-comp-dir-path \\"
    echo "           --out-file abi/libgensvd.abi BUILD/lib/libgensvd.so"
fi
echo "ok   the ABI of $(basename "$lib") is compatible with $(basename "$base")"
echo "1 passed, 0 failed"
