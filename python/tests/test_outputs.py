"""Every analysis writes the program's bytes from every kind of source: a path, a numpy-backed
and a dask-backed Dataset (named as the store, with its chunking), written as it runs
(output=) or afterwards (gensvd.write); against `gensvd CMD -o` (the recorded command aside)."""

import pytest

import gensvd
from conftest import KHUMAN, assert_same_store, cli

CASES = {
    "pdist": (dict(metric="cityblock"), ["-m", "cityblock"]),
    "pdist-king": (dict(metric="king"), ["-m", "king"]),
    "ldprune": (dict(window="10kb", r2=0.2), ["--window", "10kb", "--r2", "0.2"]),
    "related": (dict(king_cutoff=0.0442), ["--king-cutoff", "0.0442"]),
    "pca-randomized": (dict(n_components=3, method="randomized", loadings=True),
                       ["-k", "3", "--method", "randomized", "--loadings"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_outputs_from_every_source(case, tmp_path, khuman_ds):
    kw, args = CASES[case]
    func = getattr(gensvd, case.split("-")[0])
    cli(case.split("-")[0], KHUMAN, *args, "-o", tmp_path / "cli.zarr", "-q")
    kw = dict(kw, command="test")
    func(str(KHUMAN), output=tmp_path / "path.zarr", **kw)
    assert_same_store(tmp_path / "path.zarr", tmp_path / "cli.zarr", ignore_command=True)
    for label, ds in [("dask", khuman_ds), ("numpy", khuman_ds.load())]:
        named = dict(source_name=str(KHUMAN), chunk_variants=1000, merge=False, **kw)
        func(ds, output=tmp_path / f"{label}.zarr", **named)
        assert_same_store(tmp_path / "path.zarr", tmp_path / f"{label}.zarr")
        gensvd.write(func(ds, **named), tmp_path / f"{label}-written.zarr")  # held, then written
        assert_same_store(tmp_path / "path.zarr", tmp_path / f"{label}-written.zarr")
