"""gensvd plot pca, checked in a real browser against the PCs read with zarr-python.

Usage: test_plot_pca.py GENSVD.  Exit 77 (skipped) without Chromium or zarr-python.
For each HapMap3 population a plot with only that population labelled is rendered by headless
Chromium; the centroid of the pixels in the population's legend colour inside the panel must lie
within 3 pixels of the centroid of its samples mapped through the documented transform
(plot/pca_plot.h), for PC1/PC2, PC3/PC2 and every panel of --grid 4.  The full plot's legend
counts equal the counts from the populations file; 500,000 points stay under 20 MB and render."""
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
import plotcheck as pc  # noqa: E402

PAD = 0.04  # plot/pca_plot.h: the data range is padded by 4% on each side


def domain(v):
    lo, hi = float(np.min(v)), float(np.max(v))
    r = hi - lo
    return (lo - PAD * r, hi + PAD * r) if r > 0 else (lo - 1, hi + 1)


def expected_centroid(frame, u, v, ud, vd, r):
    """Where the data puts the visible ink: samples mapped through the documented transform,
    drawn as discs of the marker radius (less half a pixel of anti-aliased edge)."""
    x, y, w, h = frame
    px = x + w * (u - ud[0]) / (ud[1] - ud[0])
    py = y + h * (1 - (v - vd[0]) / (vd[1] - vd[0]))
    return pc.disc_union_centroid(px, py, r - 0.5, frame)


def read_pops():
    rows = [line.rstrip("\n").split("\t") for line in open(pc.HAPMAP_POPS)][1:]
    return {r[1]: r[2] for r in rows}


def check_population(gensvd, tmp, pcs, ids, proj, pop_of, pop, pcs_opt, frames_wanted):
    """Render a plot with only `pop` labelled; check each panel's centroid."""
    tsv = os.path.join(tmp, "one.tsv")
    with open(tsv, "w") as f:
        f.write("sample_id\tgroup\n")
        for s in ids:
            f.write(f"{s}\t{pop if pop_of.get(s) == pop else ''}\n")
    svg = os.path.join(tmp, "one.svg")
    p = pc.run([gensvd, "plot", "pca", pcs, "-o", svg, "--color-by", tsv] + pcs_opt)
    pc.check(f"{pop} {pcs_opt} exit", p.returncode == 0, p.stderr)
    pc.check(f"{pop} {pcs_opt} xmllint", pc.xmllint_ok(svg))
    root = pc.ET.parse(svg).getroot()
    img = pc.render(svg, os.path.join(tmp, "one.png"))
    leg = pc.legend(root)
    pc.check(f"{pop} legend first", leg and leg[0][0] == pop, str(leg[:1]))
    colour = pc.colour_at(img, leg[0][1], leg[0][2])
    pc.check(f"{pop} legend colour is not grey/white", np.ptp(colour) > 40, str(colour))
    sel = np.array([pop_of.get(s) == pop for s in ids])
    frames = list(pc.elements(root, "rect", "frame"))
    pc.check(f"{pop} {pcs_opt} panels", len(frames) == frames_wanted, str(len(frames)))
    for fr in frames:
        qx, qy = (int(a) - 1 for a in fr.get("data-pcs").split(","))
        box = pc.rect_of(fr)
        want = expected_centroid(box, proj[sel, qx], proj[sel, qy], domain(proj[:, qx]),
                                 domain(proj[:, qy]), pc.marker_radius(root))
        got, n_px = pc.centroid_of_colour(img, box, colour)
        ok = got is not None and abs(got[0] - want[0]) <= 3 and abs(got[1] - want[1]) <= 3
        pc.check(f"{pop} PC{qx + 1}/PC{qy + 1} centroid", ok,
                 f"screen {got} ({n_px} px), data {want}")


def check_full(gensvd, tmp, pcs, ids, pop_of):
    svg = os.path.join(tmp, "all.svg")
    p = pc.run([gensvd, "plot", "pca", pcs, "-o", svg, "--color-by", pc.HAPMAP_POPS,
                "--title", "HapMap3 <957> & co"])
    pc.check("full exit", p.returncode == 0, p.stderr)
    pc.check("full xmllint", pc.xmllint_ok(svg))
    text = open(svg).read()
    pc.check("self-contained", "<script" not in text and "http://" not in
             text.replace('xmlns="http://www.w3.org/2000/svg"', "") and "@font-face" not in text)
    root = pc.ET.parse(svg).getroot()
    counts = {}
    for s in ids:
        counts[pop_of.get(s)] = counts.get(pop_of.get(s), 0) + 1
    got = {lab: int(re.search(r"\((\d+)\)$", t).group(1)) for lab, _, _, t in pc.legend(root)}
    want = {k: v for k, v in counts.items() if k}
    pc.check("legend counts", got == want, f"{got} != {want}")
    img = pc.render(svg, os.path.join(tmp, "all.png"))
    cols = [tuple(pc.colour_at(img, x, y)) for _, x, y, _ in pc.legend(root)]
    pc.check("first 8 legend colours distinct", len(set(cols[:8])) == 8, str(cols))
    # every point has a tooltip naming the sample
    titles = ["".join(t.itertext()) for t in root.iter(pc.SVG_NS + "title")]
    pc.check("tooltips", sum(1 for t in titles if t.split(" ")[0] in pop_of) == len(ids))
    # axis titles carry the explained variance ratio
    evr = zarr.open_group(pcs, mode="r")["sample_pca_explained_variance_ratio"][:]
    texts = ["".join(t.itertext()) for t in root.iter(pc.SVG_NS + "text")]
    pc.check("axis title PC1", f"PC1 ({100 * evr[0]:.1f}%)" in texts, str(texts[:20]))
    pc.check("title escaped", "HapMap3 <957> & co" in texts)


