#!/usr/bin/env bash
# pdist on TSV/CSV matrices (a file or standard input) against scipy: the pca | pdist pipeline,
# CSV with a header and no ID column, missing values (pairwise), and hostile text (ragged rows,
# a non-number, empty input, NUL bytes) that must fail with exit 1 and a message naming the line.
# Usage: test_pdist_tsv.sh GENSVD PY
set -u
gensvd=$1
py=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
compare() { # compare INPUT_TEXT GENSVD_TSV METRIC
    "$py" - "$1" "$2" "$3" <<'PY'
import sys, warnings
import numpy as np
from scipy.spatial.distance import pdist, squareform
warnings.filterwarnings("ignore")
text = [l for l in open(sys.argv[1]).read().split("\n") if l]
sep = "\t" if "\t" in text[0] else ","
rows = [l.split(sep) for l in text]
def num(x):
    try:
        float(x); return True
    except ValueError:
        return x in ("", "NA")
header = any(not num(f) for f in rows[0][1:])
data = rows[1:] if header else rows
ids = not num(data[0][0])
X = np.array([[np.nan if f in ("", "NA", "nan") else float(f) for f in (r[1:] if ids else r)] for r in data])
metric = sys.argv[3]
n = X.shape[0]
ref = np.zeros((n, n))
for i in range(n):
    for j in range(i + 1, n):
        m = ~np.isnan(X[i]) & ~np.isnan(X[j])
        ref[i, j] = ref[j, i] = pdist(np.vstack([X[i, m], X[j, m]]), metric)[0] if m.any() else np.nan
got_rows = open(sys.argv[2]).read().strip().split("\n")[1:]
got = np.array([[float(x) for x in r.split("\t")[1:]] for r in got_rows])
ok = got.shape == ref.shape and np.allclose(got, ref, rtol=1e-12, atol=1e-12, equal_nan=True)
if not ok:
    print("max diff", np.nanmax(np.abs(got - ref)))
sys.exit(0 if ok else 1)
PY
}
# 1. gensvd pca --format tsv | gensvd pdist (standard input), several metrics
"$gensvd" pca --device cpu "$root/testdata/realdata/khuman_chr22.vcz" -k 5 -q --format tsv >"$tmp/pcs.tsv"
for m in euclidean cityblock cosine correlation chebyshev; do
    if "$gensvd" pca --device cpu "$root/testdata/realdata/khuman_chr22.vcz" -k 5 -q --format tsv |
        "$gensvd" pdist --device cpu --metric "$m" -q >"$tmp/d.tsv" && compare "$tmp/pcs.tsv" "$tmp/d.tsv" "$m"; then
        ok
    else
        bad "pca | pdist --metric $m"
    fi
done
# 2. CSV with a header, no ID column, from a file; 3. missing values
printf 'x,y,z\n1,2,3\n4,0,6\n7,8,9.5\n' >"$tmp/a.csv"
"$gensvd" pdist --device cpu "$tmp/a.csv" -q >"$tmp/d.tsv" && compare "$tmp/a.csv" "$tmp/d.tsv" euclidean && ok || bad "csv file"
grep -q $'^sample_id\trow_0\trow_1\trow_2$' "$tmp/d.tsv" && ok || bad "generated row IDs"
printf 's1\t1\t\t3\ns2\tnan\t2\t4\ns3\t5\tNA\t\n' >"$tmp/m.tsv"
"$gensvd" pdist --device cpu "$tmp/m.tsv" -m cityblock -q >"$tmp/d.tsv" && compare "$tmp/m.tsv" "$tmp/d.tsv" cityblock && ok || bad "missing values"
# 4. hostile text: exit 1, message with the line
check_bad() { # NAME TEXT PATTERN
    printf "$2" | "$gensvd" pdist --device cpu >/dev/null 2>"$tmp/err"
    local rc=$?
    if [ $rc = 1 ] && grep -q "$3" "$tmp/err"; then ok; else bad "$1: exit $rc, $(cat "$tmp/err")"; fi
}
check_bad ragged 'a\t1\t2\nb\t3\n' 'line 2 has 2 fields'
check_bad not_a_number 'a\t1\t2\nb\t3\tx7\n' "line 2, field 3: 'x7' is not a number"
check_bad empty '' 'no data'
check_bad header_only 'id\tPC1\n' 'no data rows'
check_bad nul 'a\t1\n\000b\t2\n' 'NUL byte'
printf '1\t2\n' | "$gensvd" pdist --device cpu --samples /dev/null >/dev/null 2>&1
[ $? = 2 ] && ok || bad "--samples with text input is a usage error"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
