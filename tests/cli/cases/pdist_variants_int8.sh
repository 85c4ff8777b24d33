# --axis variants on genotypes (held as int8) gives the same distances on the bit-plane and the
# generic kernel, and 1 - IBS between a variant and itself is 0
a=$("$GENSVD" pdist --axis variants --variants 0:300 -m ibs --kernel bitplane --format tsv \
    "$TESTDATA/realdata/hapmap3.vcz") || exit $?
b=$("$GENSVD" pdist --axis variants --variants 0:300 -m ibs --kernel generic --format tsv \
    "$TESTDATA/realdata/hapmap3.vcz") || exit $?
[ "$a" = "$b" ] || exit 98
awk -F'\t' 'NR > 1 && $(NR) != "0" { bad = 1 } END { exit bad }' <<<"$a" || exit 97
echo same
