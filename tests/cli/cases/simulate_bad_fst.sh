"$GENSVD" simulate out.zarr --fst 0
