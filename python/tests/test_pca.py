"""pca and project against numpy's float64 SVD (tests/pca/pca_oracle.py builds the standardised
matrix from the store with zarr-python), from every kind of source; the same output bytes from a
path, a numpy-backed and a dask-backed Dataset and the `gensvd pca -o` program; sgkit's layout
and merge=True."""

import json
import re

import numpy as np
import pytest
import xarray as xr

import gensvd
from conftest import HAPMAP, KHUMAN, assert_same_store, cli, dosages, sign_align, store_files
from pca_oracle import Data, Reference

_REFS = {}


def reference(path):
    if path not in _REFS:
        data = Data(str(path))
        _REFS[path] = (data, Reference(data, "patterson", want_v=True))
    return _REFS[path]


def check_against_svd(res, path, k, tol, corr_min, ids=True):
    data, ref = reference(path)
    s = res.sample_pca_singular_value.values
    rel = np.max(np.abs(s - ref.s[:k]) / ref.s[:k])
    assert rel <= tol, f"singular values off by {rel:.3g}"
    if ids:  # (a numpy array has no sample IDs)
        assert list(res.sample_id.values) == data.ids
    scores = ref.U[:, :k] * ref.s[:k]
    proj = res.sample_pca_projection.values
    corr = [abs(np.corrcoef(proj[:, q], scores[:, q])[0, 1]) for q in range(k)]
    assert min(corr) >= corr_min, f"min |corr| {min(corr):.8f}"
    # sgkit's definitions of the variances, from the same SVD
    n = proj.shape[0]
    np.testing.assert_allclose(res.sample_pca_explained_variance.values, ref.s[:k] ** 2 / n,
                               rtol=2 * tol)
    np.testing.assert_allclose(res.sample_pca_explained_variance_ratio.values,
                               ref.s[:k] ** 2 / ref.trace, rtol=2 * tol)


@pytest.mark.parametrize("path", [HAPMAP, KHUMAN], ids=["hapmap3", "khuman"])
def test_exact_from_a_path_against_numpy_svd(path):
    check_against_svd(gensvd.pca(str(path), 8), path, 8, 1e-6, 0.99999)


def test_randomized_against_numpy_svd():
    res = gensvd.pca(str(HAPMAP), 8, method="randomized")
    assert res.attrs["method"] == "randomized"
    check_against_svd(res, HAPMAP, 8, 1e-3, 0.999)


def test_every_source_kind_gives_the_same_pcs(khuman_ds):
    want = gensvd.pca(str(KHUMAN), 4)
    gt = khuman_ds.call_genotype.values  # int8 variants x samples x ploidy
    d, called = dosages(gt)
    sources = {
        "dask Dataset": khuman_ds,
        "numpy Dataset": khuman_ds.load(),
        "numpy int8 genotypes": gt,
        "numpy int16 genotypes, Fortran order": np.asfortranarray(gt.astype(np.int16)),
        "numpy float dosages (NaN missing)": d,
        "numpy int dosages (-1 missing)": np.where(called, d, -1).astype(np.int32),
        "samples x variants float dosages, transpose": (np.ascontiguousarray(d.T), {"transpose": True}),
        "reversed variants": (gt[::-1], {}),
        "DataArray": khuman_ds.call_genotype,
        "dask array": khuman_ds.call_genotype.data,
    }
    for label, src in sources.items():
        src, kw = src if isinstance(src, tuple) else (src, {})
        got = gensvd.pca(src, 4, merge=False, **kw)
        if "float" in label or "reversed" in label:
            # float32 products on float input, or the Gram summed in another variant order:
            # the oracle's tolerances
            check_against_svd(got, KHUMAN, 4, 1e-6, 0.99999, ids=False)
            continue
        np.testing.assert_allclose(got.sample_pca_singular_value, want.sample_pca_singular_value,
                                   rtol=1e-9, err_msg=label)
        np.testing.assert_allclose(
            sign_align(want.sample_pca_projection.values, got.sample_pca_projection.values),
            want.sample_pca_projection.values, rtol=0, atol=1e-9 * 180, err_msg=label)


