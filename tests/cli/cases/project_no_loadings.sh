"$GENSVD" pca -q -k 2 --variants 0:2000 -o pcs.zarr "$TESTDATA/realdata/hapmap3.vcz" || exit 9
"$GENSVD" project --pcs pcs.zarr "$TESTDATA/realdata/hapmap3.vcz"
