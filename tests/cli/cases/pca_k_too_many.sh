"$GENSVD" pca -k 957 "$TESTDATA/realdata/hapmap3.vcz"
