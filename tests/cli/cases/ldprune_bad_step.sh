"$GENSVD" ldprune --window 50 --step 0 "$TESTDATA/realdata/hapmap3.vcz"
