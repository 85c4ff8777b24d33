"$GENSVD" pca --outlier-iter 2 --outlier-sigma six "$TESTDATA/realdata/hapmap3.vcz"
