"""pdist against scipy.spatial.distance.pdist for every metric it shares (numpy dosage matrices
handed over in memory), pairwise deletion of missing calls against scipy on each pair's jointly
called sites, and KING against plink2 --make-king on the same genotypes."""

import numpy as np
import pytest
from scipy.spatial.distance import pdist, squareform

import gensvd
from conftest import HAPMAP, KHUMAN, dosages
from oracles import plink2, write_bed

SCIPY = ["euclidean", "sqeuclidean", "cityblock", "minkowski", "chebyshev", "cosine",
         "correlation", "hamming", "jaccard", "braycurtis", "canberra"]
EXACT = ("sqeuclidean", "cityblock", "hamming", "jaccard")  # integer counts, one division


@pytest.fixture(scope="module")
def complete(hapmap_ds):
    """Dosages (variants x samples) of 300 HapMap3 samples at 1,500 sites called in all of
    them, and their IDs."""
    gt = hapmap_ds.call_genotype[:3000, :300].values
    d, called = dosages(gt)
    keep = called.all(axis=1)
    return d[keep][:1500], list(hapmap_ds.sample_id.values[:300])


def tolerance(metric, ref):
    if metric in EXACT:
        return 1e-15 * np.maximum(np.abs(ref), 1)
    return 1e-12 * np.maximum(np.abs(ref), 1)


@pytest.mark.parametrize("metric", SCIPY + ["ibs"])
def test_every_metric_against_scipy(complete, metric):
    d, ids = complete
    kw = {"p": 3} if metric == "minkowski" else {}
    got = gensvd.pdist(d, metric, **kw)
    x = d.T  # samples x variants
    if metric == "ibs":  # PLINK's 1 - IBS: cityblock / (ploidy M)
        ref = squareform(pdist(x, "cityblock")) / (2 * x.shape[1])
    elif metric == "jaccard":  # nonzero as true (scipy 1.15 and later)
        ref = squareform(pdist(x != 0, "jaccard"))
    else:
        ref = squareform(pdist(x, metric, **kw))
    assert got.dims == ("samples_0", "samples_1") and got.shape == ref.shape
    err = np.abs(got.values - ref)
    assert np.all(err <= tolerance(metric, ref)), f"max error {err.max():.3g}"
    assert got.attrs["metric"] == metric and got.attrs["M"] == d.shape[0]


def test_labels_condensed_layout_and_f4(complete, hapmap_ds):
    d, ids = complete
    ds = hapmap_ds.isel(samples=slice(0, 300)).compute()
    square = gensvd.pdist(ds, "euclidean", variants=(0, 3000), merge=False)
    assert list(square.samples_0.values) == ids and list(square.samples_1.values) == ids
    assert square.sel(samples_0=ids[3], samples_1=ids[7]) == square.values[3, 7]
    condensed = gensvd.pdist(ds, "euclidean", variants=(0, 3000), layout="condensed")
    np.testing.assert_array_equal(condensed.values, squareform(square.values, checks=False))
    f4 = gensvd.pdist(ds, "euclidean", variants=(0, 3000), dtype="f4")
    assert f4.dtype == np.float32
    np.testing.assert_allclose(f4.values, square.values, rtol=1e-6)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_output_returned_as_computed(hapmap_ds, tmp_path, zarr_format):
    """With output= the matrix goes to the store band by band and the call returns it from
    there: opened with xarray where it can (Zarr 2 under zarr-python 2), otherwise read back
    through the library (Zarr 3 here), labelled like the in-memory result; each pair against
    numpy on its jointly called sites."""
    ds = hapmap_ds.isel(samples=slice(0, 60)).compute()
    ids = list(ds.sample_id.values)
    out = tmp_path / f"d{zarr_format}.zarr"
    got = gensvd.pdist(ds, "cityblock", variants=(0, 2000), output=out, zarr_format=zarr_format,
                       merge=False)
    assert out.is_dir() and got.dims == ("samples_0", "samples_1")
    assert list(got.samples_0.values) == ids and list(got.samples_1.values) == ids
    assert got.attrs["metric"] == "cityblock" and got.attrs["N"] == 60
    d, called = dosages(ds.call_genotype[:2000].values)
    assert (~called).any()
    x, c, v, n = d.T, called.T, np.asarray(got.values), np.asarray(got.n_sites.values)
    for i in range(60):
        for j in range(i + 1, 60):
            both = c[i] & c[j]
            assert v[i, j] == v[j, i] == np.abs(x[i, both] - x[j, both]).sum()
            assert n[i, j] == both.sum()


def test_missing_calls_pairwise(hapmap_ds):
    """Each pair over the sites called in both (scipy on those sites), n_sites their number."""
    gt = hapmap_ds.call_genotype[:2000, :40].values
    d, called = dosages(gt)
    assert (~called).any()
    got = gensvd.pdist(hapmap_ds.isel(samples=slice(0, 40)), "cityblock", variants=(0, 2000))
    x, c = d.T, called.T
    for i in range(40):
        for j in range(i + 1, 40):
            both = c[i] & c[j]
            ref = np.abs(x[i, both] - x[j, both]).sum()
            assert got.values[i, j] == ref and got.n_sites.values[i, j] == both.sum()


