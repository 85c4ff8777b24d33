# a labels file that names only some samples warns with the counts and the first samples it
# lacks: HapMap3's FID column matches the sample ID of 513 of the 957 founders (awk counts them)
cut -f1,3 "$TESTDATA/realdata/hapmap3_957.populations.tsv" >fid.tsv
n=$(awk -F'\t' 'NR > 1 && $1 != $2' "$TESTDATA/realdata/hapmap3_957.populations.tsv" | wc -l)
[ "$n" = 444 ] || exit 10
"$GENSVD" pca "$TESTDATA/realdata/hapmap3.vcz" -k 2 -o pcs.zarr -q || exit 11
"$GENSVD" plot pca pcs.zarr -o a.svg --color-by fid.tsv || exit 12
grep -q 'unlabelled (444)' a.svg || exit 13
