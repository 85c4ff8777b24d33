#!/usr/bin/env bash
# The CUDA module's linkage (analysis/backend_internal.h, struct gsvd_backend_host): it exports
# its two entry points only, its undefined symbols are the C/C++ runtime's and CUDA's (none of
# gensvd's, so it never binds to the executable's copies), and the executable exports none.
# Usage: check_cuda_module.sh PATH/gensvd_cuda.so PATH/gensvd
set -u
mod=${1:?usage: check_cuda_module.sh MODULE BINARY}
bin=${2:?usage: check_cuda_module.sh MODULE BINARY}
command -v nm >/dev/null || { echo "nm not found" >&2; exit 2; }
for f in "$mod" "$bin"; do
    [ -f "$f" ] || { echo "$f: not found (build gensvd and gensvd_cuda first)" >&2; exit 2; }
done
fail=0
defined=$(nm -D --defined-only "$mod" | awk '{print $3}' | sort | tr '\n' ' ')
if [ "$defined" != "gsvd_cuda_module_info gsvd_cuda_module_init " ]; then
    echo "FAIL $mod exports: $defined" >&2
    fail=1
fi
# undefined: versioned from glibc, libstdc++, libgcc or a CUDA library, or weak (w)
bad=$(nm -D --undefined-only "$mod" | awk '$1 == "U" { print $2 }' |
    grep -Ev '@(GLIBC|GLIBCXX|CXXABI|GCC)_[0-9.]+$|@lib(cudart|cublas|cublasLt|cusolver)\.so\.[0-9]+$')
if [ -n "$bad" ]; then
    echo "FAIL $mod leaves undefined:" $bad >&2
    fail=1
fi
exported=$(nm -D --defined-only "$bin" | awk '$3 ~ /^gsvd_/ { print $3 }')
if [ -n "$exported" ]; then
    echo "FAIL $bin exports:" $exported >&2
    fail=1
fi
[ "$fail" = 0 ] && echo "check_cuda_module: the module exports 2 entry points and needs no gensvd symbol"
exit "$fail"
