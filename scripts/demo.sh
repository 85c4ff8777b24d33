#!/usr/bin/env bash
# Quick start 1: install what is missing, build, and run gensvd pca on the bundled real data
# (HapMap3: 957 samples x 14,389 SNPs, 11 populations, converted to VCF-Zarr with bio2zarr),
# then print the mean of PC1 and PC2 per population and draw PC1 against PC2 as build/demo_pca.svg.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
g=build/cli/gensvd
store=testdata/realdata/hapmap3.vcz
pops=testdata/realdata/hapmap3_957.populations.tsv
echo "== gensvd pca $store -k 10 --format tsv"
$g pca "$store" -k 10 --format tsv >build/demo_pcs.tsv
$g pca "$store" -k 10 -o build/demo_pcs.zarr --force -q
echo
echo "== mean PC1 / PC2 per population (labels: $pops)"
awk -F'\t' '
    NR == FNR { if (FNR > 1) pop[$2] = $3; next }
    FNR == 1 { next }
    ($1 in pop) { p = pop[$1]; n[p]++; s1[p] += $2; s2[p] += $3 }
    END {
        printf "%-6s %5s %9s %9s\n", "pop", "n", "PC1", "PC2"
        for (p in n) printf "%-6s %5d %9.2f %9.2f\n", p, n[p], s1[p] / n[p], s2[p] / n[p] | "sort -k3,3n"
    }' "$pops" build/demo_pcs.tsv
echo
echo "== gensvd plot pca build/demo_pcs.zarr --color-by $pops -o build/demo_pca.svg"
$g plot pca build/demo_pcs.zarr --color-by "$pops" --title "HapMap3: 957 samples, 11 populations" \
    -o build/demo_pca.svg
echo
echo "(scores for all samples: build/demo_pcs.tsv; the picture: build/demo_pca.svg)"
