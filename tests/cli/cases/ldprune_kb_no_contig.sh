"$GENSVD" simulate s.zarr --variants 100 --samples 10 -q
rm -rf s.zarr/.zmetadata s.zarr/variant_contig
"$GENSVD" ldprune --window 10kb s.zarr
