"$GENSVD" ldprune --window 50 -q -o m.zarr "$TESTDATA/realdata/khuman_chr22.vcz"
"$GENSVD" pca --variant-mask m.zarr "$TESTDATA/realdata/hapmap3.vcz"
