# a bool array is never a genotype matrix: --array call_genotype_mask (bio2zarr's mask of missing
# calls, "|b1" in its .zarray) is refused before any work, with the genotype array beside it named
grep -q '"dtype": "|b1"' "$TESTDATA/realdata/hapmap3.vcz/call_genotype_mask/.zarray" || exit 10
"$GENSVD" pca "$TESTDATA/realdata/hapmap3.vcz" --array call_genotype_mask -k 2 -o out.zarr
rc=$?
[ ! -e out.zarr ] || exit 20
exit $rc
