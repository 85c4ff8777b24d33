# any bool array is refused as genotypes (call_genotype_phased: "|b1", no "_mask" in its name)
grep -q '"dtype": "|b1"' "$TESTDATA/realdata/hapmap3.vcz/call_genotype_phased/.zarray" || exit 10
"$GENSVD" pdist "$TESTDATA/realdata/hapmap3.vcz" --array call_genotype_phased -o out.zarr
