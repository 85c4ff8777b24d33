"$GENSVD" pca --accuracy bulk --stop bound "$TESTDATA/realdata/hapmap3.vcz"
