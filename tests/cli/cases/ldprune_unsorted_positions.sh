"$GENSVD" simulate s.zarr --variants 100 --samples 10 --chunks 50,10 -q
rm -f s.zarr/.zmetadata
mv s.zarr/variant_position/0 t && mv s.zarr/variant_position/1 s.zarr/variant_position/0 && mv t s.zarr/variant_position/1
"$GENSVD" ldprune --window 10kb s.zarr
