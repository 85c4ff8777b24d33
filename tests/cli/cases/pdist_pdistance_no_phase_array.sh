"$GENSVD" simulate -q -m 50 -n 10 sim.vcz && "$GENSVD" pdist -q -m p-distance sim.vcz
