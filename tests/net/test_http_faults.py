#!/usr/bin/env python3
"""net: the https:// store against tests/net/mock_http_server.py on 127.0.0.1.
Remote results must equal local ones byte for byte, through every injected transient fault,
or fail with a clear error naming the key and the status; never differ silently.
Usage: test_http_faults.py GENSVD TESTDATA_DIR"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netlib  # noqa: E402
from mock_http_server import MockServer  # noqa: E402
from netlib import STORE, check, expect_ok, run, same_analyses, same_outputs  # noqa: E402

FAST = {"GENSVD_RETRY_BASE_MS": "20"}


def free_port():
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    gensvd, testdata = sys.argv[1], sys.argv[2]
    root = os.path.join(testdata, "zarr", "v2py")
    local = os.path.join(root, STORE)

    srv = MockServer(root).start()
    url = f"http://127.0.0.1:{srv.port}/{STORE}"
    same_outputs("normal", gensvd, local, url)
    same_analyses("normal", gensvd, local, url)
    rc, out, err = run(gensvd, ["dump", "-v", "-v", f"{url}/call_genotype", "--concurrency", "1"])
    expect_ok("concurrency 1", rc, err)
    srv.shutdown()

    # Zarr v3 with sharding over HTTP: inner chunks and shard indexes are ranged reads (suffix
    # ranges for indexes at the end); results equal the local store's, also from a server that
    # ignores Range; a 206 with a truncated body is an error naming the shard
    v3root = os.path.join(testdata, "zarr", "v3")
    v3local = os.path.join(v3root, STORE)
    srv = MockServer(v3root).start()
    url = f"http://127.0.0.1:{srv.port}/{STORE}"
    same_outputs("v3 sharded", gensvd, v3local, url)
    same_analyses("v3 sharded", gensvd, v3local, url)
    gt = [r for p, r in srv.ranges if p.startswith(f"{STORE}/call_genotype/c/")]
    check("v3 sharded: shard indexes by suffix range", any(r.startswith("bytes=-") for r in gt),
          str(gt[:5]))
    check("v3 sharded: inner chunks by range", any(not r.startswith("bytes=-") for r in gt),
          str(gt[:5]))
    ds = [r for p, r in srv.ranges if p.startswith(f"{STORE}/call_DS/c/")]
    check("v3 sharded: index at the start read from byte 0", any(r.startswith("bytes=0-")
                                                                 for r in ds), str(ds[:5]))
    # a scan reads ahead: every inner chunk of the scan by its exact range, each once
    srv.ranges.clear()
    rc, _, err = run(gensvd, ["dump", "-v", "-v", f"{url}/call_genotype", "--stats"])
    inner = [(p, r) for p, r in srv.ranges
             if p.startswith(f"{STORE}/call_genotype/c/") and not r.startswith("bytes=-")]
    check("v3 sharded: the scan reads its inner chunks ahead, each range once",
          rc == 0 and "inner chunk and index ranges" in err and len(inner) > 1
          and len(inner) == len(set(inner)), f"exit {rc}: {err[-800:]} {inner[:6]}")
    srv.shutdown()
    srv = MockServer(v3root, "norange").start()
    url = f"http://127.0.0.1:{srv.port}/{STORE}"
    same_outputs("v3 server without Range", gensvd, v3local, url, arrays=["call_genotype",
                                                                          "call_DS"])
    srv.shutdown()
    srv = MockServer(v3root, "short206").start()
    url = f"http://127.0.0.1:{srv.port}/{STORE}"
    rc, out, err = run(gensvd, ["dump", f"{url}/call_genotype"], FAST)
    check("v3 truncated 206: exit 1 naming the shard and the range",
          rc == 1 and "call_genotype/c/" in err and "truncated" in err and out == b"",
          f"exit {rc}: {err}")
    srv.shutdown()
    srv = MockServer(v3root, "long206").start()
    url = f"http://127.0.0.1:{srv.port}/{STORE}"
    rc, out, err = run(gensvd, ["dump", f"{url}/call_genotype"], FAST)
    check("v3 oversized 206: exit 1, refused naming the shard",
          rc == 1 and "call_genotype/c/" in err and "longer than" in err and out == b"",
          f"exit {rc}: {err}")
    srv.shutdown()

    # transient faults: retried, results identical
    for mode in ["429", "503", "reset", "truncate", "slow"]:
        srv = MockServer(root, mode, stall=8).start()
        url = f"http://127.0.0.1:{srv.port}/{STORE}"
        env = dict(FAST, GENSVD_HTTP_TIMEOUT="1")
        same_outputs(f"fault {mode}", gensvd, local, url, env, arrays=["call_genotype"])
        retried = [k for k, n in srv.counts.items() if n > 1]
        check(f"fault {mode}: chunks were retried", len(retried) > 0, str(srv.counts))
        srv.shutdown()

    # Ctrl-C while info waits on a stalled server: info writes nothing, so it claims no removal
    srv = MockServer(root, "slowall", stall=20).start()
    url = f"http://127.0.0.1:{srv.port}/{STORE}"
    env = dict(os.environ)
    env.pop("GENSVD_LOG_LEVEL", None)
    p = subprocess.Popen([gensvd, "info", url], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(2)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    check("info interrupted: exit 130, no claim of a removed output",
          p.returncode == 130 and err.strip() == "gensvd info: error: interrupted by SIGINT",
          f"exit {p.returncode}: {err}")
    srv.shutdown()

    # permanent failures: a clear error naming the key and the status, exit 1
    srv = MockServer(root, "always500").start()
    url = f"http://127.0.0.1:{srv.port}/{STORE}"
    rc, out, err = run(gensvd, ["dump", f"{url}/call_genotype", "--retries", "2"], FAST)
    check("500: exit 1", rc == 1, f"exit {rc}")
    check("500: names key, status and attempts",
          "call_genotype/0.0.0" in err and "HTTP 500" in err and "3 attempts" in err, err)
    check("500: no data on stdout", out == b"", out[:200])
    rc, out, err = run(gensvd, ["pca", url, "--retries", "1"], FAST)
    check("500: pca fails with exit 1", rc == 1 and "HTTP 500" in err, f"exit {rc}: {err}")
    # retries are said at the default level from the second on, one line per retry of a
    # request, in the message style; the first only under -v
    rc, out, err = run(gensvd, ["dump", f"{url}/call_genotype", "--retries", "3",
                                "--concurrency", "1"], FAST)
    key = f"{url}/call_genotype/0.0.0"
    said = [ln for ln in err.splitlines()
            if ln.startswith(f"gensvd dump: warning: retrying {key} (")]
    check("500: the 2nd and 3rd retries of a chunk are warnings, one line each",
          rc == 1 and len(said) == 2 and "(2/3)" in said[0] and "(3/3)" in said[1]
          and said[0].endswith(": HTTP 500"), err)
    check("500: the first retry is not said at the default level", f"{key} (1/3)" not in err, err)
    rc, out, err = run(gensvd, ["dump", "-v", f"{url}/call_genotype", "--retries", "3",
                                "--concurrency", "1"], FAST)
    check("500: -v says the first retry too",
          f"gensvd dump: retrying {key} (1/3) in " in err, err)
    rc, out, err = run(gensvd, ["dump", "-q", f"{url}/call_genotype", "--retries", "3"], FAST)
    check("500: -q leaves the error only",
          rc == 1 and "retrying" not in err and err.startswith("gensvd dump: error: "), err)
    srv.shutdown()

    srv = MockServer(root, "403").start()
    url = f"http://127.0.0.1:{srv.port}/{STORE}"
    rc, out, err = run(gensvd, ["dump", f"{url}/call_genotype"], FAST)
    check("403: exit 1 with status and code",
          rc == 1 and "HTTP 403" in err and "AccessDenied" in err and "call_genotype/" in err,
          f"exit {rc}: {err}")
    chunks = [n for k, n in srv.counts.items() if not os.path.basename(k).startswith(".")]
    check("403: not retried", chunks and max(chunks) == 1, str(srv.counts))
    srv.shutdown()

    with tempfile.TemporaryDirectory() as td:
        # a missing chunk (404) is fill_value, as in the local store
        shutil.copytree(local, os.path.join(td, "miss.zarr"))
        os.remove(os.path.join(td, "miss.zarr", "call_genotype", "1.1.0"))
        # a missing .zarray (no consolidated metadata) is an error, never a fill
        shutil.copytree(local, os.path.join(td, "nometa.zarr"))
        os.remove(os.path.join(td, "nometa.zarr", ".zmetadata"))
        os.remove(os.path.join(td, "nometa.zarr", "call_genotype", ".zarray"))
        srv = MockServer(td).start()
        base = f"http://127.0.0.1:{srv.port}"
        same_outputs("404 chunk", gensvd, os.path.join(td, "miss.zarr"), f"{base}/miss.zarr",
                     arrays=["call_genotype"])
        rc, out, err = run(gensvd, ["dump", f"{base}/nometa.zarr/call_genotype"])
        check("404 .zarray: exit 1 naming it", rc == 1 and "call_genotype" in err and
              ".zarray" in err, f"exit {rc}: {err}")
        rc, out, err = run(gensvd, ["info", f"{base}/none.zarr"])
        check("404 store: exit 1", rc == 1 and "none.zarr" in err, f"exit {rc}: {err}")
        srv.shutdown()

    # a static server cannot list: a store without consolidated metadata names its arrays
    # explicitly, and info says to consolidate it
    with tempfile.TemporaryDirectory() as td:
        netlib.unconsolidated_copy(local, os.path.join(td, STORE))
        srv = MockServer(td).start()
        url = f"http://127.0.0.1:{srv.port}/{STORE}"
        rc, out, err = run(gensvd, ["info", url])
        check("http unconsolidated info: exit 1, says consolidate",
              rc == 1 and "cannot be listed" in err and "consolidate" in err, f"exit {rc}: {err}")
        same_outputs("http unconsolidated, arrays named", gensvd, local, url,
                     arrays=["call_genotype"])
        srv.shutdown()

    # https:// and http:// stores are read-only
    rc, out, err = run(gensvd, ["pca", local, "-o", "http://127.0.0.1:9/out.zarr"])
    check("http output refused", rc in (1, 2) and "read-only" in err, f"exit {rc}: {err}")
    # nothing listening: transport error after retries
    rc, out, err = run(gensvd, ["info", "http://127.0.0.1:9/x.zarr", "--retries", "1"], FAST)
    check("connection refused: exit 1", rc == 1 and "x.zarr" in err and "attempts" in err,
          f"exit {rc}: {err}")
    # ... on this machine, with the default schedule (8 retries from 0.5 s, capped at 32 s:
    # ~48 s expected), gives up after one retry: well under 5 s, for every spelling of it
    port = free_port()
    for host in ("127.0.0.1", "localhost", "[::1]"):
        t0 = time.monotonic()
        rc, out, err = run(gensvd, ["info", f"http://{host}:{port}/x.zarr"])
        took = time.monotonic() - t0
        check(f"refused on {host}: exit 1 after 2 attempts, in < 5 s ({took:.1f} s)",
              rc == 1 and "after 2 attempts" in err and took < 5 and
              err.startswith("gensvd info: error: "), f"exit {rc}: {err}")
    rc, out, err = run(gensvd, ["info", local, "--concurrency", "0"])
    check("bad --concurrency: exit 2", rc == 2, f"exit {rc}")
    netlib.finish()


if __name__ == "__main__":
    main()
