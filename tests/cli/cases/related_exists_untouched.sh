"$GENSVD" related -q -o out.zarr "$TESTDATA/realdata/khuman_chr22.vcz" || exit 99
touch out.zarr/marker
"$GENSVD" related -q -o out.zarr "$TESTDATA/realdata/khuman_chr22.vcz"
rc=$?
[ -f out.zarr/marker ] || exit 98
exit $rc
