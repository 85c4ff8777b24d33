"$GENSVD" ldprune --window 5mb "$TESTDATA/realdata/hapmap3.vcz"
