#!/usr/bin/env bash
# NEWS.md is keyed by release and agrees with the binary (CONTRIBUTING.md, "Releases"): its
# "## " headings are an optional "Unreleased" first, then "X.Y.Z - YYYY-MM-DD", versions and
# dates descending; the first release is the version `gensvd --version` prints; and the file
# passes scripts/lint_manual.sh --doc (no history of how the work was organised, no benchmark
# figures, no source paths).
# Usage: test_news.sh GENSVD NEWS.md
set -u
. "$(dirname "$0")/../testlib.sh"
G=$1 NEWS=$2
lint=$(cd "$(dirname "$NEWS")" && pwd)/scripts/lint_manual.sh
heads=$(sed -n 's/^## //p' "$NEWS")
releases=$(grep -v '^Unreleased$' <<<"$heads")
check "NEWS.md has a release" test -n "$releases"
check "Unreleased, if any, comes first" \
    bash -c '! grep -qx Unreleased <<<"$1" || [ "$(head -1 <<<"$1")" = Unreleased ]' _ "$heads"
check "release headings are 'X.Y.Z - YYYY-MM-DD'" \
    bash -c '! grep -vxE "[0-9]+\.[0-9]+\.[0-9]+ - [0-9]{4}-[0-9]{2}-[0-9]{2}" <<<"$1"' _ "$releases"
check "releases newest first" test "$(cut -d' ' -f1 <<<"$releases")" = \
    "$(cut -d' ' -f1 <<<"$releases" | sort -t. -k1,1nr -k2,2nr -k3,3nr)"
check "release dates newest first" test "$(cut -d' ' -f3 <<<"$releases")" = \
    "$(cut -d' ' -f3 <<<"$releases" | sort -r)"
top=$(head -1 <<<"$releases" | cut -d' ' -f1)
version=$("$G" --version | sed -n '1s/^gensvd //p')
check "gensvd --version ($version) is NEWS.md's latest release ($top)" test "$version" = "$top"
check "NEWS.md passes lint_manual.sh --doc" "$lint" --doc "$NEWS"
report
