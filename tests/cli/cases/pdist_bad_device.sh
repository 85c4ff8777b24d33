"$GENSVD" pdist --device tpu "$TESTDATA/realdata/hapmap3.vcz"
