#!/usr/bin/env python3
"""net: the library's context carries the S3 settings and credentials (include/gensvd.h,
gensvd_ctx_set_string) against a moto server on 127.0.0.1 with signature checking on: with no
credential in the environment, the context's key and endpoint read a private bucket (a pca
through tests/lib/lib_run equal to the local store's); the context's credentials win over wrong
ones in the environment; a wrong secret in the context is refused (authentication failed,
nothing secret in the message); without context credentials the environment's are used.
Usage: test_lib_s3.py LIB_RUN TESTDATA_DIR   (exit 77 = skipped: moto/boto3 missing)"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netlib  # noqa: E402
from netlib import STORE, check, expect_ok, no_secret, run  # noqa: E402

try:
    import boto3  # noqa: F401
    import moto  # noqa: F401
except ImportError:
    print("skipped: moto[server] and boto3 are not installed (scripts/setup.sh --tests)")
    sys.exit(77)
from test_s3_moto import BUCKET, setup, start_moto  # noqa: E402


def same_dir(a, b):
    for dirpath, _, files in os.walk(a):
        for f in files:
            if f in (".zattrs", ".zmetadata"):
                continue
            p = os.path.join(dirpath, f)
            q = os.path.join(b, os.path.relpath(p, a))
            if not os.path.exists(q) or open(p, "rb").read() != open(q, "rb").read():
                return False
    return True


def main():
    lib, testdata = sys.argv[1], sys.argv[2]
    local = os.path.join(testdata, "zarr", "v2py", STORE)
    with tempfile.TemporaryDirectory() as td:
        proc, url = start_moto(td)
        try:
            akid, secret = setup(url, local, os.path.join(testdata, "zarr", "v3", STORE))
            for k in list(os.environ):
                if k.startswith("AWS_"):
                    os.environ.pop(k)
            remote = f"s3://{BUCKET}/data/{STORE}"
            home = os.path.join(td, "home")
            os.makedirs(home)
            bare = {"HOME": home, "GENSVD_RETRY_BASE_MS": "20"}
            ctx = ["--ctx", f"endpoint={url}", "--ctx", "aws-region=us-east-1",
                   "--ctx", f"aws-access-key-id={akid}", "--ctx", f"aws-secret-access-key={secret}"]
            ref = os.path.join(td, "ref")
            rc, _, err = run(lib, ["pca", local, ref, "components=2"])
            expect_ok("local pca", rc, err)

            out = os.path.join(td, "ctx")
            rc, _, err = run(lib, ctx + ["pca", remote, out, "components=2"], bare)
            expect_ok("context credentials, none in the environment", rc, err)
            check("the remote pca equals the local one", rc == 0 and same_dir(ref, out))

            wrong_env = dict(bare, AWS_ACCESS_KEY_ID=akid, AWS_SECRET_ACCESS_KEY="wrong" + secret,
                             AWS_ENDPOINT_URL_S3=url, AWS_REGION="us-east-1")
            rc, _, err = run(lib, ctx + ["pca", remote, os.path.join(td, "win"), "components=2"],
                             wrong_env)
            expect_ok("the context's credentials win over the environment's", rc, err)

            bad = ctx[:-1] + [f"aws-secret-access-key=wrong{secret}"]
            rc, _, err = run(lib, bad + ["pca", remote, os.path.join(td, "bad"), "components=2"],
                             bare)
            check("a wrong secret in the context: refused, authentication",
                  rc == 1 and "authentication" in err and "403" in err, f"exit {rc}: {err}")
            no_secret("a wrong secret in the context", err, [secret, "wrong" + secret])

            env = dict(bare, AWS_ACCESS_KEY_ID=akid, AWS_SECRET_ACCESS_KEY=secret,
                       AWS_ENDPOINT_URL_S3=url, AWS_REGION="us-east-1")
            rc, _, err = run(lib, ["pca", remote, os.path.join(td, "env"), "components=2"], env)
            expect_ok("no context credentials: the environment's", rc, err)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    netlib.finish()


if __name__ == "__main__":
    main()
