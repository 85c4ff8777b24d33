#!/usr/bin/env bash
# PLINK 1.9 (Debian plink1.9) as the oracle for the genotype distances with missing calls:
# on the HapMap3 autosomes (0.15% missing calls), `--distance square 1-ibs flat-missing` must
# equal gensvd pdist --metric ibs, and `--distance square flat-missing` (allele counts) must
# equal gensvd pdist --metric cityblock --missing scale, both to PLINK's printed precision
# (6 significant digits), on the first 250 samples.  The .bed is written from the bundled VCF-Zarr store by
# tests/pca/pca_oracle.py write-bed, so both tools read the same genotypes.
# Usage: test_pdist_plink.sh GENSVD PY
set -u
gensvd=$1
py=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
store=$root/testdata/realdata/hapmap3.vcz
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() { # check NAME PLINK_FILE GENSVD_TSV
    if "$py" - "$2" "$3" <<'PY'
import sys
import numpy as np
p = np.loadtxt(sys.argv[1])
rows = open(sys.argv[2]).read().strip().split("\n")[1:]
o = np.array([[float(x) for x in r.split("\t")[1:]] for r in rows])
# PLINK prints 6 significant digits
ok = p.shape == o.shape and np.all(np.abs(p - o) <= 5.5e-6 * np.maximum(np.abs(o), 1e-300) + 1e-12)
if not ok:
    print("max abs diff", np.abs(p - o).max())
sys.exit(0 if ok else 1)
PY
    then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $1"
    fi
}
if ! command -v plink1.9 >/dev/null; then
    echo "plink1.9 not installed (scripts/setup.sh --tests installs it)"
    echo "0 passed, 1 failed"
    exit 1
fi
"$py" "$root/tests/pca/pca_oracle.py" write-bed "$store" "$tmp/hm" >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
m=$(awk '$1 >= 1 && $1 <= 22' "$tmp/hm.bim" | wc -l)
# 250 samples keep the test quick; both tools get the same ones, in .fam order
head -n 250 "$tmp/hm.fam" | awk '{print $1, $2}' >"$tmp/keep"
awk '{print $2}' "$tmp/keep" >"$tmp/ids"
plink1.9 --bfile "$tmp/hm" --keep "$tmp/keep" --autosome --distance square 1-ibs flat-missing \
    --out "$tmp/ibs" >/dev/null 2>&1
plink1.9 --bfile "$tmp/hm" --keep "$tmp/keep" --autosome --distance square flat-missing \
    --out "$tmp/cnt" >/dev/null 2>&1
# the autosomes are the first $m variants of the store (sorted by chromosome)
"$gensvd" pdist --device cpu "$store" -m ibs --samples "$tmp/ids" --variants 0:"$m" -q >"$tmp/ibs.tsv"
"$gensvd" pdist --device cpu "$store" -m cityblock --missing scale --samples "$tmp/ids" --variants 0:"$m" -q \
    -t 1 >"$tmp/cnt.tsv"
check "1-ibs flat-missing" "$tmp/ibs.mdist" "$tmp/ibs.tsv"
check "allele-count flat-missing" "$tmp/cnt.dist" "$tmp/cnt.tsv"
# the same distances for any thread count
if cmp -s <("$gensvd" pdist --device cpu "$store" -m cityblock --missing scale --samples "$tmp/ids" \
    --variants 0:"$m" -q -t 2) "$tmp/cnt.tsv"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL threads 1 and 2 differ"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
