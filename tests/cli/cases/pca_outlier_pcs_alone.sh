"$GENSVD" pca --outlier-pcs 3 "$TESTDATA/realdata/hapmap3.vcz"
