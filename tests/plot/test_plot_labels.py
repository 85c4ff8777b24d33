"""gensvd plot: labels and their colours, checked on the rendered PNG and against files and
stores written here by Python.

Usage: test_plot_labels.py GENSVD.  Exit 77 (skipped) without zarr-python.  No browser: the
pictures are `--format png` decoded by plotcheck.read_png; the geometry comes from the SVG of the
same command (plot/pca_plot.h) and the PCs read with zarr-python.  Checked:
- HapMap3's 11 populations get 11 distinct marker colours: every pixel that a population's
  marker covers whole and last (the data mapped through the documented transform, drawn in the
  documented order) has one colour per population, pairwise CIEDE2000 >= 15, equal to the
  legend's;
- the first 8 label colours, read from the PNG, stay pairwise CIEDE2000 >= 10 under the
  protanopia, deuteranopia and tritanopia simulations of Machado et al. (tests/plot/
  colourcheck.py, the matrices written out); with 25 labels the first 20 colours are pairwise
  >= 20 apart, labels 21-25 reuse colours 1-5 with another marker shape, and plot warns;
- a labels file that matches only some samples (HapMap3's FID column: 444 of 957 go grey)
  warns with the counts and the first unmatched IDs, computed here; plink's FID/IID layout
  matches by IID, or by FID_IID for a store named as plink 1.9 names VCF samples; a file without
  a header row loses no sample; an array whose sample_id names none of the samples is an error;
  a sample given two labels is warned about (the last row's drawn), one listed twice alike not;
- integer label arrays: labels in numeric order (2 before 10), counts as in the array;
- --pcs beyond the stored components fails before the labels are read."""
import os
import re
import sys
import tempfile

try:
    import numpy as np
    import zarr
except ImportError:
    print("skipped: zarr-python 3 / numpy missing (scripts/setup.sh --tests)")
    sys.exit(77)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import colourcheck as cc  # noqa: E402
import plotcheck as pc  # noqa: E402
import test_plot_pca as tpca  # noqa: E402

SHOW = 5  # plot/labels.c lists the first 5 unmatched IDs


def read_pop_rows():
    rows = [line.rstrip("\n").split("\t") for line in open(pc.HAPMAP_POPS)]
    return rows[0], rows[1:]


def plot(gensvd, args, out, expect=0):
    p = pc.run([gensvd, "plot", *args, "-o", out], expect=expect)
    return p


def beyond_summary(stderr):
    """stderr without plot's summary line ("gensvd plot: wrote OUT in 0.1 s"): what it warned."""
    return "".join(line for line in stderr.splitlines(keepends=True)
                   if not re.fullmatch(r"gensvd plot: wrote .* in .*\n?", line))


def legend_counts(svg):
    if not os.path.exists(svg):
        return []
    root = pc.ET.parse(svg).getroot()
    return [(lab, int(re.search(r"\((\d+)\)$", t).group(1))) for lab, _, _, t in pc.legend(root)]


def marker_centres(root, proj, qx=0, qy=1):
    """Pixel centres of the samples in the first panel (plot/pca_plot.h's transform)."""
    x, y, w, h = pc.rect_of(next(pc.elements(root, "rect", "frame")))
    ud, vd = tpca.domain(proj[:, qx]), tpca.domain(proj[:, qy])
    px = x + w * (proj[:, qx] - ud[0]) / (ud[1] - ud[0])
    py = y + h * (1 - (proj[:, qy] - vd[0]) / (vd[1] - vd[0]))
    return px, py


