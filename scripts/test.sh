#!/usr/bin/env bash
# Quick start 2: install what is missing (test tools included), build with -Werror and the CUDA
# backend (GENSVD_CUDA=ON: the toolkit is required, a GPU is not) and the GPU check's bundle
# (scripts/gpu-bundle.sh), run the whole test suite (ctest: unit, cli, interop, realdata, fuzz,
# mpi under Open MPI's mpirun; gpu skips without a device; gpu_bundle checks the bundle and
# rehearses scripts/gpu-check.sh), a clang build with the unit, cli and fuzz tests, a
# libFuzzer build that replays the fuzz corpus and fuzzes each target for 5 s
# (tests/fuzz/run_fuzz.sh: ~45 s, fails on any finding), then an ASan+UBSan build of the same
# suite without CUDA or MPI, then the formatting check.
set -euo pipefail
cd "$(dirname "$0")/.."
export GENSVD_CMAKE_ARGS="-DGENSVD_WERROR=ON -DGENSVD_CUDA=ON -DGENSVD_MPI=ON -DGENSVD_PNG=ON ${GENSVD_CMAKE_ARGS:-}"
scripts/setup.sh --tests
# GENSVD_CUDA=ON: configure fails without a toolkit; check the backend is really linked in
build/cli/gensvd --version | grep -q '^backends: cuda' || { echo "CUDA backend not built" >&2; exit 1; }
build/cli/gensvd --version | grep -q '^mpi: Open MPI' || { echo "MPI not built" >&2; exit 1; }
build/cli/gensvd --version | grep -q '^plot: svg, png' || { echo "PNG not built" >&2; exit 1; }
jobs=$(nproc)
echo "== the GPU check's bundle (scripts/gpu-bundle.sh: its own build, no GPU needed), which the"
echo "   gpu_bundle tests check and rehearse"
scripts/gpu-bundle.sh
echo "== ctest (Release, -Werror)"
ctest --test-dir build --output-on-failure -j"$jobs" -LE soak

echo "== clang build (a second compiler for the intrinsics and target_clones code): unit, cli, fuzz;"
echo "   without librsvg (GENSVD_PNG=OFF): plot_png checks that --format png is refused"
GENSVD_BUILD_DIR=build-clang CC=clang GENSVD_CMAKE_ARGS="-DGENSVD_WERROR=ON -DGENSVD_CUDA=OFF -DGENSVD_MPI=ON -DGENSVD_PNG=OFF" \
    scripts/setup.sh
ctest --test-dir build-clang --output-on-failure -j"$jobs" -L "unit|cli|fuzz"
ctest --test-dir build-clang --output-on-failure -R '^plot_png$'

echo "== libFuzzer (clang, ASan+UBSan): the corpus of every target, then 5 s of fuzzing each"
GENSVD_BUILD_DIR=build-fuzz CC=clang GENSVD_CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Debug -DGENSVD_FUZZ=ON -DGENSVD_WERROR=ON -DGENSVD_CUDA=OFF -DGENSVD_MPI=OFF" \
    scripts/setup.sh
ctest --test-dir build-fuzz --output-on-failure -j"$jobs" -L fuzz
tests/fuzz/run_fuzz.sh build-fuzz 5

echo "== ctest (Debug, ASan+UBSan, no CUDA)"
GENSVD_BUILD_DIR=build-asan GENSVD_CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Debug -DGENSVD_WERROR=ON -DGENSVD_CUDA=OFF -DGENSVD_MPI=OFF -DGENSVD_SANITIZE=address;undefined" \
    scripts/setup.sh
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp \
    ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE "gpu|bench|slow|install|soak"

echo "== clang-format"
files=$(git ls-files '*.c' '*.h' '*.cu' 2>/dev/null || find common zarr analysis gpu cli tests -name '*.[ch]')
clang-format --dry-run -Werror $files
echo "format: $(echo "$files" | wc -w) files checked"
