#!/usr/bin/env bash
# cmake --install into a temporary prefix: the binary runs from there, and every command that
# `gensvd --help` lists has a man page with an OPTIONS entry for each option of its
# `gensvd help CMD` (cli_manual checks the rest of the pages), which man renders, and
# the bash completion offers the commands, each command's options and, after an option, the
# values its parser accepts (oracle: the parser's own error message for a bad value), files or
# nothing; the zsh completion parses, loads through compinit and completes the same values.
# The library: the header, libgensvd.so.MAJOR with its links, libgensvd.a and gensvd.pc, with
# which an example builds and runs against the installed prefix.
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
# the library and its development files
inc=$tmp/usr/include/gensvd.h
pc=$(find "$tmp/usr" -name gensvd.pc -path '*/pkgconfig/*' | head -1)
libdir=$(dirname "$pc" 2>/dev/null)/..
check "installed gensvd.h" test -f "$inc"
check "installed gensvd.pc" test -n "$pc"
check "installed libgensvd.so, libgensvd.so.0, its real name, libgensvd.a" bash -c \
    'test -L "$1/libgensvd.so" && test -L "$1/libgensvd.so.0" && test -f "$1/libgensvd.a" &&
     ls "$1"/libgensvd.so.0.*.* >/dev/null' _ "$libdir"
if command -v cc >/dev/null && command -v pkg-config >/dev/null && [ -n "$pc" ]; then
    src=$(cd "$(dirname "$0")/../.." && pwd)
    # a sanitized build installs an instrumented library: its users take the same runtime
    san=$(sed -n 's/^GENSVD_SANITIZE:STRING=//p' "$build/CMakeCache.txt" 2>/dev/null)
    check "an example builds against the install (pkg-config)" bash -c \
        'cc -std=c11 -Wall -Werror $4 -o "$3/pca_store" "$2/examples/pca_store.c" \
            $(PKG_CONFIG_PATH=$(dirname "$1") pkg-config --cflags --libs gensvd)' _ "$pc" "$src" \
        "$tmp" "${san:+-fsanitize=${san//;/,}}"
    check "and runs on the installed library" bash -c \
        '"$4" simulate -q -n 30 -m 300 "$3/sim.zarr" &&
         LD_LIBRARY_PATH=$1 "$3/pca_store" "$3/sim.zarr" "$3/pcs.zarr" 2 >/dev/null &&
         LD_LIBRARY_PATH=$1 ldd "$3/pca_store" | grep -q "$1/libgensvd.so.0"' _ "$(cd "$libdir" && pwd)" "$src" "$tmp" "$bin"
fi
# the long options of a man page's OPTIONS entries (.TP tags), roff escapes undone
man_opts() {
    sed -n '/^\.SH OPTIONS$/,/^\.SH /p' "$1" | sed -n '/^\.TP/{n;p}' | sed -e 's/\\f[BIR]//g' \
        -e 's/\\-/-/g' | grep -o -- '--[a-z][a-z0-9-]*' | sort -u
}
help_opts() { sed -n 's/^  \(-[a-zA-Z0-9], \|    \)\(--[a-z][a-z0-9-]*\).*/\2/p' | sort -u; }
check "gensvd.1 has the options of gensvd --help" diff <(man_opts "$man1/gensvd.1") \
    <("$bin" --help | help_opts)
