"""gensvd: PCA, pairwise distances, LD pruning, kinship and unrelated sets, and projection of
genotype data, from Zarr stores (VCF-Zarr, local or remote), xarray Datasets in sgkit's layout
and numpy or dask arrays; results as xarray Datasets with sgkit's variable names.

    >>> import gensvd
    >>> pcs = gensvd.pca("cohort.vcz", n_components=10)
    >>> pcs.sample_pca_projection

The functions mirror the commands of the ``gensvd`` program (``man gensvd-pca``): the keyword
arguments are its options, with ``-`` written ``_``, and the same defaults.
``gensvd.pairwise_distance`` and ``gensvd.svd_compressed`` take the calls of
``sgkit.pairwise_distance`` and ``dask.array.linalg.svd_compressed`` as they are.
"""

import importlib.util as _ilu
import os as _os

from . import _blas

_spec = _ilu.find_spec("gensvd._gensvd")
_fix = _blas.prepare(_spec.origin if _spec else None)
try:
    from . import _gensvd  # loads libgensvd and OpenBLAS
finally:
    if _fix:
        _os.environ.pop("OPENBLAS_CORETYPE", None)

from ._gensvd import (  # noqa: E402
    CancelledError,
    CapabilityError,
    GensvdError,
    InputError,
    OutOfMemoryError,
    StoreError,
    UsageError,
)
from ._api import (  # noqa: E402
    build_info,
    ldprune,
    open_info,
    pca,
    pdist,
    project,
    read,
    related,
    simulate,
    write,
)
from ._results import Result  # noqa: E402
from ._sgkit import pairwise_distance, svd_compressed  # noqa: E402

__version__ = _gensvd.version()[0]

__all__ = [
    "CancelledError",
    "CapabilityError",
    "GensvdError",
    "InputError",
    "OutOfMemoryError",
    "Result",
    "StoreError",
    "UsageError",
    "build_info",
    "ldprune",
    "open_info",
    "pairwise_distance",
    "pca",
    "pdist",
    "project",
    "read",
    "related",
    "simulate",
    "svd_compressed",
    "write",
]
