"$GENSVD" pca --gram-kernel amx --gram-f64 "$TESTDATA/realdata/hapmap3.vcz"
