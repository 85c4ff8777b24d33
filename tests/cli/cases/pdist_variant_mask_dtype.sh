"$GENSVD" pdist --variant-mask "$TESTDATA/realdata/hapmap3.vcz/variant_position" "$TESTDATA/realdata/hapmap3.vcz"
