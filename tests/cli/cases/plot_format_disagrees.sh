# --format and the output's name must agree: -o x.svg --format png would put PNG bytes in a file
# named .svg; a usage error, nothing written
"$GENSVD" plot pca nothing.zarr -o x.svg --format png
rc=$?
[ ! -e x.svg ] || exit 20
exit $rc
