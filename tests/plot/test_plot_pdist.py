"""gensvd plot pdist, checked in a real browser against the distances read with zarr-python.

Usage: test_plot_pdist.py GENSVD.  Exit 77 (skipped) without Chromium or zarr-python.
The oracle is the distance matrix read with zarr-python, ordered and block-averaged as
plot/heatmap.h documents.  On the Chromium screenshot every pixel of the heatmap is turned back
into a distance through the rendered colour bar; the mean over the interior of each population
block must equal the oracle's mean over the same pixels within 2% of the colour range, and
within-population blocks must be darker than their row exactly when the data says so.  Square
and condensed layouts give the same SVG; the dendrogram's merge heights equal scipy's average
linkage; the label bands of --order pc1 follow the PC1 order from zarr-python."""
import os
import re
import sys
import tempfile

try:
    import numpy as np
    import zarr
    from scipy.cluster.hierarchy import linkage
    from scipy.spatial.distance import squareform
except ImportError:
    print("skipped: zarr-python 3 / numpy / scipy missing (scripts/setup.sh --tests)")
    sys.exit(77)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotcheck as pc  # noqa: E402


def read_pops():
    rows = [line.rstrip("\n").split("\t") for line in open(pc.HAPMAP_POPS)][1:]
    return {r[1]: r[2] for r in rows}


def binned(d, order, m):
    """The documented cell means: display order, cell = position * m // n, self-pairs out."""
    n = len(order)
    cell = np.empty(n, dtype=np.int64)
    cell[order] = np.arange(n) * m // n
    s = np.zeros((m, m))
    c = np.zeros((m, m))
    off = ~np.eye(n, dtype=bool)
    ci = np.repeat(cell, n).reshape(n, n)
    cj = ci.T
    np.add.at(s, (ci[off], cj[off]), d[off])
    np.add.at(c, (ci[off], cj[off]), 1)
    with np.errstate(invalid="ignore"):
        mean = s / c
    lo, hi = np.nanmin(mean), np.nanmax(mean)
    diag = np.isnan(mean) & np.eye(m, dtype=bool)
    mean[diag] = lo
    return mean, lo, hi


def colorbar_lut(img, root):
    """(values, colours) along the rendered colour bar: hi at the top row, lo at the bottom."""
    bar = next(pc.elements(root, "image", "colorbar"))
    x, y, w, h = pc.rect_of(bar)
    rows = np.arange(int(np.ceil(y)) + 1, int(y + h) - 1)
    cols = img[rows, int(x + w / 2)].astype(float)
    frac = 1 - (rows + 0.5 - y) / h
    return frac, cols


def decode(img, box, frac, cols):
    """Per-pixel fraction of [lo, hi] of the screenshot's pixels in box (nearest bar colour)."""
    x0, y0, x1, y1 = box
    sub = img[y0:y1, x0:x1].reshape(-1, 3).astype(float)
    dist = ((sub[:, None, :] - cols[None, :, :]) ** 2).sum(axis=2)
    return frac[dist.argmin(axis=1)].reshape(y1 - y0, x1 - x0)


def check_blocks(name, img, root, mean, lo, hi, groups):
    """groups: [(label, first position, end position)] in display order."""
    hm = next(pc.elements(root, "image", "heatmap"))
    x, y, w, h = pc.rect_of(hm)
    m = mean.shape[0]
    n = groups[-1][2]
    frac, cols = colorbar_lut(img, root)
    got = np.zeros((len(groups), len(groups)))
    want = np.zeros_like(got)
    for a, (_, a0, a1) in enumerate(groups):
        for b, (_, b0, b1) in enumerate(groups):
            # interior pixels of block (a, b), 3 px in from its edges
            px0, px1 = int(x + w * b0 / n) + 3, int(x + w * b1 / n) - 3
            py0, py1 = int(y + h * a0 / n) + 3, int(y + h * a1 / n) - 3
            if px1 <= px0 or py1 <= py0:
                continue
            got[a, b] = decode(img, (px0, py0, px1, py1), frac, cols).mean()
            # the oracle's cells under the same pixel centres
            cx = np.minimum(((np.arange(px0, px1) + 0.5 - x) * m / w).astype(int), m - 1)
            cy = np.minimum(((np.arange(py0, py1) + 0.5 - y) * m / h).astype(int), m - 1)
            want[a, b] = ((mean[np.ix_(cy, cx)] - lo) / (hi - lo)).mean()
    err = np.abs(got - want).max()
    pc.check(f"{name}: block colours follow the distances", err <= 0.02,
             f"max error {err:.3f} of the colour range")
    for a in range(len(groups)):
        others = [b for b in range(len(groups)) if b != a]
        data_darker = want[a, a] < want[a, others].mean()
        screen_darker = got[a, a] < got[a, others].mean()
        pc.check(f"{name}: {groups[a][0]} within vs between", data_darker == screen_darker)
    return got


