"""Remote stores from Python: an S3 emulator (moto, from the command line's net venv, on
127.0.0.1, signatures checked) serves a bucket holding the 1000 Genomes store; the credentials
and endpoint come from keyword arguments or from the environment, as for the program; results
are written to the bucket and read back; a wrong secret is refused without showing it."""

import json
import os
import subprocess

import numpy as np
import pytest

import gensvd
from conftest import KHUMAN, ROOT, TESTDATA

NET_PY = ROOT / ".venv" / "net" / "bin" / "python"
SERVER = f"""
import json, os, sys, tempfile
sys.path.insert(0, {str(ROOT / "tests" / "net")!r})
from test_s3_moto import BUCKET, setup, start_moto
td = tempfile.mkdtemp()
proc, url = start_moto(td)
try:
    akid, secret = setup(url, {str(TESTDATA / "zarr" / "v2py" / "vcf_like.zarr")!r},
                         {str(TESTDATA / "zarr" / "v3" / "vcf_like.zarr")!r},
                         extra=(({str(KHUMAN)!r}, "realdata/"),))
    print(json.dumps({{"url": url, "bucket": BUCKET, "akid": akid, "secret": secret}}),
          flush=True)
    sys.stdin.read()
finally:
    proc.kill()
"""


@pytest.fixture(scope="module")
def s3():
    if not NET_PY.exists():
        pytest.skip(".venv/net (moto) not found (scripts/setup.sh --tests)")
    p = subprocess.Popen([str(NET_PY), "-c", SERVER], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if not line:
        p.kill()
        pytest.fail(f"the S3 emulator did not start: {p.stderr.read()[-2000:]}")
    info = json.loads(line)
    yield info
    p.stdin.close()
    p.wait(timeout=30)


@pytest.fixture
def bare_env(monkeypatch):
    for k in list(os.environ):
        if k.startswith("AWS_"):
            monkeypatch.delenv(k)
    monkeypatch.setenv("GENSVD_RETRY_BASE_MS", "20")


def creds(s3, secret=None):
    return dict(endpoint=s3["url"], aws_region="us-east-1", aws_access_key_id=s3["akid"],
                aws_secret_access_key=secret or s3["secret"])


def test_keyword_credentials_read_and_write(s3, bare_env):
    url = f"s3://{s3['bucket']}/realdata/khuman_chr22.vcz"
    local = gensvd.pca(str(KHUMAN), 4)
    remote = gensvd.pca(url, 4, **creds(s3))
    np.testing.assert_array_equal(remote.sample_pca_projection.values,
                                  local.sample_pca_projection.values)
    out = f"s3://{s3['bucket']}/out/pcs.zarr"
    gensvd.write(local, out, **creds(s3))
    back = gensvd.read(out, "sample_pca_projection", **creds(s3))
    np.testing.assert_array_equal(back.values, local.sample_pca_projection.values)
    assert [a["path"] for a in gensvd.open_info(url, **creds(s3))["arrays"]]
    with pytest.raises(gensvd.StoreError, match="exists"):
        gensvd.pca(url, 4, output=out, **creds(s3))


def test_environment_credentials(s3, bare_env, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", s3["akid"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3["secret"])
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", s3["url"])
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    res = gensvd.related(f"s3://{s3['bucket']}/realdata/khuman_chr22.vcz")
    assert res.sample_unrelated.shape == (203,)


def test_wrong_secret_is_refused_without_showing_it(s3, bare_env):
    wrong = "wrong" + s3["secret"]
    with pytest.raises(gensvd.StoreError, match="403.*credentials") as e:
        gensvd.pca(f"s3://{s3['bucket']}/realdata/khuman_chr22.vcz", 4, retries=0,
                   **creds(s3, secret=wrong))
    assert e.value.code == -10 and s3["secret"] not in str(e.value) and wrong not in str(e.value)
