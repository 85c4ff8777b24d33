# the output's Zarr format follows the input's, so --shard on a v3 input needs no --zarr-format 3;
# pca's arrays are one chunk each, so the shards group nothing: a warning names them
"$GENSVD" simulate s.zarr -m 300 -n 40 -c 100,20 --zarr-format 3 -q || exit 10
"$GENSVD" pca s.zarr -k 2 -o out.zarr --shard 64 2>err || exit 11
grep -q sharding_indexed out.zarr/sample_pca_projection/zarr.json || exit 12
cat err >&2
