#!/usr/bin/env python3
"""The report of bench/bench_scaling.sh: a table per series (samples at fixed variants, variants
at fixed samples) with wall time, peak RSS, passes and the gensvd / plink2 time ratio; the
exponent b of time ~ size^b for each tool and series (least squares on the logs); and a
log-log picture of both series as plain SVG (no plotting library).

usage: scaling_report.py RESULTS N_AT M_AT "N_LIST" "M_LIST" "TOOLS" OUT.svg"""
import json
import math
import os
import sys

COLOURS = {"gensvd": "#1b6ca8", "plink2": "#c44e1f"}


def load(res, tool, m, n):
    base = os.path.join(res, f"{tool}_{m}x{n}")
    try:
        wall, rss = open(base + ".time").read().split()
    except OSError:
        return None
    r = {"wall": float(wall), "rss": int(rss) / 1024, "passes": "-", "method": ""}
    if tool == "gensvd":
        for name in (".zattrs", "zarr.json"):
            path = os.path.join(base + ".zarr", name)
            if os.path.exists(path):
                a = json.load(open(path))
                a = a.get("attributes", a)
                r["passes"] = str(a.get("iterations", "-"))
                r["method"] = a.get("method", "")
    return r


def exponent(xs, ys):
    """Least-squares slope of log y against log x (None with fewer than two points)."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if y and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx if sxx > 0 else None


def panel(x0, y0, w, h, title, xlabel, series):
    """One log-log panel: series is {tool: [(x, t), ...]}; returns SVG elements."""
    pts = [p for s in series.values() for p in s]
    if not pts:
        return []
    lx = [math.log10(p[0]) for p in pts]
    ly = [math.log10(p[1]) for p in pts]
    ax0, ax1 = math.floor(min(lx)), math.ceil(max(lx))
    ay0, ay1 = math.floor(min(ly)), math.ceil(max(ly))
    ax1 = ax1 if ax1 > ax0 else ax0 + 1
    ay1 = ay1 if ay1 > ay0 else ay0 + 1

    def px(v):
        return x0 + (math.log10(v) - ax0) / (ax1 - ax0) * w

    def py(v):
        return y0 + h - (math.log10(v) - ay0) / (ay1 - ay0) * h

    e = [f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none" stroke="#888"/>',
         f'<text x="{x0 + w / 2}" y="{y0 - 10}" text-anchor="middle" font-size="14">{title}</text>',
         f'<text x="{x0 + w / 2}" y="{y0 + h + 36}" text-anchor="middle" font-size="12">'
         f'{xlabel}</text>',
         f'<text x="{x0 - 44}" y="{y0 + h / 2}" text-anchor="middle" font-size="12" '
         f'transform="rotate(-90 {x0 - 44} {y0 + h / 2})">wall time (s)</text>']
    for d in range(ax0, ax1 + 1):
        x = x0 + (d - ax0) / (ax1 - ax0) * w
        e.append(f'<line x1="{x}" y1="{y0}" x2="{x}" y2="{y0 + h}" stroke="#eee"/>')
        e.append(f'<text x="{x}" y="{y0 + h + 16}" text-anchor="middle" font-size="11">'
                 f'{10 ** d:g}</text>')
    for d in range(ay0, ay1 + 1):
        y = y0 + h - (d - ay0) / (ay1 - ay0) * h
        e.append(f'<line x1="{x0}" y1="{y}" x2="{x0 + w}" y2="{y}" stroke="#eee"/>')
        e.append(f'<text x="{x0 - 6}" y="{y + 4}" text-anchor="end" font-size="11">'
                 f'{10 ** d:g}</text>')
    for i, (tool, s) in enumerate(sorted(series.items())):
        c = COLOURS.get(tool, "#333")
        s = sorted(s)
        e.append('<polyline fill="none" stroke="{}" stroke-width="2" points="{}"/>'.format(
            c, " ".join(f"{px(a):.1f},{py(b):.1f}" for a, b in s)))
        for a, b in s:
            e.append(f'<circle cx="{px(a):.1f}" cy="{py(b):.1f}" r="3.5" fill="{c}"/>')
        b = exponent([a for a, _ in s], [t for _, t in s])
        label = tool + (f" (time ~ size^{b:.2f})" if b is not None else "")
        e.append(f'<text x="{x0 + 10}" y="{y0 + 18 + 16 * i}" font-size="12" fill="{c}">'
                 f'{label}</text>')
    return e


def main():
    res, n_at, m_at = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    n_list = [int(x) for x in sys.argv[4].split()]
    m_list = [int(x) for x in sys.argv[5].split()]
    tools, svg = sys.argv[6].split(), sys.argv[7]
    panels = []
    for title, xlabel, shapes, size_of in (
            (f"samples N at {n_at:,} variants", "samples N", [(n_at, n) for n in n_list],
             lambda m, n: n),
            (f"variants M at {m_at:,} samples", "variants M", [(m, m_at) for m in m_list],
             lambda m, n: m)):
        print(f"\n{title}:")
        print("| M | N | " + " | ".join(f"{t} s | {t} RSS MB | {t} passes" for t in tools)
              + (" | gensvd / plink2 |" if {"gensvd", "plink2"} <= set(tools) else " |"))
        print("|" + " ---: |" * (2 + 3 * len(tools) + ({"gensvd", "plink2"} <= set(tools))))
        series = {t: [] for t in tools}
        by_method = {}  # gensvd's points per method: -m auto switches at 5,000 samples
        for m, n in shapes:
            row = [f"{m:,}", f"{n:,}"]
            got = {t: load(res, t, m, n) for t in tools}
            for t in tools:
                r = got[t]
                if r is None:
                    row += ["-", "-", "-"]
                    continue
                series[t].append((size_of(m, n), r["wall"]))
                if r["method"]:
                    by_method.setdefault(r["method"], []).append((size_of(m, n), r["wall"]))
                passes = r["passes"] + (f" ({r['method']})" if r["method"] else "")
                row += [f"{r['wall']:.1f}", f"{r['rss']:.0f}", passes]
            if {"gensvd", "plink2"} <= set(tools):
                g, p = got["gensvd"], got["plink2"]
                row.append(f"{g['wall'] / p['wall']:.3f}x" if g and p else "-")
            print("| " + " | ".join(row) + " |")
        for t in tools:
            b = exponent([x for x, _ in series[t]], [y for _, y in series[t]])
            print(f"{t}: time ~ {xlabel.split()[-1]}^{b:.2f}" if b is not None
                  else f"{t}: too few points for an exponent")
        if len(by_method) > 1:  # the exponent within each method, where it has two points
            for meth, pts in sorted(by_method.items()):
                b = exponent([x for x, _ in pts], [y for _, y in pts])
                if b is not None:
                    lo, hi = min(x for x, _ in pts), max(x for x, _ in pts)
                    print(f"gensvd {meth} only ({lo:,}-{hi:,}): time ~ "
                          f"{xlabel.split()[-1]}^{b:.2f}")
        panels.append((title, xlabel, series))
    w, h, pad = 380, 300, 70
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * (w + pad) + pad}" '
             f'height="{h + 2 * pad}" font-family="sans-serif">',
             '<rect width="100%" height="100%" fill="white"/>']
    for i, (title, xlabel, series) in enumerate(panels):
        parts += panel(pad + i * (w + pad), pad, w, h, title, xlabel, series)
    parts.append("</svg>")
    with open(svg, "w") as f:
        f.write("\n".join(parts) + "\n")
    print(f"\npicture: {svg}")


if __name__ == "__main__":
    main()