def top_owner(root, proj, group, shape):
    """Which label's marker shows, whole, at each pixel of the first panel: the samples drawn in
    the documented order (label by label, each in sample order; pca_plot.h) as discs of the
    marker radius.  A pixel whose last-drawn marker covers it entirely (centre within r - 1)
    gets that sample's label, one that the last marker touching it only grazes -2, others -1."""
    r = next(float(g.get("stroke-width")) / 2 for g in root.iter()
             if g.get("class") == "label" and g.get("stroke-width"))  # circles: the round cap
    px, py = marker_centres(root, proj)
    owner = np.full(shape, -1, dtype=int)
    k = int(np.ceil(r)) + 2
    oy, ox = np.mgrid[-k:k + 1, -k:k + 1]
    for i in sorted(range(len(group)), key=lambda i: (group[i], i)):
        gx, gy = int(px[i]) + ox, int(py[i]) + oy
        d = np.hypot(gx + 0.5 - px[i], gy + 0.5 - py[i])
        touch = d < r + 1
        owner[gy[touch], gx[touch]] = np.where(d[touch] < r - 1, group[i], -2)
    return owner


def check_distinct(gensvd, tmp, pcs, proj, pop):
    """One colour per population where its markers show whole; 11 distinct."""
    svg, png = os.path.join(tmp, "all.svg"), os.path.join(tmp, "all.png")
    p = plot(gensvd, ["pca", pcs, "--color-by", pc.HAPMAP_POPS], svg)
    q = plot(gensvd, ["pca", pcs, "--color-by", pc.HAPMAP_POPS], png)
    pc.check("11 populations: exit", p.returncode == 0 and q.returncode == 0, p.stderr + q.stderr)
    pc.check("11 populations: no warning", beyond_summary(p.stderr) == "", p.stderr)
    root = pc.ET.parse(svg).getroot()
    img = pc.read_png(png)
    pops = sorted(set(pop))
    owner = top_owner(root, proj, [pops.index(s) for s in pop], img.shape[:2])
    colour_of = {}
    for k, name in enumerate(pops):
        ys, xs = np.nonzero(owner == k)
        if len(xs) < 5:
            pc.check(f"{name}: pixels where its markers are on top", False, str(len(xs)))
            continue
        values, counts = np.unique(img[ys, xs], axis=0, return_counts=True)
        top = tuple(int(v) for v in values[np.argmax(counts)])
        share = counts.max() / len(xs)
        pc.check(f"{name}: one marker colour", share >= 0.95,
                 f"{share:.3f} of {len(xs)} pixels are {top}: {values.tolist()[:5]}")
        colour_of[name] = top
    cols = [colour_of[n] for n in pops if n in colour_of]
    pc.check("11 distinct marker colours", len(set(cols)) == 11, str(colour_of))
    d, pair = cc.min_pair(cols)
    pc.check("marker colours pairwise CIEDE2000 >= 15", d >= 15,
             f"{d:.1f} between {[pops[k] for k in pair]}")
    for name, x, y, _ in pc.legend(root):
        got = tuple(int(v) for v in img[int(y), int(x)])
        pc.check(f"{name}: legend colour = marker colour", got == colour_of.get(name),
                 f"{got} vs {colour_of.get(name)}")
    # the first 8 labels (legend order) under colour-vision deficiency
    first8 = [img[int(y), int(x)] for _, x, y, _ in pc.legend(root)[:8]]
    for what, m in (("protanopia", cc.PROTANOPIA), ("deuteranopia", cc.DEUTERANOPIA),
                    ("tritanopia", cc.TRITANOPIA)):
        d, pair = cc.min_pair(first8, m)
        pc.check(f"first 8 colours apart under {what}", d >= 10, f"{d:.1f} for {pair}")


