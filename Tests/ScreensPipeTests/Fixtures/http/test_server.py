#!/usr/bin/env python3
"""Misbehaving HTTP/1.1 server for the HTTP client tests (Python 3 stdlib only).

Binds 127.0.0.1 on an ephemeral port and prints the port on the first line of stdout.
With `--tls CERT KEY` it serves HTTPS with that certificate.
Every request carrying ?id=X is counted under X; GET /count?id=X reports the count.

Endpoints (query parameters in brackets):
  /echo                 method, path, query, headers, body and the client's port as JSON
  /gzip [size]          a gzip-encoded JSON body (when the client accepts gzip)
  /status/N [retry_after]  status N with an optional Retry-After header
  /flaky [id, fail, status, retry_after]  the first `fail` requests of `id` get `status`
                        (default 503), later ones 200 with {"attempt": n}
  /count [id]           {"count": requests seen for id}
  /reset                closes the connection with a TCP reset, no response
  /truncated            Content-Length 1000, 100 bytes, then close
  /stall [seconds]      headers, then nothing for `seconds` (default 30)
  /sleep [ms]           waits, then answers 200
  /big [size, chunked]  `size` bytes of 'a' (chunked transfer encoding when chunked=1)
  /drip [bytes, interval_ms]  one byte every interval
  /redirect [to]        302 to `to` (default /echo)
"""

import gzip
import json
import os
import signal
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

counts = {}
counts_lock = threading.Lock()


def count(request_id):
    with counts_lock:
        counts[request_id] = counts.get(request_id, 0) + 1
        return counts[request_id]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; without this, Nagle plus delayed ACKs add
    # 40 ms to every keep-alive request.
    disable_nagle_algorithm = True

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self.route()

    def do_POST(self):
        self.route()

    def do_PUT(self):
        self.route()

    def do_DELETE(self):
        self.route()

    def route(self):
        parts = urlsplit(self.path)
        self.query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        length = int(self.headers.get("Content-Length", "0") or 0)
        self.body = self.rfile.read(length) if length else b""
        request_id = self.query.get("id")
        self.attempt = count(request_id) if request_id and parts.path != "/count" else 0
        path = parts.path
        if path.startswith("/status/"):
            return self.status(int(path[len("/status/"):]))
        handler = getattr(self, "route_" + path.strip("/"), None)
        if handler is None:
            return self.send_json({"error": "no such endpoint"}, status=404)
        handler()

    def send_json(self, value, status=200, headers=()):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, header_value in headers:
            self.send_header(name, header_value)
        self.end_headers()
        self.wfile.write(data)

    def route_echo(self):
        self.send_json({
            "method": self.command,
            "path": self.path,
            "headers": [[k, v] for k, v in self.headers.items()],
            "body": self.body.decode("utf-8", "replace"),
            "client_port": self.client_address[1],
        })

    def route_gzip(self):
        size = int(self.query.get("size", "1000"))
        data = json.dumps({"text": "x" * size}).encode()
        if "gzip" not in self.headers.get("Accept-Encoding", ""):
            return self.send_json({"error": "client does not accept gzip"}, status=406)
        compressed = gzip.compress(data)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(compressed)))
        self.end_headers()
        self.wfile.write(compressed)

    def status(self, code):
        headers = []
        if "retry_after" in self.query:
            headers.append(("Retry-After", self.query["retry_after"]))
        self.send_json({"status": code}, status=code, headers=headers)

    def route_flaky(self):
        if self.attempt <= int(self.query.get("fail", "0")):
            return self.status(int(self.query.get("status", "503")))
        self.send_json({"attempt": self.attempt})

    def route_count(self):
        with counts_lock:
            seen = counts.get(self.query.get("id"), 0)
        self.send_json({"count": seen})

    def route_reset(self):
        # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def route_truncated(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "1000")
        self.end_headers()
        self.wfile.write(b"[" + b"1," * 49 + b"1")
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_RDWR)
        self.close_connection = True

    def route_stall(self):
        self.send_response(200)
        self.send_header("Content-Length", "100")
        self.end_headers()
        self.wfile.flush()
        time.sleep(float(self.query.get("seconds", "30")))
        self.close_connection = True

    def route_sleep(self):
        time.sleep(int(self.query.get("ms", "1000")) / 1000)
        self.send_json({"slept": True})

    def route_big(self):
        size = int(self.query.get("size", "1000000"))
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if self.query.get("chunked") == "1":
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"a" * 16384
            remaining = size
            while remaining > 0:
                piece = chunk[:min(remaining, len(chunk))]
                self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
                remaining -= len(piece)
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.send_header("Content-Length", str(size))
            self.end_headers()
            self.wfile.write(b"a" * size)

    def route_drip(self):
        count_bytes = int(self.query.get("bytes", "10"))
        interval = int(self.query.get("interval_ms", "100")) / 1000
        self.send_response(200)
        self.send_header("Content-Length", str(count_bytes))
        self.end_headers()
        for _ in range(count_bytes):
            self.wfile.write(b"d")
            self.wfile.flush()
            time.sleep(interval)

    def route_redirect(self):
        self.send_response(302)
        self.send_header("Location", self.query.get("to", "/echo"))
        self.send_header("Content-Length", "0")
        self.end_headers()


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address):
        pass  # resets and client aborts are part of the tests


def exit_when_parent_goes_away():
    # The test process holds our stdin; EOF means it ended (even if it crashed).
    sys.stdin.buffer.read()
    os._exit(0)


def main():
    # A child inherits the blocked-signal mask of the thread that spawned it.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    threading.Thread(target=exit_when_parent_goes_away, daemon=True).start()
    server = Server(("127.0.0.1", 0), Handler)
    if len(sys.argv) == 4 and sys.argv[1] == "--tls":
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