def groups_of(labels_in_order):
    out = []
    for p, lab in enumerate(labels_in_order):
        if out and out[-1][0] == lab:
            out[-1][2] = p + 1
        else:
            out.append([lab, p, p + 1])
    return [tuple(g) for g in out]


def plot(gensvd, svg, *args):
    p = pc.run([gensvd, "plot", "pdist", *args, "-o", svg])
    pc.check(f"{os.path.basename(svg)} exit", p.returncode == 0, p.stderr)
    pc.check(f"{os.path.basename(svg)} xmllint", pc.xmllint_ok(svg))
    return pc.ET.parse(svg).getroot()


def check_dendrogram(root, d):
    path = next(e for e in root.iter(pc.SVG_NS + "path") if e.get("class") == "dendrogram")
    segs = re.findall(r"M([-\d.]+) ([-\d.]+)V([-\d.]+)H([-\d.]+)V([-\d.]+)", path.get("d"))
    ys = np.array([float(s[2]) for s in segs])
    leaf_y = max(float(s[1]) for s in segs)
    h_svg = np.sort((leaf_y - 4 - ys) / (120 - 4))
    z = linkage(squareform(d, checks=False), method="average")
    h = np.sort(z[:, 2])
    h_ref = (h - h[0]) / (h[-1] - h[0])
    pc.check("dendrogram merges", len(segs) == len(d) - 1, str(len(segs)))
    err = np.abs(h_svg - h_ref).max() if len(segs) == len(d) - 1 else 1
    pc.check("dendrogram heights = scipy average linkage", err < 0.002, f"max error {err}")


def check_pc1_bands(root, ids, pop_of, pcs_store):
    g = zarr.open_group(pcs_store, mode="r")
    pc_ids = [str(s) for s in g["sample_id"][:]]
    pc1 = dict(zip(pc_ids, g["sample_pca_projection"][:, 0]))
    order = sorted(range(len(ids)), key=lambda i: (pc1[ids[i]], i))
    colour_of = {}
    for item in pc.elements(root, "g", "legend-item"):
        lab = "".join(item.find(pc.SVG_NS + "text").itertext()).rsplit(" (", 1)[0]
        colour_of[lab] = item.find(pc.SVG_NS + "rect").get("fill")
    want = [(colour_of[lab], a, b) for lab, a, b in groups_of([pop_of[ids[i]] for i in order])]
    hm_x = pc.rect_of(next(pc.elements(root, "image", "heatmap")))[0]
    bands = [e for e in next(pc.elements(root, "g", "bands")).iter(pc.SVG_NS + "rect")
             if e.get("height") == "10"]
    got = [(e.get("fill"), float(e.get("x")) - hm_x, float(e.get("width"))) for e in bands]
    n = len(ids)
    ok = len(got) == len(want) and all(
        gc == wc and abs(gx - 720 * w0 / n) < 0.05 and abs(gw - 720 * (w1 - w0) / n) < 0.05
        for (gc, gx, gw), (wc, w0, w1) in zip(got, want))
    pc.check("pc1 order bands", ok, f"{len(got)} runs on screen, {len(want)} from the data")