def test_loadings_and_sgkits_loading():
    res = gensvd.pca(str(KHUMAN), 4, loadings=True)
    _data, ref = reference(KHUMAN)
    comp = res.sample_pca_component.values
    assert res.sample_pca_component.dims == ("variants", "components")
    kept = ~np.isnan(comp[:, 0])
    assert kept.sum() == ref.keep.sum()
    for q in range(4):
        c = abs(np.corrcoef(comp[kept, q], ref.V[:, q])[0, 1])
        assert c >= 0.99999, f"loading {q}: |corr| {c}"
    np.testing.assert_allclose(
        res.sample_pca_loading.values,
        comp * np.sqrt(res.sample_pca_explained_variance.values))


def test_merge_adds_sgkits_variables(khuman_ds):
    merged = gensvd.pca(khuman_ds, 3)  # merge=True, as sgkit's default
    for name in ("call_genotype", "sample_pca_projection", "sample_pca_explained_variance",
                 "sample_pca_explained_variance_ratio"):
        assert name in merged
    assert merged.sample_pca_projection.dims == ("samples", "components")
    assert merged.attrs["gensvd_pca"]["k"] == 3
    assert merged.sample_id.equals(khuman_ds.sample_id)
    alone = gensvd.pca(khuman_ds, 3, merge=False)
    assert "call_genotype" not in alone and alone.attrs["k"] == 3
    with pytest.raises(ValueError, match="merge"):
        gensvd.pca(khuman_ds, 3, samples=list(khuman_ds.sample_id.values[:50]))


def test_smartpca_rows_are_the_eigensoft_files_rows(tmp_path):
    """smartpca_rows=True gives the rows `gensvd pca --eigensoft` writes (smartpca's .evec:
    tests/pca/test_pca_outliers.py and tests/project/test_project_lsq.py hold them against
    smartpca itself), for the fitted samples and, with fit_samples, the others."""
    plain = gensvd.pca(str(HAPMAP), 4)
    assert "smartpca_row" not in plain.variables
    ids = [str(x) for x in plain.sample_id.values]
    fit = tmp_path / "fit.ids"
    fit.write_text("\n".join(ids[::2]) + "\n")
    for extra, cli_extra in [({}, []), ({"fit_samples": str(fit)}, ["--fit-samples", fit])]:
        res = gensvd.pca(str(HAPMAP), 4, smartpca_rows=True, **extra)
        cli("pca", HAPMAP, "-k", "4", "--eigensoft", tmp_path / "g", "--force", *cli_extra)
        rows = [ln.split() for ln in open(tmp_path / "g.evec")][1:]
        assert list(res.smartpca_sample_id.values) == [r[0] for r in rows]
        want = np.array([[float(x) for x in r[1:5]] for r in rows])
        np.testing.assert_allclose(res.smartpca_row.values, want, rtol=0, atol=5.1e-7)
    assert len(res.smartpca_sample_id) == len(ids)


def test_all_eigenvalues_against_numpy_svd():
    """all_eigenvalues=True: every eigenvalue of the Gram (numpy's squared singular values of
    the standardised matrix, zero past its rank), descending, the first k = s^2; an iterative
    method computes k and gives none."""
    data, ref = reference(HAPMAP)
    res = gensvd.pca(str(HAPMAP), 4, all_eigenvalues=True)
    w = res.gram_eigenvalue.values
    want = np.zeros(len(data.ids))
    want[:len(ref.s)] = ref.s ** 2
    assert res.gram_eigenvalue.dims == ("eigenvalues",) and len(w) == len(want)
    assert np.all(np.diff(w) <= 0)
    np.testing.assert_allclose(w, want, rtol=0, atol=1e-6 * want[0])
    np.testing.assert_allclose(w[:4], res.sample_pca_singular_value.values ** 2, rtol=1e-12)
    plain = gensvd.pca(str(HAPMAP), 4, method="randomized", all_eigenvalues=True)
    assert "gram_eigenvalue" not in plain.variables


