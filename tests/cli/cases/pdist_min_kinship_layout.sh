"$GENSVD" pdist -m king --min-kinship 0.1 --layout condensed "$TESTDATA/realdata/khuman_chr22.vcz"
