"""gensvd plot --format png, the pixels decoded in Python against the data read with zarr-python.

Usage: test_plot_png.py GENSVD.  Exit 77 (skipped) without zarr-python; no browser needed.
The PNG is decoded by plotcheck.read_png (zlib + struct); the geometry comes from the SVG of the
same command (plot/pca_plot.h, plot/heatmap.h), scaled by dpi / 96.  Checked: the pixel size and
pHYs follow --dpi; each HapMap3 population's centroid in its legend colour lies within 3 pixels
(4 at 192 dpi) of where the data puts it, for one panel, --pcs 3,2 and --grid 4; the heatmap's
blocks decode through the rendered colour bar to the oracle's block means (2% of the range);
the format follows the extension (.svg or .png), --format only agrees with it or names the format
of a name without one, and any other extension is refused (exit 2, no file); a
500,000-point plot renders (its time is printed) with the three centroids in place; bad
--format/--dpi values and unwritable outputs exit 2/1 and leave no file.  A build without
librsvg must refuse png with exit 3 and a message naming GENSVD_PNG (then only that is tested)."""
import os
import struct
import sys
import tempfile
import time

try:
    import numpy as np
    import zarr
except ImportError:
    print("skipped: zarr-python 3 / numpy missing (scripts/setup.sh --tests)")
    sys.exit(77)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotcheck as pc  # noqa: E402
import test_plot_pca as tpca  # noqa: E402
import test_plot_pdist as tpd  # noqa: E402

PNG_SIG = b"\x89PNG\r\n\x1a\n"


def png_header(path):
    """(width, height, pixels per metre or None) from IHDR and pHYs."""
    data = open(path, "rb").read()
    assert data[:8] == PNG_SIG, "not a PNG"
    pos, w, h, ppm = 8, 0, 0, None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
        elif kind == b"pHYs":
            px, py, unit = struct.unpack(">IIB", body)
            ppm = px if px == py and unit == 1 else -1
        pos += 12 + n
    return w, h, ppm


def plot_pair(gensvd, tmp, name, args, dpi=None):
    """The same plot as SVG (for the geometry) and PNG; returns (svg root, PNG image)."""
    svg, png = os.path.join(tmp, name + ".svg"), os.path.join(tmp, name + ".png")
    extra = ["--dpi", str(dpi)] if dpi else []
    p = pc.run([gensvd, "plot", *args, "-o", svg])
    q = pc.run([gensvd, "plot", *args, "-o", png] + extra)
    pc.check(f"{name} exit", p.returncode == 0 and q.returncode == 0, p.stderr + q.stderr)
    root = pc.ET.parse(svg).getroot()
    w, h = pc.svg_size(root)
    s = (dpi or 96) / 96
    pw, ph, ppm = png_header(png)
    pc.check(f"{name} size at {dpi or 96} dpi", (pw, ph) == (round(w * s), round(h * s)),
             f"{pw}x{ph} for a {w}x{h} SVG")
    pc.check(f"{name} pHYs", ppm == round((dpi or 96) / 0.0254), str(ppm))
    return root, pc.read_png(png)


def scaled(box, s):
    return tuple(v * s for v in box)


def check_centroids(name, root, img, s, sels, proj, tol):
    """sels: [(legend index, mask of samples)]; every panel of the plot is checked."""
    leg = pc.legend(root)
    r = pc.marker_radius(root) * s
    for k, sel in sels:
        colour = pc.colour_at(img, leg[k][1] * s, leg[k][2] * s)
        pc.check(f"{name} {leg[k][0]} legend colour", np.ptp(colour) > 40, str(colour))
        for fr in pc.elements(root, "rect", "frame"):
            qx, qy = (int(a) - 1 for a in fr.get("data-pcs").split(","))
            box = scaled(pc.rect_of(fr), s)
            want = tpca.expected_centroid(box, proj[sel, qx], proj[sel, qy],
                                          tpca.domain(proj[:, qx]), tpca.domain(proj[:, qy]), r)
            got, n_px = pc.centroid_of_colour(img, box, colour)
            ok = got is not None and abs(got[0] - want[0]) <= tol and \
                abs(got[1] - want[1]) <= tol
            pc.check(f"{name} {leg[k][0]} PC{qx + 1}/PC{qy + 1} centroid", ok,
                     f"png {got} ({n_px} px), data {want}")


def check_pca(gensvd, tmp, pcs, ids, proj, pop_of):
    pops = sorted(set(pop_of[s] for s in ids if s in pop_of))
    tsv = os.path.join(tmp, "one.tsv")
    for pop in pops:
        with open(tsv, "w") as f:
            f.write("sample_id\tgroup\n")
            for s in ids:
                f.write(f"{s}\t{pop if pop_of.get(s) == pop else ''}\n")
        sel = np.array([pop_of.get(s) == pop for s in ids])
        runs = [([], None, 3)]
        if pop in ("CEU", "YRI"):
            runs += [(["--pcs", "3,2"], None, 3), ([], 192, 4)]
        if pop in ("CHB", "GIH"):
            runs += [(["--grid", "4"], None, 3)]
        for extra, dpi, tol in runs:
            name = f"{pop}{''.join(extra)}@{dpi or 96}"
            root, img = plot_pair(gensvd, tmp, "one", ["pca", pcs, "--color-by", tsv] + extra,
                                  dpi)
            check_centroids(name, root, img, (dpi or 96) / 96, [(0, sel)], proj, tol)


