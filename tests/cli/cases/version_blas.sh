# --version names the OpenBLAS kernels the process runs, as OpenBLAS itself reports them when it
# loads (OPENBLAS_VERBOSE=2 prints "Core: NAME" on stderr; when gensvd starts again with
# OPENBLAS_CORETYPE because OpenBLAS did not know the CPU, the last line is the second load's).
# A core the user names is kept as it is; -v says when gensvd chose one.
v=$(OPENBLAS_VERBOSE=2 "$GENSVD" --version 2>err | grep '^blas: ')
core=$(grep '^Core: ' err | tail -1 | cut -d' ' -f2)
case $v in "blas: OpenBLAS, $core kernels"*) echo "version names OpenBLAS's own core" ;; *) echo "'$v' is not core '$core'" ;; esac
case $v in
*"gensvd's choice"*)
    # only where OpenBLAS fell back to its generic kernels on a CPU with AVX2 or AVX-512
    [ "$(grep -c '^Core: ' err)" = 2 ] && head -1 err | grep -qx 'Core: Prescott' &&
        grep -qwE 'avx2|avx512f' /proc/cpuinfo && echo "chosen only over Prescott" ||
        echo "chosen although OpenBLAS loaded as: $(head -1 err)"
    "$GENSVD" simulate sim.vcz -m 20 -n 10 -v 2>log >/dev/null
    grep -q "OpenBLAS did not know this CPU and chose its Prescott kernels; running with OPENBLAS_CORETYPE=$core" log &&
        echo "-v says so" || echo "-v is silent: $(cat log)"
    ;;
*)
    echo "chosen only over Prescott"
    echo "-v says so"
    ;;
esac
OPENBLAS_CORETYPE=Prescott "$GENSVD" --version | grep -qx 'blas: OpenBLAS, Prescott kernels' &&
    echo "the user's OPENBLAS_CORETYPE is kept" || echo "the user's OPENBLAS_CORETYPE was replaced"
