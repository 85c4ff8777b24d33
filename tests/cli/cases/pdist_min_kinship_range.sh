"$GENSVD" pdist -m king --min-kinship 0.7 "$TESTDATA/realdata/khuman_chr22.vcz"
