printf "a\t0\t1\nb\t1\t1\n" | "$GENSVD" pdist -m p-distance -
