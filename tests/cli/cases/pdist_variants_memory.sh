# --axis variants holds the kept variants as int8 (1 byte per call for genotype arrays): a cap
# below twice that fails with exit 1 and says why, before any pair is computed
"$GENSVD" pdist --axis variants --memory 2M -m ibs "$TESTDATA/realdata/hapmap3.vcz"
