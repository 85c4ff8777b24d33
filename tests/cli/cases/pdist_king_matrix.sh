printf "a\t0\t1\nb\t2\t1\n" | "$GENSVD" pdist -m king -
