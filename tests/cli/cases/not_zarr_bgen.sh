# BGEN: bio2zarr has none, so through plink2's VCF export
: >data.bgen
"$GENSVD" related data.bgen
