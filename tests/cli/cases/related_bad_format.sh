"$GENSVD" related --format csv x.zarr