def check_many(gensvd, tmp):
    """25 labels: 20 colours, then shapes, and a warning."""
    n = 250
    store = os.path.join(tmp, "many.zarr")
    g = zarr.open_group(store, mode="w", zarr_format=2)
    rng = np.random.default_rng(3)
    proj = np.zeros((n, 2))
    lab = np.arange(n) % 25
    proj[:, 0] = np.cos(lab / 25 * 2 * np.pi) * 10 + rng.normal(0, 0.3, n)
    proj[:, 1] = np.sin(lab / 25 * 2 * np.pi) * 10 + rng.normal(0, 0.3, n)
    g.create_array("sample_pca_projection", data=proj)
    g.create_array("sample_pca_explained_variance_ratio", data=np.array([0.5, 0.3]))
    g.create_array("sample_id", data=np.array([f"s{i}" for i in range(n)]))
    g.create_array("group", data=np.array([f"g{k:02d}" for k in lab]))
    svg, png = os.path.join(tmp, "many.svg"), os.path.join(tmp, "many.png")
    p = plot(gensvd, ["pca", store, "--color-by", "group"], svg)
    q = plot(gensvd, ["pca", store, "--color-by", "group"], png)
    pc.check("25 labels: exit", p.returncode == 0 and q.returncode == 0, p.stderr + q.stderr)
    pc.check("25 labels: warning", "25 labels" in p.stderr and "shape" in p.stderr, p.stderr)
    root = pc.ET.parse(svg).getroot()
    img = pc.read_png(png)
    leg = pc.legend(root)
    cols = [tuple(int(v) for v in img[int(y), int(x)]) for _, x, y, _ in leg]
    d, pair = cc.min_pair(cols[:20])
    pc.check("20 colours pairwise CIEDE2000 >= 20", d >= 20, f"{d:.1f} for {pair}")
    shapes = [re.match(r"M[-\d.]+ [-\d.]+(.*)", g.find(pc.SVG_NS + "path").get("d")).group(1)
              for g in pc.elements(root, "g", "legend-item")]
    for k in range(20, 25):
        pc.check(f"label {k + 1}: colour of label {k - 19}", cols[k] == cols[k - 20],
                 f"{cols[k]} vs {cols[k - 20]}")
    pc.check("labels 21-25: another marker shape", all(
        not shapes[k].startswith("h0") and shapes[k - 20].startswith("h0")
        for k in range(20, 25)), str(shapes))
    # the heatmap's bands repeat colours: it says so too
    d = os.path.join(tmp, "many_d.zarr")
    g = zarr.open_group(d, mode="w", zarr_format=2)
    g.create_array("distance", data=np.abs(proj[:, None, 0] - proj[None, :, 0]))
    g.create_array("sample_id", data=np.array([f"s{i}" for i in range(n)]))
    p = plot(gensvd, ["pdist", d, "--color-by", store + "/group"], os.path.join(tmp, "h.svg"))
    pc.check("25 labels, pdist: warning", p.returncode == 0 and "25 labels" in p.stderr,
             p.stderr)


def check_partial(gensvd, tmp, pcs, ids):
    """FID only: 444 of 957 have no row; the message gives the counts and the first IDs."""
    header, rows = read_pop_rows()
    fid_tsv = os.path.join(tmp, "fid.tsv")
    with open(fid_tsv, "w") as f:
        f.write("FID\tpopulation\n")
        for r in rows:
            f.write(f"{r[0]}\t{r[2]}\n")
    fids = {r[0] for r in rows}
    missing = [s for s in ids if s not in fids]
    svg = os.path.join(tmp, "fid.svg")
    p = plot(gensvd, ["pca", pcs, "--color-by", fid_tsv], svg)
    want = f"{len(missing)} of the {len(ids)} plotted samples"
    pc.check("FID column: 444 missing", len(missing) == 444, str(len(missing)))
    pc.check("FID column: warning with counts", p.returncode == 0 and want in p.stderr,
             p.stderr)
    pc.check("FID column: first unmatched IDs", ", ".join(missing[:SHOW]) + ", ..." in p.stderr,
             f"{missing[:SHOW]} in {p.stderr}")
    pc.check("FID column: names the column and says family IDs",
             "'FID'" in p.stderr and "family ID" in p.stderr, p.stderr)
    counts = dict(legend_counts(svg))
    pc.check("FID column: legend says 444 unlabelled", counts.get("") == 444, str(counts))


