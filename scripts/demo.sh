#!/usr/bin/env bash
# Quick start 1: install what is missing, build, and run gensvd on the bundled real data
# (HapMap3: 957 samples x 14,389 SNPs, converted to VCF-Zarr with bio2zarr).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
g=build/cli/gensvd
store=testdata/realdata/hapmap3.vcz
echo "== gensvd info $store"
$g info "$store"
echo
echo "== gensvd dump $store/call_genotype --slice 0:5,0:6   (first 5 variants x 6 samples)"
$g dump "$store/call_genotype" --slice 0:5,0:6
echo
echo "== gensvd dump $store/call_genotype --stats   (all $($g dump "$store/call_genotype" --stats | head -1 | cut -f2) alleles decoded)"
$g dump "$store/call_genotype" --stats
