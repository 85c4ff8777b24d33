"$GENSVD" project --pcs pcs.zarr --shrinkage-correction mean "$TESTDATA/realdata/hapmap3.vcz"