def check_heatmap(gensvd, tmp):
    """The synthetic four-group matrix of test_plot_pdist, N = 2,000 in 50 x 50 cells."""
    store, n, grp, d = tpd.synthetic_store(tmp)
    root, img = plot_pair(gensvd, tmp, "heat", ["pdist", store, "--color-by",
                                                "sample_population", "--max-cells", "50"])
    order = sorted(range(n), key=lambda i: (grp[i], i))
    mean, lo, hi = tpd.binned(d.astype(np.float32).astype(float), np.array(order), 50)
    got = tpd.check_blocks("png heatmap", img, root, mean, lo, hi,
                           tpd.groups_of([f"g{grp[i]}" for i in order]))
    pc.check("png heatmap: diagonal darkest", all(got[a, a] < np.delete(got[a], a).min()
                                                   for a in range(4)), str(got))


def check_formats(gensvd, tmp, pcs):
    """The name says .svg or .png (any case) or has no extension; --format agrees with it."""
    cases = [("a.png", [], PNG_SIG), ("b.PNG", [], PNG_SIG), ("c.svg", [], b"<?xml"),
             ("d", [], b"<?xml"), ("e.Svg", ["--format", "svg"], b"<?xml"),
             ("f.png", ["--format", "png"], PNG_SIG), ("g", ["--format", "png"], PNG_SIG)]
    for name, extra, magic in cases:
        out = os.path.join(tmp, name)
        p = pc.run([gensvd, "plot", "pca", pcs, "-o", out] + extra)
        ok = p.returncode == 0 and open(out, "rb").read()[:len(magic)] == magic
        pc.check(f"format of {name} {extra}", ok, p.stderr)


def bad(gensvd, tmp, name, args, status, *needles):
    before = set(os.listdir(tmp))
    p = pc.run([gensvd, "plot", *args], expect=None)
    missing = [s for s in needles if s not in p.stderr]
    pc.check(f"bad: {name}", p.returncode == status and not missing,
             f"exit {p.returncode} (want {status}), missing {missing} in {p.stderr}")
    pc.check(f"bad: {name} leaves no file", set(os.listdir(tmp)) == before,
             str(set(os.listdir(tmp)) - before))


def check_bad(gensvd, tmp, pcs):
    out = os.path.join(tmp, "bad")
    os.mkdir(out)
    png = os.path.join(out, "x.png")
    bad(gensvd, out, "--format jpeg", ["pca", pcs, "-o", png, "--format", "jpeg"], 2,
        "'jpeg'", "svg, png")
    for name, extra in (("x.jpg", []), ("x.pdf", ["--format", "png"]), ("x.svg.gz", [])):
        bad(gensvd, out, f"-o {name} {extra}", ["pca", pcs, "-o", os.path.join(out, name)] +
            extra, 2, name, ".svg or .png")
    bad(gensvd, out, "-o x.svg --format png", ["pca", pcs, "-o", os.path.join(out, "x.svg"),
                                               "--format", "png"], 2, "--format png", "x.svg")
    bad(gensvd, out, "-o x.png --format svg", ["pca", pcs, "-o", png, "--format", "svg"], 2,
        "--format svg", "x.png")
    bad(gensvd, out, "--dpi 0", ["pca", pcs, "-o", png, "--dpi", "0"], 2, "--dpi")
    bad(gensvd, out, "--dpi x", ["pca", pcs, "-o", png, "--dpi", "x"], 2, "--dpi")
    bad(gensvd, out, "no such directory", ["pca", pcs, "-o", os.path.join(out, "no", "x.png")],
        1, os.path.join(out, "no", "x.png"))
    bad(gensvd, out, "output is a directory", ["pca", pcs, "-o", out + "/", "--format", "png"],
        1, out)
    bad(gensvd, out, "too many pixels", ["pca", pcs, "-o", png, "--grid", "4", "--dpi", "2400"],
        1, "2400 dpi", "pixels")


def check_big(gensvd, tmp):
    """500,000 points in three clusters (test_plot_pca's data), timed."""
    store, lab, names, proj = tpca.big_store(tmp)
    t0 = time.time()
    root, img = plot_pair(gensvd, tmp, "big", ["pca", store, "--color-by", "sample_population"])
    print(f"500,000 points: SVG + PNG in {time.time() - t0:.1f} s", flush=True)
    order = [name for name, _, _, _ in pc.legend(root)]
    sels = [(k, lab == list(names).index(name)) for k, name in enumerate(order)]
    check_centroids("big", root, img, 1, sels, proj, 3)


def main():
    if len(sys.argv) != 2:
        print("usage: test_plot_png.py GENSVD", file=sys.stderr)
        return 2
    gensvd = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        pcs = os.path.join(tmp, "pcs.zarr")
        p = pc.run([gensvd, "pca", pc.HAPMAP, "-o", pcs, "-k", "4", "-q"])
        if p.returncode != 0:
            print(p.stderr)
            return 1
        probe = os.path.join(tmp, "probe.png")
        p = pc.run([gensvd, "plot", "pca", pcs, "-o", probe], expect=None)
        if p.returncode == 3:  # built without librsvg: the refusal is all there is to test
            pc.check("no librsvg: message", "GENSVD_PNG" in p.stderr and probe in p.stderr,
                     p.stderr)
            pc.check("no librsvg: no file", not os.path.exists(probe))
            return pc.report()
        g = zarr.open_group(pcs, mode="r")
        ids = [str(s) for s in g["sample_id"][:]]
        proj = g["sample_pca_projection"][:]
        check_pca(gensvd, tmp, pcs, ids, proj, tpca.read_pops())
        check_heatmap(gensvd, tmp)
        check_formats(gensvd, tmp, pcs)
        check_bad(gensvd, tmp, pcs)
        check_big(gensvd, tmp)
    return pc.report()


if __name__ == "__main__":
    sys.exit(main())
