"$GENSVD" pdist -q -m p-distance --array call_DS "$TESTDATA/zarr/v2py/vcf_like.zarr"
