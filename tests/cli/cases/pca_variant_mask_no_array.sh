"$GENSVD" pca --variant-mask "$TESTDATA/realdata/hapmap3.vcz" "$TESTDATA/realdata/hapmap3.vcz"
