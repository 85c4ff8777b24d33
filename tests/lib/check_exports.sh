#!/usr/bin/env bash
# libgensvd.so exports the public API and nothing else: every defined dynamic symbol (nm -D
# --defined-only; the version node aside) starts with gensvd_, and the set is exactly the
# functions include/gensvd.h declares with GENSVD_API; the SONAME is libgensvd.so.MAJOR.
# Usage: check_exports.sh LIBGENSVD.so GENSVD_H
set -u
. "$(dirname "$0")/../testlib.sh"
lib=$1 hdr=$2
command -v nm >/dev/null || { echo "nm not found"; exit 77; }
exported=$(nm -D --defined-only "$lib" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u)
declared=$(tr '\n' ' ' <"$hdr" | grep -o 'GENSVD_API [^;]*' |
    grep -o 'gensvd_[a-z0-9_]*[[:space:]]*(' | sed 's/[[:space:]]*($//' | sort -u)
other=$(grep -v '^gensvd_' <<<"$exported")
check "only gensvd_ symbols are exported${other:+ (also: $(echo $other | head -c 300))}" test -z "$other"
check "the exported functions are those gensvd.h declares" test "$exported" = "$declared"
[ "$exported" = "$declared" ] && true || diff <(echo "$declared") <(echo "$exported") | head -20
major=$(sed -n 's/^#define GENSVD_VERSION_MAJOR \([0-9]*\)/\1/p' "$hdr")
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
check "SONAME $soname is libgensvd.so.$major" test "$soname" = "libgensvd.so.$major"
report
