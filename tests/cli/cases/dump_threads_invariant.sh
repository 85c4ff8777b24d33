# output is identical for any thread count, and a slice equals the same rows cut from the whole
g="$TESTDATA/zarr/v2py/vcf_like.zarr/call_genotype"
cmp <("$GENSVD" dump -t 1 "$g") <("$GENSVD" dump -t 3 "$g") || exit 10
cmp <("$GENSVD" dump -t 2 --slice 7:19 "$g") <("$GENSVD" dump "$g" | sed -n '8,19p') || exit 11
exit 0
