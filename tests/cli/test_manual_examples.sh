#!/usr/bin/env bash
# The EXAMPLES of every manual page (docs/man/*.md) run and exit 0: each page's command lines,
# in order, in a fresh directory holding what they name (cohort.vcz and its zip archive,
# ref.vcz and new.vcz with the same variants, pops.tsv, cohort.ind (EIGENSTRAT's labels),
# unrelated.txt, high_ld_regions.txt (a range file), phased.vcz (1000
# Genomes' phased chr22 subset); for plot and dump also
# pcs.zarr and dist.zarr), with this build's gensvd first on PATH.  Lines that need what a
# test cannot reach (a URL: https://, gs://, s3://) or start a launcher (mpirun, srun) are
# skipped and counted, and so are lines writing PNG when this build has no PNG output
# (plot_png checks that such a build refuses them).
# Usage: test_manual_examples.sh GENSVD DOCS_MAN_DIR
set -u
. "$(dirname "$0")/../testlib.sh"
G=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DOCS=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/fixtures"
ln -s "$G" "$tmp/bin/gensvd"
export PATH=$tmp/bin:$PATH
F=$tmp/fixtures
(
    set -e
    cd "$F"
    gensvd simulate cohort.vcz -m 6000 -n 240 -K 3 --missing 0.01 -c 1000,240 -q
    gensvd simulate ref.vcz -m 6000 -n 200 -K 3 --seed 1 -q
    gensvd simulate new.vcz -m 6000 -n 60 -K 3 --seed 2 -q
    paste <(echo sample_id; gensvd dump cohort.vcz/sample_id) \
        <(echo population; gensvd dump cohort.vcz/sample_population) >pops.tsv
    tail -n +2 pops.tsv | awk '{print $1, "U", $2}' >cohort.ind
    gensvd dump cohort.vcz/sample_id --slice 0:150 >unrelated.txt
    printf '1\t100000\t150000\tregion1\n' >high_ld_regions.txt # a PLINK range file
    (cd cohort.vcz && python3 -m zipfile -c ../cohort.vcz.zip .z* *)
    cp -r "$ROOT/testdata/realdata/khuman_chr22.vcz" phased.vcz # phased calls (pdist)
) || { echo "FAIL fixtures"; exit 1; }
# the command lines of a page's EXAMPLES code blocks, continuation lines joined
examples() {
    awk '/^## / { ex = ($0 == "## EXAMPLES") } /^```/ { code = !code; next }
         ex && code && !/^[ \t]*(#|$)/ {
             line = line $0
             if (sub(/\\$/, "", line)) next
             print line; line = "" }' "$1"
}
skipped=0
gensvd --version | grep -q '^plot: svg, png' && have_png=1 || have_png=0
for page in "$DOCS"/gensvd*.md; do
    name=$(basename "$page" .md)
    dir=$tmp/run/$name
    mkdir -p "$dir"
    cp -r "$F"/. "$dir"/
    case $name in
    gensvd-plot | gensvd-dump)
        (cd "$dir" && gensvd pca cohort.vcz -k 6 -o pcs.zarr -q && gensvd pdist cohort.vcz -o dist.zarr -q) ||
            { echo "FAIL $name: setup"; fail=$((fail + 1)); continue; }
        ;;
    esac
    n=0
    while IFS= read -r cmd; do
        case $cmd in
        *://* | mpirun\ * | srun\ *) skipped=$((skipped + 1)); continue ;;
        *.png\ * | *.png) [ $have_png = 1 ] || { skipped=$((skipped + 1)); continue; } ;;
        esac
        n=$((n + 1))
        if (cd "$dir" && bash -o pipefail -c "$cmd") >"$tmp/out" 2>"$tmp/err" </dev/null; then
            pass=$((pass + 1))
        else
            echo "FAIL $name: $cmd (exit $?): $(tail -2 "$tmp/err" | tr '\n' ' ')"
            fail=$((fail + 1))
        fi
    done < <(examples "$page")
    [ $n -gt 0 ] || { echo "FAIL $name: no example ran"; fail=$((fail + 1)); }
done
echo "($skipped example lines skipped: URLs, launchers and PNG in a build without it)"
report
