#!/usr/bin/env bash
# The library never writes to stdout or stderr: test_lib_api (which exercises every setter,
# failing calls, a failing chunk callback and a whole run, and writes its own report to a file)
# or test_lib_process (the process-wide calls: warnings no context hears, with and without the
# default log callback, an out-of-memory at gensvd_blas_reserve, an abandoned run) runs with
# both redirected to files, which must stay empty.
# Usage: test_lib_silent.sh TEST_PROGRAM TESTDATA
set -u
. "$(dirname "$0")/../testlib.sh"
P=$1 D=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/scratch"
"$P" "$T/report" "$D/realdata/hapmap3.vcz" "$T/scratch" >"$T/stdout" 2>"$T/stderr"
rc=$?
cat "$T/report" 2>/dev/null
check "$(basename "$P") passed (exit $rc)" test "$rc" = 0
check "nothing on stdout" test ! -s "$T/stdout"
check "nothing on stderr" test ! -s "$T/stderr"
[ -s "$T/stderr" ] && head -5 "$T/stderr"
report
