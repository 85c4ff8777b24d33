"$GENSVD" project "$TESTDATA/realdata/hapmap3.vcz"
