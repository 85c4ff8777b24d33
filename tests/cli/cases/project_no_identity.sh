"$GENSVD" pca -q -k 2 --variants 0:2000 --loadings -o pcs.zarr "$TESTDATA/realdata/hapmap3.vcz" || exit 9
rm -r pcs.zarr/variant_pca_position pcs.zarr/variant_pca_contig pcs.zarr/variant_pca_alleles && rm -f pcs.zarr/.zmetadata
"$GENSVD" project --pcs pcs.zarr "$TESTDATA/realdata/hapmap3.vcz"
