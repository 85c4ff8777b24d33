"$GENSVD" simulate out.zarr -n 3 -K 4
