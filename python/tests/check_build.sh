#!/usr/bin/env bash
# The package as it is distributed (ctest python_build, labels python and slow): `python -m
# build` makes the sdist, which must carry the library's sources (csrc/), and builds the wheel
# from that sdist alone, libgensvd compiled into it (no pkg-config gensvd); the wheel installed
# into a fresh venv imports, exports only its module's entry point, and its pca of HapMap3 has
# the bytes of `gensvd pca -o` (the recorded command aside).  Exit 77 without .venv/python.
# Usage: check_build.sh SOURCE_DIR BUILD_DIR GENSVD
set -u
. "$(dirname "$0")/../../tests/testlib.sh"
src=$(cd "$1" && pwd) build=$(cd "$2" && pwd) gensvd=$3
base=$src/.venv/python/bin/python
[ -x "$base" ] || { echo ".venv/python not found (scripts/setup.sh --tests): skipped"; exit 77; }
T=$build/python/dist-check
rm -rf "$T"
mkdir -p "$T"
# the bundled library: no installed or build-tree gensvd.pc may be found
env -u PKG_CONFIG_PATH "$base" -m build --no-isolation --outdir "$T/dist" "$src/python" \
    >"$T/build.log" 2>&1
check "python -m build made an sdist and a wheel" test $? = 0
tail -n 20 "$T/build.log" | grep -v '^$' | tail -n 3
sdist=$(ls "$T"/dist/gensvd-*.tar.gz 2>/dev/null) wheel=$(ls "$T"/dist/gensvd-*.whl 2>/dev/null)
listing=$(tar tzf "$sdist" 2>/dev/null)
for f in csrc/CMakeLists.txt csrc/include/gensvd.h csrc/lib/run.c csrc/zarr/store.c \
    csrc/analysis/pca/pca.c ext/module.c pyproject.toml src/gensvd/_api.py; do
    check "the sdist holds $f" grep -qx "gensvd-[0-9.]*/$f" <<<"$listing"
done
check "the wheel was built from the sdist's csrc/" grep -q "building libgensvd from .*/csrc" \
    "$T/build.log"
check "the wheel holds the module, not the C sources" \
    bash -c "unzip -l '$wheel' | grep -q 'gensvd/_gensvd.*\.so' && ! unzip -l '$wheel' | grep -q csrc"
/usr/bin/python3 -m venv "$T/venv"
site=$("$base" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
mine=$("$T/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "import site; site.addsitedir('$site')" >"$mine/_gensvd_test_packages.pth" # numpy, xarray
"$T/venv/bin/python" -m pip install -q --no-deps --no-index --disable-pip-version-check "$wheel"
check "the wheel installs" test $? = 0
so=$(ls "$mine"/gensvd/_gensvd*.so)
check "its module exports PyInit__gensvd alone" test "$(nm -D --defined-only "$so" |
    awk '$2 == "T" {print $3}')" = PyInit__gensvd
hapmap=$src/testdata/realdata/hapmap3.vcz
"$gensvd" pca "$hapmap" -k 6 -o "$T/cli.zarr" -q
(cd "$T" && "$T/venv/bin/python" - "$hapmap" "$T/py.zarr") <<'PY'
import pathlib, sys
import gensvd
assert pathlib.Path(gensvd.__file__).parent.parent.name == "site-packages", gensvd.__file__
assert "https" in gensvd.build_info("stores") and "s3" in gensvd.build_info("stores")
gensvd.pca(sys.argv[1], 6, output=sys.argv[2])
PY
check "the installed wheel runs pca, with the remote stores built in" test $? = 0
check "its output has the program's bytes" same_store "$T/py.zarr" "$T/cli.zarr"
report
