#!/usr/bin/env bash
# Zarr v3 read, against zarr-python 3 as the oracle: write the v3 fixture matrix
# (make_v3_fixtures.py) into a temporary folder and compare `gensvd dump` with zarr-python's
# values for every array of every store (check_dump_v3.py), and `gensvd info` with zarr-python's
# tree and metadata and the files on disk (check_info.py).  Exit 77 (skipped) without the
# zarr-python 3 venv (scripts/setup.sh --tests).
# Usage: run_v3_fixtures.sh GENSVD PYTHON_ZARR3 MAKE_V3_FIXTURES CHECK_DUMP_V3 [CHECK_INFO]
set -u
gensvd=$1 py3=$2 make=$3 check=$4 check_info=${5:-}
if ! [ -x "$py3" ] || ! "$py3" -c 'import zarr, sys; sys.exit(int(zarr.__version__[0]) < 3)'; then
    echo "zarr-python 3 not found at $py3: skipped"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$py3" "$make" "$tmp/v3" >"$tmp/make.log" 2>&1; then
    cat "$tmp/make.log"
    exit 1
fi
pass=0
fail=0
for store in "$tmp"/v3/*.zarr; do
    if "$py3" "$check" "$gensvd" "$store" >"$tmp/check.log" 2>&1; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        grep -E "FAIL" "$tmp/check.log" | head -5
    fi
    tail -1 "$tmp/check.log"
    [ -n "$check_info" ] || continue
    if "$py3" "$check_info" "$gensvd" "$store" >"$tmp/check.log" 2>&1; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        grep -E "FAIL" "$tmp/check.log" | head -5
    fi
    echo "info: $(tail -1 "$tmp/check.log")"
done
echo "$pass store checks passed, $fail failed"
[ $fail = 0 ]
