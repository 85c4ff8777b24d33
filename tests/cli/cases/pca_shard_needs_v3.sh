"$GENSVD" pca -o out.zarr --shard 100 "$TESTDATA/realdata/hapmap3.vcz"
