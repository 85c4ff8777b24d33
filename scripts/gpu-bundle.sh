#!/usr/bin/env bash
# Build the bundle that scripts/gpu-check.sh runs on a GPU machine whose image has the CUDA
# toolkit, CMake and Python with numpy but none of gensvd's other libraries
# (docs/dev/testing.md, "The GPU check"): here, with this machine's CUDA toolkit (no GPU needed), into the ignored
# folder .gpu-bundle/, which the device call carries (carry: [".gpu-bundle"]).
#
# What it holds, packed as .gpu-bundle/gensvd-bundle.tar.xz (unpacked by gpu-check.sh):
#   bin/gensvd, bin/gensvd_cuda.so  gensvd without MPI, PNG or libcurl (the device has none of
#                                   them; the check needs none), the CUDA module for sm_80 and
#                                   sm_90 (+ PTX)
#   bin/test_backend_cuda, bin/test_cuda_module   the GPU tests' programs
#   bin/gemm_limit_cuda             the GPU's limits (bench/gemm_limit_cuda.cu)
#   MANIFEST.txt                    commit, CUDA version, architectures, and per file its size,
#                                   sha256 (16 hex digits) and newest glibc symbol version
#   lib/                            every shared library those link that is neither glibc nor
#                                   CUDA's (OpenBLAS, LAPACK(E), gfortran, c-blosc, zstd, lz4,
#                                   cJSON, zlib, libstdc++, ...), found with ldd
# Every program and the module have the RPATH $ORIGIN/../lib:/usr/local/cuda/lib64:
# /usr/local/cuda/lib (DT_RPATH, not RUNPATH: the loader uses an executable's RPATH for the
# libraries its libraries need too, e.g. c-blosc's snappy), so they run with no LD_LIBRARY_PATH;
# the CUDA libraries come from the device's own toolkit.
# The scripts, tests and data the check uses (HapMap3 in testdata/realdata) travel with the
# working tree.  .gpu-bundle/MANIFEST.txt is a copy of the manifest.  Prints the bundle's size,
# which must stay under the 64 MiB a device call carries (the working tree counts too; the
# script fails above GENSVD_BUNDLE_MAX_MIB, default 48).
#
# Usage: scripts/gpu-bundle.sh            (build in build-gpu-bundle/, ~3 min cold on 2 cores)
# Environment: GENSVD_BUNDLE_BUILD (build folder), GENSVD_BUNDLE_ARCHS (CMake CUDA
# architectures, default "80-real;90"), GENSVD_BUNDLE_MAX_MIB.
set -euo pipefail
cd "$(dirname "$0")/.."
bdir=${GENSVD_BUNDLE_BUILD:-build-gpu-bundle}
archs=${GENSVD_BUNDLE_ARCHS:-80-real;90}
max_mib=${GENSVD_BUNDLE_MAX_MIB:-48}
out=.gpu-bundle
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
runpath='$ORIGIN/../lib;/usr/local/cuda/lib64;/usr/local/cuda/lib'

for t in cmake ldd readelf objdump strip tar xz sha256sum "$nvcc"; do
    command -v "$t" >/dev/null || { echo "gpu-bundle: $t not found" >&2; exit 1; }
done

launchers=()
if command -v ccache >/dev/null; then
    launchers=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
echo "gpu-bundle: configuring $bdir (CUDA architectures $archs)" >&2
cmake -S . -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DGENSVD_CUDA=ON -DGENSVD_MPI=OFF \
    -DGENSVD_PNG=OFF -DGENSVD_CURL=OFF -DGENSVD_TESTS=ON "-DCMAKE_CUDA_ARCHITECTURES=$archs" \
    "-DCMAKE_INSTALL_RPATH=$runpath" -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON \
    -DCMAKE_EXE_LINKER_FLAGS=-Wl,--disable-new-dtags \
    -DCMAKE_MODULE_LINKER_FLAGS=-Wl,--disable-new-dtags "${launchers[@]}" \
    >"$bdir.configure.log" 2>&1 || { cat "$bdir.configure.log" >&2; exit 1; }
rm -f "$bdir.configure.log"
echo "gpu-bundle: building gensvd, the CUDA module and the GPU tests" >&2
cmake --build "$bdir" -j"$(nproc)" --target gensvd gensvd_cuda test_backend_cuda \
    test_cuda_module >"$bdir.log" 2>&1 || { tail -50 "$bdir.log" >&2; exit 1; }
