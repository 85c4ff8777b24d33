"$GENSVD" pdist --ignore-phase -m cityblock "$TESTDATA/realdata/khuman_chr22.vcz"
