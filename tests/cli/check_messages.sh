#!/usr/bin/env bash
# Every line gensvd writes on stderr in the user-contract tests follows the message style of
# docs/man/gensvd.md ("Messages"):
#   gensvd[ CMD]: error: MESSAGE      gensvd[ CMD]: warning: MESSAGE
#   gensvd[ CMD]: MESSAGE             (summaries at the default level, -v detail, progress lines)
#   Try 'gensvd[ CMD] --help'.        (after a usage error, exit 2)
# and no line shows the program's insides: a function name ("gsvd_...", "[E::func]"), a source
# file ("x.c:12"), the old "[pca]" prefixes, or words a user never typed ("setup").  Exit 2
# comes with the "Try" line, and only then.
# The stderr checked: every tests/cli/cases/NAME.sh (run as run_cli_cases.sh runs them), every
# hostile store of testdata/bad under dump, pca, pdist and info, and a few runs made here (-v,
# summaries, progress lines, a mistyped command and option, each kind of refused output); at
# -v -v the function name may close a line.  Progress and summaries at the default level name
# no engine part (bands, the bit-plane kernel, "items" or "features").
# Usage: check_messages.sh GENSVD CASES_DIR TESTDATA_DIR
set -u
GENSVD=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cases=$(cd "$2" && pwd)
TESTDATA=$(cd "$3" && pwd)
export GENSVD TESTDATA
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log=$tmp/messages # "SOURCE<TAB>LINE" for every stderr line
fail=0
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

# collect SOURCE FILE EXIT: each line of FILE (progress lines split at \r, empty pieces
# dropped) into the log; exit 2 must end with a "Try" line, other exits must not have one
collect() {
    tr '\r' '\n' <"$2" | grep -v '^$' | sed "s|^|$1\t|" >>"$log"
    if [ "$3" = 2 ]; then
        tail -n 1 "$2" | grep -qx "Try 'gensvd\( [a-z]*\)\? --help'\." || bad "$1: exit 2 without the Try line"
    elif grep -q "^Try 'gensvd" "$2"; then
        bad "$1: a Try line with exit $3"
    fi
}

