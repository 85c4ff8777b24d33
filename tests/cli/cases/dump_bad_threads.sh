"$GENSVD" dump -t x "$TESTDATA/zarr/v2py/dtypes.zarr/i1"
