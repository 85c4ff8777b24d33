#!/usr/bin/env bash
# The GPU check's bundle (scripts/gpu-bundle.sh) is complete: unpacked anywhere, with an empty
# environment (env -i: no LD_LIBRARY_PATH), ldd resolves every library that its programs and
# its CUDA module need, directly or through other libraries, to the bundle itself, to glibc (libc, libm, libmvec, libpthread, libdl,
# librt, ld-linux) or to CUDA's libraries (the machine's own toolkit), and to nothing else and
# nothing "not found"; its files match the manifest; gensvd starts and loads its CUDA module
# (the "cuda:" line of --version names the build, not a load error), runs a PCA on the CPU,
# and test_cuda_module passes (no GPU needed).  A machine whose toolkit is not where the
# programs' RPATH looks (/usr/local/cuda/lib64, /usr/local/cuda/lib) fails here.
# Usage: test_gpu_bundle.sh BUNDLE_DIR TESTDATA     (BUNDLE_DIR holds gensvd-bundle.tar.xz;
#        exit 77 when it does not: run scripts/gpu-bundle.sh first)
#        test_gpu_bundle.sh --unpacked DIR TESTDATA (DIR is an unpacked gensvd-bundle/:
#        scripts/gpu-check.sh's first step)
set -u
if [ "${1:-}" = --unpacked ]; then
    b=${2:?usage}
    testdata=${3:?usage}
    tmp=""
else
    src=${1:?usage: test_gpu_bundle.sh BUNDLE_DIR TESTDATA}
    testdata=${2:?usage: test_gpu_bundle.sh BUNDLE_DIR TESTDATA}
    if [ ! -f "$src/gensvd-bundle.tar.xz" ]; then
        echo "skipped: no $src/gensvd-bundle.tar.xz (make it with scripts/gpu-bundle.sh)"
        exit 77
    fi
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    tar -C "$tmp" -xJf "$src/gensvd-bundle.tar.xz" || { echo "FAIL cannot unpack"; exit 1; }
    b=$tmp/gensvd-bundle
fi
b=$(cd "$b" && pwd)
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

# the loader's view: ldd, or the loader itself where ldd is missing
lddx() {
    if command -v ldd >/dev/null; then
        env -i "$(command -v ldd)" "$1"
    else
        env -i /lib64/ld-linux-x86-64.so.2 --list "$1"
    fi
}

# files against the manifest (path, size, sha256 prefix)
[ -f "$b/MANIFEST.txt" ] || bad "no MANIFEST.txt"
while IFS=$'\t' read -r path size sum _; do
    case "$path" in bin/* | lib/*) ;; *) continue ;; esac
    if [ ! -f "$b/$path" ]; then
        bad "$path: in the manifest, not in the bundle"
    elif [ "$(stat -c %s "$b/$path")" != "$size" ] ||
        [ "$(sha256sum "$b/$path" | cut -c1-16)" != "$sum" ]; then
        bad "$path: differs from the manifest"
    else
        ok
    fi
done <"$b/MANIFEST.txt"

# the programs and the module: their ldd lists what the loader finds for the whole tree of
# libraries under the programs' RPATH (a library of the bundle alone has none: its own ldd
# would show this machine's copies, which is not what runs)
cuda_seen=""
for f in "$b"/bin/*; do
    [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
    out=$(lddx "$f" 2>&1)
    while read -r line; do
        name=${line%% *}
        case "$line" in
        *"not found"*)
            bad "${f#"$b"/}: $name not found"
            continue
            ;;
        *"=>"*) path=$(echo "$line" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p') ;;
        /*) path=${line%% *} ;;
        linux-vdso* | statically* | "") continue ;;
        *) continue ;;
        esac
        [ -n "$path" ] || continue
        real=$(readlink -f "$path")
        case "$name" in
        linux-vdso.so.* | libc.so.* | libm.so.* | libmvec.so.* | libpthread.so.* | libdl.so.* | \
            librt.so.* | ld-linux*.so.* | /lib*/ld-linux*.so.*)
            case "$real" in "$b"/*) bad "${f#"$b"/}: glibc's $name from the bundle" ;; *) ok ;; esac
            ;;
        libcuda.so.* | libcudart.so.* | libcublas.so.* | libcublasLt.so.* | libcusolver.so.* | \
            libcusparse.so.* | libnvJitLink.so.*)
            case "$real" in
            "$b"/*) bad "${f#"$b"/}: CUDA's $name from the bundle" ;;
            *) ok && cuda_seen=$(dirname "$path") ;;
            esac
            ;;
        *)
            case "$real" in
            "$b"/lib/*) ok ;;
            *) bad "${f#"$b"/}: $name resolves outside the bundle: $path" ;;
            esac
            ;;
        esac
    done <<<"$out"
done
[ -n "$cuda_seen" ] || bad "no program found CUDA's libraries"

# runs with an empty environment
ver=$(env -i "$b/bin/gensvd" --version 2>&1)
if echo "$ver" | grep -q '^cuda: CUDA [0-9]'; then ok; else bad "gensvd --version: $(echo "$ver" | grep '^cuda')"; fi
n=$(env -i "$b/bin/gensvd" pca "$testdata/realdata/hapmap3.vcz" -k 3 --device cpu --format tsv \
    -q --variants 0:3000 2>&1 | grep -c '^NA')
if [ "$n" = 957 ]; then ok; else bad "gensvd pca on the CPU: $n scores, not 957"; fi
out=$(env -i "$b/bin/test_cuda_module" "$b/bin/gensvd_cuda.so" 2>&1)
rc=$?
if [ $rc = 0 ]; then ok; else bad "test_cuda_module exit $rc: $(echo "$out" | tail -3)"; fi

[ "$fail" = 0 ] &&
    echo "test_gpu_bundle: $b: every library from the bundle, glibc or CUDA ($cuda_seen)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
