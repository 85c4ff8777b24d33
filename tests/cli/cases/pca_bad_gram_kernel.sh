"$GENSVD" pca --gram-kernel bf16 "$TESTDATA/realdata/hapmap3.vcz"
