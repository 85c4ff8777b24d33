#!/usr/bin/env bash
# The library never writes to stdout or stderr: test_lib_api (which exercises every setter,
# failing calls, a failing chunk callback and a whole run, and writes its own report to a file)
# runs with both redirected to files, which must stay empty.
# Usage: test_lib_silent.sh TEST_LIB_API TESTDATA
set -u
. "$(dirname "$0")/../testlib.sh"
P=$1 D=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/scratch"
"$P" "$T/report" "$D/realdata/hapmap3.vcz" "$T/scratch" >"$T/stdout" 2>"$T/stderr"
rc=$?
cat "$T/report" 2>/dev/null
check "test_lib_api passed (exit $rc)" test "$rc" = 0
check "nothing on stdout" test ! -s "$T/stdout"
check "nothing on stderr" test ! -s "$T/stderr"
[ -s "$T/stderr" ] && head -5 "$T/stderr"
report
