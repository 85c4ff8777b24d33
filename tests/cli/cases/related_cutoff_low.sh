"$GENSVD" related -c -1.5 "$TESTDATA/realdata/khuman_chr22.vcz"