rm -f "$bdir.log"
# the same architectures as the module: sm_80 machine code, sm_90 machine code and PTX
gencode=()
IFS=';' read -ra arch_list <<<"$archs"
for a in "${arch_list[@]}"; do
    case "$a" in
    *-real) gencode+=(-gencode "arch=compute_${a%-real},code=sm_${a%-real}") ;;
    *-virtual) gencode+=(-gencode "arch=compute_${a%-virtual},code=compute_${a%-virtual}") ;;
    *) gencode+=(-gencode "arch=compute_$a,code=[sm_$a,compute_$a]") ;;
    esac
done
"$nvcc" -O2 -std=c++17 "${gencode[@]}" bench/gemm_limit_cuda.cu -lcublas \
    -Xlinker --disable-new-dtags -Xlinker "-rpath,${runpath//;/:}" -o "$bdir/gemm_limit_cuda"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/gensvd-bundle/bin" "$stage/gensvd-bundle/lib"
sb=$stage/gensvd-bundle
cp "$bdir/cli/gensvd" "$bdir/cli/gensvd_cuda.so" "$bdir/tests/test_backend_cuda" \
    "$bdir/tests/test_cuda_module" "$bdir/gemm_limit_cuda" "$sb/bin/"
strip --strip-unneeded "$sb"/bin/*

# glibc (the device's own) and CUDA's libraries (the device's toolkit) stay out; everything
# else ldd finds goes into lib/ under the name the programs ask for
is_glibc() {
    case "$1" in
    linux-vdso.so.* | libc.so.* | libm.so.* | libmvec.so.* | libpthread.so.* | libdl.so.* | \
        librt.so.* | ld-linux*.so.*) return 0 ;;
    esac
    return 1
}
is_cuda() {
    case "$1" in
    libcuda.so.* | libcudart.so.* | libcublas.so.* | libcublasLt.so.* | libcusolver.so.* | \
        libcusparse.so.* | libnvJitLink.so.*) return 0 ;;
    esac
    return 1
}
for f in "$sb"/bin/*; do
    ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 } $2 == "=>" && $3 == "not" { print $1, "NOTFOUND" }'
done | sort -u | while read -r name path; do
    is_glibc "$name" && continue
    is_cuda "$name" && continue
    if [ "$path" = NOTFOUND ]; then
        echo "gpu-bundle: $name: not found here" >&2
        exit 1
    fi
    [ -e "$sb/lib/$name" ] || cp -L "$path" "$sb/lib/$name"
done
chmod 0644 "$sb"/lib/*
chmod 0755 "$sb"/bin/*

# the newest glibc symbol version any of it needs (the device's glibc must be at least that)
glibc_min=$(for f in "$sb"/bin/* "$sb"/lib/*; do objdump -T "$f" 2>/dev/null; done |
    grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n -u | tail -1)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo " (with uncommitted changes)" || true)
{
    echo "gensvd GPU bundle, built $(date -u +%Y-%m-%dT%H:%M:%SZ) from $commit$dirty"
    echo "cuda: $("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), architectures $archs"
    echo "glibc: $glibc_min or newer"
    echo "unpacked MiB: $(du -sm "$sb" | cut -f1)"
    (cd "$sb" && find . -type f | sort | while read -r f; do
        g=$(objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' |
            sort -t. -k1,1n -k2,2n -k3,3n -u | tail -1)
        printf '%s\t%s\t%s\t%s\n' "${f#./}" "$(stat -c %s "$f")" \
            "$(sha256sum "$f" | cut -c1-16)" "glibc ${g:--}"
    done)
} >"$stage/MANIFEST.txt"
cp "$stage/MANIFEST.txt" "$sb/MANIFEST.txt"

rm -rf "$out"
mkdir -p "$out"
tar -C "$stage" -cf - gensvd-bundle | xz -9 -T0 >"$out/gensvd-bundle.tar.xz"
cp "$stage/MANIFEST.txt" "$out/MANIFEST.txt"
packed=$(stat -c %s "$out/gensvd-bundle.tar.xz")
unpacked=$(du -sb "$sb" | cut -f1)
echo "gpu-bundle: $out/gensvd-bundle.tar.xz: $((packed / 1048576)) MiB packed," \
    "$((unpacked / 1048576)) MiB unpacked; glibc $glibc_min or newer; commit $commit$dirty"
if [ "$packed" -gt $((max_mib * 1048576)) ]; then
    echo "gpu-bundle: larger than $max_mib MiB: the device call carries 64 MiB with the tree" >&2
    exit 1
fi
