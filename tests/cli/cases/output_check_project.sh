# project checks -o before it reads --pcs or the input (tests/cli/output_checks.bash)
. "$(dirname "${BASH_SOURCE[0]}")/../output_checks.bash" || exit 99
"$GENSVD" pca -q -k 2 --loadings "$TESTDATA/zarr/v2py/vcf_like.zarr" -o good.zarr || exit 90
broken pcs.zarr good.zarr
broken in.zarr "$TESTDATA/zarr/v2py/vcf_like.zarr"
rm -r good.zarr
mkdir exists.zarr && touch file.txt
run() { "$GENSVD" project -q --pcs pcs.zarr in.zarr "$@"; }
fails_on_output 1 "exists.zarr: output exists" run -o exists.zarr
fails_on_output 2 "cannot create the output in directory 'nodir'" run -o nodir/out.zarr
fails_on_output 3 "cannot create the output in directory 'file.txt'" run -o file.txt/out.zarr
for d in $(unwritable_dirs); do
    fails_on_output 4 "cannot create the output in directory '$d'" run -o "$d/out.zarr"
done
fails_on_output 5 "output exists" run -o exists.zarr --format tsv
reads_input 6 run -o out.zarr
reads_input 7 run -o exists.zarr --force
[ ! -e out.zarr ] && [ -z "$(ls -A exists.zarr)" ] || exit 8
