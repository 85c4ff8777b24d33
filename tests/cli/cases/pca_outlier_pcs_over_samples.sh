"$GENSVD" pca -q -k 2 --outlier-iter 1 --outlier-pcs 203 "$TESTDATA/realdata/khuman_chr22.vcz"
