"""ldprune against plink2 --indep-pairwise and related against plink2 --king-cutoff, on a .bed
written from the same store; their results as masks for pca, from a path and a Dataset."""

import logging

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


@pytest.mark.parametrize("tolerated", [[], ["LowQual"]], ids=["pass", "except-LowQual"])
def test_var_filter_on_a_dataset(khuman_ds, beds, tmp_path, tolerated):
    """var_filter on an sgkit Dataset's variant_filter and filter_id (FILTER values written
    here): ldprune keeps what plink2 --indep-pairwise keeps on the .bed restricted (--extract)
    to the variants whose filters, other than PASS and the tolerated ones, are all unset."""
    n = khuman_ds.sizes["variants"]
    r = np.arange(1, n + 1)
    low, q10 = (r % 5 == 0) | ((r % 5 != 0) & (r % 7 == 0)), (r % 5 != 0) & (r % 7 == 0)
    missing = ~low & (r % 11 == 0)
    vf = np.stack([~low & ~missing, low, q10], axis=1)
    ds = khuman_ds.drop_vars(["variant_filter", "filter_id", "filter_description"]).assign(
        variant_filter=(("variants", "filters"), vf),
        filter_id=(("filters",), np.array(["PASS", "LowQual", "q10"], dtype=object)))
    failing = np.array([f not in ["PASS"] + tolerated for f in ["PASS", "LowQual", "q10"]])
    passing = ~(vf & failing).any(axis=1)
    assert 0 < passing.sum() < n
    bed = beds[KHUMAN]
    ids = [line.split()[1] for line in open(f"{bed}.bim")]
    (tmp_path / "pass.txt").write_text("\n".join(i for i, k in zip(ids, passing) if k) + "\n")
    plink2("--bfile", bed, "--extract", tmp_path / "pass.txt", "--indep-pairwise", 100, 10, 0.5,
           "--out", tmp_path / "p", "--silent", "--allow-extra-chr")
    want = set((tmp_path / "p.prune.in").read_text().split())
    res = gensvd.ldprune(ds, window=100, step=10, r2=0.5, var_filter=tolerated or True,
                         merge=False)
    assert {ids[i] for i in np.flatnonzero(res.variant_ld_keep.values)} == want
    # with a variant range too: both apply
    mask = r <= 2000
    (tmp_path / "pass.txt").write_text(
        "\n".join(i for i, k in zip(ids, passing & mask) if k) + "\n")
    plink2("--bfile", bed, "--extract", tmp_path / "pass.txt", "--indep-pairwise", 100, 10, 0.5,
           "--out", tmp_path / "p", "--silent", "--allow-extra-chr")
    want = set((tmp_path / "p.prune.in").read_text().split())
    res = gensvd.ldprune(ds, window=100, step=10, r2=0.5, var_filter=tolerated or True,
                         variants=(0, 2000), merge=False)
    assert {ids[i] for i in np.flatnonzero(res.variant_ld_keep.values)} == want
    with pytest.raises(TypeError):
        gensvd.ldprune(ds, window=100, r2=0.5, var_filter=3)


@pytest.mark.parametrize("chrom", ["2,4", ["X", 26], range(20, 23)], ids=["str", "list", "range"])
def test_chr_against_plink2(beds, tmp_path, chrom):
    """chr= (--chr) keeps plink2 --chr's variants: HapMap3's contigs are PLINK's numbers (23 is
    X, 26 MT), and a list or range is joined with commas."""
    text = chrom if isinstance(chrom, str) else ",".join(str(c) for c in chrom)
    plink2("--bfile", beds[HAPMAP], "--chr", text, "--indep-pairwise", 50, 5, 0.2, "--out",
           tmp_path / "p", "--silent")
    want = set((tmp_path / "p.prune.in").read_text().split())
    ids = [line.split()[1] for line in open(f"{beds[HAPMAP]}.bim")]
    res = gensvd.ldprune(str(HAPMAP), window=50, step=5, r2=0.2, chr=chrom)
    assert {ids[i] for i in np.flatnonzero(res.variant_ld_keep.values)} == want


@pytest.mark.parametrize("kw,flags", [
    ({"not_chr": ["X", 26]}, ["--not-chr", "X,26"]),
    ({"autosome": True, "not_chr": range(2, 22)}, ["--autosome", "--not-chr", "2-21"]),
    ({"autosome_par": True}, ["--autosome-par"]),
    ({"chr": 6, "from_bp": 25_000_000, "to_bp": 35_000_000},
     ["--chr", "6", "--from-bp", "25000000", "--to-bp", "35000000"])],
    ids=["not_chr", "autosome", "autosome_par", "from_to_bp"])
