#!/usr/bin/env bash
# Every long option a command's --help lists appears in the manual (README.md): in the
# command's own section ("### gensvd CMD") or in the shared ones ("### Options every command
# shares", "## Remote stores", "## Running on a cluster").  The help is generated from the
# option tables (cli/opts.h), so this ties the tables to the manual.
# Usage: test_manual.sh GENSVD README.md
set -u
G=$1 README=$2
pass=0 fail=0
opts_of_help() { sed -n 's/^ *\(-[a-zA-Z0-9], \)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p' | sort -u; }
section() { awk -v h="$1" '$0 == h { on = 1; next } on && /^##/ { on = 0 } on' "$README"; }
shared=$( { section "### Options every command shares"; section "## Remote stores"
    section "## Running on a cluster"; } | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
cmds=$("$G" --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  *[^-].*$/\1/p')
[ -n "$cmds" ] || { echo "FAIL no commands in gensvd --help"; exit 1; }
for c in $cmds; do
    own=$(section "### gensvd $c" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
    if [ -z "$own" ] && ! grep -qx "### gensvd $c" "$README"; then
        echo "FAIL README has no section '### gensvd $c'"
        fail=$((fail + 1))
        continue
    fi
    missing=$(comm -23 <("$G" help "$c" | opts_of_help) <(printf '%s\n%s\n' "$own" "$shared" | sort -u))
    if [ -n "$missing" ]; then
        echo "FAIL gensvd $c: not in the manual: $(echo $missing)"
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
