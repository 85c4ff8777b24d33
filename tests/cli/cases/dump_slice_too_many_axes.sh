"$GENSVD" dump --slice 0:1,0:1,0:1,0:1 "$TESTDATA/zarr/v2py/vcf_like.zarr/call_genotype"
