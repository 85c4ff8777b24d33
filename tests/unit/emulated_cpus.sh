#!/usr/bin/env bash
# tests/unit/emulated_cpus.sh - gensvd on CPUs this host is not, as QEMU's user-mode emulator
# presents them (qemu-user; 7.2 or later emulates AVX2 and FMA, and no AVX-512: an instruction
# the CPU lacks stops the program with SIGILL).  Every choice made from CPUID is then the real
# one of such a host (the ifunc clones of the vectorised loops, OpenBLAS's kernels, gensvd's
# engine probes), not GENSVD_CPU_LEVEL's cap of a newer CPU.  Three CPUs:
#   EPYC-Milan  an AMD Zen 3: AVX2, FMA, no AVX-512 (the common CPUs of issue 33)
#   Nehalem     x86-64-v2: POPCNT and SSE4.2, no AVX: the popcounts' POPCNT engines, which
#               GENSVD_CPU_LEVEL=base turns off (only the commands, not pca)
#   qemu64      the x86-64 baseline: no POPCNT, SSE4 or AVX (old CPUs, and the CPU model some
#               virtual machines present); OpenBLAS is told Prescott's kernels, since QEMU does
#               not emulate the 3DNow!-era instructions of the Opteron kernels it picks there
# On each:
#   - `gensvd --version` names the engines this CPU runs (and OpenBLAS's kernels);
#   - the kernels' unit programs pass against their oracles (their portable references and the
#     engines' byte-identity checks);
#   - simulate writes the native run's bytes (every array: its random draws use
#     common/detmath.h's log, exp and cos, not libm's, whose glibc versions for CPUs with FMA
#     round a few values differently from the baseline's);
#   - pdist (king, ibs, cityblock, euclidean: the Zen 3's missing calls counted apart),
#     related and ldprune give the bytes of this host's native run (exact integer counts:
#     every engine agrees); pca (exact and randomized, and on the Zen 3 the int8 Gram) the
#     bytes of the native run capped to the same engines (GENSVD_CPU_LEVEL, OPENBLAS_CORETYPE).
# Exit 77 (skipped) off x86-64 or without qemu-x86_64 (scripts/setup.sh --tests installs it).
# Usage: emulated_cpus.sh GENSVD TESTS_BUILD_DIR
set -uo pipefail
g=$(realpath "$1") bin=$(realpath "$2")
. "$(dirname "$0")/../testlib.sh"
[ "$(uname -m)" = x86_64 ] || { echo "not x86-64: skipped"; exit 77; }
command -v qemu-x86_64 >/dev/null || { echo "qemu-x86_64 not found (qemu-user): skipped"; exit 77; }
qv=$(qemu-x86_64 --version | head -1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
outname() { awk '{for (i = 1; i < NF; i++) if ($i == "-o") print $(i + 1)}' <<<"$1"; }

# 20,000 variants x 300 samples, 1% missing calls
"$g" simulate "$tmp/s.vcz" --variants 20000 --samples 300 --missing 0.01 --seed 3 -q
exact=(
    "pdist ../s.vcz -m king -t 2 -o king.zarr -q"
    "pdist ../s.vcz -m ibs -t 2 -o ibs.zarr -q"
    "pdist ../s.vcz -m cityblock -t 2 -o cityblock.zarr -q"
    "pdist ../s.vcz -m euclidean -t 2 -o euclidean.zarr -q"
    "related ../s.vcz --king-cutoff 0.0442 -t 2 -o related.zarr -q"
    "ldprune ../s.vcz --window 50 --step 5 --r2 0.2 -t 2 -o ld.zarr -q"
)
mkdir "$tmp/native"
for c in "${exact[@]}"; do
    (cd "$tmp/native" && "$g" $c)
done
# simulate's draws on each CPU against the native run's: with libm's log, cos and pow (before
# common/detmath.h) this seed's population frequencies of variants 4 and 2084 were a last bit
# apart on the baseline (~2 s emulated)
sim="simulate sim.vcz --variants 3000 --samples 30 --seed 8 -q"
(cd "$tmp/native" && "$g" $sim)

# emulated CPU LEVEL CORETYPE KERNELS PROGRAMS RUN PCA...: the checks above on one CPU; RUN
# (a command line, or "") runs there without a byte comparison
emulated() {
    local cpu=$1 level=$2 core=$3 kernels=$4 programs=$5 run=$6 c out
    shift 6
    local d=$tmp/$cpu
    q() {
        OPENBLAS_CORETYPE=$core qemu-x86_64 -cpu "$cpu" "$@" \
            2> >(grep -v "TCG doesn't support" >&2)
    }
    mkdir "$d" "$d.capped"
    local version
    version=$(q "$g" --version) || { echo "FAIL $cpu: gensvd --version"; fail=$((fail + 1)); return; }
    echo "$cpu: $(grep -E '^(blas|cpu kernels):' <<<"$version" | tr '\n' ' ')"
    check "$cpu: --version says 'cpu kernels: $kernels' ($qv)" \
        grep -qxF "cpu kernels: $kernels" <<<"$version"
    check "$cpu: --version says OpenBLAS's $core kernels" grep -qxF "blas: OpenBLAS, $core kernels" <<<"$version"
    for t in $programs; do
        check "$cpu: $t" q "$bin/$t" >"$d/$t.log" || tail -5 "$d/$t.log"
    done
    for c in "${exact[@]}" "$@" ${run:+"$run"}; do
        (cd "$d" && q "$g" $c) || { echo "FAIL $cpu: gensvd $c"; fail=$((fail + 1)); }
    done
    for c in "${exact[@]}"; do
        out=$(outname "$c")
        check "$cpu: $out has the native run's bytes" same_store "$d/$out" "$tmp/native/$out"
    done
    (cd "$d" && q "$g" $sim) || { echo "FAIL $cpu: gensvd $sim"; fail=$((fail + 1)); }
    check "$cpu: simulate writes the native run's bytes" same_store "$d/sim.vcz" "$tmp/native/sim.vcz"
    local flags
    flags=" $(grep -m1 '^flags' /proc/cpuinfo) "
    if [ "$level" = avx2 ] && { [[ $flags != *" avx2 "* ]] || [[ $flags != *" fma "* ]]; }; then
        echo "$cpu: this host has no AVX2 engines to compare pca with: its bytes not compared"
        return
    fi
    for c in "$@"; do
        out=$(outname "$c")
        (cd "$d.capped" && GENSVD_CPU_LEVEL=$level OPENBLAS_CORETYPE=$core "$g" $c)
        check "$cpu: $out has the bytes of the native run at $level with $core kernels" \
            same_store "$d/$out" "$d.capped/$out"
    done
}

emulated EPYC-Milan avx2 Zen \
    "gram i8 on AVX2, gram amx: no, pass i8: no, pass f32 on AVX2, pdist popcounts on AVX2, ldprune popcounts on AVX2" \
    "test_dosage test_codec_blosc test_xsum test_detmath test_pass_avx2 test_kernel_body test_gram_i8 test_pdist_body" "" \
    "pca ../s.vcz -k 6 -m randomized -t 2 -o pcr.zarr -q" \
    "pca ../s.vcz -k 6 -m exact -t 2 -o pcx.zarr -q" \
    "pca ../s.vcz -k 6 -m exact --gram-kernel i8 -t 2 -o pci.zarr -q"
emulated Nehalem base Nehalem \
    "gram i8: no, gram amx: no, pass i8: no, pass f32 on OpenBLAS, pdist popcounts on POPCNT, ldprune popcounts on POPCNT" \
    "" ""
emulated qemu64 base Prescott \
    "gram i8: no, gram amx: no, pass i8: no, pass f32 on OpenBLAS, pdist popcounts on portable code, ldprune popcounts on portable code" \
    "test_dosage test_codec_blosc test_xsum test_detmath test_pdist_body" "" \
    "pca ../s.vcz -k 6 -m randomized -t 2 -o pcr.zarr -q" \
    "pca ../s.vcz -k 6 -m exact -t 2 -o pcx.zarr -q"
report
