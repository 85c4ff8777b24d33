# pca checks -o, --plink and --outlier-out before it reads the input (tests/cli/output_checks.bash)
. "$(dirname "${BASH_SOURCE[0]}")/../output_checks.bash" || exit 99
broken in.zarr "$TESTDATA/zarr/v2py/vcf_like.zarr"
mkdir exists.zarr && touch file.txt p.eigenvec out.tsv
pca() { "$GENSVD" pca -q -k 2 in.zarr "$@"; }
fails_on_output 1 "exists.zarr: output exists" pca -o exists.zarr
fails_on_output 2 "cannot create the output in directory 'nodir'" pca -o nodir/out.zarr
fails_on_output 3 "cannot create the output in directory 'file.txt'" pca -o file.txt/out.zarr
for d in $(unwritable_dirs); do
    fails_on_output 4 "cannot create the output in directory '$d'" pca -o "$d/out.zarr"
    fails_on_output 5 "cannot create the output in directory '$d'" pca --plink "$d/p"
done
fails_on_output 6 "p.eigenvec: output exists" pca --plink p
fails_on_output 7 "cannot create the output in directory 'nodir'" pca --plink nodir/p
fails_on_output 8 "nodir/p.eigenvec" pca -o out.zarr --plink nodir/p
fails_on_output 9 "zip archives" pca -o out.zip
fails_on_output 10 "output exists" pca -o exists.zarr --plink p --format tsv
fails_on_output 14 "out.tsv: output exists" pca --outlier-iter 1 --outlier-out out.tsv
fails_on_output 15 "cannot create the output in directory 'nodir'" \
    pca --outlier-iter 1 --outlier-out nodir/o.tsv --format tsv
fails_on_output 16 "nodir/o.tsv" pca -o out.zarr --plink p2 --outlier-iter 1 --outlier-out nodir/o.tsv
# what passes the checks reads the input, which fails: the checks above came first
reads_input 11 pca -o out.zarr
reads_input 12 pca -o exists.zarr --force --plink p
reads_input 17 pca -o exists.zarr --force --outlier-iter 1 --outlier-out out.tsv
[ ! -e out.zarr ] && [ -z "$(ls -A exists.zarr)" ] && [ ! -s p.eigenvec ] && [ ! -s out.tsv ] ||
    exit 13
