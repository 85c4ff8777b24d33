"""Derive colours 9-20 of the plot palette again (plot/README.md) and compare with plot/svg.c.

Usage: make_palette.py [SVG_C].  Greedy max-min from the sRGB grid of step 15 with CIELAB
lightness 25..85 and chroma 20..80: each pick is the candidate farthest from everything chosen
(Okabe-Ito's 8, then the picks) and from the white background and the unlabelled grey, the
distance being min(CIEDE2000, 3 x CIEDE2000 under protanopia, 3 x under deuteranopia).
Prints the 12 colours; with SVG_C, exits 1 unless svg.c's palette is Okabe-Ito's 8 and them
(77 without numpy)."""
import itertools
import os
import re
import sys

try:
    import numpy as np
except ImportError:
    print("skipped: numpy missing (scripts/setup.sh --tests)")
    sys.exit(77)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import colourcheck as cc  # noqa: E402

OKABE_ITO = ["#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7",
             "#000000"]
AVOID = ["#ffffff", "#bbbbbb"]  # the background, the grey of unlabelled samples
CVD_WEIGHT = 3.0


def derive(n=12):
    levels = np.arange(0, 256, 15)
    grid = np.array(list(itertools.product(levels, levels, levels)), dtype=float)
    lb = cc.lab(grid)
    chroma = np.hypot(lb[:, 1], lb[:, 2])
    keep = (lb[:, 0] >= 25) & (lb[:, 0] <= 85) & (chroma >= 20) & (chroma <= 80)
    pool = grid[keep]
    views = [cc.lab(pool), cc.lab(cc.simulate(pool, cc.PROTANOPIA)),
             cc.lab(cc.simulate(pool, cc.DEUTERANOPIA))]

    def dist_to(rgb):
        rgb = np.asarray(rgb, dtype=float)
        normal = cc.de2000(views[0], cc.lab(rgb)[None, :])
        prot = cc.de2000(views[1], cc.lab(cc.simulate(rgb, cc.PROTANOPIA))[None, :])
        deut = cc.de2000(views[2], cc.lab(cc.simulate(rgb, cc.DEUTERANOPIA))[None, :])
        return np.minimum(normal, CVD_WEIGHT * np.minimum(prot, deut))

    far = np.full(len(pool), np.inf)
    for h in OKABE_ITO + AVOID:
        far = np.minimum(far, dist_to(cc.hex_rgb(h)))
    out = []
    for _ in range(n):
        i = int(np.argmax(far))
        out.append("#%02x%02x%02x" % tuple(int(v) for v in pool[i]))
        far = np.minimum(far, dist_to(pool[i]))
    return out


def palette_in(svg_c):
    text = open(svg_c).read()
    body = text[text.index("gsvd_plot_palette[GSVD_PLOT_N_COLOURS] = {"):]
    body = body[:body.index("};")]
    return re.findall(r'"(#[0-9a-f]{6})"', body)


def main():
    ext = derive()
    print(" ".join(ext))
    if len(sys.argv) > 1:
        want = OKABE_ITO + ext
        got = palette_in(sys.argv[1])
        if got != want:
            print(f"plot/svg.c holds {got}\nderived          {want}")
            return 1
        print("plot/svg.c holds the derived palette")
    return 0


if __name__ == "__main__":
    sys.exit(main())
