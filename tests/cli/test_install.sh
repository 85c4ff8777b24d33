#!/usr/bin/env bash
# cmake --install into a temporary prefix: the binary runs from there, and every command that
# `gensvd --help` lists has a man page whose text is exactly its `gensvd help CMD` output, and
# the bash completion offers the commands and each command's options.
# Usage: test_install.sh BUILD_DIR
set -u
. "$(dirname "$0")/../testlib.sh"
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/usr" >/dev/null || { echo "FAIL cmake --install"; exit 1; }
bin=$tmp/usr/bin/gensvd
man1=$tmp/usr/share/man/man1
check "installed binary runs" bash -c "\"$bin\" --version >/dev/null"
# the verbatim block of a page, roff escapes undone
body() { sed -n '/^\.nf$/,/^\.fi$/p' "$1" | sed -e '1d;$d' -e 's/^\\&//' -e 's/\\e/\\/g'; }
check "gensvd.1 = gensvd --help" diff <(body "$man1/gensvd.1") <("$bin" --help)
cmds=$("$bin" --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  *[^-].*$/\1/p')
check "commands listed" test -n "$cmds"
for c in $cmds; do
    check "gensvd-$c.1 = gensvd help $c" diff <(body "$man1/gensvd-$c.1") <("$bin" help "$c")
done
if command -v man >/dev/null; then
    check "man -w finds gensvd-plot" test "$(MANPATH=$tmp/usr/share/man man -w gensvd-plot)" = \
        "$man1/gensvd-plot.1"
    check "man renders gensvd-plot" bash -c "MANWIDTH=100 man -l '$man1/gensvd-plot.1' 2>/dev/null | grep -q -- --color-by"
fi
# bash completion: commands, a command's options, plot's subcommands
comp=$tmp/usr/share/bash-completion/completions/gensvd
complete_words() { # WORD... (the last one is being completed)
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gensvd; echo "${COMPREPLY[*]}"' \
        _ "$comp" gensvd "$@"
}
check "completion: commands" test "$(complete_words p)" = "pca pdist project plot"
check "completion: plot options" test "$(complete_words plot --co)" = "--color-by --colour-by --concurrency"
check "completion: plot kinds" test "$(complete_words plot '')" = "pca pdist"
check "completion: no plot options for pdist" test "$(complete_words pdist --order 2>/dev/null)" = ""
for c in $cmds; do
    want=$("$bin" help "$c" | sed -n 's/^ *\(-[a-zA-Z0-9], \)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p' |
        sort -u | tr '\n' ' ')
    check "completion: options of $c" test "$(complete_words "$c" --) " = "$want"
done
report
