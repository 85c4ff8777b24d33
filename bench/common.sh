# bench/common.sh - what the benchmark scripts share; sourced (after `cd` to the repository
# root) by bench_qc.sh, bench_select.sh, bench_project.sh and bench_king.sh.
#   G   the program (GENSVD, default build/cli/gensvd)
#   PY  the Python with zarr-python and numpy (PY, default .venv/zarr3/bin/python)
#   T   threads for every tool (THREADS, default 2)
#   out bench/out, created
#   tm CMD...      runs CMD; sets wall (seconds) and rss (peak KB, /usr/bin/time %M)
#   sim_pair M N   sets S and B: bench_pca.sh's simulated store of M variants x N samples (3
#                  populations, Fst 0.05, 1% missing calls, seed 1) and the same genotypes as a
#                  .bed (tests/pca/pca_oracle.py write-bed), each made once and kept in out
G=${GENSVD:-build/cli/gensvd}
PY=${PY:-.venv/zarr3/bin/python}
T=${THREADS:-2}
out=bench/out
mkdir -p "$out"

tm() { /usr/bin/time -f "%e %M" -o "$out/.time" "$@"; read -r wall rss <"$out/.time"; }

sim_pair() {
    S=$out/sim_${1}x${2}.vcz
    B=$out/sim_${1}x${2}
    [ -d "$S" ] || "$G" simulate -n "$2" -m "$1" -K 3 --fst 0.05 --missing 0.01 --seed 1 -q "$S"
    [ -f "$B.bed" ] || "$PY" tests/pca/pca_oracle.py write-bed "$S" "$B" >/dev/null
}
