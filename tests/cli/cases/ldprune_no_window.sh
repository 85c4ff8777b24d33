"$GENSVD" ldprune "$TESTDATA/realdata/hapmap3.vcz"