def synthetic_store(tmp):
    """N = 2,000 samples in four groups: a square f4 distance matrix with sample_id and
    sample_population.  (store path, n, group per sample, the float64 distances)."""
    rng = np.random.default_rng(3)
    n = 2000
    grp = rng.integers(0, 4, n)
    centres = rng.normal(0, 3, (4, 5))
    x = centres[grp] + rng.normal(0, 1, (n, 5))
    d = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(axis=2))
    store = os.path.join(tmp, "syn.zarr")
    g = zarr.open_group(store, mode="w", zarr_format=2)
    g.create_array("distance", data=d.astype(np.float32), chunks=(300, 300))
    g.create_array("sample_id", data=np.array([f"s{i}" for i in range(n)]))
    g.create_array("sample_population", data=np.array([f"g{k}" for k in grp]))
    return store, n, grp, d


def check_synthetic(gensvd, tmp):
    """N = 2,000 in four groups, square f4 layout, averaged into 50 x 50 cells."""
    store, n, grp, d = synthetic_store(tmp)
    svg = os.path.join(tmp, "syn.svg")
    root = plot(gensvd, svg, store, "--color-by", "sample_population", "--max-cells", "50")
    order = sorted(range(n), key=lambda i: (grp[i], i))
    mean, lo, hi = binned(d.astype(np.float32).astype(float), np.array(order), 50)
    img = pc.render(svg, os.path.join(tmp, "syn.png"))
    check_blocks("N=2000 in 50 cells", img, root, mean, lo, hi,
                 groups_of([f"g{grp[i]}" for i in order]))


def main():
    if len(sys.argv) != 2:
        print("usage: test_plot_pdist.py GENSVD", file=sys.stderr)
        return 2
    gensvd = sys.argv[1]
    if not pc.chromium():
        print("skipped: chromium not installed (scripts/setup.sh --tests)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        sq, co, pcs = (os.path.join(tmp, f) for f in ("sq.zarr", "co.zarr", "pcs.zarr"))
        for args in (["pdist", pc.HAPMAP, "-o", sq], ["pca", pc.HAPMAP, "-o", pcs, "-k", "2"],
                     ["pdist", pc.HAPMAP, "-o", co, "--layout", "condensed"]):
            p = pc.run([gensvd, *args, "-q"])
            if p.returncode != 0:
                print(p.stderr)
                return 1
        g = zarr.open_group(sq, mode="r")
        ids = [str(s) for s in g["sample_id"][:]]
        d = g["distance"][:]
        pop_of = read_pops()
        n = len(ids)
        order = sorted(range(n), key=lambda i: (pop_of.get(ids[i], "\uffff"), i))
        groups = groups_of([pop_of[ids[i]] for i in order])

        # square layout, one cell per sample, label order
        svg = os.path.join(tmp, "sq.svg")
        root = plot(gensvd, svg, sq, "--color-by", pc.HAPMAP_POPS)
        mean, lo, hi = binned(d, np.array(order), n)
        img = pc.render(svg, os.path.join(tmp, "sq.png"))
        check_blocks("square", img, root, mean, lo, hi, groups)

        # block means: square and condensed give the same picture
        a, b = os.path.join(tmp, "a.svg"), os.path.join(tmp, "b.svg")
        plot(gensvd, a, sq, "--color-by", pc.HAPMAP_POPS, "--max-cells", "100")
        root = plot(gensvd, b, co, "--color-by", pc.HAPMAP_POPS, "--max-cells", "100")
        pc.check("square = condensed", open(a, "rb").read() == open(b, "rb").read())
        mean, lo, hi = binned(d, np.array(order), 100)
        img = pc.render(b, os.path.join(tmp, "b.png"))
        check_blocks("condensed, 100 cells", img, root, mean, lo, hi, groups)

        # cluster order: the dendrogram against scipy
        root = plot(gensvd, os.path.join(tmp, "cl.svg"), co, "--order", "cluster")
        check_dendrogram(root, d)

        # pc1 order: label bands in the order of PC1 read with zarr-python
        root = plot(gensvd, os.path.join(tmp, "pc1.svg"), sq, "--order", "pc1", "--pcs", pcs,
                    "--color-by", pc.HAPMAP_POPS)
        check_pc1_bands(root, ids, pop_of, pcs)

        check_synthetic(gensvd, tmp)
    return pc.report()


if __name__ == "__main__":
    sys.exit(main())
