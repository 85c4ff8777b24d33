"$GENSVD" pdist --haplotypes -m king "$TESTDATA/realdata/khuman_chr22.vcz"
