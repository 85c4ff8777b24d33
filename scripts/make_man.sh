#!/usr/bin/env bash
# Write man pages at build time from gensvd's own --help texts (so the option lists cannot
# drift) and the manual's prose (docs/man/NAME.md, converted by scripts/md2roff.awk):
# OUTDIR/gensvd.1 from `gensvd --help` + docs/man/gensvd.md, and OUTDIR/gensvd-CMD.1 from
# `gensvd help CMD` + docs/man/gensvd-CMD.md for every command that `gensvd --help` lists.  The
# help text goes in verbatim (.nf), roff-escaped, as SYNOPSIS AND OPTIONS; the prose follows as
# DESCRIPTION (its "## " headings become sections of their own).
# Usage: scripts/make_man.sh GENSVD OUTDIR VERSION [DOCS_MAN_DIR]
set -euo pipefail
[ $# = 3 ] || [ $# = 4 ] || { echo "usage: make_man.sh GENSVD OUTDIR VERSION [DOCS_MAN_DIR]" >&2; exit 2; }
bin=$1 out=$2 version=$3
here=$(cd "$(dirname "$0")" && pwd)
docs=${4:-$here/../docs/man}
mkdir -p "$out"
escape() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
page() { # NAME SUMMARY HELPTEXT-COMMAND...
    local name=$1 summary=$2 upper
    shift 2
    upper=$(tr '[:lower:]' '[:upper:]' <<<"$name")
    {
        printf '.TH %s 1 "" "gensvd %s" "User Commands"\n' "$upper" "$version"
        printf '.SH NAME\n%s \\- %s\n' "$name" "$(escape <<<"$summary")"
        printf '.SH SYNOPSIS AND OPTIONS\n.nf\n'
        "$@" | escape
        printf '.fi\n'
        if [ -f "$docs/$name.md" ]; then
            printf '.SH DESCRIPTION\n'
            awk -f "$here/md2roff.awk" "$docs/$name.md"
        fi
        printf '.SH SEE ALSO\n'
        if [ "$name" = gensvd ]; then
            printf 'Each command has its page: '
            cmds | while read -r c _; do printf '\\fBgensvd-%s\\fR(1) ' "$c"; done
            printf '\n'
        else
            printf '\\fBgensvd\\fR(1)\n'
        fi
    } >"$out/$name.1.tmp"
    mv "$out/$name.1.tmp" "$out/$name.1"
}
# "  NAME   summary" rows of the command table in `gensvd --help`
cmds() { "$bin" --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  *\([^-].*\)$/\1 \2/p'; }
page gensvd "PCA and pairwise distances on genotype data stored as Zarr" "$bin" --help
cmds | while read -r c summary; do
    page "gensvd-$c" "$summary" "$bin" help "$c"
done
