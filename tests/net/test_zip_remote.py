#!/usr/bin/env python3
"""net: zipped stores (.vcz.zip) over http://, s3:// (moto) and gs:// (the GCS emulator).

zarr-python's ZipStore writes a VCF-Zarr-like group (Zarr v2 and v3 inside; STORED and
DEFLATE archives; one with call_genotype sharded; one of ~5,000 members whose central
directory lies outside the first suffix request).  Each archive served remotely must give
`dump` of every array byte-identical to the same archive read locally, and `pca --method
exact` identical scores (the big and the sharded one over http only, and fewer commands: the
emulators take ~1,000 requests a second).  The requests are checked: the end records by one
suffix Range request, the central directory by at most one more, each chunk member by one
ranged request from its local header (never the whole archive, never a chunk twice), a
shard's local header read once (twice at most when two workers meet it at once).  Faults from
tests/net/mock_http_server.py: a server that ignores Range (200 with the whole object: gensvd
uses the right slice, so results still equal), a truncated 206 body, a 206 with the wrong
Content-Range, and 404 for the archive each exit 1 with a message naming the URL; the zip
fuzz seeds (good and broken archives) give the same exit status and output as locally.
Usage: test_zip_remote.py GENSVD TESTDATA_DIR   (exit 77 = skipped: zarr-python missing)"""
import os
import shutil
import struct
import sys
import tempfile
import warnings
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netlib  # noqa: E402
from mock_http_server import MockServer  # noqa: E402
from netlib import check, expect_ok, run  # noqa: E402

warnings.filterwarnings("ignore")
try:
    import numpy as np
    import zarr
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

FAST = {"GENSVD_RETRY_BASE_MS": "20"}
ARRAYS = ["call_genotype", "sample_id", "variant_position"]
SUFFIX = 256 << 10  # the zip store's first (suffix) request


def write_group(store, fmt, n_var, chunks, consolidated, shards=None):
    rng = np.random.default_rng(14 + n_var)
    gt = (rng.random((n_var, 12, 2)) < 0.3).astype(np.int8)
    gt[:, :6] |= (rng.random((n_var, 6, 2)) < 0.3 * (np.arange(n_var) % 3 == 0)[:, None, None])
    gt[rng.random(gt.shape) < 0.03] = -1
    samples = np.array(["S%02d" % i for i in range(12)])
    pos = np.arange(1, n_var + 1, dtype=np.int32) * 100
    af = rng.random(n_var)  # incompressible: makes the archive larger than the first request
    g = zarr.open_group(store=store, mode="w", zarr_format=fmt)
    for name, val, ch, dims in (("call_genotype", gt, chunks, ["variants", "samples", "ploidy"]),
                                ("sample_id", samples, (5,), ["samples"]),
                                ("variant_position", pos, (chunks[0] * 4,), ["variants"]),
                                ("variant_AF", af, (chunks[0] * 4,), ["variants"])):
        kw = {"dimension_names": dims} if fmt == 3 else {}
        if shards and name == "call_genotype":
            kw["shards"] = shards
        a = g.create_array(name, shape=val.shape, dtype=str if val.dtype.kind == "U" else val.dtype,
                           chunks=ch, **kw)
        a[...] = val
        if fmt == 2:
            a.attrs["_ARRAY_DIMENSIONS"] = dims
    if consolidated:
        zarr.consolidate_metadata(store)


def make_archives(td):
    """(name, n_members) of the archives written under td/zips."""
    out = []
    os.makedirs(os.path.join(td, "zips"))
    for name, fmt, comp, n_var, chunks, cons, shards in (
            ("v2_stored.vcz.zip", 2, zipfile.ZIP_STORED, 400, (8, 4, 2), True, None),
            ("v3_deflated.vcz.zip", 3, zipfile.ZIP_DEFLATED, 400, (8, 4, 2), False, None),
            ("v3_stored_big.vcz.zip", 3, zipfile.ZIP_STORED, 2200, (1, 6, 2), False, None),
            ("v2_deflated_big.vcz.zip", 2, zipfile.ZIP_DEFLATED, 20000, (100, 12, 2), False, None),
            ("v3_sharded.vcz.zip", 3, zipfile.ZIP_STORED, 20000, (50, 6, 2), False,
             (400, 12, 2))):
        path = os.path.join(td, "zips", name)
        zs = zarr.storage.ZipStore(path, mode="w", compression=comp)
        write_group(zs, fmt, n_var, chunks, cons, shards)
        zs.close()
        with zipfile.ZipFile(path) as zf:
            out.append((name, len(zf.infolist())))
    return out


