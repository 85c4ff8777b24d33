"$GENSVD" --help
