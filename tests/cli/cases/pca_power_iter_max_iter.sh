"$GENSVD" pca --power-iter 20 --max-iter 30 "$TESTDATA/realdata/hapmap3.vcz"