def same_as_local(tag, gensvd, local, remote, env=None):
    """dump of every array byte-identical, pca --method exact scores identical."""
    netlib.same_outputs(tag, gensvd, local, remote, env, arrays=ARRAYS)
    netlib.same_exact_pca(tag, gensvd, local, remote, env, ok_what=f"{tag}: pca --method exact",
                          equal_what="the local archive")


def check_requests(tag, gensvd, zips, name, array, srv, base):
    """One dump: a suffix request first, the central directory by at most one more ranged
    request, then each chunk member at most once, from its local header; nothing but ranged
    requests."""
    path = os.path.join(zips, name)
    size = os.path.getsize(path)
    with zipfile.ZipFile(path) as zf:
        at = {i.header_offset: i.filename for i in zf.infolist()}
    srv.ranges.clear()
    srv.counts.clear()
    rc, out, err = run(gensvd, ["dump", f"{base}/{name}/{array}"])
    expect_ok(f"{tag}: dump", rc, err)
    rs = [r for p, r in srv.ranges if p == name]
    check(f"{tag}: every request ranged", srv.counts.get(name, 0) == len(rs),
          f"{srv.counts} vs {len(rs)} ranges")
    check(f"{tag}: first request a suffix of {SUFFIX}", rs and rs[0] == f"bytes=-{SUFFIX}",
          str(rs[:3]))
    starts = [int(r[6:].split("-")[0]) for r in rs[1:] if not r.startswith("bytes=-")]
    members = [at[o] for o in starts if o in at]
    chunks = [m for m in members if not m.rsplit("/", 1)[-1].startswith((".z", "zarr.json"))]
    check(f"{tag}: member reads start at local headers", len(members) >= len(starts) - 1,
          str(rs[:6]))
    check(f"{tag}: no chunk member read twice", len(set(chunks)) == len(chunks), str(chunks[:9]))
    if size <= SUFFIX:
        check(f"{tag}: a small archive is one request", len(rs) == 1, str(rs))
    else:
        check(f"{tag}: members read by range", len(rs) > 2, str(rs[:5]))
    return rs


