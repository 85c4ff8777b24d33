"$GENSVD" ldprune --window 1 "$TESTDATA/realdata/hapmap3.vcz"
