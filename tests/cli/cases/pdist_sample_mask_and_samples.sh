echo x > ids.txt
"$GENSVD" pdist --samples ids.txt --sample-mask m.zarr "$TESTDATA/realdata/hapmap3.vcz"