def test_result_arrays_are_read_only_views():
    res = gensvd.pca(str(KHUMAN), 3)
    a = res.sample_pca_projection.values
    assert not a.flags.writeable and not a.flags.owndata
    with pytest.raises(ValueError):
        a[0, 0] = 1.0


def test_attributes_are_the_programs(tmp_path):
    cli("pca", KHUMAN, "-k", "4", "-o", tmp_path / "cli.zarr", "-q")
    want = json.loads((tmp_path / "cli.zarr" / ".zattrs").read_text())
    got = gensvd.pca(str(KHUMAN), 4).attrs
    want.pop("command")
    assert {k: v for k, v in got.items() if k != "command"} == want


def test_memory_and_store_paths_write_the_same_bytes(tmp_path, khuman_ds, hapmap_ds):
    for path, ds, chunk in [(KHUMAN, khuman_ds, 1000), (HAPMAP, hapmap_ds, 2000)]:
        kw = dict(n_components=4, loadings=True, command="pca test")
        store = tmp_path / f"{path.name}-store.zarr"
        gensvd.pca(str(path), output=store, **kw)
        # the program's output: the same bytes but its command line
        cli("pca", path, "-k", "4", "--loadings", "-o", tmp_path / f"{path.name}-cli.zarr", "-q")
        assert_same_store(store, tmp_path / f"{path.name}-cli.zarr", ignore_command=True)
        # in memory, named as the store and with its chunking: the same bytes
        numpy_ds = ds.load()
        for label, src in [("dask", ds), ("numpy", numpy_ds)]:
            out = tmp_path / f"{path.name}-{label}.zarr"
            gensvd.pca(src, output=out, source_name=str(path), chunk_variants=chunk, **kw)
            assert_same_store(store, out)
        # and written afterwards from the returned Dataset (also merged into the input)
        merged = gensvd.pca(numpy_ds, source_name=str(path), chunk_variants=chunk, **kw)
        gensvd.write(merged, tmp_path / f"{path.name}-written.zarr")
        assert_same_store(store, tmp_path / f"{path.name}-written.zarr")


def test_written_store_is_what_sgkit_and_xarray_read(tmp_path):
    res = gensvd.pca(str(KHUMAN), 3, loadings=True)
    gensvd.write(res, tmp_path / "pcs.zarr")
    back = xr.open_zarr(tmp_path / "pcs.zarr")
    np.testing.assert_array_equal(back.sample_pca_projection.values,
                                  res.sample_pca_projection.values)
    assert back.sample_pca_component.dims == ("variants", "components")
    with pytest.raises(TypeError, match="not a gensvd result"):
        gensvd.write(back, tmp_path / "again.zarr")
    with pytest.raises(gensvd.StoreError, match="exists"):
        gensvd.write(res, tmp_path / "pcs.zarr")
    gensvd.write(res, tmp_path / "pcs.zarr", force=True)
    assert store_files(tmp_path / "pcs.zarr")


def test_project_onto_a_result_and_a_store(tmp_path, khuman_ds):
    fit = khuman_ds.sample_id.values[::2]
    pcs = gensvd.pca(str(KHUMAN), 4, loadings=True, samples=list(fit))
    gensvd.write(pcs, tmp_path / "pcs.zarr")
    a = gensvd.project(str(KHUMAN), pcs)
    b = gensvd.project(khuman_ds, str(tmp_path / "pcs.zarr"), merge=False)
    np.testing.assert_allclose(a.sample_pca_projection.values, b.sample_pca_projection.values,
                               rtol=1e-12, atol=1e-12)
    # the fitted samples land on their pca scores (to the float32 Gram's precision: PC3 and
    # PC4 of these data are close, 87.7 and 83.9)
    idx = [list(a.sample_id.values).index(s) for s in fit]
    got, want = a.sample_pca_projection.values[idx], pcs.sample_pca_projection.values
    assert np.max(np.abs(got - want) / np.abs(want).max(axis=0)) <= 1e-4
    # missing="lsq" (--missing lsq) passes through: least squares, recorded in the attributes
    c = gensvd.project(str(KHUMAN), pcs, missing="lsq", merge=False)
    assert c.attrs["missing"] == "lsq" and np.isfinite(c.sample_pca_projection.values).all()
    with pytest.raises(gensvd.UsageError, match="loadings"):
        gensvd.project(str(KHUMAN), gensvd.pca(str(KHUMAN), 4))


