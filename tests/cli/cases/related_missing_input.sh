"$GENSVD" related --king-cutoff 0.1
