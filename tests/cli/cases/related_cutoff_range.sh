"$GENSVD" related --king-cutoff 0.5 "$TESTDATA/realdata/khuman_chr22.vcz"
