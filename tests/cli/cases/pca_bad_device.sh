"$GENSVD" pca --device tpu "$TESTDATA/realdata/hapmap3.vcz"
