#!/usr/bin/env bash
# Runs every cases/NAME.sh and compares its exit code, stdout and stderr with NAME.exit,
# NAME.stdout (exact; optional) and NAME.stderr (a bash glob pattern for the whole stderr;
# optional).  A case runs in a fresh temporary directory with GENSVD (the binary) and TESTDATA
# set.  UPDATE_EXPECTED=1 rewrites .exit/.stdout from the current behaviour for review.
# Usage: run_cli_cases.sh GENSVD CASES_DIR TESTDATA_DIR
set -u
export GENSVD=$1 TESTDATA=$3
cases=$(cd "$2" && pwd)
GENSVD=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); export GENSVD
TESTDATA=$(cd "$3" && pwd); export TESTDATA
pass=0
fail=0
for script in "$cases"/*.sh; do
    name=$(basename "$script" .sh)
    tmp=$(mktemp -d)
    mkdir "$tmp/work"
    (cd "$tmp/work" && bash "$script" >"$tmp/.stdout" 2>"$tmp/.stderr")
    rc=$?
    if [ "${UPDATE_EXPECTED:-0}" = 1 ]; then
        echo "$rc" >"$cases/$name.exit"
        [ -f "$cases/$name.stdout" ] && cp "$tmp/.stdout" "$cases/$name.stdout"
    fi
    why=""
    want=$(cat "$cases/$name.exit" 2>/dev/null || echo missing)
    [ "$rc" = "$want" ] || why="exit $rc, want $want"
    if [ -z "$why" ] && [ -f "$cases/$name.stdout" ] && ! cmp -s "$tmp/.stdout" "$cases/$name.stdout"; then
        why="stdout differs: $(diff "$cases/$name.stdout" "$tmp/.stdout" | head -5)"
    fi
    if [ -z "$why" ] && [ -f "$cases/$name.stderr" ]; then
        pat=$(cat "$cases/$name.stderr")
        err=$(cat "$tmp/.stderr")
        # shellcheck disable=SC2053
        [[ $err == $pat ]] || why="stderr '$err' does not match '$pat'"
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $name: $why"
        sed 's/^/    stderr: /' "$tmp/.stderr" | head -5
    fi
    rm -rf "$tmp"
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
