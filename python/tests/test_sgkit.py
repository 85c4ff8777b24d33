"""sgkit itself as the oracle (sgkit.pca: tsqr, float64, on the same genotypes), and gensvd's
output handed on to sgkit functions that expect its variable names (pc_relate reads
sample_pca_projection)."""

import numpy as np
import pytest

import gensvd
from conftest import sign_align

sgkit = pytest.importorskip("sgkit")


def complete_polymorphic(ds, n_variants=None):
    """The variants called in every sample and not monomorphic (sgkit's pca has no missing
    calls and divides by each variant's spread), rechunked for its tsqr."""
    gt = ds.call_genotype.values
    called = (gt >= 0).all(axis=(1, 2))
    d = (gt > 0).sum(axis=2)
    keep = np.flatnonzero(called & (d.min(axis=1) != d.max(axis=1)))[:n_variants]
    sub = ds.isel(variants=keep)
    return sub.chunk({"variants": 2000, "samples": -1})


@pytest.mark.parametrize("which", ["khuman", "hapmap3"])
def test_pca_agrees_with_sgkit(which, khuman_ds, hapmap_ds):
    ds = complete_polymorphic(khuman_ds if which == "khuman" else hapmap_ds, 6000)
    k = 4
    ref = sgkit.pca(ds, n_components=k, merge=False).compute()
    got = gensvd.pca(ds, k, merge=False)
    # sgkit's definitions: explained variance s^2 / N, its ratio to the total variance
    np.testing.assert_allclose(got.sample_pca_explained_variance.values,
                               ref.sample_pca_explained_variance.values, rtol=1e-6)
    np.testing.assert_allclose(got.sample_pca_explained_variance_ratio.values,
                               ref.sample_pca_explained_variance_ratio.values, rtol=1e-6)
    a = ref.sample_pca_projection.values
    b = sign_align(a, got.sample_pca_projection.values)
    scale = np.abs(a).max(axis=0)
    assert np.max(np.abs(a - b) / scale) <= 1e-4
    got = gensvd.pca(ds, k, merge=False, loadings=True)
    kept = ~np.isnan(got.sample_pca_component.values[:, 0])
    assert kept.all()
    comp = sign_align(ref.sample_pca_component.values, got.sample_pca_component.values)
    assert np.max(np.abs(comp - ref.sample_pca_component.values)) <= 1e-4 * np.abs(
        ref.sample_pca_component.values).max()
    load = sign_align(ref.sample_pca_loading.values, got.sample_pca_loading.values)
    np.testing.assert_allclose(load, ref.sample_pca_loading.values, rtol=0,
                               atol=1e-4 * np.abs(ref.sample_pca_loading.values).max())


def test_output_feeds_sgkit_pc_relate(khuman_ds):
    ds = complete_polymorphic(khuman_ds)
    ours = gensvd.pca(ds, 2)  # merged: the Dataset with sample_pca_projection added
    theirs = sgkit.pca(ds, n_components=2)
    phi_ours = sgkit.pc_relate(ours, maf=0.05, merge=False).pc_relate_phi.values
    phi_theirs = sgkit.pc_relate(theirs, maf=0.05, merge=False).pc_relate_phi.values
    np.testing.assert_allclose(phi_ours, phi_theirs, rtol=0, atol=1e-5)
