"$GENSVD" pca -q -k 2 --variants 0:2000 --loadings -o pcs.zarr "$TESTDATA/realdata/hapmap3.vcz" || exit 9
"$GENSVD" project --variants 5000:6000 --pcs pcs.zarr "$TESTDATA/realdata/hapmap3.vcz"
