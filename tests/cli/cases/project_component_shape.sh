"$GENSVD" pca -q -k 2 --variants 0:2000 --loadings -o pcs.zarr "$TESTDATA/realdata/hapmap3.vcz" || exit 9
"$GENSVD" pca -q -k 3 --variants 0:2000 --loadings -o pcs3.zarr "$TESTDATA/realdata/hapmap3.vcz" || exit 9
rm -r pcs.zarr/sample_pca_component && cp -r pcs3.zarr/sample_pca_component pcs.zarr/ && rm -f pcs.zarr/.zmetadata
"$GENSVD" project --pcs pcs.zarr "$TESTDATA/realdata/hapmap3.vcz"