def check_layouts(gensvd, tmp, pcs, ids, proj):
    """plink's FID/IID: by IID, or FID_IID; no header row; counts equal the file's."""
    header, rows = read_pop_rows()
    pop_of = {r[1]: r[2] for r in rows}
    fid_of = {r[1]: r[0] for r in rows}
    want = {}
    for s in ids:
        want[pop_of[s]] = want.get(pop_of[s], 0) + 1
    want = sorted(want.items())
    # the file as it is: FID, IID, population
    svg = os.path.join(tmp, "iid.svg")
    p = pc.run([gensvd, "plot", "pca", pcs, "--color-by", pc.HAPMAP_POPS, "-o", svg, "-v"])
    pc.check("FID/IID: by IID", p.returncode == 0 and "matched by column 'IID'" in p.stderr,
             p.stderr)
    pc.check("FID/IID: counts", sorted(legend_counts(svg)) == want, str(legend_counts(svg)))
    # a store whose samples are FID_IID (plink 1.9 --recode vcf)
    joined = os.path.join(tmp, "joined.zarr")
    g = zarr.open_group(joined, mode="w", zarr_format=2)
    g.create_array("sample_pca_projection", data=proj)
    src = zarr.open_group(pcs, mode="r")
    g.create_array("sample_pca_explained_variance_ratio",
                   data=src["sample_pca_explained_variance_ratio"][:])
    g.create_array("sample_id", data=np.array([f"{fid_of[s]}_{s}" for s in ids]))
    svg = os.path.join(tmp, "joined.svg")
    p = pc.run([gensvd, "plot", "pca", joined, "--color-by", pc.HAPMAP_POPS, "-o", svg, "-v"])
    pc.check("FID_IID: matched", p.returncode == 0 and "FID_IID" in p.stderr and
             "warn" not in p.stderr.lower(), p.stderr)
    pc.check("FID_IID: counts", sorted(legend_counts(svg)) == want, str(legend_counts(svg)))
    # no header row, as plink writes cluster files
    bare = os.path.join(tmp, "bare.tsv")
    with open(bare, "w") as f:
        for r in rows:
            f.write("\t".join(r) + "\n")
    svg = os.path.join(tmp, "bare.svg")
    p = pc.run([gensvd, "plot", "pca", pcs, "--color-by", bare, "-o", svg, "-v"])
    pc.check("no header: read whole", p.returncode == 0 and "no header row" in p.stderr,
             p.stderr)
    pc.check("no header: counts", sorted(legend_counts(svg)) == want, str(legend_counts(svg)))
    p = pc.run([gensvd, "plot", "pca", pcs, "--color-by", bare, "--label-column", "pop", "-o",
                svg], expect=1)
    pc.check("no header: --label-column refused", p.returncode == 1 and bare in p.stderr and
             "header" in p.stderr, p.stderr)
    # a sample listed twice: with another label, warned (naming it and both rows), the last
    # row's label drawn; with the same label, silent
    twice = os.path.join(tmp, "twice.tsv")
    first, second = rows[0], rows[1]
    with open(twice, "w") as f:
        for r in [header, *rows, [first[0], first[1], "Elsewhere"], second]:
            f.write("\t".join(r) + "\n")
    svg = os.path.join(tmp, "twice.svg")
    p = pc.run([gensvd, "plot", "pca", pcs, "--color-by", twice, "-o", svg])
    moved = dict(want)
    moved[first[2]] -= 1
    moved["Elsewhere"] = 1
    pc.check("a sample labelled twice: warned, naming it and both rows", p.returncode == 0 and
             f"{first[1]}, '{first[2]}' on row 2 and 'Elsewhere' on row {len(rows) + 2}"
             in p.stderr and "on 1 row " in p.stderr, p.stderr)
    pc.check("a sample labelled twice: the last label drawn",
             sorted(legend_counts(svg)) == sorted(moved.items()), str(legend_counts(svg)))
    pc.check("a sample listed twice with one label: not counted", p.stderr.count("given again")
             == 1 and "on 1 row " in p.stderr, p.stderr)
    return joined


