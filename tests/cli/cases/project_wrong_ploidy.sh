"$GENSVD" pca -q -k 2 --variants 0:2000 --loadings -o pcs.zarr "$TESTDATA/realdata/hapmap3.vcz" || exit 9
sed -i 's/"ploidy": 2/"ploidy": 4/' pcs.zarr/.zattrs && rm -f pcs.zarr/.zmetadata
"$GENSVD" project --pcs pcs.zarr "$TESTDATA/realdata/hapmap3.vcz"
