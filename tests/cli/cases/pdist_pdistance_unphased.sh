# every block holds unphased heterozygous calls: the error is said once, by the first block
err=$("$GENSVD" pdist -q -m p-distance -t 2 "$TESTDATA/realdata/hapmap3.vcz" 2>&1 >/dev/null)
rc=$?
printf '%s\n' "$err" >&2
[ "$(printf '%s\n' "$err" | grep -c 'unphased heterozygous')" = 1 ] || exit 9
exit $rc
