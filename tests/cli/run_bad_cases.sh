#!/usr/bin/env bash
# Every hostile store in testdata/bad must fail with the expected exit code and a message that
# names what is wrong (testdata/bad/EXPECTED.tsv: a corrupt chunk names the store, the chunk's
# key and the array), in the message style ("gensvd dump: error: ", once), must not print to
# stdout, and must not crash.
# Usage: run_bad_cases.sh GENSVD TESTDATA_BAD_DIR
set -u
gensvd=$1
dir=$2
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
while IFS=$'\t' read -r name arg want_rc want_err; do
    case "$name" in '#'* | '') continue ;; esac
    "$gensvd" dump "$dir/$arg" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    ok=1
    [ "$rc" = "$want_rc" ] || ok=0
    grep -qF -- "$want_err" "$tmp/err" || ok=0
    [ -s "$tmp/out" ] && ok=0
    grep -q '^gensvd dump: error: ' "$tmp/err" || ok=0
    [ "$(sort "$tmp/err" | uniq -d)" = "" ] || ok=0 # logged once, where it was found
    if [ $ok = 1 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $name: exit $rc (want $want_rc), stderr: $(head -c 300 "$tmp/err")"
    fi
done <"$dir/EXPECTED.tsv"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
