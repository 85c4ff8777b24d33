"""Colour science for the plot tests, written out from the published formulas (numpy only).

- sRGB (IEC 61966-2-1) to linear RGB and back, linear RGB to CIE XYZ (D65) to CIELAB.
- CIEDE2000 colour difference: G. Sharma, W. Wu, E. N. Dalal, "The CIEDE2000 color-difference
  formula: implementation notes, supplementary test data, and mathematical observations",
  Color Research & Application 30(1), 2005, equations (1)-(22).
- Colour-vision deficiency: G. M. Machado, M. M. Oliveira, L. A. F. Fernandes, "A
  physiologically-based model for simulation of color vision deficiency", IEEE TVCG 15(6),
  2009: the severity-1.0 matrices of its table, applied to linear RGB."""
import numpy as np

# Machado et al. 2009, severity 1.0 (dichromacy), rows produce R', G', B' from linear R, G, B
PROTANOPIA = np.array([[0.152286, 1.052583, -0.204868],
                       [0.114503, 0.786281, 0.099216],
                       [-0.003882, -0.048116, 1.051998]])
DEUTERANOPIA = np.array([[0.367322, 0.860646, -0.227968],
                         [0.280085, 0.672501, 0.047413],
                         [-0.011820, 0.042940, 0.968881]])
TRITANOPIA = np.array([[1.255528, -0.076749, -0.178779],
                       [-0.078411, 0.930809, 0.147602],
                       [0.004733, 0.691367, 0.303900]])

# linear sRGB -> XYZ (D65), and the D65 white point
_M_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375],
                   [0.2126729, 0.7151522, 0.0721750],
                   [0.0193339, 0.1191920, 0.9503041]])
_WHITE = np.array([0.95047, 1.0, 1.08883])


def hex_rgb(h):
    h = h.lstrip("#")
    return np.array([int(h[i:i + 2], 16) for i in (0, 2, 4)], dtype=float)


def to_linear(rgb):
    c = np.asarray(rgb, dtype=float) / 255
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def from_linear(lin):
    c = np.clip(lin, 0, 1)
    return 255 * np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)


def simulate(rgb, matrix):
    """8-bit sRGB colours (..., 3) as seen with the deficiency of `matrix`."""
    return from_linear(to_linear(rgb) @ matrix.T)


def lab(rgb):
    xyz = to_linear(rgb) @ _M_XYZ.T / _WHITE
    d = 6 / 29
    f = np.where(xyz > d ** 3, np.cbrt(xyz), xyz / (3 * d * d) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]),
                     200 * (f[..., 1] - f[..., 2])], axis=-1)


def de2000(lab1, lab2):
    """CIEDE2000 between CIELAB colours (broadcasting over leading axes), kL = kC = kH = 1."""
    L1, a1, b1 = np.moveaxis(np.asarray(lab1, dtype=float), -1, 0)
    L2, a2, b2 = np.moveaxis(np.asarray(lab2, dtype=float), -1, 0)
    cbar = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(cbar ** 7 / (cbar ** 7 + 25.0 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dlp, dcp = L2 - L1, c2p - c1p
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    zero = c1p * c2p == 0
    dh = np.where(zero, 0, dh)
    dhp = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    lbar, cbarp = (L1 + L2) / 2, (c1p + c2p) / 2
    hsum = h1p + h2p
    hbar = np.where(zero, hsum,
                    np.where(np.abs(h1p - h2p) <= 180, hsum / 2,
                             np.where(hsum < 360, (hsum + 360) / 2, (hsum - 360) / 2)))
    t = (1 - 0.17 * np.cos(np.radians(hbar - 30)) + 0.24 * np.cos(np.radians(2 * hbar))
         + 0.32 * np.cos(np.radians(3 * hbar + 6)) - 0.20 * np.cos(np.radians(4 * hbar - 63)))
    dtheta = 30 * np.exp(-(((hbar - 275) / 25) ** 2))
    rc = 2 * np.sqrt(cbarp ** 7 / (cbarp ** 7 + 25.0 ** 7))
    sl = 1 + 0.015 * (lbar - 50) ** 2 / np.sqrt(20 + (lbar - 50) ** 2)
    sc = 1 + 0.045 * cbarp
    sh = 1 + 0.015 * cbarp * t
    rt = -np.sin(np.radians(2 * dtheta)) * rc
    return np.sqrt((dlp / sl) ** 2 + (dcp / sc) ** 2 + (dhp / sh) ** 2
                   + rt * (dcp / sc) * (dhp / sh))


def min_pair(colours, matrix=None):
    """(smallest CIEDE2000 over all pairs of the 8-bit colours, the pair's indices), after the
    simulation of `matrix` when given."""
    c = np.asarray(colours, dtype=float)
    if matrix is not None:
        c = simulate(c, matrix)
    lb = lab(c)
    best = (np.inf, None)
    for i in range(len(c)):
        for j in range(i + 1, len(c)):
            d = float(de2000(lb[i], lb[j]))
            if d < best[0]:
                best = (d, (i, j))
    return best


def self_test():
    """Sharma et al.'s table 1: pairs 1, 7, 17 and 34 (the hue-mean and G branches)."""
    pairs = [((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
             ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
             ((50.0, 2.5, 0.0), (56.0, -27.0, -3.0), 31.9030),
             ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082)]
    for x, y, want in pairs:
        got = float(de2000(np.array(x), np.array(y)))
        assert abs(got - want) < 1e-4, (x, y, got, want)
