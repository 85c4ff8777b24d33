"""gensvd plot on bad input: the message names the file or key, the exit status is 1 (2 for
usage), and no output or temporary file is left behind.

Usage: test_plot_bad.py GENSVD (Python stdlib only)."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HAPMAP = os.path.join(ROOT, "testdata", "realdata", "hapmap3.vcz")
POPS = os.path.join(ROOT, "testdata", "realdata", "hapmap3_957.populations.tsv")

fails = 0
passes = 0


def case(name, args, status, *needles, gensvd=None):
    global fails, passes
    p = subprocess.run([gensvd, "plot", *args], capture_output=True, text=True)
    missing = [s for s in needles if s not in p.stderr]
    if p.returncode != status or missing:
        fails += 1
        print(f"FAIL {name}: exit {p.returncode} (want {status}), missing {missing} in\n"
              f"{p.stderr}")
    else:
        passes += 1


def main():
    global fails, passes
    gensvd = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        pcs, dist = os.path.join(tmp, "pcs.zarr"), os.path.join(tmp, "d.zarr")
        for args in (["pca", HAPMAP, "-o", pcs, "-k", "3"], ["pdist", HAPMAP, "-o", dist]):
            p = subprocess.run([gensvd, *args, "-q"], capture_output=True, text=True)
            if p.returncode:
                print(p.stderr)
                return 1
        out = os.path.join(tmp, "out")
        os.mkdir(out)
        svg = os.path.join(out, "x.svg")

        def c(name, args, status, *needles):
            case(name, args, status, *needles, gensvd=gensvd)

        c("no such label column", ["pca", pcs, "-o", svg, "--color-by", POPS,
                                   "--label-column", "superpop"], 1, POPS, "'superpop'",
          "FID, IID, population")
        c("PC beyond k", ["pca", pcs, "-o", svg, "--pcs", "1,4"], 1, "PC4", "3 components", "pcs.zarr")
        c("grid beyond k", ["pca", pcs, "-o", svg, "--grid", "5"], 1, "PC5", "3 components")
        c("pca input without the arrays", ["pca", HAPMAP, "-o", svg], 1,
          "sample_pca_projection", "hapmap3.vcz")
        c("pdist input without the arrays", ["pdist", pcs, "-o", svg], 1, "'distance'",
          "pcs.zarr")
        c("no such input", ["pca", os.path.join(tmp, "nope.zarr"), "-o", svg], 1, "nope.zarr")
        c("no such label array", ["pca", pcs, "-o", svg, "--color-by",
                                  HAPMAP + "/sample_population"], 1, "sample_population")
        c("label file without IDs", ["pca", pcs, "-o", svg, "--color-by", POPS + ".none"], 1,
          ".none")
        c("unwritable output", ["pca", pcs, "-o", os.path.join(tmp, "no", "dir", "x.svg")], 1,
          os.path.join(tmp, "no", "dir", "x.svg"))
        c("cluster beyond 5000 is refused only for N > 5000; pc1 needs --pcs",
          ["pdist", dist, "-o", svg, "--order", "pc1"], 2, "--pcs")
        c("label order needs labels", ["pdist", dist, "-o", svg, "--order", "label"], 2,
          "--color-by")
        c("missing -o", ["pca", pcs], 2, "-o")
        c("same PC twice", ["pca", pcs, "-o", svg, "--pcs", "2,2"], 2, "--pcs")
        c("bad --grid", ["pca", pcs, "-o", svg, "--grid", "1"], 2, "--grid")
        c("unknown plot", ["scatter", pcs, "-o", svg], 2, "scatter")
        c("bad --order", ["pdist", dist, "-o", svg, "--order", "random"], 2, "random")
        c("grid for pdist", ["pdist", dist, "-o", svg, "--grid", "3"], 2, "--grid")
        leftovers = os.listdir(out)
        if leftovers:
            fails += 1
            print(f"FAIL files left behind after failures: {leftovers}")
        else:
            passes += 1
        # the staged write: an existing output is replaced whole, nothing else remains
        open(svg, "w").write("old")
        p = subprocess.run([gensvd, "plot", "pca", pcs, "-o", svg], capture_output=True)
        ok = p.returncode == 0 and open(svg).read().startswith("<?xml") and \
            os.listdir(out) == ["x.svg"]
        passes, fails = (passes + 1, fails) if ok else (passes, fails + 1)
        if not ok:
            print(f"FAIL replace existing output: {os.listdir(out)}")
        p = subprocess.run([gensvd, "help", "plot"], capture_output=True, text=True)
        ok = p.returncode == 0 and "gensvd plot pca" in p.stdout
        passes, fails = (passes + 1, fails) if ok else (passes, fails + 1)
        if not ok:
            print("FAIL gensvd help plot")
    print(f"{passes} passed, {fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
