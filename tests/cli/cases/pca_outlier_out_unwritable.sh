"$GENSVD" pca -q -k 2 --outlier-iter 1 --outlier-out no/such/dir/x.tsv --format tsv "$TESTDATA/realdata/khuman_chr22.vcz" >/dev/null
