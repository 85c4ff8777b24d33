# progress reports are drawn by the command line: --progress draws a bar per stage on stderr
# (ending each stage with 100% and a newline, naming the unit counted), -q silences it, and
# without a terminal no progress line is drawn (the summary lines stay)
"$GENSVD" simulate s.zarr -m 3000 -n 40 --chunks 100,40 --progress 2>err1 || exit 10
tr '\r' '\n' <err1 | grep -qx 'gensvd simulate: writing: 3000/3000 variants (100%) in [0-9.]* s\(, [0-9.]*[kMGT]* variants/s\)\? *' || exit 11
"$GENSVD" simulate s.zarr -m 3000 -n 40 --chunks 100,40 --force --progress -q 2>err2 || exit 12
[ ! -s err2 ] || exit 13
"$GENSVD" pca s.zarr -k 2 -m randomized --power-iter 2 --progress --format tsv >/dev/null 2>err3 || exit 14
tr '\r' '\n' <err3 | grep -q '^gensvd pca: pass 2: 3000/3000 variants (100%) in' || exit 15
"$GENSVD" pdist s.zarr -m ibs --progress -q >/dev/null 2>err4 || exit 16
[ ! -s err4 ] || exit 17
"$GENSVD" pdist s.zarr -m ibs --progress --format tsv >/dev/null 2>err5 || exit 18
tr '\r' '\n' <err5 | grep -q '^gensvd pdist: pass 1/1: 3000/3000 variants (100%)' || exit 19
"$GENSVD" pca s.zarr -k 2 --format tsv >/dev/null 2>err6 || exit 20
grep -q $'\r' err6 && exit 21
# dump reads chunk rows with a rate (and --stats output is unchanged by it)
"$GENSVD" dump s.zarr/call_genotype --stats --progress >o7 2>err7 || exit 22
tr '\r' '\n' <err7 | grep -qx 'gensvd dump: reading: 30/30 chunk rows (100%) in [0-9.]* s\(, [0-9.]*[kMGT]* chunk rows/s\)\? *' || exit 23
"$GENSVD" dump s.zarr/call_genotype --stats >o8 2>err8 || exit 24
[ ! -s err8 ] && cmp -s o7 o8 || exit 25
exit 0
