"""Helpers of the plot tests: run gensvd, render an SVG in headless Chromium, read the PNG.

The PNG decoder is stdlib only (zlib + struct): 8-bit RGB or RGBA, non-interlaced, the five
filter types, which is what Chromium writes.  The SVG is read with xml.etree for the geometry
that plot/pca_plot.h and plot/heatmap.h document (frames, legend markers, images)."""
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

import numpy as np

SVG_NS = "{http://www.w3.org/2000/svg}"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HAPMAP = os.path.join(ROOT, "testdata", "realdata", "hapmap3.vcz")
HAPMAP_POPS = os.path.join(ROOT, "testdata", "realdata", "hapmap3_957.populations.tsv")

fails = 0
passes = 0


def check(name, ok, detail=""):
    global fails, passes
    if ok:
        passes += 1
    else:
        fails += 1
        print(f"FAIL {name} {detail}", flush=True)


def report():
    print(f"{passes} passed, {fails} failed")
    return 1 if fails else 0


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def run(args, expect=0):
    p = subprocess.run(args, capture_output=True, text=True)
    if expect is not None and p.returncode != expect:
        print(f"command {' '.join(args)} exited {p.returncode}, expected {expect}\n{p.stderr}",
              file=sys.stderr)
    return p


def xmllint_ok(path):
    if not shutil.which("xmllint"):
        return True  # the browser's parse below still checks the document
    return subprocess.run(["xmllint", "--noout", path]).returncode == 0


def svg_size(root):
    return int(float(root.get("width"))), int(float(root.get("height")))


def render(svg_path, png_path):
    """Screenshot of the SVG at its own size; returns an H x W x 3 uint8 array."""
    root = ET.parse(svg_path).getroot()
    w, h = svg_size(root)
    if os.path.exists(png_path):
        os.remove(png_path)
    subprocess.run([chromium(), "--headless", "--disable-gpu", "--no-sandbox",
                    "--hide-scrollbars", "--force-device-scale-factor=1",
                    f"--screenshot={png_path}", f"--window-size={w},{h}",
                    "file://" + os.path.abspath(svg_path)],
                   capture_output=True, timeout=120, check=False)
    return read_png(png_path)


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    out = np.zeros((h, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=y * (stride + 1) + 1)
        line = line.astype(np.int32)
        if f == 0:
            cur = line
        elif f == 2:
            cur = (line + prev) & 255
        else:  # Sub, Average, Paeth: sequential along the row
            cur = np.zeros(stride, dtype=np.int32)
            for x in range(stride):
                a = cur[x - bpp] if x >= bpp else 0
                b = prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                if f == 1:
                    pr = a
                elif f == 3:
                    pr = (a + b) >> 1
                else:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[x] = (line[x] + pr) & 255
        out[y] = cur
        prev = cur
    return out.reshape(h, w, bpp)[:, :, :3]


def elements(root, tag, cls=None):
    for e in root.iter(SVG_NS + tag):
        if cls is None or e.get("class") == cls:
            yield e


def rect_of(e):
    return tuple(float(e.get(k)) for k in ("x", "y", "width", "height"))


def legend(root):
    """[(label, marker centre x, y, text)] of the PCA legend."""
    out = []
    for g in elements(root, "g", "legend-item"):
        path = g.find(SVG_NS + "path")
        m = re.match(r"M([-\d.]+) ([-\d.]+)", path.get("d"))
        text = "".join(g.find(SVG_NS + "text").itertext())
        out.append((g.get("data-label"), float(m.group(1)), float(m.group(2)), text))
    return out


def colour_at(img, x, y, r=1):
    """Median colour of the (2r+1)^2 pixels around (x, y)."""
    x, y = int(round(x)), int(round(y))
    patch = img[y - r:y + r + 1, x - r:x + r + 1].reshape(-1, 3)
    return np.median(patch, axis=0)


def centroid_of_colour(img, box, colour, tol=12):
    """Centroid (x, y) of the pixels inside box = (x, y, w, h) within tol of colour, and their
    count.  Pixel (i, j) covers [j, j + 1) x [i, i + 1), so its centre is j + 0.5."""
    x, y, w, h = box
    x0, y0, x1, y1 = int(x) + 2, int(y) + 2, int(x + w) - 1, int(y + h) - 1
    sub = img[y0:y1, x0:x1].astype(np.int32)
    d = np.abs(sub - np.asarray(colour, dtype=np.int32)).max(axis=2)
    ys, xs = np.nonzero(d <= tol)
    if len(xs) == 0:
        return None, 0
    return (x0 + xs.mean() + 0.5, y0 + ys.mean() + 0.5), len(xs)


def disc_union_centroid(xs, ys, r, box):
    """Centroid of the union of discs of radius r at (xs, ys), rasterised at pixel centres
    inside the same region as centroid_of_colour: what the screen shows of overlapping
    markers, computed from the data alone."""
    x, y, w, h = box
    x0, y0, x1, y1 = int(x) + 2, int(y) + 2, int(x + w) - 1, int(y + h) - 1
    mask = np.zeros((y1 - y0, x1 - x0), dtype=bool)
    k = int(np.ceil(r)) + 1
    oy, ox = np.mgrid[-k:k + 1, -k:k + 1]
    for px, py in zip(xs, ys):
        cx, cy = int(np.floor(px)), int(np.floor(py))
        gx, gy = cx + ox, cy + oy  # pixel indices; centres at +0.5
        inside = (gx + 0.5 - px) ** 2 + (gy + 0.5 - py) ** 2 <= r * r
        gx, gy = gx[inside] - x0, gy[inside] - y0
        ok = (gx >= 0) & (gx < x1 - x0) & (gy >= 0) & (gy < y1 - y0)
        mask[gy[ok], gx[ok]] = True
    ys_, xs_ = np.nonzero(mask)
    if len(xs_) == 0:
        return None
    return x0 + xs_.mean() + 0.5, y0 + ys_.mean() + 0.5


def marker_radius(root, frame_index=0):
    """Radius of the circle markers of the first label group of the panel (stroke-width / 2)."""
    groups = [g for g in root.iter() if g.get("class") == "label"]
    return float(groups[-1].get("stroke-width")) / 2
