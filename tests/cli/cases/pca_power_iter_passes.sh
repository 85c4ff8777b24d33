# --power-iter N runs exactly N passes, above --max-iter's default (8) too, and says so
"$GENSVD" simulate s.zarr -m 3000 -n 400 -q || exit 10
for m in krylov randomized; do
    for n in 3 12; do
        "$GENSVD" pca -k 3 --method $m --power-iter $n -v -o p.zarr --force s.zarr 2>err || exit 11
        # one "pass I (" line per pass (-v), and the summary's count
        [ "$(grep -c 'pass [0-9]* ([0-9.]* s): basis' err)" = $n ] || { cat err; exit 12; }
        grep -q "$m: $n passes, .*fixed pass count (--power-iter)" err || { cat err; exit 13; }
    done
done
# without it, --max-iter caps the stop rule's passes
"$GENSVD" pca -k 3 --method krylov --tol 1e-12 --max-iter 5 -v -o p.zarr --force s.zarr 2>err
[ "$(grep -c 'pass [0-9]* ([0-9.]* s): basis' err)" = 5 ] || { cat err; exit 14; }
exit 0
