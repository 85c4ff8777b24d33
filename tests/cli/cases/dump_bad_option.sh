"$GENSVD" dump --bogus x
