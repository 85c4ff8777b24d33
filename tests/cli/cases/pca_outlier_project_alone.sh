"$GENSVD" pca --outlier-project --format tsv "$TESTDATA/realdata/hapmap3.vcz"
