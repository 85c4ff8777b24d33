"$GENSVD" pdist -o out.zarr --zarr-format 1 "$TESTDATA/realdata/hapmap3.vcz"
