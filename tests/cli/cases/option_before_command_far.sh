"$GENSVD" -k 3 pca in.zarr
