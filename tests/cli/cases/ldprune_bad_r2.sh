"$GENSVD" ldprune --window 50 --r2 1 "$TESTDATA/realdata/hapmap3.vcz"
