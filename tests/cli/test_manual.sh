#!/usr/bin/env bash
# Every long option a command's --help lists appears in the manual (docs/): on the command's
# own page (docs/man/gensvd-CMD.md) or on the shared ones (docs/man/gensvd.md, docs/remote.md,
# docs/cluster.md); every command has its page; and the man pages built from them
# (build/cli/man, scripts/make_man.sh) carry both the --help text and the page's prose.  The help
# is generated from the option tables (cli/opts.h), so this ties the tables to the manual.
# Usage: test_manual.sh GENSVD DOCS_DIR [MAN_DIR]
set -u
G=$1 DOCS=$2 MAN=${3:-}
pass=0 fail=0
opts_of_help() { sed -n 's/^ *\(-[a-zA-Z0-9], \)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p' | sort -u; }
opts_in() { cat "$@" 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u; }
shared=$(opts_in "$DOCS/man/gensvd.md" "$DOCS/remote.md" "$DOCS/cluster.md")
[ -n "$shared" ] || { echo "FAIL no shared pages under $DOCS"; exit 1; }
cmds=$("$G" --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  *[^-].*$/\1/p')
[ -n "$cmds" ] || { echo "FAIL no commands in gensvd --help"; exit 1; }
for c in $cmds; do
    page=$DOCS/man/gensvd-$c.md
    if [ ! -f "$page" ]; then
        echo "FAIL no manual page $page"
        fail=$((fail + 1))
        continue
    fi
    missing=$(comm -23 <("$G" help "$c" | opts_of_help) <(printf '%s\n%s\n' "$(opts_in "$page")" "$shared" | sort -u))
    if [ -n "$missing" ]; then
        echo "FAIL gensvd $c: not in the manual: $(echo $missing)"
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
    if [ -n "$MAN" ]; then # the man page holds the help and, as DESCRIPTION, the page's prose
        last=$(grep -o -- '--[a-z][a-z0-9-]*' "$page" | tail -1)
        m=$MAN/gensvd-$c.1
        if [ -f "$m" ] && grep -q '^\.SH SYNOPSIS AND OPTIONS' "$m" &&
            sed -n '/^\.SH DESCRIPTION/,/^\.SH SEE ALSO/p' "$m" | grep -qF -- "$last"; then
            pass=$((pass + 1))
        else
            echo "FAIL man page $MAN/gensvd-$c.1 lacks the options or the prose of $page"
            fail=$((fail + 1))
        fi
    fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
