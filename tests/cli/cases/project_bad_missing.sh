"$GENSVD" project --pcs pcs.zarr --missing foo "$TESTDATA/realdata/hapmap3.vcz"
