"$GENSVD" pdist --metirc=ibs in.zarr
