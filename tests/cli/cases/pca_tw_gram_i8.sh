"$GENSVD" pca --tw --gram-kernel i8 "$TESTDATA/realdata/hapmap3.vcz"
