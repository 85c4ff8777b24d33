# simulate checks OUT first, and a failed check leaves nothing (tests/cli/output_checks.bash)
. "$(dirname "${BASH_SOURCE[0]}")/../output_checks.bash" || exit 99
mkdir exists.zarr && touch file.txt
run() { "$GENSVD" simulate -q -m 10 -n 4 -K 2 "$@"; }
fails_on_output 1 "exists.zarr: output exists" run exists.zarr
fails_on_output 2 "cannot create the output in directory 'nodir'" run nodir/out.zarr
fails_on_output 3 "cannot create the output in directory 'file.txt'" run file.txt/out.zarr
for d in $(unwritable_dirs); do
    fails_on_output 4 "cannot create the output in directory '$d'" run "$d/out.zarr"
done
fails_on_output 5 "zip archives" run out.zip
