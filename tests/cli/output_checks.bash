# tests/cli/output_checks.bash - sourced by cases/output_check_*.sh: every output is checked
# before any input is read.  The input is a store whose every chunk is garbage, so that a
# command that read one would fail with a chunk error instead of the expected output error;
# `reads_input` shows, for each command, that the broken input does fail once the outputs
# pass.  No timer: the order of the errors is the proof.
#   broken COPY SRC               copy store SRC to COPY, every chunk replaced by bytes no codec
#                                 accepts (metadata documents kept)
#   fails_on_output N GLOB CMD..  CMD exits 1 with GLOB matching somewhere in its stderr, and
#                                 the working directory is as before (no staging directory, no
#                                 temporary file); otherwise the case exits N
#   reads_input N CMD..           CMD exits 1 without an output error (it read the input)
#   unwritable_dirs               directories this process cannot write in: /sys (sysfs refuses
#                                 even root) and, when not root, a directory without write bits
set -u

broken() {
    cp -R "$2" "$1" || exit 90
    find "$1" -type f ! -name '.z*' ! -name zarr.json -exec sh -c 'printf "not a chunk" >"$1"' _ {} \;
}

snapshot() {
    find . | LC_ALL=C sort
}

fails_on_output() {
    local n=$1 pat=$2 before err rc
    shift 2
    before=$(snapshot)
    err=$("$@" 2>&1 >/dev/null)
    rc=$?
    # shellcheck disable=SC2053
    if [ $rc != 1 ] || [[ $err != *$pat* ]]; then
        echo "check $n: '$*': exit $rc, stderr: $err (want exit 1 and '$pat')" >&2
        exit "$n"
    fi
    if [ "$(snapshot)" != "$before" ]; then
        echo "check $n: '$*' left files behind:" >&2
        diff <(echo "$before") <(snapshot) >&2
        exit "$n"
    fi
}

reads_input() {
    local n=$1 err rc
    shift
    err=$("$@" 2>&1 >/dev/null)
    rc=$?
    if [ $rc != 1 ] || [[ $err == *"output exists"* ]] || [[ $err == *"cannot create the output"* ]]; then
        echo "check $n: '$*': exit $rc, stderr: $err (want exit 1 from the broken input)" >&2
        exit "$n"
    fi
}

unwritable_dirs() {
    [ -d /sys ] && echo /sys
    if [ "$(id -u)" != 0 ]; then
        mkdir -p ro && chmod 555 ro && echo ro
    fi
}
