"$GENSVD" dump "$TESTDATA/zarr/v2py/vcf_like.zarr"
