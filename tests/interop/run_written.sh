#!/usr/bin/env bash
# "zarr-python reads what gensvd writes": write the dtype x codec matrix with gensvd's writer
# and check every array with the given zarr-python.
# Usage: run_written.sh WRITE_MATRIX PYTHON CHECK_WRITTEN
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$1" "$tmp/written.zarr" || { echo "0 passed, 1 failed"; exit 1; }
"$2" "$3" "$tmp/written.zarr"
