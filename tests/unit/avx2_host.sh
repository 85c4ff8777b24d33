#!/usr/bin/env bash
# tests/unit/avx2_host.sh - gensvd on a CPU with AVX2 and without AVX-512: an AMD EPYC Zen 3
# (Milan) as QEMU's user-mode emulator presents it (qemu-user 7.2 or later emulates AVX2 and
# FMA, and no AVX-512: an AVX-512 instruction stops the program with SIGILL).  Here every choice
# made from CPUID is the real one of such a host (the ifunc clones of the vectorised loops,
# OpenBLAS's kernels, gensvd's engine probes), not GENSVD_CPU_LEVEL's cap of a newer CPU.
#   - `gensvd --version` names the AVX2 engines and OpenBLAS's Zen (or Haswell) kernels;
#   - the kernels' unit programs pass against their oracles (their portable references and the
#     engines' byte-identity checks) on this CPU;
#   - pdist (king, ibs, cityblock: their missing calls counted apart), related and ldprune give
#     the bytes of the native run of this host's best engines (exact integer counts, so every
#     engine agrees); pca (randomized, exact, and the int8 Gram) gives the bytes of the native
#     run capped to the same engines (GENSVD_CPU_LEVEL=avx2, OPENBLAS_CORETYPE=Zen).
# Exit 77 (skipped) off x86-64 or without qemu-x86_64 (scripts/setup.sh --tests installs it).
# Usage: avx2_host.sh GENSVD TESTS_BUILD_DIR
set -uo pipefail
g=$(realpath "$1") bin=$(realpath "$2")
. "$(dirname "$0")/../testlib.sh"
[ "$(uname -m)" = x86_64 ] || { echo "not x86-64: skipped"; exit 77; }
command -v qemu-x86_64 >/dev/null || { echo "qemu-x86_64 not found (qemu-user): skipped"; exit 77; }
q() { qemu-x86_64 -cpu EPYC-Milan "$@" 2> >(grep -v "TCG doesn't support" >&2); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

version=$(q "$g" --version) || { echo "FAIL gensvd --version under qemu-x86_64"; exit 1; }
kernels=$(grep '^cpu kernels:' <<<"$version")
echo "$kernels"
grep '^blas:' <<<"$version"
qv=$(qemu-x86_64 --version | head -1)
for want in "gram i8 on AVX2" "pass f32 on AVX2" "pdist popcounts on AVX2" \
    "ldprune popcounts on AVX2"; do
    check "--version names '$want' ($qv: AVX2 needs 7.2 or later)" grep -qF "$want" <<<"$kernels"
done
check "--version: OpenBLAS's Zen or Haswell kernels" grep -qE '^blas: OpenBLAS, (Zen|Haswell) kernels' <<<"$version"

for t in test_dosage test_codec_blosc test_xsum test_pass_avx2 test_kernel_body test_gram_i8 \
    test_pdist_body; do
    check "$t on the emulated CPU" q "$bin/$t" >"$tmp/$t.log" || tail -5 "$tmp/$t.log"
done

# 20,000 variants x 300 samples, 1% missing calls: every pdist segment counted apart
"$g" simulate "$tmp/s.vcz" --variants 20000 --samples 300 --missing 0.01 --seed 3 -q
mkdir "$tmp/q" "$tmp/n" "$tmp/c"
exact=(
    "pdist ../s.vcz -m king -t 2 -o king.zarr -q"
    "pdist ../s.vcz -m ibs -t 2 -o ibs.zarr -q"
    "pdist ../s.vcz -m cityblock -t 2 -o cityblock.zarr -q"
    "related ../s.vcz --king-cutoff 0.0442 -t 2 -o related.zarr -q"
    "ldprune ../s.vcz --window 50 --step 5 --r2 0.2 -t 2 -o ld.zarr -q"
)
capped=(
    "pca ../s.vcz -k 6 -m randomized -t 2 -o pcr.zarr -q"
    "pca ../s.vcz -k 6 -m exact -t 2 -o pcx.zarr -q"
    "pca ../s.vcz -k 6 -m exact --gram-kernel i8 -t 2 -o pci.zarr -q"
)
for c in "${exact[@]}" "${capped[@]}"; do
    (cd "$tmp/q" && q "$g" $c) || { echo "FAIL under qemu-x86_64: gensvd $c"; fail=$((fail + 1)); }
done
for c in "${exact[@]}"; do
    (cd "$tmp/n" && "$g" $c)
done
for c in "${capped[@]}"; do
    (cd "$tmp/c" && GENSVD_CPU_LEVEL=avx2 OPENBLAS_CORETYPE=Zen "$g" $c)
done
for c in "${exact[@]}"; do
    out=$(awk '{for (i = 1; i < NF; i++) if ($i == "-o") print $(i + 1)}' <<<"$c")
    check "$out: the bytes of this host's native engines" same_store "$tmp/q/$out" "$tmp/n/$out"
done
for c in "${capped[@]}"; do
    out=$(awk '{for (i = 1; i < NF; i++) if ($i == "-o") print $(i + 1)}' <<<"$c")
    check "$out: the bytes of the native run capped at AVX2" same_store "$tmp/q/$out" "$tmp/c/$out"
done
report
