"$GENSVD" dump --slice 5:2 "$TESTDATA/zarr/v2py/vcf_like.zarr/call_genotype"