for script in "$cases"/*.sh; do
    name=$(basename "$script" .sh)
    mkdir "$tmp/work"
    (cd "$tmp/work" && bash "$script" >/dev/null 2>"$tmp/err")
    collect "case $name" "$tmp/err" $?
    rm -rf "$tmp/work"
done
while IFS=$'\t' read -r name arg _ _; do
    case "$name" in '#'* | '') continue ;; esac
    for cmd in dump pca pdist info; do
        "$GENSVD" $cmd "$TESTDATA/bad/$arg" >/dev/null 2>"$tmp/err"
        collect "bad $name ($cmd)" "$tmp/err" $?
    done
done <"$TESTDATA/bad/EXPECTED.tsv"

# a few runs made here: summaries and -v detail of the commands that write
hm="$TESTDATA/realdata/hapmap3.vcz"
(
    cd "$tmp" || exit 1
    run() { "$GENSVD" "$@" >/dev/null 2>"$tmp/err"; collect "run $*" "$tmp/err" $?; }
    run simulate -v s.zarr -m 400 -n 30 --chunks 100,30
    run pca -v -k 3 s.zarr -o pcs.zarr --loadings
    run pca -k 2 --format tsv s.zarr
    run pdist -v -m ibs s.zarr -o d.zarr
    run ldprune -v -w 50 s.zarr
    run related -v --variants 0:2000 "$hm"
    run project -v s.zarr --pcs pcs.zarr
    run plot -v pca pcs.zarr -o p.svg
    run info -v s.zarr
    run dump -v s.zarr/sample_id
    run pdsit s.zarr
    run pca --threds 2 s.zarr
    run pca --progress -k 2 -m randomized --power-iter 2 --format tsv s.zarr
    run pdist --progress -m ibs --memory 30K s.zarr
    run pdist --progress --axis variants --variants 0:50 s.zarr
    # the outputs' checks, before any input is read: an existing output, a missing parent, a
    # parent that is a file, a directory nobody may write in (sysfs), plink and picture files
    touch afile afile.eigenvec
    run pca -k 2 s.zarr -o pcs.zarr
    run pdist -m ibs s.zarr -o nodir/d.zarr
    run ldprune -w 50 s.zarr -o afile/ld.zarr
    run related --variants 0:2000 "$hm" -o /sys/rel.zarr
    run project s.zarr --pcs pcs.zarr -o pcs.zarr
    run simulate s.zarr -m 400 -n 30
    run pca -k 2 s.zarr --plink afile -o pcs2.zarr
    run pca -k 2 s.zarr --plink nodir/out
    run plot pca pcs.zarr -o nodir/p.svg
    run pdist --finalize d.zarr
)

# standard output that cannot be written (a full disk: /dev/full): exit 1 and one error line
# saying so, whichever part of the program wrote the text (a command's table, a streamed
# matrix, a help text); no second line for the same failure
if [ -w /dev/full ]; then
    while IFS= read -r args; do
        # shellcheck disable=SC2086
        "$GENSVD" $args >/dev/full 2>"$tmp/err"
        st=$?
        collect "full $args" "$tmp/err" $st
        n_err=$(grep -c ': error: ' "$tmp/err")
        [ $st = 1 ] && [ "$n_err" = 1 ] && grep -q '^gensvd\( [a-z]*\)\?: error: standard output: write failed$' "$tmp/err" ||
            bad "$args >/dev/full: exit $st, $n_err error line(s), not one 'standard output: write failed': $(cat "$tmp/err")"
    done <<EOF3
related --variants 0:2000 $hm
project $tmp/s.zarr --pcs $tmp/pcs.zarr
pca -k 2 $tmp/s.zarr
pdist -m ibs $tmp/s.zarr
pdist -m king --min-kinship 0.1 $tmp/s.zarr
ldprune -w 50 $tmp/s.zarr
info $tmp/s.zarr
dump $tmp/s.zarr/sample_id
--help
help pca
--version
EOF3
fi

# debug level: the same style; the library's log callback carries no function name, so the
# library's messages end without one (docs/dev/library.md)
"$GENSVD" pca -v -v "$TESTDATA/bad/zstd_wrong_size.zarr/a" >/dev/null 2>"$tmp/debug"
grep -q "^gensvd pca: error: .*zstd_wrong_size.zarr/a: .*dimensions$" "$tmp/debug" ||
    bad "-v -v (pca): no error naming the array: $(cat "$tmp/debug")"
grep -v "^gensvd pca: \(error: \|warning: \|debug: \)\?[^ ]" "$tmp/debug" |
    sed 's/^/    /' | grep . && bad "-v -v (pca): lines not in the style"
# ... and the other ported ones (pdist, dump)
"$GENSVD" pdist -v -v "$TESTDATA/bad/zstd_wrong_size.zarr/a" >/dev/null 2>"$tmp/debug"
grep -q "^gensvd pdist: error: .*zstd_wrong_size.zarr/a: .*dimensions$" "$tmp/debug" ||
    bad "-v -v (pdist): no error naming the array: $(cat "$tmp/debug")"
grep -v "^gensvd pdist: \(error: \|warning: \|debug: \)\?[^ ]" "$tmp/debug" |
    sed 's/^/    /' | grep . && bad "-v -v (pdist): lines not in the style"
"$GENSVD" dump -v -v "$TESTDATA/bad/zstd_wrong_size.zarr/a" >/dev/null 2>"$tmp/debug"
grep -q "^gensvd dump: error: .*: corrupt chunk 'a/0' of array 'a': " "$tmp/debug" ||
    bad "-v -v (dump): no error naming the chunk: $(cat "$tmp/debug")"
grep -v "^gensvd dump: \(error: \|warning: \|debug: \)\?[^ ]" "$tmp/debug" |
    sed 's/^/    /' | grep . && bad "-v -v (dump): lines not in the style"

n=$(wc -l <"$log")
style='gensvd( [a-z]+)?: [^ ]|Try '"'"'gensvd( [a-z]+)? --help'"'"'\.$'
while IFS=$'\t' read -r src line; do
    bad "$src: not in the message style: $line"
done < <(grep -Ev $'\t'"($style)" "$log" | head -50)
inside='gsvd_|\[[EWID]::|\.c:[0-9]|\.c\b|\bsetup\b|\[(pca|pdist|ldprune|related|project|plot|simulate|dump|info)\]'
while IFS=$'\t' read -r src line; do
    bad "$src: shows the program's insides: $line"
done < <(grep -E $'\t'".*($inside)" "$log" | head -50)
# the default level (progress and summary) speaks of variants and samples, not of the engine
while IFS=$'\t' read -r src line; do
    bad "$src: an engine word at the default level: $line"
done < <(grep '^run [a-z]* --progress' "$log" | grep -Ei $'\t'".*(band|bitplane|bit-plane|items|features)" | head)
grep -q $'\t''gensvd pca: variance explained: PC1 ' "$log" || bad "pca: no variance explained"
grep -q $'\t''gensvd pca: wrote pcs.zarr in [0-9.]* s$' "$log" || bad "pca: no output and time"
# each output check said what is wrong with which output
while IFS= read -r want; do
    grep -q $'\t'"$want" "$log" || bad "no output check message '$want'"
done <<'EOF2'
gensvd pca: error: pcs.zarr: output exists (remove it, or overwrite it with --force)$
gensvd pdist: error: nodir/d.zarr: .*nodir.*No such file or directory
gensvd ldprune: error: afile/ld.zarr: .*Not a directory
gensvd related: error: /sys/rel.zarr: .*
gensvd project: error: pcs.zarr: output exists
gensvd simulate: error: s.zarr: output exists
gensvd pca: error: afile.eigenvec: output exists
gensvd pca: error: nodir/out.eigenvec: cannot create the output in directory 'nodir'
gensvd plot: error: nodir/p.svg: cannot create the output in directory 'nodir'
gensvd pdist: error: d.zarr: output exists
EOF2
echo "$n lines checked, $fail failed"
[ $fail = 0 ]
