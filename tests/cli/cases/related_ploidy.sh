"$GENSVD" simulate -q -m 200 -n 10 -p 1 s.zarr || exit 99
"$GENSVD" related s.zarr
