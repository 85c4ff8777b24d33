"$GENSVD" simulate -q -m 200 -n 10 -p 3 s.zarr || exit 99
"$GENSVD" pdist -m ibs0 s.zarr
