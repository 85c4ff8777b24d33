# an existing output is refused without --force and left as it was; --force replaces it
mkdir out.zarr && echo keep > out.zarr/marker
"$GENSVD" simulate out.zarr -m 10 -n 4 -K 2 2>err.txt; rc=$?
[ $rc = 1 ] && grep -q "output exists" err.txt && [ "$(cat out.zarr/marker)" = keep ] || exit 10
"$GENSVD" simulate out.zarr -m 10 -n 4 -K 2 --force || exit 11
[ ! -e out.zarr/marker ] && [ -f out.zarr/.zmetadata ] || exit 12
# no staging or replaced directories are left next to the output
[ -z "$(ls -A | grep -v -e '^out.zarr$' -e '^err.txt$')" ] || exit 13
