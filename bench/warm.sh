# bench/warm.sh - sourced by the benchmarks.  `warm PATH...` reads the files (of directories too)
# into the page cache, so every tool of a sitting starts from a warm cache: which tool happened
# to find its input cold decided short runs (ldprune at window 50, Zen 4: plink2 3.74 s on a
# .bed evicted by the sitting's earlier parts, 1.57 s warm).  Inputs of a sitting fit in memory.
warm() { find "$@" -type f -exec cat {} + >/dev/null; }
