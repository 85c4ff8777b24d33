#!/usr/bin/env bash
# The library writes what the command line writes, whichever way the input comes and the output
# goes: for each analysis on testdata, the output of `gensvd CMD -o` against the library's run
# with a destination (streamed), the result written afterwards with gensvd_result_write, and
# the same from the store's arrays read into memory (a strided in-memory source) and from chunk
# callbacks; every pair must hold the same bytes, the recorded command aside.  The in-memory sources are named after the store (source option "name"), as the
# attributes record the input's name, and chunked along the variants as the store is (2000
# rows: projection sums over the scan's blocks, which follow the chunks).
# OpenBLAS runs the kernels the gensvd binary picks (the binary restarts itself with
# OPENBLAS_CORETYPE on CPUs OpenBLAS does not know; a program linking the library sets it).
# Usage: test_lib_stores.sh GENSVD LIB_RUN TESTDATA
set -u
. "$(dirname "$0")/../testlib.sh"
G=$1 L=$2 D=$3
H=$D/realdata/hapmap3.vcz
K=$D/realdata/khuman_chr22.vcz
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
core=$("$G" --version | sed -n 's/^blas: OpenBLAS, \([A-Za-z0-9]*\) kernels.*/\1/p')
[ -n "$core" ] && export OPENBLAS_CORETYPE=$core

# Two outputs hold the same bytes, the recorded command aside (v2 .zattrs and .zmetadata, v3
# zarr.json documents).
same_output() {
    local f
    diff -r -x .zattrs -x .zmetadata -x zarr.json "$1" "$2" >/dev/null || return 1
    for f in $(cd "$1" && find . -name .zattrs -o -name .zmetadata -o -name zarr.json); do
        diff <(grep -v '"command"' "$1/$f") <(grep -v '"command"' "$2/$f") >/dev/null || return 1
    done
    [ "$(cd "$1" && find . | sort)" = "$(cd "$2" && find . | sort)" ]
}