def check_integers(gensvd, tmp, joined, ids):
    """Integer labels, in numeric order; an array whose sample_id names none is an error."""
    header, rows = read_pop_rows()
    pops = sorted({r[2] for r in rows})
    pop_of = {r[1]: r[2] for r in rows}
    code = np.array([pops.index(pop_of[s]) for s in ids], dtype="<i2")  # 0..10
    g = zarr.open_group(joined, mode="r+")
    g.create_array("pop_code", data=code)
    g.create_array("pop_ucode", data=(code + 1).astype("<u8"))
    for name, values in (("pop_code", code), ("pop_ucode", code + 1)):
        svg = os.path.join(tmp, name + ".svg")
        p = plot(gensvd, ["pca", joined, "--color-by", name], svg)
        got = legend_counts(svg)
        want = [(str(v), int((values == v).sum())) for v in sorted(set(values.tolist()))]
        pc.check(f"{name}: exit", p.returncode == 0 and beyond_summary(p.stderr) == "",
                 p.stderr)
        pc.check(f"{name}: numeric order and counts", got == want, f"{got} != {want}")
    # labels in another store whose sample_id matches none of the plotted samples
    other = os.path.join(tmp, "other.zarr")
    g = zarr.open_group(other, mode="w", zarr_format=2)
    g.create_array("sample_id", data=np.array([f"x{i}" for i in range(len(ids))]))
    g.create_array("pop", data=np.array(["a"] * len(ids)))
    p = plot(gensvd, ["pca", joined, "--color-by", other + "/pop"], os.path.join(tmp, "o.svg"),
             expect=1)
    pc.check("labels of other samples: error", p.returncode == 1 and "none of the" in p.stderr
             and "other.zarr" in p.stderr, p.stderr)
    pc.check("labels of other samples: no file", not os.path.exists(os.path.join(tmp, "o.svg")))
    g.create_array("score", data=np.zeros(len(ids)))
    p = plot(gensvd, ["pca", joined, "--color-by", other + "/score"], os.path.join(tmp, "o.svg"),
             expect=1)
    pc.check("float labels: error", p.returncode == 1 and "strings or integers" in p.stderr,
             p.stderr)


def main():
    if len(sys.argv) != 2:
        print("usage: test_plot_labels.py GENSVD", file=sys.stderr)
        return 2
    gensvd = sys.argv[1]
    cc.self_test()
    with tempfile.TemporaryDirectory() as tmp:
        pcs = os.path.join(tmp, "pcs.zarr")
        p = pc.run([gensvd, "pca", pc.HAPMAP, "-o", pcs, "-k", "4", "-q"])
        if p.returncode != 0:
            print(p.stderr)
            return 1
        g = zarr.open_group(pcs, mode="r")
        ids = [str(s) for s in g["sample_id"][:]]
        proj = g["sample_pca_projection"][:]
        _, rows = read_pop_rows()
        pop_of = {r[1]: r[2] for r in rows}
        # the PCs are checked before the labels are read
        p = plot(gensvd, ["pca", pcs, "--pcs", "1,7", "--color-by",
                          os.path.join(tmp, "missing.tsv")], os.path.join(tmp, "x.svg"),
                 expect=1)
        pc.check("PC7 of 4: refused before the labels", p.returncode == 1 and "PC7" in p.stderr
                 and "missing.tsv" not in p.stderr, p.stderr)
        check_partial(gensvd, tmp, pcs, ids)
        joined = check_layouts(gensvd, tmp, pcs, ids, proj)
        check_integers(gensvd, tmp, joined, ids)
        probe = os.path.join(tmp, "probe.png")
        if pc.run([gensvd, "plot", "pca", pcs, "-o", probe], expect=None).returncode == 3:
            print("no PNG in this build: the colour checks on pixels are skipped")
        else:
            check_distinct(gensvd, tmp, pcs, proj, [pop_of[s] for s in ids])
            check_many(gensvd, tmp)
    return pc.report()


if __name__ == "__main__":
    sys.exit(main())
