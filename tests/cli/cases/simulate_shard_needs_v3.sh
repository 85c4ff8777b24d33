"$GENSVD" simulate out.zarr --shard 100
