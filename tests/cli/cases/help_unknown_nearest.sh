"$GENSVD" help ldprnue
