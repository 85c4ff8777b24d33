"$GENSVD" pca --outlier-iter 2 --outlier-sigma 0 "$TESTDATA/realdata/hapmap3.vcz"
