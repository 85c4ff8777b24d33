"$GENSVD" simulate
