"$GENSVD" pdist -m king --missing scale "$TESTDATA/realdata/khuman_chr22.vcz"
