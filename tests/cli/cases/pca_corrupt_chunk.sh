# a corrupt chunk: the error names the store, the chunk's key and the array, once
"$GENSVD" simulate -q s.zarr -m 300 -n 40 --chunks 100,40 || exit 99
head -c 20 s.zarr/call_genotype/1.0.0 >c && mv c s.zarr/call_genotype/1.0.0
"$GENSVD" pca -k 2 s.zarr
