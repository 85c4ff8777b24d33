"""gensvd plot pdist at N = 20,000: the square matrix (1.6 GB as f4, 3.2 GB as float64) is
streamed tile by tile and averaged into 1,000 x 1,000 cells, so the process runs in 800 MB of
address space (RLIMIT_AS), less than the matrix; the cell means equal the oracle's (numpy, band by band) where the screenshot
shows them.

Usage: test_plot_big.py GENSVD.  Exit 77 (skipped) without Chromium or zarr-python."""
import os
import resource
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

N = 20_000
GROUPS = 5
BAND = 1000


def distances(grp, i0, i1):
    """Rows i0..i1 of a compressible matrix: a group-pair level plus a small (i + j) pattern."""
    level = 1 + 3 * np.abs(np.subtract.outer(np.arange(GROUPS), np.arange(GROUPS)))
    rows = np.arange(i0, i1)
    d = level[grp[rows]][:, grp] + 0.25 * ((rows[:, None] + np.arange(N)[None, :]) % 4)
    d[rows - i0, rows] = 0
    return d.astype(np.float32)


def main():
    if len(sys.argv) != 2:
        print("usage: test_plot_big.py GENSVD", file=sys.stderr)
        return 2
    gensvd = sys.argv[1]
    if not pc.chromium():
        print("skipped: chromium not installed (scripts/setup.sh --tests)")
        return 77
    grp = np.repeat(np.arange(GROUPS), N // GROUPS)
    grp = np.random.default_rng(5).permutation(grp)
    with tempfile.TemporaryDirectory() as tmp:
        store = os.path.join(tmp, "big.zarr")
        g = zarr.open_group(store, mode="w", zarr_format=2)
        a = g.create_array("distance", shape=(N, N), dtype="f4", chunks=(BAND, BAND))
        for i0 in range(0, N, BAND):
            a[i0:i0 + BAND] = distances(grp, i0, i0 + BAND)
        g.create_array("sample_id", data=np.array([f"s{i}" for i in range(N)]))
        g.create_array("sample_population", data=np.array([f"p{k}" for k in grp]))
        svg = os.path.join(tmp, "big.svg")
        # half of N^2 as f4 (the stored matrix), a quarter of it as float64: it must not fit
        limit = 800 << 20

        def cap():
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        p = pc.subprocess.run([gensvd, "plot", "pdist", store, "-o", svg, "--color-by",
                               "sample_population"], capture_output=True, text=True,
                              preexec_fn=cap)
        pc.check("runs in 800 MB of address space", p.returncode == 0, p.stderr)
        pc.check("xmllint", pc.xmllint_ok(svg))
        root = pc.ET.parse(svg).getroot()
        hm = next(pc.elements(root, "image", "heatmap"))
        pc.check("1,000 cells", hm.get("data-cells") == "1000")
        # oracle: label order (p0..p4, input order inside), cells of 20 samples
        order = np.argsort(grp, kind="stable")
        cell = np.empty(N, dtype=np.int64)
        cell[order] = np.arange(N) * 1000 // N
        s = np.zeros((1000, 1000))
        c = np.zeros((1000, 1000))
        for i0 in range(0, N, BAND):
            d = distances(grp, i0, i0 + BAND).astype(float)
            k = (np.repeat(cell[i0:i0 + BAND], N) * 1000 + np.tile(cell, BAND))
            off = (np.repeat(np.arange(i0, i0 + BAND), N) != np.tile(np.arange(N), BAND))
            s += np.bincount(k[off], weights=d.ravel()[off], minlength=10**6).reshape(1000, 1000)
            c += np.bincount(k[off], minlength=10**6).reshape(1000, 1000)
        mean = s / c
        lo, hi = mean.min(), mean.max()
        img = pc.render(svg, os.path.join(tmp, "big.png"))
        from test_plot_pdist import check_blocks, groups_of
        check_blocks("N=20000", img, root, mean, lo, hi,
                     groups_of([f"p{grp[i]}" for i in order]))
    return pc.report()


if __name__ == "__main__":
    sys.exit(main())
