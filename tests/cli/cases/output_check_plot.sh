# plot checks the picture's directory before it reads the input; an existing picture is
# replaced, as the help says (tests/cli/output_checks.bash)
. "$(dirname "${BASH_SOURCE[0]}")/../output_checks.bash" || exit 99
"$GENSVD" pca -q -k 2 "$TESTDATA/zarr/v2py/vcf_like.zarr" -o pca_good.zarr || exit 90
"$GENSVD" pdist -q "$TESTDATA/zarr/v2py/vcf_like.zarr" -o pdist_good.zarr || exit 91
broken pca.zarr pca_good.zarr
broken pdist.zarr pdist_good.zarr
rm -r pca_good.zarr pdist_good.zarr
mkdir dir.svg && touch file.txt && echo old >old.svg
for kind in pca pdist; do
    run() { "$GENSVD" plot -q "$kind" "$kind.zarr" "$@"; }
    fails_on_output 1 "cannot create the output in directory 'nodir'" run -o nodir/fig.svg
    fails_on_output 2 "cannot create the output in directory 'file.txt'" run -o file.txt/fig.svg
    fails_on_output 3 "dir.svg: is a directory" run -o dir.svg
    for d in $(unwritable_dirs); do
        fails_on_output 4 "cannot create the output in directory '$d'" run -o "$d/fig.svg"
    done
    reads_input 5 run -o fig.svg
    reads_input 6 run -o old.svg
done
[ ! -e fig.svg ] && [ "$(cat old.svg)" = old ] || exit 7
