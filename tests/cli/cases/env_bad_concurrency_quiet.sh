# -q hides the warning about a bad GENSVD_* value
GENSVD_CONCURRENCY=many "$GENSVD" info -q "$TESTDATA/realdata/hapmap3.vcz" >/dev/null