@pytest.mark.parametrize("store,variants,chrom", [(KHUMAN, None, None),
                                                   (HAPMAP, (0, 14266), "1-22")],
                         ids=["khuman", "hapmap3-autosomes"])
def test_king_against_plink2(tmp_path_factory, store, variants, chrom):
    tmp = tmp_path_factory.mktemp("king")
    bed = write_bed(store, tmp / "g")
    sel = ["--chr", chrom] if chrom else []
    plink2("--bfile", bed, *sel, "--make-king", "square", "bin", "--out", tmp / "k")
    pids = [line.split("\t")[-1] for line in (tmp / "k.king.id").read_text().split("\n")[1:]
            if line]
    want = np.fromfile(tmp / "k.king.bin").reshape(len(pids), len(pids))
    got = gensvd.pdist(str(store), "king", variants=variants)
    assert list(got.samples_0.values) == pids
    assert np.nanmax(np.abs(got.values - want)) <= 1e-12
    assert np.all(np.diag(got.values) == 0.5)


def test_king_pairs_in_memory_against_plink2(tmp_path):
    """min_kinship without an output: the kept pairs as a Dataset along "pairs", the same set
    and kinships as plink2 --make-king-table --king-table-filter."""
    bed = write_bed(HAPMAP, tmp_path / "g")
    plink2("--bfile", bed, "--chr", "1-22", "--make-king-table", "--king-table-filter", "0.05",
           "--out", tmp_path / "k")
    lines = (tmp_path / "k.kin0").read_text().splitlines()
    head = lines[0].lstrip("#").split("\t")
    rows = [dict(zip(head, line.split("\t"))) for line in lines[1:]]
    want = {frozenset((r["IID1"], r["IID2"])): float(r["KINSHIP"]) for r in rows}
    got = gensvd.pdist(str(HAPMAP), "king", min_kinship=0.05, variants=(0, 14266))
    ids = got.sample_id.values
    assert got.pair_i.dims == ("pairs",) and got.attrs["n_pairs"] == got.sizes["pairs"]
    pairs = {frozenset((ids[i], ids[j])): k
             for i, j, k in zip(got.pair_i.values, got.pair_j.values, got.kinship.values)}
    assert len(want) > 50 and pairs.keys() == want.keys()
    # plink2 prints the kinship to 6 significant digits
    assert max(abs(pairs[p] - want[p]) / abs(want[p]) for p in want) < 1e-5


def test_sgkit_pairwise_distance_agrees(complete):
    import sgkit

    d, _ids = complete
    for metric in ("euclidean", "correlation"):
        ref = np.asarray(sgkit.pairwise_distance(d.T, metric=metric).compute())
        got = gensvd.pdist(d, metric).values
        # sgkit sums in float64 too: float64 rounding apart
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12, err_msg=metric)


def test_pairwise_distance_is_sgkits(tmp_path):
    """gensvd.pairwise_distance(x, metric) = sgkit.pairwise_distance(x, metric): rows are the
    vectors, negative and NaN values missing (pairs compared where both are present), for
    float, integer (values above any ploidy too) and dask input; the result a dask array."""
    import dask.array as da
    import sgkit
    import xarray as xr

    rng = np.random.default_rng(3)
    x = rng.normal(size=(30, 200))
    x[rng.random(x.shape) < 0.1] = np.nan  # and the negative half: missing for sgkit
    xi = rng.integers(-1, 10, size=(25, 300))
    big = rng.integers(-5, 1000, size=(12, 80))  # above gensvd's ploidies: read as floats
    cases = [("float", x), ("int", xi), ("int > 100", big),
             ("dask", da.from_array(x, chunks=(10, 50))), ("DataArray", xr.DataArray(xi))]
    for name, data in cases:
        for metric in ("euclidean", "correlation"):
            got = gensvd.pairwise_distance(data, metric)
            assert isinstance(got, da.Array), name
            got = got.compute()
            ref = np.asarray(sgkit.pairwise_distance(
                data.data if hasattr(data, "dims") else data, metric=metric).compute())
            assert got.shape == ref.shape == (data.shape[0],) * 2
            np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12,
                                       err_msg=f"{name} {metric}")
    # sgkit's docstring example
    ex = np.array([[6, 4, 1], [4, 5, 2], [9, 7, 3]])
    np.testing.assert_allclose(gensvd.pairwise_distance(ex).compute(),
                               [[0, 2.44948974, 4.69041576], [2.44948974, 0, 5.47722558],
                                [4.69041576, 5.47722558, 0]], atol=1e-8)
    # a pair with no column both rows have: NaN, as sgkit
    gap = np.array([[1.0, np.nan], [np.nan, 2.0], [1.0, 2.0]])
    assert np.isnan(gensvd.pairwise_distance(gap).compute()[0, 1])
    with pytest.raises(ValueError, match="two-dimensional"):
        gensvd.pairwise_distance(np.zeros((2, 3, 4)))
    with pytest.raises(gensvd.UsageError, match="metric"):
        gensvd.pairwise_distance(x, "nope")
