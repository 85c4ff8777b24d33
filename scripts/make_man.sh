#!/usr/bin/env bash
# Write the man pages at build time from the manual (docs/man/NAME.md, converted by
# scripts/md2roff.awk): OUTDIR/gensvd.1 from docs/man/gensvd.md and OUTDIR/gensvd-CMD.1 from
# docs/man/gensvd-CMD.md for every command that `gensvd --help` lists.  A page's line
# "As in [gensvd(1)](gensvd.md#ANCHOR)." becomes the entries of that section of gensvd.md's
# COMMON OPTIONS that the command takes (its `gensvd help CMD`), so every man page lists every
# option of its command.  Fails, writing nothing, when scripts/lint_manual.sh finds a fault in a
# page (a source path, a benchmark figure, the history of the work, a Markdown table, a missing
# section), when a command has no page, or when the OPTIONS of a page and its command's --help
# do not list the same options
# (tests/cli/test_manual.sh checks the rest: defaults, accepted values, examples).
# Usage: scripts/make_man.sh GENSVD OUTDIR VERSION [DOCS_MAN_DIR]
set -euo pipefail
[ $# = 3 ] || [ $# = 4 ] || { echo "usage: make_man.sh GENSVD OUTDIR VERSION [DOCS_MAN_DIR]" >&2; exit 2; }
bin=$1 out=$2 version=$3
here=$(cd "$(dirname "$0")" && pwd)
docs=${4:-$here/../docs/man}
fail() { echo "make_man.sh: $*" >&2; exit 1; }
# "  NAME   summary" rows of the command table in `gensvd --help`
cmds=$("$bin" --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  *[^-].*$/\1/p')
[ -n "$cmds" ] || fail "no commands in '$bin --help'"
pages=("$docs/gensvd.md")
for c in $cmds; do
    [ -f "$docs/gensvd-$c.md" ] || fail "no manual page $docs/gensvd-$c.md for 'gensvd $c'"
    pages+=("$docs/gensvd-$c.md")
done
"$here/lint_manual.sh" --man "${pages[@]}" >&2 || fail "the manual has faults (above)"
# the long options of a --help text: "  -k, --name ..." or "      --name ..." lines
long_opts() { sed -n 's/^  \(-[a-zA-Z0-9], \|    \)\(--[a-z][a-z0-9-]*\).*/\2/p' | sort -u; }
# the long options among a man page's OPTIONS entries (.TP tags)
man_opts() {
    sed -n '/^\.SH OPTIONS$/,/^\.SH /p' "$1" | sed -n '/^\.TP/{n;p}' | sed 's/\\%//g' |
        grep -o '\\fB\\-\\-[a-z][a-z0-9]*\(\\-[a-z0-9][a-z0-9]*\)*' | sed -e 's/^\\fB//' -e 's/\\-/-/g' | sort -u
}
mkdir -p "$out"
tmp=$(mktemp -d "$out/.make_man.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
page() { # NAME COMMON-PAGE HELP-COMMAND...
    local name=$1 common=$2 upper opts missing
    shift 2
    upper=$(tr '[:lower:]' '[:upper:]' <<<"$name")
    opts=$("$@" | long_opts | tr '\n' ' ')
    {
        printf '.TH %s 1 "" "gensvd %s" "User Commands"\n.nh\n' "$upper" "$version"
        awk -v common="$common" -v opts="$opts" -f "$here/md2roff.awk" "$docs/$name.md"
    } >"$tmp/$name.1"
    missing=$(comm -23 <(tr ' ' '\n' <<<"$opts" | grep . | sort -u) <(man_opts "$tmp/$name.1"))
    [ -z "$missing" ] || fail "$docs/$name.md: no OPTIONS entry for $(echo $missing)" \
        "(describe it on the page or in a COMMON OPTIONS section of gensvd.md it includes)"
    extra=$(comm -13 <(tr ' ' '\n' <<<"$opts" | grep . | sort -u) <(man_opts "$tmp/$name.1"))
    [ -z "$extra" ] || fail "$docs/$name.md: OPTIONS describes $(echo $extra), which" \
        "'$*' does not list"
}
page gensvd "" "$bin" --help
for c in $cmds; do
    page "gensvd-$c" "$docs/gensvd.md" "$bin" help "$c"
done
for f in "$tmp"/*.1; do
    mv "$f" "$out/"
done
