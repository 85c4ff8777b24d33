#!/usr/bin/env python3
"""A read-write loopback object server that fails a fraction of all requests at random (the
fault soak of the reliability issue).  Python stdlib only.

Built on mock_http_server.py's files-under-a-root server (GET/HEAD with single Range): PUT
writes the object (a temporary file and a rename, so a reader never sees half of it), DELETE
removes it, and a ListObjectsV2 of a top-level directory (GET /BUCKET/?list-type=2&prefix=P
&max-keys=N, no delimiter: the check a write store makes first) lists the files under it, so it
also serves as a path-style S3 endpoint for writes (signatures are not checked).  Every request, of any key, fails with probability `rate` (seeded), with one of:

  503, 500     an error status
  429          429 with Retry-After: 1
  reset        GET: headers, half the body, TCP reset; PUT: body read, nothing stored, reset
  truncate     GET: full Content-Length, half the body, clean close
  stall        GET: headers, then silence for `stall` seconds (the client's --timeout must be
               shorter)

A failed PUT or DELETE never changes the stored object.  FaultServer.stats counts requests,
faults by kind, and PUT/DELETE/GET successes.
"""
import os
import random
import socket
import struct
import tempfile
import threading
import time
from urllib.parse import parse_qs, urlsplit
from xml.sax.saxutils import escape

from mock_http_server import Handler, MockServer

KINDS = ("503", "500", "429", "reset", "truncate", "stall")


class FaultHandler(Handler):
    def _fault(self):
        """The fault to inject into this request, or None (and count it)."""
        srv = self.server
        with srv.lock:
            srv.stats["requests"] += 1
            kind = srv.rng.choice(KINDS) if srv.rng.random() < srv.rate else None
            if kind in ("truncate", "stall") and self.command != "GET":
                kind = "503"
            if kind:
                srv.stats[kind] += 1
        return kind

    def _status_fault(self, kind):
        if kind == "429":
            self._send(429, b"slow down\n", [("Retry-After", "1")])
        else:
            self._send(int(kind), b"injected\n")

    def _reset(self):
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True

    def _listing(self):
        """The ListObjectsV2 answer to GET /BUCKET/?list-type=2 (prefix, max-keys; no
        delimiter) when BUCKET is a directory under the root, else None."""
        q = parse_qs(urlsplit(self.path).query, keep_blank_values=True)
        full, rel = self._path()
        if q.get("list-type") != ["2"] or "delimiter" in q or full is None \
                or not os.path.isdir(full) or "/" in rel.strip("/"):
            return None
        prefix, n = q.get("prefix", [""])[0], int(q.get("max-keys", ["1000"])[0])
        keys = sorted(os.path.relpath(os.path.join(d, f), full)
                      for d, _, fs in os.walk(full) for f in fs if not f.startswith(".put-"))
        keys = [k for k in keys if k.startswith(prefix)]
        items = "".join(f"<Contents><Key>{escape(k)}</Key></Contents>" for k in keys[:n])
        return (f'<?xml version="1.0" encoding="UTF-8"?><ListBucketResult>'
                f"<Name>{escape(rel.strip('/'))}</Name><Prefix>{escape(prefix)}</Prefix>"
                f"<KeyCount>{min(n, len(keys))}</KeyCount><MaxKeys>{n}</MaxKeys>"
                f"<IsTruncated>{'true' if len(keys) > n else 'false'}</IsTruncated>{items}"
                f"</ListBucketResult>").encode()

    def do_GET(self):
        kind = self._fault()
        if kind in ("503", "500", "429"):
            return self._status_fault(kind)
        listing = self._listing()
        if kind in ("reset", "truncate", "stall"):
            full, _ = self._path()
            if listing is not None:
                data = listing
            elif full is None or not os.path.isfile(full):
                return self._send(404, b"not found\n")
            else:
                with open(full, "rb") as f:
                    data = f.read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if kind == "stall":
                self.wfile.flush()
                time.sleep(self.server.stall)
            else:
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                if kind == "reset":
                    self._reset()
            self.close_connection = True
            return
        with self.server.lock:
            self.server.stats["get_ok"] += 1
        if listing is not None:
            return self._send(200, listing, [("Content-Type", "application/xml")])
        # the parent's GET (mode "normal": no scripted faults), Range included
        Handler.do_GET(self)

    def do_HEAD(self):
        kind = self._fault()
        if kind in ("503", "500", "429"):
            return self._status_fault(kind)
        if kind == "reset":
            return self._reset()
        Handler.do_GET(self)

    def do_PUT(self):
        kind = self._fault()
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n) if n > 0 else b""
        if kind in ("503", "500", "429"):
            return self._status_fault(kind)
        if kind == "reset":
            return self._reset()
        full, _ = self._path()
        if full is None:
            return self._send(403, b"outside the root\n")
        os.makedirs(os.path.dirname(full), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(full), prefix=".put-")
        with os.fdopen(fd, "wb") as f:
            f.write(body)
        os.replace(tmp, full)
        with self.server.lock:
            self.server.stats["put_ok"] += 1
            self.server.stats["bytes_put"] += len(body)
        self._send(200, b"", [("ETag", '"x"')])

    def do_DELETE(self):
        kind = self._fault()
        if kind in ("503", "500", "429"):
            return self._status_fault(kind)
        if kind == "reset":
            return self._reset()
        full, _ = self._path()
        if full is not None and os.path.isfile(full):
            os.remove(full)
        with self.server.lock:
            self.server.stats["delete_ok"] += 1
        self._send(204)


class FaultServer(MockServer):
    def __init__(self, root, rate=0.2, seed=1, stall=3.0):
        super().__init__(root, "normal", stall)
        self.RequestHandlerClass = FaultHandler
        self.rate = rate
        self.rng = random.Random(seed)
        self.stats = {k: 0 for k in ("requests", "get_ok", "put_ok", "delete_ok", "bytes_put")
                      + KINDS}
        self.lock = threading.Lock()

    def faults(self):
        return sum(self.stats[k] for k in KINDS)
