#!/usr/bin/env python3
"""net: the gs:// store against gcp-storage-emulator on 127.0.0.1 (STORAGE_EMULATOR_HOST).
Reads equal the local store; pca writes to gs:// with a bearer token and reads back; the
token never reaches any output; a token file works like GOOGLE_OAUTH_ACCESS_TOKEN.
Usage: test_gcs_emulator.py GENSVD TESTDATA_DIR   (exit 77 = skipped: emulator missing)"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netlib  # noqa: E402
from netlib import STORE, check, expect_ok, no_secret, run, same_analyses, same_outputs  # noqa

EXE = os.path.join(os.path.dirname(sys.executable), "gcp-storage-emulator")
if not os.path.exists(EXE):
    print("skipped: gcp-storage-emulator is not installed (scripts/setup.sh --tests)")
    sys.exit(77)

BUCKET = "gsvd-test"
TOKEN = "ya29.test-token-must-not-leak-0123456789"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(td):
    port = free_port()
    log = open(os.path.join(td, "gcs.log"), "wb")
    p = subprocess.Popen([EXE, "start", "--host", "127.0.0.1", "--port", str(port), "--in-memory",
                          "--default-bucket", BUCKET], stdout=log, stderr=log, cwd=td)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(url + "/", timeout=1).read()
            return p, url
        except OSError:
            time.sleep(0.1)
    p.kill()
    raise RuntimeError("gcp-storage-emulator did not start")


def upload(url, local, prefix):
    for dirpath, _, files in os.walk(local):
        for f in files:
            full = os.path.join(dirpath, f)
            rel = os.path.relpath(full, os.path.dirname(local))
            with open(full, "rb") as fh:
                data = fh.read()
            req = urllib.request.Request(f"{url}/{BUCKET}/{prefix}{rel}", data=data, method="PUT",
                                         headers={"Content-Type": "application/octet-stream"})
            urllib.request.urlopen(req, timeout=10).read()


def outputs_checked_first(gensvd, env, local, td, url):
    """Every gs:// output is checked before the input is read: the input's chunks are all
    garbage, so an output error proves the order.  Nothing is written by a failed check."""
    import json
    broken = netlib.broken_copy(local, os.path.join(td, "broken", STORE))

    def names(prefix):
        with urllib.request.urlopen(f"{url}/storage/v1/b/{BUCKET}/o?prefix={prefix}",
                                    timeout=10) as r:
            return sorted(o["name"] for o in json.load(r).get("items", []))
    cmds = netlib.writing_commands(broken)
    out = f"gs://{BUCKET}/checked/exists.zarr"
    rc, _, err = run(gensvd, ["simulate", out, "-m", "10", "-n", "4", "-K", "2"], env)
    expect_ok("gcs simulate for an existing output", rc, err)
    before = names("checked/")
    for name, args, _ in cmds:
        netlib.fails_on_output(f"gcs {name}: missing bucket", gensvd,
                               args(f"gs://no-such-bucket/{name}.zarr"), env,
                               "bucket 'no-such-bucket' does not exist")
        netlib.fails_on_output(f"gcs {name}: existing output", gensvd, args(out), env,
                               "output exists")
        netlib.fails_on_output(f"gcs {name}: anonymous", gensvd,
                               args(f"gs://{BUCKET}/checked/{name}.zarr"),
                               {"STORAGE_EMULATOR_HOST": ""}, "token")
    check("gcs failed checks: nothing written, the existing output untouched",
          names("checked/") == before, f"{names('checked/')}")


def main():
    gensvd, testdata = sys.argv[1], sys.argv[2]
    local = os.path.join(testdata, "zarr", "v2py", STORE)
    with tempfile.TemporaryDirectory() as td:
        proc, url = start(td)
        try:
            upload(url, local, "data/")
            # stores without consolidated metadata (v2 and v3): listed through objects.list
            ncs = []
            for tag, src in (("nc2", local), ("nc3", os.path.join(testdata, "zarr", "v3", STORE))):
                nc = netlib.unconsolidated_copy(src, os.path.join(td, tag, STORE))
                upload(url, nc, f"{tag}/")
                ncs.append((tag, nc))
            host = url.split("://", 1)[1]
            env = {"STORAGE_EMULATOR_HOST": host, "GENSVD_RETRY_BASE_MS": "20"}
            os.environ.pop("GOOGLE_OAUTH_ACCESS_TOKEN", None)
            remote = f"gs://{BUCKET}/data/{STORE}"
            same_outputs("gcs", gensvd, local, remote, env)
            same_analyses("gcs", gensvd, local, remote, env)
            for tag, nc in ncs:
                netlib.same_unconsolidated(f"gcs unconsolidated {tag}", gensvd, nc,
                                           f"gs://{BUCKET}/{tag}/{STORE}", env, paged=False)
            # emulator given as a URL; bearer token sent, never shown
            tenv = dict(env, STORAGE_EMULATOR_HOST=url, GOOGLE_OAUTH_ACCESS_TOKEN=TOKEN)
            rc, out, err = run(gensvd, ["dump", "-v", "-v", f"{remote}/call_genotype"], tenv)
            expect_ok("gcs token -v -v", rc, err)
            no_secret("gcs token -v -v", err, [TOKEN])
            rc, out, err = run(gensvd, ["info", f"gs://{BUCKET}/data/missing.zarr"], tenv)
            check("gcs missing store: exit 1", rc == 1 and "missing.zarr" in err, err)
            no_secret("gcs missing store", err, [TOKEN])
            rc, out, err = run(gensvd, ["info", "gs:///x.zarr"], env)
            check("gcs no bucket: exit 2", rc == 2 and "bucket" in err, f"exit {rc}: {err}")

            # pca to gs:// with a token file; read back equals the local output
            tok = os.path.join(td, "token")
            with open(tok, "w") as f:
                f.write(TOKEN + "\n")
            out_url = f"gs://{BUCKET}/out/pca.zarr"
            lo = os.path.join(td, "pca.zarr")
            rc, _, err = run(gensvd, ["pca", "-k", "3", local, "-o", lo])
            rc, _, err = run(gensvd, ["pca", "-k", "3", "-v", local, "-o", out_url,
                                      "--gcs-token-file", tok], env)
            expect_ok("gcs pca -o gs://", rc, err)
            no_secret("gcs pca -v", err, [TOKEN])
            for a in ["sample_pca_projection", "sample_id", "sample_pca_eigenvalue"]:
                r1, o1, _ = run(gensvd, ["dump", f"{lo}/{a}"])
                r2, o2, e2 = run(gensvd, ["dump", f"{out_url}/{a}"], env)
                check(f"gcs pca output {a} equals local", r2 == 0 and o1 == o2 and o1, e2)
            rc, _, err = run(gensvd, ["pca", "-k", "3", local, "-o", out_url], tenv)
            check("gcs existing output: exit 1", rc == 1 and "exists" in err, err)
            rc, _, err = run(gensvd, ["pca", "-k", "3", local, "-o", out_url, "--force"], tenv)
            expect_ok("gcs existing output with --force", rc, err)
            rc, _, err = run(gensvd, ["info", remote, "--gcs-token-file", os.path.join(td, "no")],
                             env)
            check("gcs missing token file: exit 1", rc == 1 and "token file" in err, err)
            # without the emulator and a token, gs:// cannot be written
            rc, _, err = run(gensvd, ["pca", local, "-o", "gs://b/x.zarr"],
                             {"STORAGE_EMULATOR_HOST": ""})
            check("gcs anonymous write refused", rc == 1 and "token" in err, f"exit {rc}: {err}")
            outputs_checked_first(gensvd, tenv, local, td, url)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
            shutil.rmtree(os.path.join(td, ".cloudstorage"), ignore_errors=True)
    netlib.finish()


if __name__ == "__main__":
    main()
