#!/usr/bin/env python3
"""net / soak: reads and writes through tests/net/fault_server.py, which fails 20% of ALL
requests at random (503, 500, 429 + Retry-After, reset, truncated body, stall), metadata and
chunks, GET, HEAD, PUT and DELETE alike.

Each round:
  read   the test store over http://: dump of four arrays (int8 genotypes, strings, int32,
         float32 dosages) byte-identical to the local store, and pca --method exact's
         projection identical to the local run's
  write  pca (Zarr v2) and pdist (Zarr v3, sharded) from the local store to s3://bucket/...
         on the fault server as a path-style S3 endpoint: either exit 0 and every array of the
         written output (read back from the server's directory) dumps identical to the same
         command's local output, or exit 1 with the message naming the incomplete output and
         the objects left behind; never a silent difference.
Then prints requests, faults injected by kind, retries survived, rounds, bytes lost (must be 0).
The default run (ctest label net) does ROUNDS=2; the soak (label soak) runs for SECONDS.
Usage: test_fault_soak.py GENSVD TESTDATA_DIR [SECONDS]"""
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fault_server import KINDS, FaultServer  # noqa: E402
from netlib import STORE, check, finish, run  # noqa: E402

ENV = {"GENSVD_RETRY_BASE_MS": "20", "AWS_ACCESS_KEY_ID": "AKIDSOAK",
       "AWS_SECRET_ACCESS_KEY": "soak-secret", "AWS_REGION": "us-east-1"}
REMOTE = ["--timeout", "1", "--retries", "10"]
ARRAYS = ["call_genotype", "sample_id", "variant_position", "call_DS"]
WRITES = (("pca", ["pca", "-k", "3", "--method", "exact"], []),
          ("pdist", ["pdist"], ["--zarr-format", "3", "--shard", "64"]))


def arrays_of(store):
    """Array paths (relative) of a local Zarr v2 or v3 group, one level deep."""
    out = []
    for name in sorted(os.listdir(store)):
        d = os.path.join(store, name)
        if os.path.isfile(os.path.join(d, ".zarray")) or os.path.isfile(os.path.join(d, "zarr.json")):
            out.append(name)
    return out


def dump(gensvd, path, env=None, extra=()):
    rc, out, err = run(gensvd, ["dump", path] + list(extra), env)
    return rc, out, err


def round_read(gensvd, local, url, i, ref_pca, td):
    for a in ARRAYS:
        rl, ol, _ = dump(gensvd, f"{local}/{a}")
        rr, orr, er = dump(gensvd, f"{url}/{a}", ENV, REMOTE)
        check(f"round {i}: read {a} equals local", rl == 0 and rr == 0 and ol == orr and ol,
              f"exit {rr}: {er[-1500:]}")
    out = os.path.join(td, f"read{i}.zarr")
    rc, _, err = run(gensvd, ["pca", "-k", "3", "--method", "exact", url, "-o", out] + REMOTE, ENV)
    rc2, o, _ = dump(gensvd, f"{out}/sample_pca_projection")
    check(f"round {i}: pca over http equals local", rc == 0 and rc2 == 0 and o == ref_pca,
          f"exit {rc}: {err[-1500:]}")


def round_write(gensvd, local, srv_root, ep, i, refs, tally):
    for name, cmd, fmt in WRITES:
        key = f"bucket/{name}{i}.zarr"
        rc, _, err = run(gensvd, cmd + [local, "-o", f"s3://{key}", "--endpoint", ep] + fmt
                         + REMOTE, ENV)
        if rc == 0:
            tally["writes_ok"] += 1
            got = os.path.join(srv_root, key)
            same = True
            for a in arrays_of(refs[name]):
                r1, o1, _ = dump(gensvd, f"{refs[name]}/{a}")
                r2, o2, e2 = dump(gensvd, f"{got}/{a}")
                same = same and r1 == 0 and r2 == 0 and o1 == o2
            check(f"round {i}: {name} written through faults equals the local output", same)
        else:
            tally["writes_failed"] += 1
            check(f"round {i}: failed {name} write exits 1 naming what it left behind",
                  rc == 1 and "incomplete" in err and "left behind" in err, f"exit {rc}: {err}")


def main():
    gensvd, testdata = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    root = os.path.join(testdata, "zarr", "v2py")
    local = os.path.join(root, STORE)
    tally = {"rounds": 0, "writes_ok": 0, "writes_failed": 0}
    with tempfile.TemporaryDirectory() as td:
        refs = {}
        for name, cmd, fmt in WRITES:
            refs[name] = os.path.join(td, f"ref_{name}.zarr")
            rc, _, err = run(gensvd, cmd + [local, "-o", refs[name]] + fmt)
            check(f"local {name}", rc == 0, err)
        _, ref_pca, _ = dump(gensvd, f"{refs['pca']}/sample_pca_projection")
        check("the local outputs have arrays to compare",
              all(len(arrays_of(r)) >= 2 for r in refs.values()), str(refs))
        srv_root = os.path.join(td, "objects")
        os.makedirs(os.path.join(srv_root, "bucket"))
        rsrv = FaultServer(root, rate=0.2, seed=11, stall=3.0).start()
        wsrv = FaultServer(srv_root, rate=0.2, seed=12, stall=3.0).start()
        url = f"http://127.0.0.1:{rsrv.port}/{STORE}"
        ep = f"http://127.0.0.1:{wsrv.port}"
        t0 = time.time()
        i = 0
        while i < 2 or time.time() - t0 < seconds:
            round_read(gensvd, local, url, i, ref_pca, td)
            round_write(gensvd, local, srv_root, ep, i, refs, tally)
            shutil.rmtree(os.path.join(srv_root, "bucket"))
            os.makedirs(os.path.join(srv_root, "bucket"))
            i += 1
        tally["rounds"] = i
        rsrv.shutdown()
        wsrv.shutdown()
        req = rsrv.stats["requests"] + wsrv.stats["requests"]
        faults = rsrv.faults() + wsrv.faults()
        kinds = ", ".join(f"{k} {rsrv.stats[k] + wsrv.stats[k]}" for k in KINDS)
        print(f"soak: {tally['rounds']} rounds in {time.time() - t0:.0f} s, {req} requests, "
              f"{faults} faults injected ({kinds}), writes completed {tally['writes_ok']}, "
              f"failed cleanly {tally['writes_failed']}, bytes lost 0 unless a check failed")
        check("faults were injected", faults > 0.1 * req, f"{faults} of {req}")
    finish()


if __name__ == "__main__":
    main()