def http_tests(gensvd, td, archives):
    zips = os.path.join(td, "zips")
    srv = MockServer(zips).start()
    base = f"http://127.0.0.1:{srv.port}"
    for name in archives:
        same_as_local(f"http {name}", gensvd, os.path.join(zips, name), f"{base}/{name}")
        rc, out, err = run(gensvd, ["info", f"{base}/{name}"])
        check(f"http {name}: info lists the arrays", rc == 0 and b"call_genotype" in out, err)
    check_requests("http small", gensvd, zips, "v2_stored.vcz.zip", "call_genotype", srv, base)
    check_requests("http deflated", gensvd, zips, "v2_deflated_big.vcz.zip", "call_genotype",
                   srv, base)
    # sharded v3 inside: shard indexes and inner chunks are ranges of STORED members; a
    # member's local header is read once (twice when two workers meet it first at once)
    sharded = "v3_sharded.vcz.zip"
    # (sharded reads are one request per shard index and inner-chunk run, slow on this server:
    # one dump only)
    with zipfile.ZipFile(os.path.join(zips, sharded)) as zf:
        heads = {i.header_offset for i in zf.infolist()
                 if i.filename.startswith("call_genotype/c/")}
    srv.ranges.clear()
    rc, out, err = run(gensvd, ["dump", f"{base}/{sharded}/call_genotype"])
    expect_ok("http sharded: dump", rc, err)
    rl, ol, el = run(gensvd, ["dump", f"{os.path.join(zips, sharded)}/call_genotype"])
    check("http sharded: dump equals the local archive", rl == 0 and out == ol and len(ol) > 0)
    starts = [int(r[6:].split("-")[0]) for p, r in srv.ranges if not r.startswith("bytes=-")]
    head_reads = [o for o in starts if o in heads]
    check("http sharded: each shard's local header read at most twice",
          len(heads) == 20000 // 400 and len(head_reads) <= 2 * len(heads)
          and max(head_reads.count(o) for o in heads) <= 2,
          f"{len(head_reads)} header reads for {len(heads)} shards")
    # ~5,000 members: the central directory by one more request, then few members
    big = "v3_stored_big.vcz.zip"
    rs = check_requests("http big", gensvd, zips, big, "sample_id", srv, base)
    check("http big: central directory by one more request",
          len(rs) > 2 and not rs[1].startswith("bytes=-") and len(rs) < 12, str(rs[:12]))
    netlib.same_outputs("http big", gensvd, os.path.join(zips, big), f"{base}/{big}",
                        arrays=["call_genotype"])
    # zip:// in front of a remote URL; options of remote stores apply
    url = f"zip://{base}/v3_deflated.vcz.zip"
    rc, out, err = run(gensvd, ["dump", f"{url}/sample_id", "--concurrency", "1", "--retries",
                                "0"])
    check("zip://http:// with remote options", rc == 0 and out.startswith(b"S00\n"), err)
    # 404 for the archive
    rc, out, err = run(gensvd, ["info", f"{base}/missing.vcz.zip"], FAST)
    check("404 archive: exit 1 naming the URL",
          rc == 1 and f"{base}/missing.vcz.zip" in err and out == b"", f"exit {rc}: {err}")
    rc, out, err = run(gensvd, ["pca", f"{base}/v2_stored.vcz.zip", "-o",
                                f"{base}/out.vcz.zip"])
    check("remote zip output refused", rc in (1, 2) and "zip" in err, f"exit {rc}: {err}")
    srv.shutdown()

    # a server that ignores Range: the right slice of the whole object, results equal
    srv = MockServer(zips, "norange").start()
    base = f"http://127.0.0.1:{srv.port}"
    for name in archives:
        netlib.same_outputs(f"no Range {name}", gensvd, os.path.join(zips, name),
                            f"{base}/{name}", arrays=["call_genotype"])
    srv.shutdown()
    # broken 206 answers: exit 1, the archive's URL in the message
    for mode in ("short206", "badrange206"):
        srv = MockServer(zips, mode).start()
        base = f"http://127.0.0.1:{srv.port}"
        for name in ("v2_stored.vcz.zip", "v2_deflated_big.vcz.zip"):
            rc, out, err = run(gensvd, ["dump", f"{base}/{name}/call_genotype"], FAST)
            check(f"{mode} {name}: exit 1 naming the URL and the 206",
                  rc == 1 and f"{base}/{name}" in err and "HTTP 206" in err and out == b"",
                  f"exit {rc}: {err}")
        srv.shutdown()


