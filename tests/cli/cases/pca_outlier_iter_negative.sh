"$GENSVD" pca --outlier-iter -1 "$TESTDATA/realdata/hapmap3.vcz"
