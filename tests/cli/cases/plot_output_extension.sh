# plot writes SVG or PNG, so -o must say .svg or .png (or have no extension): fig.jpg is a usage
# error before the input is read (the input here does not exist), and nothing is written
"$GENSVD" plot pca nothing.zarr -o fig.jpg
rc=$?
[ ! -e fig.jpg ] || exit 20
exit $rc
