"$GENSVD" pca --accuracy exact "$TESTDATA/realdata/hapmap3.vcz"
