printf 'NA19916\nNOPE1\n' > fit.txt
"$GENSVD" pca -q -k 1 --fit-samples fit.txt "$TESTDATA/realdata/hapmap3.vcz"
