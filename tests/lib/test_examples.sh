#!/usr/bin/env bash
# The examples of examples/ are documentation that runs: each on testdata, its outputs against
# the command line's (the same bytes, the recorded command aside); and one of them built as a
# user would, with the compiler and the build tree's gensvd.pc (pkg-config).
# OpenBLAS runs the kernels the gensvd binary picks (see test_lib_stores.sh).
# Usage: test_examples.sh GENSVD EXAMPLES_DIR TESTDATA SOURCE_DIR BUILD_DIR
set -u
. "$(dirname "$0")/../testlib.sh"
G=$1 E=$2 D=$3 SRC=$4 B=$5
H=$D/realdata/hapmap3.vcz
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
core=$("$G" --version | sed -n 's/^blas: OpenBLAS, \([A-Za-z0-9]*\) kernels.*/\1/p')
[ -n "$core" ] && export OPENBLAS_CORETYPE=$core
same_output() { # the same bytes, the recorded command aside
    local f
    diff -r -x .zattrs -x .zmetadata -x zarr.json "$1" "$2" >/dev/null || return 1
    for f in $(cd "$1" && find . -name .zattrs -o -name .zmetadata -o -name zarr.json); do
        diff <(grep -v '"command"' "$1/$f") <(grep -v '"command"' "$2/$f") >/dev/null || return 1
    done
}

# pca_store
check "pca_store runs" "$E/pca_store" "$H" "$T/pca" 5 >"$T/pca.txt"
check "pca_store prints 5 singular values" test "$(grep -c '^PC' "$T/pca.txt")" = 5
"$G" pca -k 5 -o "$T/pca-cli" "$H" 2>/dev/null
check "pca_store writes what gensvd pca writes" same_output "$T/pca-cli" "$T/pca"

# pdist_memory
check "pdist_memory runs" "$E/pdist_memory" "$H" "$T/pd" ibs
"$G" pdist -m ibs -o "$T/pd-cli" "$H" 2>/dev/null
check "pdist_memory writes what gensvd pdist writes" same_output "$T/pd-cli" "$T/pd"

# workflow
mkdir "$T/wf" "$T/wf-cli"
check "workflow runs" "$E/workflow" "$H" "$T/wf" >"$T/wf.txt"
C=$T/wf-cli
"$G" ldprune --r2 0.2 --window 500kb -o "$C/ldprune.zarr" "$H" 2>/dev/null
"$G" related -o "$C/related.zarr" "$H" 2>/dev/null
"$G" pca -k 10 --loadings --variant-mask "$C/ldprune.zarr" --sample-mask "$C/related.zarr" \
    -o "$C/pca.zarr" "$H" 2>/dev/null
"$G" project --pcs "$T/wf/pca.zarr" -o "$C/project.zarr" "$H" 2>/dev/null
for s in ldprune related pca project; do
    check "workflow's $s.zarr is what gensvd $s writes" same_output "$C/$s.zarr" "$T/wf/$s.zarr"
done

# built as a user builds it: cc and the build tree's gensvd.pc
if command -v cc >/dev/null && command -v pkg-config >/dev/null; then
    flags=$(PKG_CONFIG_PATH=$B/lib/pkgconfig pkg-config --cflags --libs gensvd)
    # a sanitizer build's library needs its runtime first: the program is built with it too
    ldd "$B/lib/libgensvd.so" | grep -q libasan && flags="-fsanitize=address,undefined $flags"
    check "pca_store builds with pkg-config's flags ($flags)" \
        cc -std=c11 -Wall -Wextra -Werror -o "$T/pca_store" "$SRC/examples/pca_store.c" $flags \
        -Wl,-rpath,"$B/lib"
    check "that build runs" "$T/pca_store" "$H" "$T/pca2" 5 >/dev/null
    check "and writes the same" same_output "$T/pca" "$T/pca2"
fi
report
