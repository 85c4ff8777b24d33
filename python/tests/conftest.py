"""Shared fixtures and helpers of the Python package's tests.

The oracles are independent of gensvd: numpy's float64 SVD of the standardised matrix
(tests/pca/pca_oracle.py, shared with the command line's tests), scipy's pdist, plink2 (run
here on a .bed written from the same store), sgkit itself, and zarr-python reading the stores.
The ``gensvd`` program (GENSVD_BIN) is used only where the issue asks for its bytes (the same
store from Python as from ``gensvd CMD -o``).
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(os.environ.get("GENSVD_SOURCE_DIR") or pathlib.Path(__file__).parents[2])
TESTDATA = ROOT / "testdata"
HAPMAP = TESTDATA / "realdata" / "hapmap3.vcz"
KHUMAN = TESTDATA / "realdata" / "khuman_chr22.vcz"
HAPMAP_AUTOSOMES = (0, 14266)  # the variants on chromosomes 1-22 (README's analysis)
GENSVD = os.environ.get("GENSVD_BIN") or shutil.which("gensvd")

for sub in ("tests/pca", "tests/pdist"):
    sys.path.insert(0, str(ROOT / sub))


def cli(*args, check=True):
    """Run the gensvd program (stdout)."""
    if not GENSVD:
        pytest.skip("no gensvd program (GENSVD_BIN)")
    r = subprocess.run([GENSVD, *map(str, args)], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"gensvd {' '.join(map(str, args))}: exit {r.returncode}\n"
                             f"{r.stderr[-2000:]}")
    return r.stdout


def _without_command(name, data):
    """A metadata document with the root group's "command" attribute removed."""
    doc = json.loads(data)
    if name == ".zattrs":
        doc.pop("command", None)
    elif name == ".zmetadata":
        doc.get("metadata", {}).get(".zattrs", {}).pop("command", None)
    elif name == "zarr.json":
        doc.get("attributes", {}).pop("command", None)
        for node in doc.get("consolidated_metadata", {}).get("metadata", {}).values():
            node.get("attributes", {}).pop("command", None)
    return json.dumps(doc, sort_keys=True)


def store_files(path, ignore_command=False):
    """{relative path: bytes} of a directory store."""
    path = pathlib.Path(path)
    out = {}
    for f in sorted(path.rglob("*")):
        if f.is_file():
            rel = str(f.relative_to(path))
            data = f.read_bytes()
            if ignore_command and rel in (".zattrs", ".zmetadata", "zarr.json"):
                data = _without_command(rel, data)
            out[rel] = data
    return out


def assert_same_store(a, b, ignore_command=False):
    fa, fb = store_files(a, ignore_command), store_files(b, ignore_command)
    assert sorted(fa) == sorted(fb), f"files differ: {sorted(set(fa) ^ set(fb))[:10]}"
    differ = [k for k in fa if fa[k] != fb[k]]
    assert not differ, f"{a} and {b} differ in {differ[:10]}"


def leftovers(directory, name):
    """Files or directories in `directory` whose name starts with `name` (an output or its
    staging directory)."""
    return [p.name for p in pathlib.Path(directory).iterdir() if p.name.startswith(name)]


@pytest.fixture(scope="session")
def hapmap_path():
    return str(HAPMAP)


@pytest.fixture(scope="session")
def khuman_path():
    return str(KHUMAN)


def load(path):
    """A store as sgkit opens it (dask-backed)."""
    import warnings

    import sgkit

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # no consolidated metadata (bio2zarr)
        return sgkit.load_dataset(str(path))


@pytest.fixture(scope="session")
def hapmap_ds():
    return load(HAPMAP)


@pytest.fixture(scope="session")
def khuman_ds():
    ds = load(KHUMAN)
    # bio2zarr wrote no chunk of this store's variant_contig and call_genotype_mask (all zero
    # or false) with fill_value null, which zarr-python 2 reads as uninitialised memory
    # (testdata/README.md): what they hold
    return ds.assign(variant_contig=ds.variant_contig.copy(data=np.zeros(
        ds.sizes["variants"], dtype=ds.variant_contig.dtype)),
        call_genotype_mask=ds.call_genotype < 0)


def dosages(gt):
    """(dosage float64 with NaN for missing calls, called mask): alleles > 0 counted, a call
    missing when any allele is -1 (the documented rule)."""
    gt = np.asarray(gt)
    called = (gt >= 0).all(axis=-1)
    d = (gt > 0).sum(axis=-1).astype(np.float64)
    d[~called] = np.nan
    return d, called


def sign_align(a, b):
    """b's columns flipped to a's signs."""
    s = np.sign(np.sum(a * b, axis=0))
    s[s == 0] = 1
    return b * s
