"""ldprune against plink2 --indep-pairwise and related against plink2 --king-cutoff, on a .bed
written from the same store; their results as masks for pca, from a path and a Dataset."""

import numpy as np
import pytest

import gensvd
from conftest import HAPMAP, KHUMAN
from oracles import plink2, write_bed


@pytest.fixture(scope="module")
def beds(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bed")
    return {HAPMAP: write_bed(HAPMAP, tmp / "hapmap3"), KHUMAN: write_bed(KHUMAN, tmp / "khuman")}


@pytest.mark.parametrize("store,window,step,r2", [
    (HAPMAP, "500kb", 1, 0.02), (HAPMAP, 200, 7, 0.02), (KHUMAN, "10kb", 1, 0.2),
    (KHUMAN, 100, 10, 0.5)], ids=["hapmap3-500kb", "hapmap3-200", "khuman-10kb", "khuman-100"])
def test_ldprune_against_plink2(beds, tmp_path, store, window, step, r2):
    bed = beds[store]
    plink2("--bfile", bed, "--indep-pairwise", window, step, r2, "--out", tmp_path / "p",
           "--silent", "--allow-extra-chr")
    want = set((tmp_path / "p.prune.in").read_text().split())
    ids = [line.split()[1] for line in open(f"{bed}.bim")]
    res = gensvd.ldprune(str(store), window=window, step=step, r2=r2)
    keep = res.variant_ld_keep.values
    assert res.variant_ld_keep.dims == ("variants",) and keep.dtype == bool
    assert {ids[i] for i in np.flatnonzero(keep)} == want
    assert res.attrs["n_kept"] == len(want)


@pytest.mark.parametrize("store,variants,chrom,cutoff", [
    (HAPMAP, (0, 14266), "1-22", 0.0884), (KHUMAN, None, None, 0.0884),
    (HAPMAP, (0, 14266), "1-22", 0.177)], ids=["hapmap3", "khuman", "hapmap3-0.177"])
def test_related_against_plink2(beds, tmp_path, store, variants, chrom, cutoff):
    sel = ["--chr", chrom] if chrom else []
    plink2("--bfile", beds[store], *sel, "--king-cutoff", cutoff, "--out", tmp_path / "k")
    want = sorted(line.split("\t")[-1] for line in
                  (tmp_path / "k.king.cutoff.in.id").read_text().strip().split("\n")[1:])
    res = gensvd.related(str(store), king_cutoff=cutoff, variants=variants)
    kept = sorted(res.sample_id.values[res.sample_unrelated.values])
    assert kept == want
    assert res.sample_unrelated.attrs["king_cutoff"] == cutoff


def test_masks_from_results_equal_masks_from_stores(tmp_path, hapmap_ds):
    """README's analysis: prune, remove relatives, PCA on the rest; the results handed over in
    memory give the outputs of the stores written by the same steps."""
    auto = (0, 14266)
    pruned = gensvd.ldprune(str(HAPMAP), window="500kb", r2=0.01, variants=auto,
                            output=tmp_path / "pruned.zarr")
    unrelated = gensvd.related(str(HAPMAP), variants=auto, output=tmp_path / "unrel.zarr")
    assert pruned.attrs["n_removed"] == 3187 and unrelated.attrs["n_removed"] == 70
    kw = dict(n_components=4, variants=auto, command="masks", loadings=True)
    a = gensvd.pca(str(HAPMAP), variant_mask=pruned, sample_mask=unrelated,
                   output=tmp_path / "a.zarr", **kw)
    b = gensvd.pca(str(HAPMAP), variant_mask=str(tmp_path / "pruned.zarr"),
                   sample_mask=str(tmp_path / "unrel.zarr"), **kw)
    c = gensvd.pca(hapmap_ds, variant_mask=pruned.variant_ld_keep.values,
                   sample_mask=unrelated, merge=False, **kw)
    assert a.sizes["samples"] == 887 and a.attrs["M_used"] == b.attrs["M_used"]
    for other in (b, c):
        np.testing.assert_array_equal(a.sample_pca_projection.values,
                                      other.sample_pca_projection.values)
        np.testing.assert_array_equal(a.sample_id.values, other.sample_id.values)
    # merged into the Dataset, the masks are its variables
    merged = gensvd.related(gensvd.ldprune(hapmap_ds, window="500kb", r2=0.01, variants=auto),
                            variants=auto)
    assert {"variant_ld_keep", "sample_unrelated", "call_genotype"} <= set(merged.variables)
    np.testing.assert_array_equal(merged.variant_ld_keep.values, pruned.variant_ld_keep.values)
