"""Helpers for the oracles that run other programs: plink2 on a .bed written from a store
(tests/pca/pca_oracle.py write-bed reproduces the original .bed byte for byte)."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT


def plink2(*args):
    exe = shutil.which("plink2")
    if not exe:
        pytest.skip("plink2 not found (scripts/setup.sh --tests)")
    r = subprocess.run([exe, *map(str, args), "--threads", "2"], capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(f"plink2 {' '.join(map(str, args))}: exit {r.returncode}\n"
                             f"{r.stdout[-1500:]}")
    return r.stdout


def write_bed(store, prefix):
    """A .bed/.bim/.fam of the store's genotypes (once per prefix)."""
    # zarr-python 3 (the command line's test venv): zarr 2 reads the chunks bio2zarr left out
    # of khuman's variant_contig as uninitialised memory
    py = ROOT / ".venv" / "zarr3" / "bin" / "python"
    if not os.path.exists(f"{prefix}.bed"):
        subprocess.run([str(py) if py.exists() else sys.executable,
                        str(ROOT / "tests" / "pca" / "pca_oracle.py"),
                        "write-bed", str(store), str(prefix)], check=True, capture_output=True)
    return prefix
