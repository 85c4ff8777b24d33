"$GENSVD" pca --tw -m randomized "$TESTDATA/realdata/hapmap3.vcz"