# case NAME "CLI ARGS" "LIBRARY ARGS" [INPUT] [memory|write|dest]: the CLI's output, the
# library's with a destination, written afterwards (write), from memory and callbacks
# (memory), all the same
case_() {
    local name=$1 cli=$2 lib="$3 command=gensvd" in=${4:-$H} mem=${5:-memory}
    local a=${lib%% *} rest=${lib#* }
    # shellcheck disable=SC2086
    "$G" $cli -o "$T/$name-cli" "$in" 2>"$T/$name.err" >/dev/null ||
        { echo "FAIL $name: gensvd $cli: $(cat "$T/$name.err")"; fail=$((fail + 1)); return; }
    # shellcheck disable=SC2086
    check "$name: library run with a destination" "$L" "$a" "$in" "$T/$name-dest" $rest
    check "$name: same bytes as the command line" same_output "$T/$name-cli" "$T/$name-dest"
    [ "$mem" = dest ] && return
    # shellcheck disable=SC2086
    check "$name: result written afterwards" "$L" --write "$T/$name-write" "$a" "$in" - $rest
    check "$name: same bytes written afterwards" same_output "$T/$name-cli" "$T/$name-write"
    [ "$mem" = memory ] || return
    # shellcheck disable=SC2086
    check "$name: in-memory source" "$L" --memory --write "$T/$name-mem" "$a" "$in" - $rest \
        "src.name=$in" src.chunk-variants=2000
    check "$name: in memory, same bytes" same_output "$T/$name-cli" "$T/$name-mem"
    # shellcheck disable=SC2086
    check "$name: chunk-callback source" "$L" --chunked --chunk-rows 2000 --write "$T/$name-cb" \
        "$a" "$in" - $rest "src.name=$in"
    check "$name: from callbacks, same bytes" same_output "$T/$name-cli" "$T/$name-cb"
}

case_ pca "pca -k 4 --loadings" "pca components=4 loadings=1"
case_ pca_rand "pca -k 3 -m randomized --scaler hwe" "pca components=3 method=randomized scaler=hwe"
case_ pca_bulk "pca -k 3 -m randomized --accuracy bulk" \
    "pca components=3 method=randomized accuracy=bulk" "$H" write
case_ pca_v3 "pca -k 3 --zarr-format 3 --shard 1000" \
    "pca components=3 dest.zarr-format=3 dest.shard=1000"
case_ pca_ld "pca -k 3 --ld-prune 0.2,50" "pca components=3 ld-prune=0.2,50"
cut -f2 "$D/realdata/hapmap3_957.populations.tsv" | sed -n '2,300p' >"$T/fit.txt"
case_ pca_fit "pca -k 3 --fit-samples $T/fit.txt --loadings" \
    "pca components=3 fit-samples=$T/fit.txt loadings=1"
# smartpca's outlier rounds (reopened by sample ID, in memory too) with the removed samples
# projected, and Tracy-Widom statistics; without the projection the removed rows are NaN
case_ pca_tw_outliers "pca -k 4 --tw --outlier-iter 2 --outlier-pcs 4 --outlier-sigma 3 \
--outlier-project" "pca components=4 tw=1 outlier-iter=2 outlier-pcs=4 outlier-sigma=3 \
outlier-project=1"
case_ pca_outliers_nan "pca -k 3 --outlier-iter 1 --outlier-pcs 3 --outlier-sigma 3" \
    "pca components=3 outlier-iter=1 outlier-pcs=3 outlier-sigma=3" "$H" dest
case_ pdist "pdist -m ibs" "pdist metric=ibs"
# VCF2Dis's p-distance and per-haplotype distances on phased calls (call_genotype_phased in
# memory too)
case_ pdist_pdistance "pdist -m p-distance" "pdist metric=p-distance" "$K"
case_ pdist_haplotypes "pdist --haplotypes -m hamming --counts" \
    "pdist haplotypes=1 metric=hamming counts=1" "$K"
case_ pdist_c "pdist -m euclidean --layout condensed --dtype f4" \
    "pdist metric=euclidean layout=condensed dtype=f4"
case_ pdist_mem "pdist -m cityblock --memory 16M --counts" \
    "pdist metric=cityblock memory=16M counts=1"
case_ pdist_var "pdist --axis variants --variants 0:300 -m hamming" \
    "pdist axis=variants src.variants=0:300 metric=hamming"
case_ king "pdist -m king" "pdist metric=king"
# the pairs held in memory without a destination, written afterwards: the same group
case_ king_pairs "pdist -m king --min-kinship 0.05" "pdist metric=king min-kinship=0.05"
case_ ldprune "ldprune --r2 0.2 --window 50" "ldprune r2=0.2 window=50"
case_ ldprune_bp "ldprune --r2 0.1 --window 500kb --zarr-format 3" \
    "ldprune r2=0.1 window=500kb dest.zarr-format=3"
case_ related "related" "related"
case_ related_c "related --king-cutoff 0.02 --zarr-format 3" \
    "related king-cutoff=0.02 dest.zarr-format=3"
"$G" pca -k 4 --loadings -o "$T/pcs" --samples "$T/fit.txt" "$H" 2>/dev/null
case_ project "project --pcs $T/pcs" "project pcs=$T/pcs"
case_ project_ap "project --pcs $T/pcs -k 2 --shrinkage-correction ap" \
    "project pcs=$T/pcs components=2 shrinkage-correction=ap"
# plots: gensvd_plot draws the bytes of gensvd plot
"$G" pca -k 4 -o "$T/pcs4" "$H" 2>/dev/null
"$G" pdist -m ibs -o "$T/dist" "$H" 2>/dev/null
cut -f2,3 "$D/realdata/hapmap3_957.populations.tsv" >"$T/pops.tsv"
"$G" plot pca "$T/pcs4" --color-by "$T/pops.tsv" --title "HapMap3" -o "$T/pca-cli.svg" 2>/dev/null
check "plot pca: library" "$L" plot-pca "$T/pcs4" "$T/pca-lib.svg" "color-by=$T/pops.tsv" \
    title=HapMap3
check "plot pca: the same SVG" cmp -s "$T/pca-cli.svg" "$T/pca-lib.svg"
"$G" plot pdist "$T/dist" --max-cells 100 -o "$T/pd-cli.svg" 2>/dev/null
check "plot pdist: library" "$L" plot-pdist "$T/dist" "$T/pd-lib.svg" max-cells=100
check "plot pdist: the same SVG" cmp -s "$T/pd-cli.svg" "$T/pd-lib.svg"
# gensvd_plot is the command: the picture's directory is checked before the input is read (the
# input here does not exist, and the error names the directory), and 30 labels on a heatmap are
# a warning (the manual's palette has 20 colours), with the command's SVG
plot_no_dir() {
    ! "$L" plot-pca "$T/none.zarr" "$T/no/such/dir/p.svg" 2>"$T/nodir.err" &&
        grep -q "directory '$T/no/such/dir'" "$T/nodir.err" && ! grep -q none.zarr "$T/nodir.err"
}
check "plot: the output's directory before the input" plot_no_dir
awk -F'\t' 'NR == 1 {print "IID\tgroup"} NR > 1 {print $2 "\tg" NR % 30}' \
    "$D/realdata/hapmap3_957.populations.tsv" >"$T/labels30.tsv"
"$G" plot pdist "$T/dist" --max-cells 100 --color-by "$T/labels30.tsv" -o "$T/pd30-cli.svg" 2>/dev/null
plot_warns() {
    "$L" --verbose plot-pdist "$T/dist" "$T/pd30-lib.svg" max-cells=100 "color-by=$T/labels30.tsv" \
        2>"$T/pd30.err" && grep -q "30 labels, but the label bands have 20 colours" "$T/pd30.err"
}
check "plot pdist: more labels than colours is a warning" plot_warns
check "plot pdist: labelled, the same SVG" cmp -s "$T/pd30-cli.svg" "$T/pd30-lib.svg"
# simulate: no input; the library writes to its destination
"$G" simulate -n 40 -m 300 -s 7 "$T/sim-cli" 2>/dev/null >/dev/null
check "simulate: library run" "$L" simulate - "$T/sim-lib" samples=40 variants=300 seed=7 \
    command=gensvd
check "simulate: same bytes" same_output "$T/sim-cli" "$T/sim-lib"
report
