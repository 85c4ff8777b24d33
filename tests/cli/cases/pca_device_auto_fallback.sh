# --device auto without a usable GPU runs on the CPU and, with -v, says so (and, when CUDA is
# built in, why the GPU was not used)
err=$(CUDA_VISIBLE_DEVICES= "$GENSVD" pca -v --device auto -k 2 --variants 0:500 \
    "$TESTDATA/realdata/hapmap3.vcz" 2>&1 >/dev/null) || exit $?
if "$GENSVD" --version | grep -q '^backends: cuda'; then
    grep -q '^gensvd pca: backend cuda not usable: .' <<<"$err" || exit 98
fi
grep 'using the cpu backend' <<<"$err"
