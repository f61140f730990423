#!/usr/bin/env python3
"""A loopback stand-in for an apt proxy: logs each request line, answers 404 (403 to CONNECT), forwards nothing.

    hr-real-apt-proxy.py PORT LOG
"""
import http.server
import sys

LOG = sys.argv[2]


class H(http.server.BaseHTTPRequestHandler):
    def _log(self, code):
        with open(LOG, "a") as f:
            f.write(self.requestline + "\n")
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        self._log(404)

    do_HEAD = do_GET

    def do_CONNECT(self):
        self._log(403)

    def log_message(self, *a):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
