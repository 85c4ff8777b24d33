"$GENSVD" dump
