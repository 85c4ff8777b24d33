"$GENSVD" simulate out.zarr --chunks 10
