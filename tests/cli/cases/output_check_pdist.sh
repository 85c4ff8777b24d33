# pdist checks -o (also with --min-kinship and --part) and --finalize's OUT before it reads the
# input or the parts (tests/cli/output_checks.bash)
. "$(dirname "${BASH_SOURCE[0]}")/../output_checks.bash" || exit 99
broken in.zarr "$TESTDATA/zarr/v2py/vcf_like.zarr"
mkdir exists.zarr && touch file.txt
pdist() { "$GENSVD" pdist -q "$@"; }
fails_on_output 1 "exists.zarr: output exists" pdist in.zarr -o exists.zarr
fails_on_output 2 "cannot create the output in directory 'nodir'" pdist in.zarr -o nodir/out.zarr
fails_on_output 3 "cannot create the output in directory 'file.txt'" pdist in.zarr -o file.txt/o.zarr
for d in $(unwritable_dirs); do
    fails_on_output 4 "cannot create the output in directory '$d'" pdist in.zarr -o "$d/out.zarr"
done
fails_on_output 5 "output exists" pdist in.zarr -m king --min-kinship 0.1 -o exists.zarr
fails_on_output 6 "cannot create the output in directory 'nodir'" \
    pdist in.zarr -m king --min-kinship 0.1 -o nodir/out.zarr
# --part: OUT is where the parts end up, so an existing one needs --force already
fails_on_output 7 "exists.zarr: output exists" pdist in.zarr --part 1/2 -o exists.zarr
fails_on_output 8 "cannot create the output in directory 'nodir'" \
    pdist in.zarr --part 1/2 -o nodir/out.zarr
# a TSV matrix as input, too
printf 'a\t1\t2\nb\t3\t4\n' >m.tsv
fails_on_output 9 "output exists" pdist m.tsv -o exists.zarr
# --finalize: OUT before the parts (square and pair-list parts; every file broken, metadata
# too, since a square finalize moves chunks without reading them)
"$GENSVD" pdist -q "$TESTDATA/zarr/v2py/vcf_like.zarr" --part 1/1 -o done.zarr || exit 20
"$GENSVD" pdist -q "$TESTDATA/zarr/v2py/vcf_like.zarr" -m king --min-kinship 0 --part 1/1 \
    -o pairs.zarr || exit 21
for p in done pairs; do
    find "$p.zarr.gensvd-parts" -type f -exec sh -c 'printf "not a chunk" >"$1"' _ {} \;
    mkdir "$p.zarr"
    fails_on_output 10 "$p.zarr: output exists" pdist --finalize "$p.zarr"
    rmdir "$p.zarr"
    reads_input 11 pdist --finalize "$p.zarr"
done
reads_input 12 pdist in.zarr -o out.zarr
reads_input 13 pdist in.zarr -o exists.zarr --force
reads_input 14 pdist in.zarr --part 1/2 -o exists.zarr --force
[ ! -e out.zarr ] && [ -z "$(ls -A exists.zarr)" ] || exit 15
