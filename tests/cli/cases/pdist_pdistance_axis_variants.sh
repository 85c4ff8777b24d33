"$GENSVD" pdist -m p-distance --axis variants "$TESTDATA/realdata/khuman_chr22.vcz"
