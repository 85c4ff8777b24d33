# related --device gpu with CUDA not built in, or built in with every device hidden: exit 3 and
# a one-line reason, before any data is read (the input here does not even exist)
err=$(CUDA_VISIBLE_DEVICES= "$GENSVD" related --device gpu "$TESTDATA/no/such.vcz" 2>&1 >/dev/null)
rc=$?
printf '%s\n' "$err" >&2
[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || exit 99
exit $rc
