"""What the Gram-kernel tests (test_pca_gram_amx.py, test_pca_gram_i8.py) share: running gensvd,
its TSV scores, and the float64 numpy oracle's singular values (pca_oracle.py reference)."""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from checklib import on_cpu  # noqa: E402

REAL = os.path.join(HERE, "..", "..", "testdata", "realdata")
ORACLE = os.path.join(HERE, "pca_oracle.py")


def run(args):
    return subprocess.run(on_cpu(args), capture_output=True, text=True)


def scores(g, store, *extra, method="exact"):
    """gensvd pca -k 10 --format tsv: the text and the n x 10 score matrix."""
    p = run([g, "pca", store, "-m", method, "-k", "10", "--format", "tsv", "-q"] + list(extra))
    if p.returncode != 0:
        raise RuntimeError(f"gensvd pca {store} {extra}: exit {p.returncode}: {p.stderr}")
    rows = [line.split("\t") for line in p.stdout.splitlines()[1:]]
    return p.stdout, np.array([[float(x) for x in r[1:]] for r in rows])


def oracle_s(store):
    """The top-10 singular values of the standardised matrix, numpy float64."""
    p = run([sys.executable, ORACLE, "reference", store, "-k", "10"])
    if p.returncode != 0:
        raise RuntimeError(f"oracle {store}: {p.stderr}")
    fields = dict(line.split("\t", 1) for line in p.stdout.splitlines() if "\t" in line)
    return np.array([float(fields[f"s{i}"]) for i in range(1, 11)])
