#!/usr/bin/env bash
# The CUDA module's linkage (analysis/backend_internal.h, struct gsvd_backend_host): it exports
# its two entry points only, its undefined symbols are the C/C++ runtime's and CUDA's (none of
# gensvd's, so it never binds to the executable's copies), the executable exports none, and
# the module's RUNPATH finds the CUDA libraries it needs (no ld.so.conf entry required).
# Usage: check_cuda_module.sh PATH/gensvd_cuda.so PATH/gensvd
set -u
mod=${1:?usage: check_cuda_module.sh MODULE BINARY}
bin=${2:?usage: check_cuda_module.sh MODULE BINARY}
for t in nm readelf; do command -v $t >/dev/null || { echo "$t not found" >&2; exit 2; }; done
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
# the CUDA libraries it needs are found through its own RUNPATH, which the loader searches
# before ld.so.conf: a machine whose ld.so.conf does not name the toolkit still loads it
moddir=$(cd "$(dirname "$mod")" && pwd)
runpath=$(readelf -d "$mod" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]$/\1/p')
for lib in $(readelf -d "$mod" | sed -n 's/.*(NEEDED).*\[\(libcu[a-z]*\.so[.0-9]*\)\]$/\1/p'); do
    found=""
    IFS=: read -ra dirs <<<"$runpath"
    for d in "${dirs[@]}"; do
        d=${d//\$ORIGIN/$moddir}
        [ -n "$d" ] && [ -e "$d/$lib" ] && { found=$d; break; }
    done
    if [ -z "$found" ]; then
        echo "FAIL $mod: $lib is in no folder of its RUNPATH ($runpath)" >&2
        fail=1
    fi
done
[ -n "$runpath" ] && case ":$runpath:" in
*::*) echo "FAIL $mod: an empty RUNPATH entry (the working directory): $runpath" >&2; fail=1 ;;
esac
exported=$(nm -D --defined-only "$bin" | awk '$3 ~ /^gsvd_/ { print $3 }')
if [ -n "$exported" ]; then
    echo "FAIL $bin exports:" $exported >&2
    fail=1
fi
[ "$fail" = 0 ] && echo "check_cuda_module: the module exports 2 entry points, needs no gensvd symbol and finds CUDA by its RUNPATH ($runpath)"
exit "$fail"
