"$GENSVD" pca --cach 1G in.zarr
