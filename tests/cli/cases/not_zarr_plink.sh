# a PLINK 1 fileset (any of its files named): bio2zarr's plink2zarr on the prefix
: >data.bed
: >data.bim
: >data.fam
"$GENSVD" pdist data.bim
