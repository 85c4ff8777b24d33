# --zarr-format without -o: refused before anything is read (the scores would go to standard output)
"$GENSVD" pca -k 2 --zarr-format 3 "$TESTDATA/realdata/hapmap3.vcz"
