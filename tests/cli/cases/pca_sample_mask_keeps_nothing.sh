"$GENSVD" pca --sample-mask "$TESTDATA/realdata/khuman_chr22.vcz/variant_contig" "$TESTDATA/realdata/khuman_chr22.vcz"
