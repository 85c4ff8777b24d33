"$GENSVD" pdist -m king -a call_DS "$TESTDATA/zarr/v2py/vcf_like.zarr"
