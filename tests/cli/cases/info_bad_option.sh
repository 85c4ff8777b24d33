"$GENSVD" info -Z x
