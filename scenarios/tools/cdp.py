#!/usr/bin/env python3
"""A small Chrome DevTools Protocol client over the standard library, to test
results/<run>/index.html in Debian's headless Chromium (test_report_browser.py).

`Browser(chromium)` starts chromium headless on a fresh profile with a
DevTools port on loopback, finds its first page and speaks CDP to it over a
WebSocket (RFC 6455 client framing, text frames only). Nothing here fetches
anything: the page is a file:// URL and the browser is told not to go online.
Python 3 standard library only.
"""

import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request

# As root in a container: no sandbox; no GPU; nothing that reaches out to a
# network (updates, sync, QUIC probes, first-run pages).
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--remote-debugging-address=127.0.0.1",
         "--remote-debugging-port=0")


class CDPError(Exception):
    """The browser could not be started or answered with an error."""


class _WebSocket:
    def __init__(self, url, timeout):
        assert url.startswith("ws://"), url
        hostport, _, path = url[len("ws://"):].partition("/")
        host, _, port = hostport.partition(":")
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise CDPError("websocket handshake: connection closed")
            head += chunk
        status, _, rest = head.partition(b"\r\n\r\n")
        if b" 101 " not in status.split(b"\r\n")[0]:
            raise CDPError(f"websocket handshake refused: {status[:200]!r}")
        self.buf = rest

    def send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        if n < 126:
            hdr = struct.pack("!BB", 0x81, 0x80 | n)
        elif n < 1 << 16:
            hdr = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        else:
            hdr = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
        self.sock.sendall(hdr + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise CDPError("websocket closed by the browser")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        """One whole message (fragments joined) as text."""
        parts = []
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            if b1 & 0x80:
                mask = self._read(4)
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(self._read(n)))
            else:
                payload = self._read(n)
            op = b0 & 0x0F
            if op == 0x8:
                raise CDPError("websocket closed by the browser")
            if op in (0x9, 0xA):   # ping/pong: the browser does not ping us
                continue
            parts.append(payload)
            if b0 & 0x80:
                return b"".join(parts).decode()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Browser:
    """A headless chromium with one page. Use as a context manager."""

    def __init__(self, chromium="/usr/bin/chromium", timeout=60, width=1400, height=1000):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="report-chromium-")
        self.log = open(os.path.join(self.profile, "chromium.log"), "w+b")
        try:
            self.proc = subprocess.Popen([chromium, *FLAGS, f"--user-data-dir={self.profile}",
                                          f"--window-size={width},{height}", "about:blank"],
                                         stdout=self.log, stderr=subprocess.STDOUT)
        except OSError as e:
            raise CDPError(f"cannot start {chromium}: {e}") from None
        self.ws = None
        self.next_id = 0
        self.events = []
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.monotonic() + timeout
        while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise CDPError(f"{chromium} gave no DevTools port (exit {self.proc.returncode});"
                               f" its log: {self.tail()}")
            time.sleep(0.1)
        with open(port_file, encoding="ascii") as f:
            port = int(f.readline().strip())
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=timeout) as r:
            pages = [t for t in json.load(r) if t.get("type") == "page"]
        if not pages:
            self.close()
            raise CDPError("chromium has no page target")
        self.ws = _WebSocket(pages[0]["webSocketDebuggerUrl"], timeout)
        self.call("Page.enable")
        self.call("Runtime.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def tail(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()[-1500:].decode(errors="replace")

    def call(self, method, **params):
        """Send one command; return its result (CDPError on an error answer).
        Events that arrive meanwhile are kept in self.events."""
        self.next_id += 1
        my = self.next_id
        self.ws.send(json.dumps({"id": my, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == my:
                if "error" in msg:
                    raise CDPError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_event(self, method):
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            for i, ev in enumerate(self.events):
                if ev.get("method") == method:
                    return self.events.pop(i)
            self.events.append(json.loads(self.ws.recv()))
        raise CDPError(f"no {method} within {self.timeout}s")

    def open(self, path):
        """Navigate to file://PATH and wait for its load event."""
        self.events.clear()
        self.call("Page.navigate", url="file://" + os.path.abspath(path))
        self.wait_event("Page.loadEventFired")

    def js(self, expression):
        """The value of a JavaScript expression (returned by value). A thrown
        exception is a CDPError with its text."""
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                      awaitPromise=True)
        if "exceptionDetails" in r:
            raise CDPError(f"{expression[:80]}: {r['exceptionDetails'].get('text')} "
                           f"{r['exceptionDetails'].get('exception', {}).get('description')}")
        return r.get("result", {}).get("value")

    def click(self, selector):
        """A real mouse click in the middle of the first element matching
        selector (scrolled into view first)."""
        box = self.js(f"(function(){{var e=document.querySelector({json.dumps(selector)});"
                      "if(!e)return null;e.scrollIntoView({block:'center',inline:'center'});"
                      "var r=e.getBoundingClientRect();return [r.x+r.width/2,r.y+r.height/2];})()")
        if not box:
            raise CDPError(f"click: nothing matches {selector}")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1],
                      button="left", clickCount=1)

    def key(self, key, code=None, text=None):
        """Press and release one key on the focused element."""
        codes = {"Tab": 9, "Enter": 13, "Escape": 27, " ": 32, "ArrowLeft": 37,
                 "ArrowUp": 38, "ArrowRight": 39, "ArrowDown": 40}
        kc = codes.get(key, ord(key.upper()) if len(key) == 1 else 0)
        args = dict(key=key, code=code or key, windowsVirtualKeyCode=kc)
        self.call("Input.dispatchKeyEvent", type="keyDown", text=text or "", **args)
        self.call("Input.dispatchKeyEvent", type="keyUp", **args)

    def type_text(self, text):
        for ch in text:
            self.call("Input.dispatchKeyEvent", type="char", text=ch)

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return path

    def close(self):
        if self.ws:
            self.ws.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
