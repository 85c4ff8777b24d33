"$GENSVD" simulate out.zarr -c 10,10 --zarr-format 3 --shard 15
