#!/usr/bin/env python3
"""net: a variant selection over HTTP reads only the chunk rows it selects.

Stores of 20 chunk rows (Zarr v2, and v3 with shards of four rows) served by
tests/net/mock_http_server.py; `--exclude-range` leaves out row 2, rows 5-14 and row 17.
The results equal the local store's byte for byte (the local selection is checked against plink2
and numpy by interop_variant_select), and the server's log shows that no chunk of a left-out row
was asked for: neither read ahead nor read, at any concurrency.  The arrays the selection
reads whole (variant_contig, variant_position) are read ahead like the genotypes.
Usage: test_remote_select.py GENSVD TESTDATA_DIR"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mock_http_server import MockServer  # noqa: E402
from netlib import check, expect_ok, finish, run  # noqa: E402

ROWS, CHUNK, SHARD_ROWS = 20, 1000, 4
LEFT_OUT = {2} | set(range(5, 15)) | {17}


def range_file(path, positions):
    """1-based closed ranges covering exactly the left-out rows' variants."""
    with open(path, "w") as f:
        for lo, hi in ((2, 2), (5, 14), (17, 17)):
            f.write(f"1\t{positions[lo * CHUNK]}\t{positions[(hi + 1) * CHUNK - 1]}\n")


def analyses(gensvd, src, ranges, extra=()):
    """pca scores, ldprune's kept mask and ibs distances of the selection, as bytes."""
    out = []
    with tempfile.TemporaryDirectory() as td:
        sel = ["--exclude-range", ranges] + list(extra)
        rc, o, err = run(gensvd, ["pca", src, "-k", "3", "-t", "2", "--format", "tsv"] + sel)
        expect_ok(f"pca {src} {extra}", rc, err)
        out.append(o)
        keep = os.path.join(td, "keep.zarr")
        rc, _, err = run(gensvd, ["ldprune", src, "-t", "2", "--window", "50", "-o", keep] + sel)
        expect_ok(f"ldprune {src} {extra}", rc, err)
        rc, o, err = run(gensvd, ["dump", f"{keep}/variant_ld_keep"])
        out.append(o)
        rc, o, err = run(gensvd, ["pdist", src, "-m", "ibs", "-t", "2"] + sel)
        expect_ok(f"pdist {src} {extra}", rc, err)
        out.append(o)
    return out


def rows_asked(srv, prefix, row_of):
    """Chunk rows of call_genotype the server was asked for (any request, any range)."""
    rows = set()
    with srv.lock:
        paths = list(srv.counts)
    for p in paths:
        if p.startswith(prefix) and not os.path.basename(p).startswith("."):
            rows |= row_of(p[len(prefix):])
    return rows


def main():
    gensvd = sys.argv[1]
    with tempfile.TemporaryDirectory() as td:
        common = ["simulate", "-q", "-m", str(ROWS * CHUNK), "-n", "60", "-c", f"{CHUNK},60",
                  "-r", "0.01"]
        v2, v3 = os.path.join(td, "v2.zarr"), os.path.join(td, "v3.zarr")
        rc, _, err = run(gensvd, common + [v2])
        expect_ok("simulate v2", rc, err)
        rc, _, err = run(gensvd, common + ["--zarr-format", "3", "--shard",
                                           f"{SHARD_ROWS * CHUNK},60", v3])
        expect_ok("simulate v3", rc, err)
        rc, o, err = run(gensvd, ["dump", f"{v2}/variant_position"])
        positions = [int(x) for x in o.split()]
        check("positions", len(positions) == ROWS * CHUNK, str(len(positions)))
        ranges = os.path.join(td, "out.ranges")
        range_file(ranges, positions)
        want = {"v2": analyses(gensvd, v2, ranges), "v3": analyses(gensvd, v3, ranges)}

        def v2_rows(rest):  # "7.0.0"
            return {int(rest.split(".")[0])}

        def v3_rows(rest):  # "c/1/0/0": a shard of SHARD_ROWS chunk rows
            s = int(rest.split("/")[1])
            return set(range(s * SHARD_ROWS, (s + 1) * SHARD_ROWS))

        for name, store, row_of in (("v2", "v2.zarr", v2_rows), ("v3", "v3.zarr", v3_rows)):
            for conc in ("32", "2"):
                srv = MockServer(td).start()
                url = f"http://127.0.0.1:{srv.port}/{store}"
                got = analyses(gensvd, url, ranges, ["--concurrency", conc])
                check(f"{name} --concurrency {conc}: pca, ldprune, pdist equal the local store's",
                      got == want[name] and all(len(x) > 0 for x in got))
                asked = rows_asked(srv, f"{store}/call_genotype/", row_of)
                srv.shutdown()
                if name == "v2":
                    check(f"{name} --concurrency {conc}: no chunk of a left-out row asked for",
                          asked == set(range(ROWS)) - LEFT_OUT, f"asked rows {sorted(asked)}")
                else:  # shard 2 (rows 8-11) holds left-out rows only
                    check(f"{name} --concurrency {conc}: the left-out shard never asked for",
                          not (asked & set(range(8, 12))) and 0 in asked and 16 in asked,
                          f"asked rows {sorted(asked)}")
        # in a shard with rows of both kinds only the selected rows' inner chunks are read:
        # shard 1 holds rows 4-7, of which only row 4 is selected
        srv = MockServer(td).start()
        url = f"http://127.0.0.1:{srv.port}/v3.zarr"
        rc, _, err = run(gensvd, ["pca", url, "-k", "3", "-t", "2", "--format", "tsv",
                                  "--exclude-range", ranges])
        expect_ok("v3 pca", rc, err)
        with srv.lock:
            shard1 = [r for p, r in srv.ranges if p == "v3.zarr/call_genotype/c/1/0/0"
                      and not r.startswith("bytes=-")]
        srv.shutdown()
        check("v3: one inner chunk range of shard 1 read (row 4's)", len(shard1) == 1,
              str(shard1))
        # the selection reads variant_contig and variant_position whole: their chunks are read
        # ahead, many in flight at once, not one round trip after another
        srv = MockServer(td, "latency", stall=0.05).start()
        url = f"http://127.0.0.1:{srv.port}/v2.zarr"
        rc, _, err = run(gensvd, ["pca", url, "-k", "3", "-t", "2", "--format", "tsv",
                                  "--exclude-range", ranges])
        expect_ok("v2 pca, distant server", rc, err)
        with srv.lock:
            peak = dict(srv.peak)
        srv.shutdown()
        check("distant server: the whole-array reads keep requests in flight",
              all(peak.get(f"v2.zarr/{a}", 0) >= 4 for a in
                  ("variant_position", "variant_contig", "call_genotype")), str(peak))
    finish()


if __name__ == "__main__":
    main()
