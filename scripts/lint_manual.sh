#!/usr/bin/env bash
# Check the user's manual for what does not belong in it.  Every user document (README.md,
# NEWS.md, docs/*.md: --doc; the man page sources docs/man/*.md: --man) holds no source paths,
# benchmark figures, host or CPU model names, CPU instruction names beyond what a user chooses
# between (Intel AMX, AVX-512 VNNI), test names, or the history of how the work was organised;
# those go to bench/README.md, analysis/cpu/kernels/README.md and docs/dev/.  Man page sources also
# name no script, ctest or developer document, have no Markdown tables (man cannot render them:
# use a definition list, "- `TERM`:" and indented lines) and no code span broken across lines,
# leave a blank line after an "As in [gensvd(1)](gensvd.md#...)." line, and have the sections
# NAME, SYNOPSIS, DESCRIPTION, OPTIONS, OUTPUT, EXIT STATUS, ENVIRONMENT, EXAMPLES and SEE ALSO
# in this order (others may come between), with at least five command lines under EXAMPLES.
# Prints FILE:LINE: what is wrong: the line, for every finding; exit 1 when there is one.
# tests/cli/test_manual_lint.sh has a fixture for each rule.
# tests/cli/test_manual.sh runs --doc on the --help of every command too.
# Usage: lint_manual.sh --man|--doc FILE...
set -u
[ $# -ge 2 ] && { [ "$1" = --man ] || [ "$1" = --doc ]; } ||
    { echo "usage: lint_manual.sh --man|--doc FILE..." >&2; exit 2; }
mode=$1
shift
# reason<TAB>Perl regex (grep -P), for both kinds of document
rules=$(cat <<'EOF'
a source path	\b(analysis|cli|common|zarr|gpu|mpi|plot|tests|bench)/[A-Za-z0-9_./-]*\.(c|h|cu|sh|py|awk|cmake)\b
a benchmark figure	 s against |\b[0-9]+\.[0-9]+x\b|[0-9](\.[0-9]+)? ?x (faster|slower|less|more|the speed|the time)\b|[0-9]x of\b|\b(GFLOP|GMAC|GOP)|\b[0-9.]+ ?[KMG]i?B/s\b|\bon [0-9]+ cores\b|\btakes? (about |~)?[0-9][0-9.,]* ?(s|ms|min)\b|\b[0-9.]+ s (instead of|vs\.?|versus)\b|\bP[0-9]\b|\b(twice|thrice|half|[a-z]+ times) (as (fast|slow|long|quick)|the [A-Za-z0-9' -]{0,24}(time|cost|speed|runtime))\b|\btimes (faster|slower|quicker)\b
a host or CPU model name	\b(Sapphire|Emerald|Granite|Cooper) Rapids\b|\bZen ?[0-9]\b|\b(Ice|Cascade) Lake\b|\bSkylake\b|\bEPYC\b|\bXeon\b
a CPU instruction name	\b(vpdpbusd|CPUID|XCR0|VBMI2?|VPOPCNTQ|POPCNT|GFNI)\b|\bAVX-512 ?(F|BW|VL|DQ|CD)\b|AVX-512(F|BW|VL|DQ)\b|(?i:\bamx-(tile|bf16|int8)\b)|\barch_prctl\b
a test name	\btest_[a-z0-9_]+|\b(cli|net|workflow|plot|realdata|interop|reliability)_[a-z0-9_]+\b
the history of the work	(?i)\bsessions?\b(?![ -]token)|\bwaves?\b|\bissues? #?[0-9]|\bsprints?\b|\bmilestones?\b|\bcommit [0-9a-f]{7,}\b
EOF
)
man_rules=$(cat <<'EOF'
a developer document	\b(decisions|testing|gram-i8)\.md\b|\bdocs/dev\b|\bbench/README
a source path	\bscripts/[A-Za-z0-9_.-]+\b
a test name	\bctest\b
a Markdown table (use a definition list)	^\s*\|.*\|
EOF
)
[ "$mode" = --man ] && rules=$rules$'\n'$man_rules
required="NAME SYNOPSIS DESCRIPTION OPTIONS OUTPUT EXIT_STATUS ENVIRONMENT EXAMPLES SEE_ALSO"
bad=0
for f in "$@"; do
    if [ ! -r "$f" ]; then
        echo "$f: cannot read"
        bad=1
        continue
    fi
    while IFS=$'\t' read -r why re; do
        [ -n "$re" ] || continue
        hits=$(grep -nP -- "$re" "$f") || continue
        while IFS= read -r h; do
            echo "$f:${h%%:*}: $why: ${h#*:}"
        done <<<"$hits"
        bad=1
    done <<<"$rules"
    [ "$mode" = --man ] || continue
    # the required sections, in order, outside code blocks; code spans closed on their line;
    # then the EXAMPLES' command lines
    out=$(awk -v want="$required" -v file="$f" '
        function nm(s) { gsub(/_/, " ", s); return s }
        BEGIN { n = split(want, w, " "); i = 1 }
        /^```/ { code = !code; if (sec == "EXAMPLES" && code) blocks++; next }
        code { if (sec == "EXAMPLES" && $0 !~ /^[ \t]*(#|$)/ && prev !~ /\\$/) cmds++; prev = $0; next }
        gsub(/`/, "`") % 2 { print file ":" FNR ": a code span broken across lines (man cannot join it): " $0 }
        asin && !/^[ \t]*$/ { print file ":" FNR ": text right after an \"As in [gensvd(1)](...)\" line (leave a blank line)" }
        { asin = /^As in \[gensvd\(1\)\]\(gensvd\.md#[a-z0-9-]+\)\.$/ }
        /^## / {
            sec = substr($0, 4); gsub(/ /, "_", sec)
            for (j = i; j <= n; j++) if (w[j] == sec) break
            if (j <= n) { for (; i < j; i++) print file ": missing section " nm(w[i]) " (before " nm(sec) ")"; i = j + 1 }
            else for (j = 1; j < i; j++) if (w[j] == sec) print file ": section " nm(sec) " out of order or repeated"
        }
        END {
            for (; i <= n; i++) print file ": missing section " nm(w[i])
            if (cmds < 5) print file ": EXAMPLES: " cmds + 0 " command lines in code blocks, at least 5 wanted"
        }' "$f")
    if [ -n "$out" ]; then
        echo "$out"
        bad=1
    fi
done
exit $bad
