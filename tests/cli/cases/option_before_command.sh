"$GENSVD" --verison
