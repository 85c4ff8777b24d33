# plot draws progress like the other commands: --progress reports the points drawn (N samples x
# panels) and the distances read (N x N square, N(N-1)/2 condensed: the stored layout), ending
# each stage with 100% and a newline; -q silences it; without a terminal nothing is drawn
n=40
"$GENSVD" simulate s.zarr -m 600 -n $n -q || exit 10
"$GENSVD" pca s.zarr -k 3 -o pcs.zarr -q || exit 11
"$GENSVD" pdist s.zarr -m ibs -o sq.zarr -q || exit 12
"$GENSVD" pdist s.zarr -m ibs -o cd.zarr --layout condensed -q || exit 13
bar() { # FILE STAGE DONE UNIT: the stage's closing line is in FILE
    tr '\r' '\n' <"$1" | grep -qx "gensvd plot: $2: $3/$3 $4 (100%) in [0-9.]* s\(, [0-9.]*[kMGT]* $4/s\)\? *"
}
"$GENSVD" plot pca pcs.zarr -o a.svg --progress 2>e1 || exit 20
bar e1 drawing $n points || exit 21
"$GENSVD" plot pca pcs.zarr -o b.svg --grid 3 --progress 2>e2 || exit 22
bar e2 drawing $((n * 3)) points || exit 23 # PC1..PC3: three panels
"$GENSVD" plot pdist sq.zarr -o c.svg --progress 2>e3 || exit 24
bar e3 reading $((n * n)) distances || exit 25
"$GENSVD" plot pdist cd.zarr -o d.svg --progress 2>e4 || exit 26
bar e4 reading $((n * (n - 1) / 2)) distances || exit 27
"$GENSVD" plot pdist sq.zarr -o e.svg --order cluster --progress 2>e5 || exit 28
bar e5 reading $((n * n)) distances || exit 29
"$GENSVD" plot pca pcs.zarr -o f.svg --progress -q 2>e6 || exit 30
[ ! -s e6 ] || exit 31
"$GENSVD" plot pdist sq.zarr -o g.svg --progress -q 2>e7 || exit 32
[ ! -s e7 ] || exit 33
"$GENSVD" plot pdist sq.zarr -o h.svg 2>e8 || exit 34 # stderr is a file: no bar, the summary
grep -q $'\r' e8 && exit 35
grep -qx 'gensvd plot: wrote h.svg in [0-9.]* s' e8 || exit 35
"$GENSVD" plot pca pcs.zarr -o i.svg --no-progress 2>e9 || exit 36
grep -q $'\r' e9 && exit 37
cmp -s c.svg h.svg || exit 38 # progress changes nothing in the picture
exit 0
