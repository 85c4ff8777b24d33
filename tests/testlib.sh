# tests/testlib.sh - shared helpers of the shell test drivers (source it; bash).
#   check NAME CMD...     run CMD; count a pass, or print "FAIL NAME" and count a failure
#   same_store A B        two Zarr groups hold the same arrays and attributes byte for byte,
#                         the recorded command line aside
#   report                print "P passed, F failed" and return non-zero on any failure
pass=0
fail=0
check() {
    local name=$1
    shift
    if "$@"; then pass=$((pass + 1)); else echo "FAIL $name"; fail=$((fail + 1)); fi
}
same_store() {
    diff -r -x .zattrs -x .zmetadata "$1" "$2" >/dev/null &&
        diff <(grep -v '"command"' "$1/.zattrs") <(grep -v '"command"' "$2/.zattrs") >/dev/null &&
        { [ ! -e "$1/.zmetadata" ] ||
            diff <(grep -v '"command"' "$1/.zmetadata") <(grep -v '"command"' "$2/.zmetadata") >/dev/null; }
}
report() {
    echo "$pass passed, $fail failed"
    [ "$fail" = 0 ]
}
