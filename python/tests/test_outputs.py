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


def test_selection_keywords_are_the_programs(tmp_path, khuman_ds):
    """samples= (a file as the program reads it, or a list), variants= (a tuple, a slice, or
    the program's A:B), maf= and a mask from memory select what the program's options do."""
    ids = [str(s) for s in khuman_ds.sample_id.values[10:150:3]]
    (tmp_path / "ids.txt").write_text("# kept\n" + "\n".join(ids) + "\n\n")
    keep = (tmp_path / "keep.zarr")
    gensvd.ldprune(str(KHUMAN), window=50, r2=0.3, output=keep)
    cli("pca", KHUMAN, "-k", "3", "--samples", tmp_path / "ids.txt", "--variants", "100:3000",
        "--maf", "0.05", "--variant-mask", keep, "-o", tmp_path / "cli.zarr", "-q")
    mask = gensvd.read(str(keep), "variant_ld_keep").values
    for label, kw in [("file", dict(samples=tmp_path / "ids.txt", variants="100:3000",
                                    variant_mask=str(keep))),
                      ("list", dict(samples=ids, variants=(100, 3000), variant_mask=mask)),
                      ("slice", dict(samples=ids, variants=slice(100, 3000),
                                     variant_mask=list(mask)))]:
        gensvd.pca(str(KHUMAN), 3, maf=0.05, output=tmp_path / f"{label}.zarr", **kw)
        assert_same_store(tmp_path / f"{label}.zarr", tmp_path / "cli.zarr", ignore_command=True)
