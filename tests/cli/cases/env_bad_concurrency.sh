# a bad GENSVD_* remote default is ignored with one warning (the context reads the environment)
GENSVD_CONCURRENCY=many "$GENSVD" info "$TESTDATA/realdata/hapmap3.vcz" >/dev/null
