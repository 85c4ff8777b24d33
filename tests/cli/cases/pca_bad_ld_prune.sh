"$GENSVD" pca --ld-prune 0.2 "$TESTDATA/realdata/hapmap3.vcz"