def big_store(tmp):
    """500,000 points in three clusters, labelled by sample_population inside the store:
    (store path, label index per point, label names, projection)."""
    rng = np.random.default_rng(7)
    n = 500_000
    lab = rng.integers(0, 3, n)
    centres = np.array([[0.0, 0.0], [10.0, 0.0], [5.0, 8.0]])
    proj = np.zeros((n, 3))
    proj[:, :2] = centres[lab] + rng.normal(0, 0.6, (n, 2))
    proj[:, 2] = rng.normal(0, 1, n)
    store = os.path.join(tmp, "big.zarr")
    g = zarr.open_group(store, mode="w", zarr_format=2)
    g.create_array("sample_pca_projection", data=proj, chunks=(100_000, 3))
    g.create_array("sample_pca_explained_variance_ratio", data=np.array([0.5, 0.3, 0.1]))
    g.create_array("sample_id", data=np.array([f"s{i}" for i in range(n)]), chunks=(100_000,))
    names = np.array(["east", "north", "west"], dtype=object)
    g.create_array("sample_population", data=names[lab].astype(str), chunks=(100_000,))
    return store, lab, names, proj


def check_big(gensvd, tmp):
    """500,000 points in three clusters, labelled by an array inside the store."""
    store, lab, names, proj = big_store(tmp)
    svg = os.path.join(tmp, "big.svg")
    p = pc.run([gensvd, "plot", "pca", store, "-o", svg, "--color-by", "sample_population"])
    pc.check("big exit", p.returncode == 0, p.stderr)
    size = os.path.getsize(svg) if os.path.exists(svg) else 1 << 40
    pc.check("big under 20 MB", size < 20e6, str(size))
    pc.check("big xmllint", pc.xmllint_ok(svg))
    root = pc.ET.parse(svg).getroot()
    img = pc.render(svg, os.path.join(tmp, "big.png"))
    frame = pc.rect_of(next(pc.elements(root, "rect", "frame")))
    for name, x, y, _ in pc.legend(root):
        k = list(names).index(name)
        colour = pc.colour_at(img, x, y)
        want = expected_centroid(frame, proj[lab == k, 0], proj[lab == k, 1], domain(proj[:, 0]),
                                 domain(proj[:, 1]), pc.marker_radius(root))
        got, n_px = pc.centroid_of_colour(img, frame, colour)
        ok = got is not None and abs(got[0] - want[0]) <= 3 and abs(got[1] - want[1]) <= 3
        pc.check(f"big {name} centroid", ok, f"screen {got} ({n_px} px), data {want}")


def main():
    if len(sys.argv) != 2:
        print("usage: test_plot_pca.py GENSVD", file=sys.stderr)
        return 2
    gensvd = sys.argv[1]
    if not pc.chromium():
        print("skipped: chromium not installed (scripts/setup.sh --tests)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        pcs = os.path.join(tmp, "pcs.zarr")
        p = pc.run([gensvd, "pca", pc.HAPMAP, "-o", pcs, "-k", "4", "-q"])
        if p.returncode != 0:
            print(p.stderr)
            return 1
        g = zarr.open_group(pcs, mode="r")
        ids = [str(s) for s in g["sample_id"][:]]
        proj = g["sample_pca_projection"][:]
        pop_of = read_pops()
        pops = sorted(set(pop_of[s] for s in ids if s in pop_of))
        for pop in pops:
            check_population(gensvd, tmp, pcs, ids, proj, pop_of, pop, [], 1)
        for pop in ("CEU", "YRI"):
            check_population(gensvd, tmp, pcs, ids, proj, pop_of, pop, ["--pcs", "3,2"], 1)
        for pop in ("CHB", "GIH"):
            check_population(gensvd, tmp, pcs, ids, proj, pop_of, pop, ["--grid", "4"], 6)
        check_full(gensvd, tmp, pcs, ids, pop_of)
        check_big(gensvd, tmp)
    return pc.report()


if __name__ == "__main__":
    sys.exit(main())
