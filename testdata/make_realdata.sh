#!/usr/bin/env bash
# Convert the real genotype data in shared/realdata to VCF Zarr with bio2zarr, into
# testdata/realdata/, then verify the result against the sources (testdata/verify_realdata.py).
#
# usage: testdata/make_realdata.sh [REALDATA_DIR]
#   REALDATA_DIR  default: ../shared/realdata relative to the repository root
#   VENV          environment variable: the zarr 3 / bio2zarr venv (default .venv/zarr3, built
#                 from tests/requirements-zarr3.txt)
#
# Output (committed): testdata/realdata/hapmap3.vcz, khuman_chr22.vcz and the population tables.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="${1:-$repo/../shared/realdata}"
src="$(cd "$src" && pwd)"
venv="${VENV:-$repo/.venv/zarr3}"
out="$repo/testdata/realdata"

for tool in plink2zarr vcf2zarr python; do
    if [ ! -x "$venv/bin/$tool" ]; then
        echo "make_realdata.sh: $venv/bin/$tool not found; create the venv with" >&2
        echo "  /usr/bin/python3 -m venv .venv/zarr3 && .venv/zarr3/bin/pip install -r tests/requirements-zarr3.txt" >&2
        exit 1
    fi
done

mkdir -p "$out"
rm -rf "$out/hapmap3.vcz" "$out/khuman_chr22.vcz"

# Single process (-p 0) and no progress bars, so the output is the same on every run.
# hapmap3: 957 samples x 14,389 variants -> chunks 2000 variants x 500 samples (8 x 2 chunks).
"$venv/bin/plink2zarr" convert -Q -p 0 -l 2000 -w 500 \
    "$src/hapmap3_957x14389/hapmap3_957" "$out/hapmap3.vcz"
# khuman: 203 samples x 3,492 variants -> chunks 1000 variants x 100 samples (4 x 3 chunks).
# The .vcf.gz is plain gzip (not BGZF) and has no index; vcf2zarr reads it in one partition
# and only warns that the record count is unknown.
"$venv/bin/vcf2zarr" convert -Q -p 0 -l 1000 -w 100 \
    "$src/khuman_1kg_chr22/Khuman.vcf.gz" "$out/khuman_chr22.vcz" 2> >(grep -v "Total records unknown" >&2)

# Population labels (data files, see testdata/README.md for their sources).
install -m 644 "$src/hapmap3_957x14389/hapmap3_957.populations.tsv" "$out/hapmap3_957.populations.tsv"
install -m 644 "$src/khuman_1kg_chr22/pop.info" "$out/khuman_pop.info"
# VCF2Dis's published p-distance row (pdist -m p-distance's oracle)
install -m 644 "$src/khuman_1kg_chr22/reference_published/VCF2Dis_p_dis_row_NA06984.tsv" \
    "$out/khuman_vcf2dis_p_dis_row_NA06984.tsv"

"$venv/bin/python" "$repo/testdata/verify_realdata.py" "$src" "$out"
