#!/usr/bin/env python3
"""net: TLS trust and redirects, against servers on 127.0.0.1.

TLS: an https:// store served with a self-signed certificate (made by the openssl command)
  fails with exit 1 and a message naming the URL, the untrusted certificate and the
  CURL_CA_BUNDLE / SSL_CERT_FILE hint; with CURL_CA_BUNDLE or SSL_CERT_FILE pointing at the
  certificate the same store reads byte-identical to the local copy.
Redirects: a server that answers every request with 307 to another origin (localhost:PORT
  instead of 127.0.0.1:PORT):
  - https:// (no credentials): followed; dump equals the local store.
  - s3:// signed with a session token, gs:// with a bearer token: refused with exit 1 and a
    message saying the redirect was refused; the other origin receives no request carrying
    Authorization or x-amz-security-token, and no secret reaches stderr.
Usage: test_tls_redirect.py GENSVD TESTDATA_DIR   (exit 77 without the openssl command)"""
import http.server
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mock_http_server import MockServer  # noqa: E402
from netlib import STORE, check, finish, no_secret, same_outputs  # noqa: E402

SECRET = "wJalrXUtnFEMI-test-secret-must-not-leak"
SESSION = "FwoGZXIvYXdzEJr-session-token-must-not-leak"
BEARER = "ya29.redirect-token-must-not-leak"
TRUST_VARS = ("CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR")


def gensvd_run(gensvd, args, env):
    """Run with the caller's environment minus the trust and cloud variables, plus env."""
    e = {k: v for k, v in os.environ.items()
         if k not in TRUST_VARS and not k.startswith(("AWS_", "GOOGLE_", "STORAGE_EMULATOR"))
         and k != "GENSVD_LOG_LEVEL"}
    e.update(env)
    p = subprocess.run([gensvd] + args, capture_output=True, env=e, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


class Recorder(http.server.ThreadingHTTPServer):
    """Answers 404 to everything and records (path, headers) of each request."""
    daemon_threads = True

    def __init__(self):
        rec = self

        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                with rec.lock:
                    rec.seen.append((self.path, dict(self.headers)))
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_HEAD = do_PUT = do_DELETE = do_GET

        super().__init__(("127.0.0.1", 0), H)
        self.lock = threading.Lock()
        self.seen = []
        threading.Thread(target=self.serve_forever, daemon=True).start()


class Redirector(http.server.ThreadingHTTPServer):
    """Answers every request with 307 to http://localhost:PORT + the same path."""
    daemon_threads = True

    def __init__(self, port):
        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                self.send_response(307)
                self.send_header("Location", f"http://localhost:{port}{self.path}")
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_HEAD = do_PUT = do_DELETE = do_GET

        super().__init__(("127.0.0.1", 0), H)
        threading.Thread(target=self.serve_forever, daemon=True).start()


def case_tls(gensvd, root, local, td):
    cert, key = os.path.join(td, "cert.pem"), os.path.join(td, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
                    "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    srv = MockServer(root)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.start()
    url = f"https://127.0.0.1:{srv.port}/{STORE}"
    rc, out, err = gensvd_run(gensvd, ["info", url], {"GENSVD_RETRY_BASE_MS": "20"})
    check("tls self-signed: exit 1 naming the URL, the certificate and the CA variables",
          rc == 1 and url in err and "not trusted" in err and "CURL_CA_BUNDLE" in err
          and out == b"", f"exit {rc}: {err}")
    for var in ("CURL_CA_BUNDLE", "SSL_CERT_FILE"):
        rc, out, err = gensvd_run(gensvd, ["info", url], {var: cert})
        check(f"tls {var}: info works", rc == 0 and b"call_genotype" in out, f"exit {rc}: {err}")
    same_outputs("tls CURL_CA_BUNDLE", gensvd, local, url, {"CURL_CA_BUNDLE": cert},
                 arrays=["call_genotype", "sample_id"])
    srv.shutdown()


def case_redirect(gensvd, root, local):
    # a plain https:// store: a redirect to another origin is followed
    files = MockServer(root).start()
    red = Redirector(files.port)
    url = f"http://127.0.0.1:{red.server_address[1]}/{STORE}"
    same_outputs("redirect, no credentials", gensvd, local, url,
                 arrays=["call_genotype", "sample_id"])
    red.shutdown()
    files.shutdown()
    # credentials: never sent on
    rec = Recorder()
    red = Redirector(rec.server_address[1])
    ep = f"http://127.0.0.1:{red.server_address[1]}"
    s3env = {"AWS_ACCESS_KEY_ID": "AKIDREDIRECTTEST", "AWS_SECRET_ACCESS_KEY": SECRET,
             "AWS_SESSION_TOKEN": SESSION, "AWS_REGION": "us-east-1",
             "AWS_ENDPOINT_URL_S3": ep, "GENSVD_RETRY_BASE_MS": "20"}
    gsenv = {"STORAGE_EMULATOR_HOST": ep, "GOOGLE_OAUTH_ACCESS_TOKEN": BEARER,
             "GENSVD_RETRY_BASE_MS": "20"}
    for name, src, env in (("s3", f"s3://bucket/{STORE}", s3env),
                           ("gs", f"gs://bucket/{STORE}", gsenv)):
        rc, out, err = gensvd_run(gensvd, ["info", src], env)
        check(f"redirect {name} with credentials: exit 1, refused", rc == 1 and "redirect" in err
              and "refused" in err and out == b"", f"exit {rc}: {err}")
        no_secret(f"redirect {name}", err, [SECRET, SESSION, BEARER])
        with rec.lock:
            leaked = [(p, h) for p, h in rec.seen
                      if any(k.lower() in ("authorization", "x-amz-security-token") for k in h)]
            rec.seen.clear()
        check(f"redirect {name}: no credential reaches the other origin", not leaked,
              str(leaked[:2]))
    red.shutdown()
    rec.shutdown()


def main():
    gensvd, testdata = sys.argv[1], sys.argv[2]
    root = os.path.join(testdata, "zarr", "v2py")
    local = os.path.join(root, STORE)
    case_redirect(gensvd, root, local)
    if shutil.which("openssl") is None:
        print("SKIP tls: no openssl command")
        finish()
    with tempfile.TemporaryDirectory() as td:
        case_tls(gensvd, root, local, td)
    finish()


if __name__ == "__main__":
    main()
