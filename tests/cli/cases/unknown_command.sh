"$GENSVD" frobnicate
