"$GENSVD" dump does/not/exist.zarr
