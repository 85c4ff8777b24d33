"$GENSVD" pdist -q -m p-distance --variants 0:100 "$TESTDATA/realdata/hapmap3.vcz"
