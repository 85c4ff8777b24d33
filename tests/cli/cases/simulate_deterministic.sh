# the same seed gives identical genotypes for any thread count and chunking
"$GENSVD" simulate a.zarr -m 1234 -n 57 -K 3 -r 0.02 --seed 7 -t 1 --chunks 100,10 || exit 10
"$GENSVD" simulate b.zarr -m 1234 -n 57 -K 3 -r 0.02 --seed 7 -t 2 --chunks 1000,57 || exit 11
"$GENSVD" simulate c.zarr -m 1234 -n 57 -K 3 -r 0.02 --seed 8 -t 2 || exit 12
cmp <("$GENSVD" dump a.zarr/call_genotype) <("$GENSVD" dump b.zarr/call_genotype) || exit 13
cmp -s <("$GENSVD" dump a.zarr/call_genotype) <("$GENSVD" dump c.zarr/call_genotype) && exit 14
cmp <("$GENSVD" dump a.zarr/variant_population_frequency) <("$GENSVD" dump b.zarr/variant_population_frequency) || exit 15
exit 0
