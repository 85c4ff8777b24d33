"$GENSVD" pca --frobnicate in.zarr
