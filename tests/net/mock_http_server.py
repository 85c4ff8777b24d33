#!/usr/bin/env python3
"""Loopback HTTP server for the net tests and the I/O benchmark (Python stdlib only).

Serves the files under --root read-only at /PATH, with keep-alive, HEAD and single Range
requests, on 127.0.0.1 and a free port (printed as the first line of stdout).  --mode injects
faults into requests for chunk keys (paths whose last component does not start with '.'):

  normal      no faults
  429         the first request of each chunk: 429 with Retry-After: 1
  503         the first two requests of each chunk: 503, then 500
  reset       the first request of each chunk: headers, half the body, then a TCP reset
  truncate    the first request of each chunk: full Content-Length, half the body, clean close
  slow        the first request of each chunk: headers, then silence for --stall seconds
  slowall     the same for every object, metadata included
  always500   every request of a chunk: 500 (never succeeds)
  403         every request of a chunk: 403 with an S3-style XML error body
  norange     Range headers are ignored: 200 with the whole object (servers without ranges)
  short206    ranged requests: 206 whose Content-Range is the range asked for but whose body
              (and Content-Length) is only half of it
  long206     ranged requests: 206 for the range asked for with 4096 extra bytes of body
  badrange206 ranged requests: 206 with the right body but a Content-Range one byte off
  latency     every chunk request answered after --stall seconds (a distant server); the most
              requests of one array in flight at once are kept in MockServer.peak[ARRAY]

Every wait is bounded (--stall, default 30 s).  Request counts per path are kept in
MockServer.counts, and the Range headers received as (path, value) in MockServer.ranges, for
tests that import this module.
"""
import argparse
import http.server
import os
import socket
import struct
import sys
import threading
import time
from urllib.parse import unquote, urlsplit


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "gensvd-mock/1"
    # headers and body go out as two writes: with Nagle's algorithm the body waits for the
    # client's delayed ACK (~40 ms a response), which no real server adds
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):  # quiet
        pass

    def _path(self):
        rel = unquote(urlsplit(self.path).path).lstrip("/")
        full = os.path.realpath(os.path.join(self.server.root, rel))
        if not full.startswith(self.server.root + os.sep) and full != self.server.root:
            return None, rel
        return full, rel

    def _send(self, code, body=b"", headers=()):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        srv = self.server
        rel = self._path()[1]
        if srv.mode != "latency" or os.path.basename(rel).startswith("."):
            return self._get()
        array = os.path.dirname(rel)
        with srv.lock:
            srv.inflight[array] = srv.inflight.get(array, 0) + 1
            srv.peak[array] = max(srv.peak.get(array, 0), srv.inflight[array])
        try:
            time.sleep(srv.stall)
            self._get()
        finally:
            with srv.lock:
                srv.inflight[array] -= 1

    def _get(self):
        full, rel = self._path()
        srv = self.server
        is_chunk = not os.path.basename(rel).startswith(".")
        with srv.lock:
            n = srv.counts.get(rel, 0)
            srv.counts[rel] = n + 1
        mode = srv.mode if is_chunk or srv.mode == "slowall" else "normal"
        if mode == "slowall":
            mode = "slow"
        if full is None or not os.path.isfile(full):
            return self._send(404, b"not found\n")
        if mode == "always500":
            return self._send(500, b"internal error\n")
        if mode == "403":
            body = (b"<?xml version='1.0'?><Error><Code>AccessDenied</Code>"
                    b"<Message>Access Denied</Message></Error>")
            return self._send(403, body, [("Content-Type", "application/xml")])
        if mode == "429" and n == 0:
            return self._send(429, b"slow down\n", [("Retry-After", "1")])
        if mode == "503" and n < 2:
            return self._send(503 if n == 0 else 500, b"unavailable\n")
        status, headers = 200, []
        rng = self.headers.get("Range")
        if rng:
            with srv.lock:
                srv.ranges.append((rel, rng))
        if mode == "norange":
            rng = None
        if rng and rng.startswith("bytes="):
            # read only the range (a shard scan asks for many ranges of one big object)
            total = os.path.getsize(full)
            a, _, b = rng[6:].partition("-")
            if a == "":
                start, end = max(0, total - int(b)), total - 1
            else:
                start, end = int(a), (int(b) if b else total - 1)
            end = min(end, total - 1)
            with open(full, "rb") as f:
                f.seek(start)
                data = f.read(max(0, end + 1 - start))
            headers.append(("Content-Range", f"bytes {start}-{end}/{total}"))
            status = 206
            if mode == "short206":
                data = data[: len(data) // 2]
            if mode == "long206":
                data = data + bytes(4096)
            if mode == "badrange206":
                headers[-1] = ("Content-Range", f"bytes {start + 1}-{end + 1}/{total}")
        else:
            with open(full, "rb") as f:
                data = f.read()
        if mode in ("reset", "truncate", "slow") and n == 0 and self.command == "GET":
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if mode == "slow":
                self.wfile.flush()
                time.sleep(srv.stall)
            else:
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                if mode == "reset":  # RST instead of FIN
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                               struct.pack("ii", 1, 0))
            self.close_connection = True
            return
        self._send(status, data, headers)


class MockServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, root, mode="normal", stall=30.0):
        super().__init__(("127.0.0.1", 0), Handler)
        self.root = os.path.realpath(root)
        self.mode = mode
        self.stall = stall
        self.lock = threading.Lock()
        self.counts = {}
        self.ranges = []
        self.inflight = {}
        self.peak = {}

    @property
    def port(self):
        return self.server_address[1]

    def start(self):
        t = threading.Thread(target=self.serve_forever, daemon=True)
        t.start()
        return self


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--mode", default="normal",
                    choices=["normal", "429", "503", "reset", "truncate", "slow", "slowall",
                             "always500", "403", "norange", "short206", "long206", "badrange206",
                             "latency"])
    ap.add_argument("--stall", type=float, default=30.0)
    a = ap.parse_args()
    srv = MockServer(a.root, a.mode, a.stall)
    print(srv.port, flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
