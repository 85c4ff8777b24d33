#!/usr/bin/env bash
# The user's manual against the program.  For every command that `gensvd --help` lists: a page
# docs/man/gensvd-CMD.md whose NAME line is the command's summary in `gensvd --help`, and a man
# page (built by scripts/make_man.sh) with the sections NAME, SYNOPSIS, DESCRIPTION, OPTIONS,
# OUTPUT, EXIT STATUS, ENVIRONMENT, EXAMPLES and SEE ALSO in order, whose OPTIONS have one entry
# for each option of `gensvd help CMD` and none other; each entry names every value a choice
# option accepts (`gensvd help --spec CMD`) and the default the help shows ("[10]").  The
# manual's sources pass scripts/lint_manual.sh (--man for docs/man, --doc for README.md and the
# other user documents in docs/), README.md is at most 10 kB and starts with the quick start
# (scripts/demo.sh, scripts/test.sh), and the --help of gensvd and of every command passes it
# too (--doc, its lines joined).  The help and the completion come from the option tables
# (cli/opts.h), so this ties the tables to the manual.
# Usage: test_manual.sh GENSVD DOCS_DIR MAN_DIR
set -u
. "$(dirname "$0")/../testlib.sh"
G=$1 DOCS=$2 MAN=$3
root=$(cd "$DOCS/.." && pwd)
lint=$root/scripts/lint_manual.sh
cmds=$("$G" --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  *[^-].*$/\1/p')
[ -n "$cmds" ] || { echo "FAIL no commands in gensvd --help"; exit 1; }
check "the man page sources pass lint_manual.sh --man" "$lint" --man "$DOCS"/man/*.md
userdocs=("$root/README.md")
for f in "$DOCS"/*.md; do userdocs+=("$f"); done
check "README.md and docs/*.md pass lint_manual.sh --doc" "$lint" --doc "${userdocs[@]}"
size=$(wc -c <"$root/README.md")
check "README.md is at most 10 kB ($size bytes)" test "$size" -le 10240
check "README.md's first commands are the quick start" test \
    "$(sed -n '/^```/,/^```/p' "$root/README.md" | sed -n '2,3p' | cut -d' ' -f1 | tr '\n' ' ')" = \
    "scripts/demo.sh scripts/test.sh "

sections="NAME SYNOPSIS DESCRIPTION OPTIONS OUTPUT EXIT_STATUS ENVIRONMENT EXAMPLES SEE_ALSO"
has_sections() { # MANPAGE: the required .SH sections appear in order
    local got want
    got=$(sed -n 's/^\.SH //p' "$1" | tr ' ' _ | grep -xF -f <(tr ' ' '\n' <<<"$sections") | tr '\n' ' ')
    want="$sections "
    [ "$got" = "$want" ] || { echo "  $1: sections '$got', want '$want'"; return 1; }
}
# "OPTION<TAB>entry text" for each long option of each entry of a man page's OPTIONS section,
# roff escapes undone
entries() {
    sed -n '/^\.SH OPTIONS$/,/^\.SH /p' "$1" | sed -e 's/\\f[BIR]//g' -e 's/\\-/-/g' -e 's/\\e/\\/g' |
        awk '/^\.TP 7$/ { flush(); getline term; body = ""; next }
             /^\.S[SH] / { flush(); term = ""; next }
             term != "" { body = body " " $0 }
             function flush(  n, w, i) {
                 if (term == "") return
                 n = split(term, w, /[ ,]+/)
                 for (i = 1; i <= n; i++) if (w[i] ~ /^--[a-z]/) print w[i] "\t" term " " body
             }
             END { flush() }'
}
for page in gensvd $(printf 'gensvd-%s ' $cmds); do
    check "man page $page.1 has the sections" has_sections "$MAN/$page.1"
done
for c in $cmds; do
    md=$DOCS/man/gensvd-$c.md m=$MAN/gensvd-$c.1
    summary=$("$G" --help | sed -n "s/^  $c  *\([^-].*\)\$/\1/p")
    check "gensvd-$c.md: NAME is the summary of gensvd --help" \
        grep -qxF "gensvd-$c - $summary" "$md"
    want=$("$G" help "$c" | sed -n 's/^  \(-[a-zA-Z0-9], \|    \)\(--[a-z][a-z0-9-]*\).*/\2/p' | sort -u)
    got=$(entries "$m" | cut -f1 | sort -u)
    check "gensvd-$c.1: one OPTIONS entry per option of gensvd help $c" test "$got" = "$want"
    [ "$got" = "$want" ] || diff <(echo "$want") <(echo "$got") | sed 's/^/  /'
    # every accepted value of a choice option, and the default of the help's "[...]", in its entry
    while IFS=$'\t' read -r opt _ _ _ choices _ help; do
        text=$(entries "$m" | awk -F'\t' -v o="$opt" '$1 == o { print $2 }')
        [ -n "$text" ] || continue
        if [ "$choices" != - ]; then
            for v in $choices; do
                check "gensvd-$c.1 $opt names the value $v" grep -qw -- "$v" <<<"$text"
            done
        fi
        def=$(sed -n 's/.*\[\([^] ]*\)\]$/\1/p' <<<"$help")
        if [ -n "$def" ] && [[ $def != *:* ]] && [ "$def" != required ]; then
            check "gensvd-$c.1 $opt gives its default $def" \
                bash -c '[[ $1 == *Default* ]] && grep -qwF -- "$2" <<<"$1"' _ "$text" "$def"
        fi
    done < <("$G" help --spec "$c" | grep '^--')
done
# the help is a user document too: no benchmark figures, source paths, ... (lint --doc), its
# lines joined so that a figure wrapped across two ("about 2x" / "slower") is still one phrase
help_dir=$(mktemp -d)
trap 'rm -rf "$help_dir"' EXIT
for c in "" $cmds; do
    f=$help_dir/gensvd${c:+-$c}-help.txt
    if [ -n "$c" ]; then "$G" help "$c"; else "$G" --help; fi | tr -s ' \n' '  ' >"$f"
    check "gensvd ${c:+$c }--help passes lint_manual.sh --doc (lines joined)" "$lint" --doc "$f"
done
report
