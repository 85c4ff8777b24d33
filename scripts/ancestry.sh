#!/usr/bin/env bash
# An ancestry analysis from a VCF-Zarr store, end to end, with gensvd only (README "An ancestry
# analysis from a VCF-Zarr store"; tests/workflow/test_ancestry.sh runs it):
#   1. ldprune   variants in approximate linkage equilibrium      -> OUT/pruned.zarr
#   2. related   a maximal unrelated set (KING-robust > 0.0884)    -> OUT/unrelated.zarr
#   3. pca       on the unrelated samples and the pruned variants  -> OUT/pcs.zarr (+ loadings)
#   4. project   every sample (relatives too) onto those PCs       -> OUT/projection.tsv
#   5. summary   per population: samples, fitted, mean PC1, PC2    -> OUT/summary.tsv (stdout)
# Usage: scripts/ancestry.sh [GENSVD [OUT [STORE [POPULATIONS.tsv]]]]
#   defaults: build/cli/gensvd, build/ancestry, the bundled HapMap3 store (957 founders,
#   11 populations) and its labels (a TSV with IID and population columns).
# The HapMap3 set was already LD-thinned by its distributors (r^2 0.02), so the prune here uses
# r^2 0.01 in 500 kb windows to do visible work; on unthinned data use 0.1-0.2.  --autosome
# keeps chromosomes 1-22 (plink2's option: the store's 23, 25 and 26 are left out).
set -euo pipefail
cd "$(dirname "$0")/.."
G=${1:-build/cli/gensvd}
OUT=${2:-build/ancestry}
STORE=${3:-testdata/realdata/hapmap3.vcz}
POPS=${4:-testdata/realdata/hapmap3_957.populations.tsv}
mkdir -p "$OUT"

"$G" ldprune "$STORE" --autosome --window 500kb --r2 0.01 -o "$OUT/pruned.zarr" -f
"$G" related "$STORE" --autosome --king-cutoff 0.0884 -o "$OUT/unrelated.zarr" -f
"$G" pca "$STORE" --autosome --variant-mask "$OUT/pruned.zarr" \
    --sample-mask "$OUT/unrelated.zarr" -k 10 --loadings -o "$OUT/pcs.zarr" -f
"$G" project "$STORE" --pcs "$OUT/pcs.zarr" --format tsv >"$OUT/projection.tsv"
paste <("$G" dump "$OUT/unrelated.zarr/sample_id") <("$G" dump "$OUT/unrelated.zarr/sample_unrelated") |
    awk -F'\t' '$2 == 1 { print $1 }' >"$OUT/unrelated.txt"

# per population: samples, of them fitted (unrelated), mean PC1 and PC2 over all projected
awk -F'\t' -v OFS='\t' '
    FILENAME == ARGV[1] { if (FNR == 1) { for (i = 1; i <= NF; i++) col[$i] = i; next }
                          pop[$col["IID"]] = $col["population"]; next }
    FILENAME == ARGV[2] { fit[$1] = 1; next }
    FNR == 1 { next }
    { p = ($1 in pop) ? pop[$1] : "unlabelled"; n[p]++; f[p] += ($1 in fit); s1[p] += $2; s2[p] += $3 }
    END { for (p in n) printf "%s\t%d\t%d\t%.2f\t%.2f\n", p, n[p], f[p], s1[p] / n[p], s2[p] / n[p] }
' "$POPS" "$OUT/unrelated.txt" "$OUT/projection.tsv" | sort -t$'\t' -k1,1 >"$OUT/summary.body"
{
    printf 'population\tsamples\tfitted\tmean_PC1\tmean_PC2\n'
    cat "$OUT/summary.body"
} >"$OUT/summary.tsv"
rm -f "$OUT/summary.body"
cat "$OUT/summary.tsv"
