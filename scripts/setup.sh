#!/usr/bin/env bash
# Install what gensvd needs on Debian 12 (as root, or with passwordless sudo), then configure
# and build it.  Idempotent and quiet when everything is already there.
#   scripts/setup.sh            build dependencies + Release build in build/
#   scripts/setup.sh --tests    also the test tools: Python venvs (.venv/zarr3, .venv/zarr2,
#                               .venv/net, .venv/python)
#                               with pinned packages, plink1.9, plink2, clang-format,
#                               chromium and xmllint (plot tests), qemu-user (emulated CPUs)
# Environment: GENSVD_BUILD_DIR (default build), GENSVD_CMAKE_ARGS (extra cmake arguments).
set -euo pipefail
cd "$(dirname "$0")/.."
want_tests=0
for a in "$@"; do
    case "$a" in
    --tests) want_tests=1 ;;
    *) echo "usage: scripts/setup.sh [--tests]" >&2; exit 2 ;;
    esac
done

pkgs=(build-essential cmake pkg-config libblosc-dev libzstd-dev zlib1g-dev liblz4-dev
      libcurl4-openssl-dev libssl-dev libcjson-dev libopenblas-dev liblapacke-dev
      libopenmpi-dev openmpi-bin
      librsvg2-dev fonts-dejavu-core) # plot --format png: librsvg + cairo, and a font for text
if [ $want_tests = 1 ]; then
    pkgs+=(python3 python3-venv python3-dev plink1.9 plink2 clang clang-format time
           chromium libxml2-utils zsh # plot tests: headless rendering, xmllint; zsh completion
           dpkg-dev man-db # the .deb: dpkg-shlibdeps for its Depends; man -w in its install test
           abigail-tools # libgensvd's ABI against its baseline (abidiff)
           qemu-user # other CPUs emulated (tests/unit/emulated_cpus.sh; AVX2 since QEMU 7.2)
           python3-mpmath # scripts/detmath_coeffs.py --check (the ctest detmath_coeffs)
           eigensoft=8.0.0+dfsg-1) # smartpca and twstats (pca's oracles), Debian 12's version
fi
missing=()
for p in "${pkgs[@]}"; do # NAME, or NAME=VERSION for a pinned one
    st=$(dpkg-query -W -f='${Status} ${Version}' "${p%%=*}" 2>/dev/null || true)
    case "$st" in
    "install ok installed "*) [ "$p" = "${p%%=*}" ] || [ "${st##* }" = "${p#*=}" ] || missing+=("$p") ;;
    *) missing+=("$p") ;;
    esac
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    echo "setup: installing ${missing[*]}" >&2
    $sudo apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
fi

# Python environments for the interoperability tests and benchmarks (pinned, see tests/).
make_venv() { # name requirements-file
    local dir=.venv/$1 req=$2 stamp
    stamp=$(sha256sum "$req" | cut -c1-16)
    if [ -f "$dir/.stamp" ] && [ "$(cat "$dir/.stamp")" = "$stamp" ]; then
        return
    fi
    echo "setup: creating $dir from $req" >&2
    rm -rf "$dir"
    /usr/bin/python3 -m venv "$dir"
    "$dir/bin/pip" install -q --disable-pip-version-check --no-input -r "$req" >/dev/null
    echo "$stamp" >"$dir/.stamp"
}
if [ $want_tests = 1 ]; then
    make_venv zarr3 tests/requirements-zarr3.txt
    make_venv zarr2 tests/requirements-zarr2.txt
    make_venv net tests/requirements-net.txt # S3/GCS emulators, s3fs (net tests, bench/io)
    make_venv python tests/requirements-python.txt # the Python package: its build, sgkit (tests)
fi

build=${GENSVD_BUILD_DIR:-build}
# shellcheck disable=SC2086
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release ${GENSVD_CMAKE_ARGS:-} >"$build.configure.log" 2>&1 ||
    { cat "$build.configure.log" >&2; exit 1; }
rm -f "$build.configure.log"
cmake --build "$build" -j"$(nproc)" >"$build.log" 2>&1 || { cat "$build.log" >&2; exit 1; }
grep -E "warning:" "$build.log" >&2 || true
rm -f "$build.log"
