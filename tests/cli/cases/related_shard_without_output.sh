# --shard without -o: refused, not ignored
"$GENSVD" related --shard 100 "$TESTDATA/realdata/hapmap3.vcz"
