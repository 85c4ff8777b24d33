"$GENSVD" project --pcs "$TESTDATA/realdata/hapmap3.vcz" "$TESTDATA/realdata/hapmap3.vcz"
