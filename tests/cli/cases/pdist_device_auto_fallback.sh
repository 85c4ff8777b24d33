# pdist --device auto without a usable GPU counts on the CPU, says so with -v (and, when CUDA
# is built in, why the GPU was not used), and records the device in the output's attributes
out=$(mktemp -d) || exit 97
trap 'rm -rf "$out"' EXIT
err=$(CUDA_VISIBLE_DEVICES= "$GENSVD" pdist -v --device auto -m ibs --variants 0:500 \
    -o "$out/d.zarr" "$TESTDATA/realdata/hapmap3.vcz" 2>&1 >/dev/null) || exit $?
if "$GENSVD" --version | grep -q '^backends: cuda'; then
    grep -q '^gensvd pdist: backend cuda not usable: .' <<<"$err" || exit 98
fi
grep -q 'bitplane kernel on cpu' <<<"$err" || exit 96
grep 'using the cpu backend' <<<"$err"
grep '"device"' "$out/d.zarr/.zattrs"
