"$GENSVD" help --spec bogus
