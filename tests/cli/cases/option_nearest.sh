"$GENSVD" pca --componets 3 in.zarr
