"$GENSVD" pdist -m ibs --all-contigs "$TESTDATA/realdata/khuman_chr22.vcz"