def hostile_tests(gensvd, td):
    """The zip fuzz seeds (good, and broken: truncated, encrypted, method 12, bad CRC, "..",
    duplicate, a declared size DEFLATE cannot reach) over http give the exit status and output
    of the same file read locally; a failure names the archive's URL."""
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz", "corpus",
                          "zip")
    hdir = os.path.join(td, "hostile")
    os.makedirs(hdir)
    for seed in sorted(os.listdir(corpus)):
        shutil.copyfile(os.path.join(corpus, seed), os.path.join(hdir, seed + ".zip"))
    # a member past the first request, corrupted: a flipped data byte, a bad local header
    big = os.path.join(td, "zips", "v2_deflated_big.vcz.zip")
    with zipfile.ZipFile(big) as zf:
        info = zf.getinfo("call_genotype/0.0.0")
    with open(big, "rb") as f:
        data = bytearray(f.read())
    assert info.header_offset < len(data) - SUFFIX
    name_len, extra_len = struct.unpack("<HH", data[info.header_offset + 26:info.header_offset + 30])
    flipped = bytearray(data)
    flipped[info.header_offset + 30 + name_len + extra_len + 5] ^= 0x55
    badsig = bytearray(data)
    badsig[info.header_offset] ^= 0xFF
    for seed, blob in (("big_flipped", flipped), ("big_bad_local_header", badsig)):
        with open(os.path.join(hdir, seed + ".zip"), "wb") as f:
            f.write(blob)
    srv = MockServer(hdir).start()
    base = f"http://127.0.0.1:{srv.port}"
    for seed in sorted(os.listdir(corpus)) + ["big_flipped", "big_bad_local_header"]:
        local, url = os.path.join(hdir, seed + ".zip"), f"{base}/{seed}.zip"
        arr = "call_genotype" if seed.startswith("big") else "g"
        for args in (["info"], ["dump", "--array", arr]):
            rl, ol, el = run(gensvd, args + [local])
            rr, orr, er = run(gensvd, args + [url], FAST)
            check(f"hostile {seed} {args[0]}: same exit and output as local ({rl})",
                  rl == rr and ol.replace(local.encode(), b"X") == orr.replace(url.encode(), b"X")
                  and (rr == 0 or url in er), f"exit {rl}/{rr}: {el} | {er}")
            if seed.startswith("big") and args[0] == "dump":
                check(f"hostile {seed}: exit 1 naming the URL and the entry",
                      rr == 1 and url in er and "call_genotype/0.0.0" in er, er)
    srv.shutdown()


def s3_tests(gensvd, testdata, td, archives):
    try:
        import boto3  # noqa: F401
        import moto  # noqa: F401
    except ImportError:
        print("s3: skipped (moto or boto3 missing)")
        return
    import test_s3_moto as s3t
    local = os.path.join(testdata, "zarr", "v2py", netlib.STORE)
    local_v3 = os.path.join(testdata, "zarr", "v3", netlib.STORE)
    zips = os.path.join(td, "zips")
    proc, url = s3t.start_moto(td)
    try:
        akid, secret = s3t.setup(url, local, local_v3, ((zips, "z/"),))
        env = {"HOME": td, "AWS_ACCESS_KEY_ID": akid, "AWS_SECRET_ACCESS_KEY": secret,
               "AWS_ENDPOINT_URL_S3": url, "AWS_REGION": "us-east-1", **FAST}
        for name in archives:
            same_as_local(f"s3 {name}", gensvd, os.path.join(zips, name),
                          f"s3://{s3t.BUCKET}/z/zips/{name}", env)
        rc, out, err = run(gensvd, ["info", f"s3://{s3t.BUCKET}/z/zips/none.vcz.zip"], env)
        check("s3 missing archive: exit 1 naming it", rc == 1 and "none.vcz.zip" in err, err)
        netlib.no_secret("s3 zip", err, [secret])
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def gcs_tests(gensvd, td, archives):
    exe = os.path.join(os.path.dirname(sys.executable), "gcp-storage-emulator")
    if not os.path.exists(exe):
        print("gcs: skipped (gcp-storage-emulator missing)")
        return
    import test_gcs_emulator as gt
    zips = os.path.join(td, "zips")
    proc, url = gt.start(td)
    try:
        gt.upload(url, zips, "z/")
        env = {"STORAGE_EMULATOR_HOST": url.split("://", 1)[1], **FAST}
        for name in archives:
            same_as_local(f"gcs {name}", gensvd, os.path.join(zips, name),
                          f"gs://{gt.BUCKET}/z/zips/{name}", env)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main():
    gensvd, testdata = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as td:
        archives = make_archives(td)
        big = [n for name, n in archives if name == "v3_stored_big.vcz.zip"][0]
        check("fixture: the big archive's directory is past the first request",
              big * 70 > SUFFIX, str(big))
        # every archive but the big one everywhere (5,000 requests a read are slow on the
        # emulators); two fit the first request, one needs member requests
        archives = [n for n, _ in archives if n not in ("v3_stored_big.vcz.zip",
                                                        "v3_sharded.vcz.zip")]
        http_tests(gensvd, td, archives)
        hostile_tests(gensvd, td)
        s3_tests(gensvd, testdata, td, archives)
        gcs_tests(gensvd, td, archives)
    netlib.finish()


if __name__ == "__main__":
    main()
