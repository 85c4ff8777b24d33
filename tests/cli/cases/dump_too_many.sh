"$GENSVD" dump a b
