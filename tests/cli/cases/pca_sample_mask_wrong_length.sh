"$GENSVD" ldprune --window 50 -q -o m.zarr "$TESTDATA/realdata/khuman_chr22.vcz"
"$GENSVD" pca --sample-mask m.zarr/variant_ld_keep "$TESTDATA/realdata/hapmap3.vcz"