cmds=$("$bin" --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  *[^-].*$/\1/p')
check "commands listed" test -n "$cmds"
for c in $cmds; do
    check "gensvd-$c.1 has the options of gensvd help $c" diff <(man_opts "$man1/gensvd-$c.1") \
        <("$bin" help "$c" | help_opts)
done
if command -v man >/dev/null; then
    check "man -w finds gensvd-plot" test "$(MANPATH=$tmp/usr/share/man man -w gensvd-plot)" = \
        "$man1/gensvd-plot.1"
    check "man renders gensvd-plot" bash -c "MANWIDTH=100 man -l '$man1/gensvd-plot.1' 2>/dev/null | grep -q -- --color-by"
    check "man renders gensvd-pca's sections and options without warnings" bash -c \
        "MANWIDTH=100 MAN_KEEP_STDERR=1 man --warnings -l '$man1/gensvd-pca.1' 2>&1 >/dev/null | grep -c . | grep -qx 0 &&
         MANWIDTH=100 man -l '$man1/gensvd-pca.1' 2>/dev/null | grep -q '^EXAMPLES' &&
         MANWIDTH=100 man -l '$man1/gensvd-pca.1' 2>/dev/null | grep -q '^       --gram-kernel NAME'"
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
    want=$("$bin" help "$c" | sed -n 's/^  \(-[a-zA-Z0-9], \|    \)\(--[a-z][a-z0-9-]*\).*/\2/p' |
        sort -u | tr '\n' ' ')
    check "completion: options of $c" test "$(complete_words "$c" --) " = "$want"
done
# option values: every option whose parser names its accepted words in the error for a bad
# value ("invalid --metric 'x' (euclidean, ...)") completes exactly those words
work=$tmp/work
mkdir -p "$work/adir" && touch "$work/afile.tsv"
for c in $cmds; do
    for o in $("$bin" help "$c" |
        sed -n 's/^  \(-[a-zA-Z0-9], \|    \)\(--[a-z][a-z0-9-]*\) [^ ].*/\2/p' | sort -u); do
        msg=$(cd "$work" && "$bin" "$c" "$o" __bogus__ "$work/none.zarr" 2>&1 >/dev/null | head -1)
        want=$(sed -n "s/^gensvd $c: error: invalid $o '__bogus__' (\([a-z0-9]*\(, [a-z0-9]*\)*\))\$/\1/p" \
            <<<"$msg" | sed 's/, / /g')
        [ -n "$want" ] || continue
        check "completion: values of $c $o" test "$(complete_words "$c" "$o" '')" = "$want"
    done
done
check "completion: pdist -m k" test "$(complete_words pdist -m k)" = "king"
check "completion: pdist --metric=ib" test "$(complete_words pdist --metric = ib)" = "ibs ibs0"
check "completion: pdist --metric=" test "$(complete_words pdist --metric =)" = \
    "$(complete_words pdist --metric '')"
check "completion: pdist --layout after -o" test "$(complete_words pdist -o x.zarr --layout c)" = \
    "condensed"
check "completion: pca --zarr-format" test "$(complete_words pca --zarr-format '')" = "2 3"
check "completion: plot --order" test "$(complete_words plot pdist --order '')" = \
    "input label pc1 cluster"
check "completion: pca -o completes files" bash -c "cd '$work' && test \"\$(\"\$@\")\" = afile.tsv" \
    _ bash -c '. "$1"; COMP_WORDS=(gensvd pca -o af); COMP_CWORD=3; _gensvd; echo "${COMPREPLY[*]}"' _ "$comp"
check "completion: --samples completes files" bash -c "cd '$work' && test \"\$(\"\$@\")\" = 'adir afile.tsv'" \
    _ bash -c '. "$1"; COMP_WORDS=(gensvd pdist --samples a); COMP_CWORD=3; _gensvd; printf "%s\n" "${COMPREPLY[@]}" | sort | xargs' _ "$comp"
check "completion: --cache-dir completes directories" bash -c "cd '$work' && test \"\$(\"\$@\")\" = adir" \
    _ bash -c '. "$1"; COMP_WORDS=(gensvd pca --cache-dir a); COMP_CWORD=3; _gensvd; echo "${COMPREPLY[*]}"' _ "$comp"
check "completion: nothing after -k" bash -c "cd '$work' && test -z \"\$(\"\$@\")\"" \
    _ bash -c '. "$1"; COMP_WORDS=(gensvd pca -k a); COMP_CWORD=3; _gensvd; echo "${COMPREPLY[*]}"' _ "$comp"
check "completion: nothing after --array (inside the store)" bash -c "cd '$work' && test -z \"\$(\"\$@\")\"" \
    _ bash -c '. "$1"; COMP_WORDS=(gensvd pca --array a); COMP_CWORD=3; _gensvd; echo "${COMPREPLY[*]}"' _ "$comp"
check "completion: help CMD" test "$(complete_words help pl)" = "plot"

# zsh: the file parses, compinit binds it to gensvd, and (through zpty) it completes values
zcomp=$tmp/usr/share/zsh/site-functions/_gensvd
check "zsh completion installed" test -s "$zcomp"
if command -v zsh >/dev/null; then
    check "zsh -n _gensvd" zsh -n "$zcomp"
    check "zsh compinit binds _gensvd" zsh -f -c "fpath=('${zcomp%/*}' \$fpath); autoload -U compinit;
        compinit -u -D; [[ \$_comps[gensvd] == _gensvd ]] && autoload +X _gensvd"
    if zsh -f -c 'zmodload zsh/zpty' 2>/dev/null; then
        zcheck() { # NAME LINE REGEX: zsh lists a match of REGEX after LINE<TAB>
            local out
            out=$(ZDIR=${zcomp%/*} LINE=$2 EXPECT=$3 timeout 60 zsh -f "$(dirname "$0")/zsh_complete.zsh")
            check "$1" grep -Eq -- "$3" <<<"$out"
        }
        zcheck "zsh: pdist --metric values" "gensvd pdist --metric co" "correlation *cosine"
        zcheck "zsh: option descriptions" "gensvd pca --max-" "--max-iter *-- at most this many passes"
        zcheck "zsh: commands with descriptions" "gensvd p" "pdist *-- pairwise distances"
    fi
fi
report
