#!/usr/bin/env bash
# The Python package's tests (ctest label python): build the package against this build tree's
# library (pkg-config: BUILD/lib/pkgconfig, so the extension links BUILD's libgensvd.so), install
# it into a venv in the build tree (BUILD/python/venv, which sees the pinned test packages of
# .venv/python: sgkit, xarray, dask, scipy, pytest, scikit-build-core), then run pytest on
# python/tests (docs/python.md's code blocks included).  Exit 77 (skipped) without .venv/python
# (scripts/setup.sh --tests).
# Usage: run_pytest.sh SOURCE_DIR BUILD_DIR GENSVD [PYTEST_ARGS...]
set -euo pipefail
src=$(cd "$1" && pwd) build=$(cd "$2" && pwd) gensvd=$3
shift 3
base=$src/.venv/python/bin/python
[ -x "$base" ] || { echo ".venv/python not found (scripts/setup.sh --tests): skipped"; exit 77; }
venv=$build/python/venv
if [ ! -x "$venv/bin/python" ]; then
    /usr/bin/python3 -m venv "$venv"
fi
# the test packages: .venv/python's site-packages on the path (with their .pth files)
site=$("$base" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
mine=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "import site; site.addsitedir('$site')" >"$mine/_gensvd_test_packages.pth"
PKG_CONFIG_PATH=$build/lib/pkgconfig "$venv/bin/python" -m pip install -q --no-input \
    --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall \
    --config-settings=build-dir="$build/python/build" "$src/python"
cd "$build/python"
export GENSVD_BIN=$gensvd GENSVD_SOURCE_DIR=$src TMPDIR=$build/python
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$src/python/tests" "$@"