def test_contigs_against_plink2(beds, tmp_path, kw, flags):
    """not_chr=, autosome=, autosome_par= and from_bp=/to_bp= keep plink2's variants for its
    --not-chr, --autosome, --autosome-par and --chr C --from-bp A --to-bp B."""
    plink2("--bfile", beds[HAPMAP], *flags, "--indep-pairwise", 50, 5, 0.2, "--out",
           tmp_path / "p", "--silent")
    want = set((tmp_path / "p.prune.in").read_text().split())
    ids = [line.split()[1] for line in open(f"{beds[HAPMAP]}.bim")]
    res = gensvd.ldprune(str(HAPMAP), window=50, step=5, r2=0.2, **kw)
    assert {ids[i] for i in np.flatnonzero(res.variant_ld_keep.values)} == want


@pytest.mark.parametrize("midp", [False, True], ids=["p", "midp"])
def test_hwe_against_plink2(beds, tmp_path, midp):
    """hwe= (--hwe) keeps plink2 --hwe's variants on HapMap3 (sexes unknown: X not tested)."""
    plink2("--bfile", beds[HAPMAP], "--hwe", 0.01, *(["midp"] if midp else []),
           "--indep-pairwise", 50, 5, 0.2, "--out", tmp_path / "p", "--silent")
    want = set((tmp_path / "p.prune.in").read_text().split())
    ids = [line.split()[1] for line in open(f"{beds[HAPMAP]}.bim")]
    res = gensvd.ldprune(str(HAPMAP), window=50, step=5, r2=0.2, hwe=0.01, hwe_midp=midp)
    assert {ids[i] for i in np.flatnonzero(res.variant_ld_keep.values)} == want
    pcs = gensvd.pca(str(HAPMAP), n_components=2, hwe=0.01, hwe_midp=midp)
    assert int(pcs.attrs["M_used"]) < len(ids)


def test_mind_against_plink2(beds, tmp_path):
    """mind= (--mind) leaves out plink2 --mind's samples: KING over the rest equals plink2's."""
    plink2("--bfile", beds[HAPMAP], "--mind", 0.004, "--make-king", "square", "bin", "--out",
           tmp_path / "k", "--silent")
    ids = [line.split()[-1] for line in open(tmp_path / "k.king.id")][1:]
    want = np.fromfile(tmp_path / "k.king.bin").reshape(len(ids), len(ids))
    got = gensvd.pdist(str(HAPMAP), "king", mind=0.004)
    assert list(got.samples_0.values) == ids
    assert np.nanmax(np.abs(got.values - want)) <= 1e-12


def test_contig_options_refused():
    """Bad contig options raise before any work, naming the option."""
    with pytest.raises(TypeError, match="from_bp"):
        gensvd.ldprune(str(HAPMAP), window=50, r2=0.2, chr=1, from_bp="5")
    with pytest.raises(gensvd.GensvdError, match="from_bp="):
        gensvd.ldprune(str(HAPMAP), window=50, r2=0.2, chr="1,2", from_bp=5)
    with pytest.raises(gensvd.GensvdError, match="autosome=True"):
        gensvd.ldprune(str(HAPMAP), window=50, r2=0.2, chr=1, autosome=True)
    with pytest.raises(gensvd.UsageError, match="to_bp=3 is below from_bp=9"):
        gensvd.ldprune(str(HAPMAP), window=50, r2=0.2, chr=1, from_bp=9, to_bp=3)
    with pytest.raises(gensvd.UsageError, match="argument mind: 2 is out of range"):
        gensvd.ldprune(str(HAPMAP), window=50, r2=0.2, mind=2)


def test_messages_in_python_words(caplog):
    """The library's messages (errors and log records) name the call's keywords, not the
    command line's options."""
    with caplog.at_level(logging.WARNING, logger="gensvd"):
        gensvd.ldprune(str(HAPMAP), window=50, r2=0.2, chr="22,zz")
    text = " ".join(r.getMessage() for r in caplog.records)
    assert "no variant on the contig 'zz' of chr=" in text and "--" not in text
    with pytest.raises(gensvd.InputError, match="contigs chr='zz'"):
        gensvd.ldprune(str(HAPMAP), window=50, r2=0.2, chr="zz")
    with pytest.raises(gensvd.UsageError, match="argument window is required"):
        gensvd.ldprune(str(HAPMAP))


