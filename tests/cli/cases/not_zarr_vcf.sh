# a VCF is not Zarr: the error says how to convert it (bio2zarr's vcf2zarr, with the command)
cp "$TESTDATA/realdata/khuman_chr22.vcf.gz" cohort.vcf.gz
"$GENSVD" pca cohort.vcf.gz
