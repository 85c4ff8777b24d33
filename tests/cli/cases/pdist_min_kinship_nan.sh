"$GENSVD" pdist -m king --min-kinship nan "$TESTDATA/realdata/khuman_chr22.vcz"
