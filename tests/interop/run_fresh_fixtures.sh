#!/usr/bin/env bash
# "We read what zarr-python writes", made fresh: regenerate the whole fixture matrix with the
# pinned zarr 2.x and zarr 3.x (format 2) into a temporary folder and compare gensvd dump with
# zarr-python's values for every array.
# Usage: run_fresh_fixtures.sh GENSVD PYTHON_ZARR2 PYTHON_ZARR3 MAKE_FIXTURES CHECK_DUMP
set -u
gensvd=$1 py2=$2 py3=$3 make=$4 check=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
for py in "$py2" "$py3"; do
    out="$tmp/$(basename "$(dirname "$(dirname "$py")")")"
    if ! "$py" "$make" "$out" >"$tmp/make.log" 2>&1; then
        cat "$tmp/make.log"
        fail=$((fail + 1))
        continue
    fi
    for store in "$out"/*.zarr; do
        # each store is checked with the same zarr-python that wrote it
        if "$py" "$check" "$gensvd" "$store" >"$tmp/check.log" 2>&1; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            grep -E "FAIL" "$tmp/check.log" | head -5
        fi
    done
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
