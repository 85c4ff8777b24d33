"$GENSVD" pdsit
