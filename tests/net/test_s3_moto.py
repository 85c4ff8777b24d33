#!/usr/bin/env python3
"""net: the s3:// store against a moto server on 127.0.0.1 with signature checking on
(INITIAL_NO_AUTH_ACTION_COUNT reset to 0 after setup), so a wrong secret is refused.
Reads equal the local store (a sharded Zarr v3 one too: signed ranged GETs); pca writes to
s3:// and reads back; credentials come from the environment and from AWS_PROFILE + a
credentials file; no credential reaches any output.
Usage: test_s3_moto.py GENSVD TESTDATA_DIR   (exit 77 = skipped: moto/boto3 missing)"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netlib  # noqa: E402
from netlib import STORE, check, expect_ok, no_secret, run, same_analyses, same_outputs  # noqa

try:
    import boto3  # noqa: F401
    import moto  # noqa: F401
except ImportError:
    print("skipped: moto[server] and boto3 are not installed (scripts/setup.sh --tests)")
    sys.exit(77)

BUCKET = "gsvd-test"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_moto(td):
    port = free_port()
    exe = os.path.join(os.path.dirname(sys.executable), "moto_server")
    log = open(os.path.join(td, "moto.log"), "wb")
    p = subprocess.Popen([exe, "-H", "127.0.0.1", "-p", str(port)], stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(url + "/moto-api/", timeout=1).read()
            return p, url
        except OSError:
            time.sleep(0.1)
    p.kill()
    raise RuntimeError("moto server did not start")


def setup(url, local, local_v3, extra=()):
    import boto3
    kw = dict(endpoint_url=url, region_name="us-east-1", aws_access_key_id="setup",
              aws_secret_access_key="setup")
    iam = boto3.client("iam", **kw)
    iam.create_user(UserName="gensvd")
    policy = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:*", "Resource": "*"},
        {"Effect": "Deny", "Action": "s3:PutObject",
         "Resource": f"arn:aws:s3:::{BUCKET}/partial.zarr/.zmetadata"}]}
    iam.put_user_policy(UserName="gensvd", PolicyName="s3", PolicyDocument=json.dumps(policy))
    key = iam.create_access_key(UserName="gensvd")["AccessKey"]
    s3 = boto3.client("s3", **kw)
    s3.create_bucket(Bucket=BUCKET)
    for src, prefix in ((local, "data/"), (local_v3, "v3/")) + tuple(extra):
        for dirpath, _, files in os.walk(src):
            for f in files:
                full = os.path.join(dirpath, f)
                rel = os.path.relpath(full, os.path.dirname(src))
                s3.upload_file(full, BUCKET, prefix + rel)
    # from now on every request must carry a valid signature of a known key
    req = urllib.request.Request(url + "/moto-api/reset-auth", data=b"0", method="POST",
                                 headers={"Content-Type": "text/plain"})
    urllib.request.urlopen(req, timeout=10).read()
    return key["AccessKeyId"], key["SecretAccessKey"]


def outputs_checked_first(gensvd, env, local, td, url, secret):
    """Every s3:// output is checked before the input is read: the input's chunks are all
    garbage, so an output error proves the order.  Nothing is written by a failed check."""
    import boto3
    broken = netlib.broken_copy(local, os.path.join(td, "broken", STORE))
    bad = dict(env, AWS_SECRET_ACCESS_KEY="wrong" + secret[5:])
    cmds = netlib.writing_commands(broken)
    for name, args, _ in cmds:
        out = f"s3://no-such-bucket/{name}.zarr"
        netlib.fails_on_output(f"s3 {name}: missing bucket", gensvd, args(out), env,
                               "bucket 'no-such-bucket' does not exist")
        out = f"s3://{BUCKET}/checked/{name}.zarr"
        netlib.fails_on_output(f"s3 {name}: wrong secret", gensvd, args(out), bad, "HTTP 403")
    # an existing output: found before the input is read, and left as it was
    out = f"s3://{BUCKET}/checked/exists.zarr"
    rc, _, err = run(gensvd, ["simulate", out, "-m", "10", "-n", "4", "-K", "2"], env)
    expect_ok("s3 simulate for an existing output", rc, err)
    kw = dict(endpoint_url=url, region_name="us-east-1",
              aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
              aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"])
    s3 = boto3.client("s3", **kw)

    def keys(prefix):
        r = s3.list_objects_v2(Bucket=BUCKET, Prefix=prefix)
        return sorted((o["Key"], o["ETag"]) for o in r.get("Contents", []))
    before = keys("checked/exists.zarr/")
    for name, args, reads in cmds:
        netlib.fails_on_output(f"s3 {name}: existing output", gensvd, args(out), env,
                               "output exists")
        if not reads:
            continue
        # --force passes the check (the old metadata stays until the real open): the input fails
        rc, _, err = run(gensvd, args(out) + ["--force"], env)
        check(f"s3 {name}: --force passes the check, the broken input fails",
              rc == 1 and "output exists" not in err and "bucket" not in err, f"exit {rc}: {err}")
    check("s3 existing output: untouched by the checks", keys("checked/exists.zarr/") == before)
    check("s3 failed checks: nothing written", keys("checked/") == before,
          f"{keys('checked/')}")


def main():
    gensvd, testdata = sys.argv[1], sys.argv[2]
    local = os.path.join(testdata, "zarr", "v2py", STORE)
    local_v3 = os.path.join(testdata, "zarr", "v3", STORE)
    with tempfile.TemporaryDirectory() as td:
        proc, url = start_moto(td)
        try:
            # stores without consolidated metadata: gensvd lists them (ListObjectsV2)
            nc2 = netlib.unconsolidated_copy(local, os.path.join(td, "nc2", STORE))
            nc3 = netlib.unconsolidated_copy(local_v3, os.path.join(td, "nc3", STORE))
            akid, secret = setup(url, local, local_v3, ((nc2, "nc2/"), (nc3, "nc3/")))
            home = os.path.join(td, "home")
            os.makedirs(home)
            env = {"HOME": home, "AWS_ACCESS_KEY_ID": akid, "AWS_SECRET_ACCESS_KEY": secret,
                   "AWS_ENDPOINT_URL_S3": url, "AWS_REGION": "us-east-1",
                   "GENSVD_RETRY_BASE_MS": "20"}
            for k in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL",
                      "AWS_DEFAULT_REGION", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"):
                os.environ.pop(k, None)
            remote = f"s3://{BUCKET}/data/{STORE}"
            same_outputs("s3", gensvd, local, remote, env)
            same_analyses("s3", gensvd, local, remote, env)
            # Zarr v3 with sharding: signed ranged GETs (suffix ranges for shard indexes)
            same_outputs("s3 v3 sharded", gensvd, local_v3, f"s3://{BUCKET}/v3/{STORE}", env)
            # unconsolidated v2 and v3, listed 3 keys a page so continuation tokens are used
            small = dict(env, GENSVD_LIST_MAX_KEYS="3")
            for tag, loc in (("nc2", nc2), ("nc3", nc3)):
                netlib.same_unconsolidated(f"s3 unconsolidated {tag}", gensvd, loc,
                                           f"s3://{BUCKET}/{tag}/{STORE}", small)

            # verbose run: no credential in the output
            rc, out, err = run(gensvd, ["dump", "-v", "-v", f"{remote}/call_genotype"], env)
            expect_ok("s3 -v -v", rc, err)
            no_secret("s3 -v -v", err + out.decode(errors="replace"), [akid, secret])

            # wrong secret: refused by signature checking, exit 1, nothing secret shown
            bad = dict(env, AWS_SECRET_ACCESS_KEY="wrong" + secret[5:])
            rc, out, err = run(gensvd, ["dump", "-v", "-v", f"{remote}/call_genotype"], bad)
            check("s3 wrong secret: exit 1, HTTP 403",
                  rc == 1 and "HTTP 403" in err and f"{remote}/" in err, f"exit {rc}: {err}")
            check("s3 wrong secret: signature refused", "SignatureDoesNotMatch" in err, err)
            no_secret("s3 wrong secret", err, [akid, secret, bad["AWS_SECRET_ACCESS_KEY"]])

            # credentials from a profile in a shared credentials file
            cred = os.path.join(td, "credentials")
            with open(cred, "w") as f:
                f.write(f"[default]\naws_access_key_id = nope\naws_secret_access_key = nope\n"
                        f"[gensvd]\naws_access_key_id = {akid}\n"
                        f"aws_secret_access_key = {secret}\n")
            prof = {k: v for k, v in env.items() if not k.startswith("AWS_ACCESS")
                    and not k.startswith("AWS_SECRET")}
            prof.update(AWS_PROFILE="gensvd", AWS_SHARED_CREDENTIALS_FILE=cred)
            same_outputs("s3 profile", gensvd, local, remote, prof, arrays=["call_genotype"])
            # --endpoint instead of the environment; ~/.aws/credentials default profile
            os.makedirs(os.path.join(home, ".aws"))
            with open(os.path.join(home, ".aws", "credentials"), "w") as f:
                f.write(f"[default]\naws_access_key_id={akid}\naws_secret_access_key={secret}\n")
            ep = {"HOME": home, "AWS_REGION": "us-east-1"}
            rc, out, err = run(gensvd, ["info", remote, "--endpoint", url], ep)
            expect_ok("s3 --endpoint and ~/.aws/credentials", rc, err)

            # no credentials, and anonymous requests to a bucket that needs them
            rc, out, err = run(gensvd, ["info", remote], {"HOME": td, "AWS_ENDPOINT_URL_S3": url})
            check("s3 no credentials: exit 1", rc == 1 and "no AWS credentials" in err,
                  f"exit {rc}: {err}")
            rc, out, err = run(gensvd, ["info", remote, "--no-sign-request"],
                               {"HOME": td, "AWS_ENDPOINT_URL_S3": url})
            check("s3 --no-sign-request on a private bucket: exit 1, HTTP 403",
                  rc == 1 and "HTTP 403" in err, f"exit {rc}: {err}")

            # pca output to s3://, read back; an existing output needs --force
            out_url = f"s3://{BUCKET}/out/pca.zarr"
            with tempfile.TemporaryDirectory() as t2:
                lo = os.path.join(t2, "pca.zarr")
                rc, _, err = run(gensvd, ["pca", "-k", "3", local, "-o", lo])
                rc, _, err = run(gensvd, ["pca", "-k", "3", "-v", local, "-o", out_url], env)
                expect_ok("s3 pca -o s3://", rc, err)
                no_secret("s3 pca -v", err, [akid, secret])
                for a in ["sample_pca_projection", "sample_id", "sample_pca_eigenvalue"]:
                    r1, o1, _ = run(gensvd, ["dump", f"{lo}/{a}"])
                    r2, o2, e2 = run(gensvd, ["dump", f"{out_url}/{a}"], env)
                    check(f"s3 pca output {a} equals local", r2 == 0 and o1 == o2 and o1, e2)
                rc, _, err = run(gensvd, ["pca", "-k", "3", local, "-o", out_url], env)
                check("s3 existing output: exit 1", rc == 1 and "exists" in err, err)
                rc, _, err = run(gensvd, ["pca", "-k", "3", local, "-o", out_url, "-f"], env)
                expect_ok("s3 existing output with --force", rc, err)
                # Zarr v3, sharded: the root zarr.json (consolidated metadata) goes last
                v3_url = f"s3://{BUCKET}/out/pca3.zarr"
                v3 = ["pca", "-k", "3", local, "-o", v3_url, "--zarr-format", "3", "--shard", "8"]
                rc, _, err = run(gensvd, v3, env)
                expect_ok("s3 pca -o s3:// --zarr-format 3 --shard", rc, err)
                rc, out, err = run(gensvd, ["info", "--no-sizes", v3_url], env)
                check("s3 v3 output: consolidated v3",
                      rc == 0 and b"format v3  consolidated" in out, err)
                for a in ["sample_pca_projection", "sample_id", "sample_pca_eigenvalue"]:
                    r1, o1, _ = run(gensvd, ["dump", f"{lo}/{a}"])
                    r2, o2, e2 = run(gensvd, ["dump", f"{v3_url}/{a}"], env)
                    check(f"s3 v3 pca output {a} equals local v2", r2 == 0 and o1 == o2 and o1, e2)
                rc, _, err = run(gensvd, v3, env)
                check("s3 existing v3 output: exit 1", rc == 1 and "exists" in err, err)
                rc, _, err = run(gensvd, v3 + ["-f"], env)
                expect_ok("s3 existing v3 output with --force", rc, err)
            outputs_checked_first(gensvd, env, local, td, url, secret)
            # a run that fails before .zmetadata reports what it left behind
            rc, _, err = run(gensvd, ["pca", "-k", "3", local, "-o", f"s3://{BUCKET}/partial.zarr"],
                             env)
            check("s3 failed write: exit 1, reports leftovers",
                  rc == 1 and ".zmetadata" in err and "left behind" in err, f"exit {rc}: {err}")
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    netlib.finish()


if __name__ == "__main__":
    main()