def test_svd_compressed_is_dasks():
    """gensvd.svd_compressed(a, k) returns what dask.array.linalg.svd_compressed(a, k)
    returns, dask arrays u (m, k), s (k), v (k, n) with dask's signs (svd_flip: each row of v
    sums >= 0), against numpy's exact SVD (the oracle) for float (negative values, a constant
    column), integer and dask input; and equals dask's own on a matrix whose top k singular
    values are separated, where dask's iterations converge."""
    import dask.array as da
    from dask.array.utils import svd_flip

    rng = np.random.default_rng(2)
    a = rng.normal(size=(300, 1000)) - 0.2
    a[:, 5] = 2.0
    ai = rng.integers(0, 3, size=(200, 500))
    for name, data, ref, tol in [("float", a, a, 1e-6), ("int", ai, ai.astype(float), 1e-12),
                                 ("dask", da.from_array(a, chunks=(100, 300)), a, 1e-6)]:
        k = 5
        out = gensvd.svd_compressed(data, k)
        assert all(isinstance(x, da.Array) for x in out), name
        u, s, v = (x.compute() for x in out)
        U, S, V = np.linalg.svd(ref, full_matrices=False)
        U, V = svd_flip(U[:, :k], V[:k])
        assert u.shape == (ref.shape[0], k) and s.shape == (k,) and v.shape == (k, ref.shape[1])
        assert np.abs(s - S[:k]).max() <= tol * S[0], name
        assert np.abs(u - U).max() <= 1e3 * tol and np.abs(v - V).max() <= 1e3 * tol, name
    u, s, v = (x.compute() for x in gensvd.svd_compressed(a, 3, coerce_signs=False))
    assert (u[np.abs(u).argmax(axis=0), range(3)] > 0).all()  # gensvd's own sign rule
    # a separated spectrum (rank 4 plus noise): dask's own result, to its accuracy
    low = rng.normal(size=(400, 4)) @ (rng.normal(size=(4, 600)) * [[40], [30], [20], [10]])
    low += rng.normal(size=low.shape)
    got = [x.compute() for x in gensvd.svd_compressed(low, 4)]
    want = [x.compute() for x in da.linalg.svd_compressed(
        da.from_array(low, chunks=(400, 200)), 4, n_power_iter=4, seed=0)]
    assert np.abs(got[1] - want[1]).max() <= 1e-6 * want[1][0]
    assert np.abs(got[0] - want[0]).max() <= 1e-5 and np.abs(got[2] - want[2]).max() <= 1e-5
    with pytest.raises(ValueError, match="two-dimensional"):
        gensvd.svd_compressed(np.zeros((3, 4, 2)), 2)
    # the library's refusals in svd_compressed's words (k, rows), not pca's
    for k, message in [(0, "argument k: invalid value '0'"),
                       (300, "k=300 needs more than 300 rows")]:
        with pytest.raises(gensvd.UsageError, match=re.escape(message)) as e:
            gensvd.svd_compressed(a, k)
        assert "n_components" not in str(e.value) and "samples" not in str(e.value)
    with pytest.raises(gensvd.UsageError, match="argument method") as e:
        gensvd.svd_compressed(a, 3, method="fast")