@pytest.mark.parametrize("given", ["path", "list"])
def test_variant_lists_against_plink2(khuman_ds, beds, tmp_path, given):
    """extract=/exclude= (IDs) and extract_bed=/exclude_range= (ranges) keep what plink2 keeps
    with --extract, --exclude, --extract bed0 and --exclude bed1, on the 1000 Genomes chr22
    Dataset (dense enough that LD pruning keeps a part); given as files or as Python lists.
    Range bounds sit on variant positions, so 0-based and 1-based bounds choose differently."""
    bed = beds[KHUMAN]
    bim = [line.split() for line in open(f"{bed}.bim")]
    ids, pos = [b[1] for b in bim], [int(b[3]) for b in bim]
    some = [ids[i] for i in range(0, len(ids), 3)] + ["rs_not_there"]
    ranges = [("chr22", pos[100], pos[900]), ("22", pos[1500], pos[2500])]
    files = {}
    for name, text in (("ids", "".join(i + "\n" for i in some)),
                       ("ranges", "".join(f"{c}\t{a}\t{b}\n" for c, a, b in ranges))):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text(text)
    # plink2 reads contig "22" (the .bed's); gensvd takes "chr22" and "22" as one contig
    (tmp_path / "p.ranges").write_text("".join(f"22\t{a}\t{b}\n" for _, a, b in ranges))
    for ours, theirs in ((dict(extract="ids"), ["--extract", tmp_path / "ids.txt"]),
                         (dict(exclude="ids", extract_bed="ranges"),
                          ["--exclude", tmp_path / "ids.txt", "--extract", "bed0",
                           tmp_path / "p.ranges"]),
                         (dict(exclude_range="ranges"),
                          ["--exclude", "bed1", tmp_path / "p.ranges"])):
        plink2("--bfile", bed, *theirs, "--indep-pairwise", 100, 10, 0.5, "--out",
               tmp_path / "p", "--silent", "--allow-extra-chr")
        want = set((tmp_path / "p.prune.in").read_text().split())
        kw = {k: (files[v] if given == "path" else some if v == "ids" else ranges)
              for k, v in ours.items()}
        res = gensvd.ldprune(khuman_ds, window=100, step=10, r2=0.5, merge=False, **kw)
        got = {ids[i] for i in np.flatnonzero(res.variant_ld_keep.values)}
        assert got == want and 0 < len(want) < len(ids), (ours, len(got), len(want))
    # IDs as a Dataset holds them (a numpy array, bytes too): what extract= of the same list gives
    sel = khuman_ds.variant_id.values[::3]
    a = gensvd.ldprune(khuman_ds, window=100, step=10, r2=0.5, merge=False, extract=sel)
    b = gensvd.ldprune(khuman_ds, window=100, step=10, r2=0.5, merge=False,
                       extract=np.array([str(i).encode() for i in sel]))
    np.testing.assert_array_equal(a.variant_ld_keep.values, b.variant_ld_keep.values)
    assert a.variant_ld_keep.values.sum() > 0
    with pytest.raises(ValueError):
        gensvd.ldprune(khuman_ds, window=100, r2=0.5, extract=["two words"])
    with pytest.raises(TypeError):
        gensvd.ldprune(khuman_ds, window=100, r2=0.5, extract_range=[("22", 1.5, 9)])
    with pytest.raises(gensvd.GensvdError, match="line 1"):
        gensvd.ldprune(khuman_ds, window=100, r2=0.5, extract_bed=[("22", 9, 9)])


@pytest.mark.parametrize("given", ["path", "list"])
def test_keep_remove_against_plink2(beds, tmp_path, given):
    """keep= and remove= (--keep, --remove) keep plink2's samples: ldprune on the subset keeps
    plink2 --keep --remove --indep-pairwise's variants (the subset's frequencies decide LD), on
    the autosomes (plink2 treats chromosome X by sex, which gensvd does not)."""
    bed = beds[HAPMAP]
    samples = [line.split()[1] for line in open(f"{bed}.fam")]
    keep, remove = samples[:400], samples[::5]
    (tmp_path / "keep.txt").write_text("".join(s + "\n" for s in keep))
    (tmp_path / "remove.txt").write_text("#IID\n" + "".join(s + "\n" for s in remove))
    # plink2 compares the .fam's FIDs (= IIDs here) too: its lists are FID IID pairs
    for name, ids in (("pk.txt", keep), ("pr.txt", remove)):
        (tmp_path / name).write_text("".join(f"{s} {s}\n" for s in ids))
    plink2("--bfile", bed, "--keep", tmp_path / "pk.txt", "--remove", tmp_path / "pr.txt",
           "--chr", "1-22", "--indep-pairwise", 200, 7, 0.02, "--out", tmp_path / "p", "--silent")
    want = set((tmp_path / "p.prune.in").read_text().split())
    kw = (dict(keep=tmp_path / "keep.txt", remove=str(tmp_path / "remove.txt"))
          if given == "path" else dict(keep=keep, remove=np.array(remove)))
    res = gensvd.ldprune(str(HAPMAP), window=200, step=7, r2=0.02, chr="1-22", **kw)
    ids = [line.split()[1] for line in open(f"{bed}.bim")]
    assert {ids[i] for i in np.flatnonzero(res.variant_ld_keep.values)} == want
    with pytest.raises(ValueError):
        gensvd.ldprune(str(HAPMAP), window=50, r2=0.1, keep=["#IID"])


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
