"$GENSVD" pdist --min-kinship 0.1 "$TESTDATA/realdata/khuman_chr22.vcz"
