#!/usr/bin/env python3
"""Name resolution and AF_UNIX services under egress-supervisor (review h-realprog).

Run through hr-real-local.sh, which gives this process a mount namespace
whose /etc/resolv.conf names only 127.0.0.1 (checked here before anything
resolves). Serves DNS on 127.0.0.1:53 (UDP and TCP: every *.hr.test name is
127.0.0.1 and ::1, anything else NXDOMAIN), HTTP on 127.0.0.1:P and ::1:P,
and HTTP on an AF_UNIX socket. Every program runs with --no-loopback, so a
query the resolver sent anywhere but 127.0.0.1:53 would be denied, not sent.

    hr-real-local.sh SUPERVISOR [OUT]
"""
import json
import os
import socket
import socketserver
import struct
import subprocess
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer


def dns_answer(q):
    qid, flags, qd = struct.unpack("!HHH", q[:6])
    i, labels = 12, []
    while q[i]:
        labels.append(q[i + 1 : i + 1 + q[i]].decode())
        i += 1 + q[i]
    qtype = struct.unpack("!H", q[i + 1 : i + 3])[0]
    question = q[12 : i + 5]
    name = ".".join(labels).lower()
    rr = b""
    rcode = 0
    if name.endswith("hr.test"):
        if qtype == 1:
            rr = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) + socket.inet_aton("127.0.0.1")
        elif qtype == 28:
            rr = b"\xc0\x0c" + struct.pack("!HHIH", 28, 1, 60, 16) + socket.inet_pton(socket.AF_INET6, "::1")
    else:
        rcode = 3
    hdr = struct.pack("!HHHHHH", qid, 0x8180 | rcode, 1, 1 if rr else 0, 0, 0)
    return hdr + question + rr


QUERIES = []


def dns_udp():
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(("127.0.0.1", 53))

    def loop():
        while True:
            q, a = u.recvfrom(4096)
            QUERIES.append(("udp", q[12:40]))
            u.sendto(dns_answer(q), a)

    threading.Thread(target=loop, daemon=True).start()


class DnsTcp(socketserver.StreamRequestHandler):
    def handle(self):
        while True:
            n = self.rfile.read(2)
            if len(n) < 2:
                return
            q = self.rfile.read(struct.unpack("!H", n)[0])
            QUERIES.append(("tcp", q[12:40]))
            a = dns_answer(q)
            self.wfile.write(struct.pack("!H", len(a)) + a)


class TS(socketserver.ThreadingMixIn, socketserver.TCPServer):
    allow_reuse_address = True
    daemon_threads = True


class Http6(ThreadingHTTPServer):
    address_family = socket.AF_INET6


class UnixHttp(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def handler(root):
    class H(SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def __init__(self, *a, **k):
            super().__init__(*a, directory=root, **k)

        def address_string(self):
            return "unix"

        def log_message(self, *a):
            pass

    return H


NODE = r"""
const dns = require("dns"), http = require("http");
const [mode, port] = process.argv.slice(2);
const fail = (e) => { console.error(mode, String(e)); process.exit(1); };
if (mode === "lookup") dns.lookup("a.hr.test", { all: true }, (e, a) => e ? fail(e) : process.exit(a.length ? 0 : 1));
else if (mode === "resolve4") dns.resolve4("a.hr.test", (e, a) => e ? fail(e) : process.exit(a[0] === "127.0.0.1" ? 0 : 1));
else if (mode === "http") http.get(`http://a.hr.test:${port}/f.txt`, (r) => { r.resume(); r.on("end", () => process.exit(r.statusCode === 200 ? 0 : 1)); }).on("error", fail);
"""


def main():
    sv = os.path.abspath(sys.argv[1])
    out = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else "/tmp/hr-real-local")
    with open("/etc/resolv.conf") as f:
        rc = f.read()
    if [ln for ln in rc.splitlines() if ln.startswith("nameserver")] != ["nameserver 127.0.0.1"]:
        sys.exit("hr-real-local: /etc/resolv.conf is not ours (run through hr-real-local.sh); refusing to resolve")
    os.makedirs(os.path.join(out, "www"), exist_ok=True)
    os.makedirs(os.path.join(out, "reports"), exist_ok=True)
    os.chmod(out, 0o755)
    with open(os.path.join(out, "www", "f.txt"), "w") as f:
        f.write("hello\n")
    with open(os.path.join(out, "n.js"), "w") as f:
        f.write(NODE)
    dns_udp()
    t = TS(("127.0.0.1", 53), DnsTcp)
    threading.Thread(target=t.serve_forever, daemon=True).start()
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    H = handler(os.path.join(out, "www"))
    for srv in (ThreadingHTTPServer(("127.0.0.1", port), H), Http6(("::1", port), H)):
        threading.Thread(target=srv.serve_forever, daemon=True).start()
    usock = os.path.join(out, "http.sock")
    if os.path.exists(usock):
        os.unlink(usock)
    us = UnixHttp(usock, H)
    os.chmod(usock, 0o666)
    threading.Thread(target=us.serve_forever, daemon=True).start()
    time.sleep(0.3)

    py = "/usr/bin/python3"
    url = f"http://a.hr.test:{port}/f.txt"
    allow = ["--no-loopback", "--allow", "127.0.0.1:53", "--allow", f"127.0.0.1:{port}", "--allow", f"[::1]:{port}"]
    cases = [
        ("getent-ahosts", allow, ["getent", "ahosts", "a.hr.test"], 0),
        ("getent-nx", allow, ["getent", "hosts", "nx.example.test"], 2),
        ("curl-name", allow, ["curl", "-sS", "-o", "/dev/null", url], 0),
        ("wget-name", allow, ["wget", "-q", "--tries=1", "-O", "/dev/null", url], 0),
        ("py-getaddrinfo", allow, [py, "-c", "import socket,sys; sys.exit(0 if socket.getaddrinfo('a.hr.test', 80) else 1)"], 0),
        ("py-urllib-name", allow, [py, "-c", f"import urllib.request; urllib.request.urlopen('{url}', timeout=10).read()"], 0),
        ("node-lookup", allow, ["node", os.path.join(out, "n.js"), "lookup", str(port)], 0),
        ("node-resolve4", allow, ["node", os.path.join(out, "n.js"), "resolve4", str(port)], 0),
        ("node-http-name", allow, ["node", os.path.join(out, "n.js"), "http", str(port)], 0),
        ("git-http-name", allow, ["git", "ls-remote", f"http://a.hr.test:{port}/nonexistent.git"], 128),
        # The DNS port undeclared: every query is denied, the program fails, nothing reaches :53.
        ("curl-dns-undeclared", ["--no-loopback", "--allow", f"127.0.0.1:{port}"], ["curl", "-sS", "-o", "/dev/null", url], "fail"),
        # AF_UNIX HTTP (a docker.sock-like host service): root must declare it, uid 1000 need not.
        ("curl-unix-declared", ["--no-loopback", "--unix-peer", usock], ["curl", "-sS", "-o", "/dev/null", "--unix-socket", usock, "http://x/f.txt"], 0),
        ("curl-unix-undeclared", ["--no-loopback"], ["curl", "-sS", "-o", "/dev/null", "--unix-socket", usock, "http://x/f.txt"], "root-fail"),
    ]
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": out}
    bad = 0
    print(f"{'case':22} {'who':8} {'verdict':10} {'sv':>3} {'prog':>5} {'queries':>7}  ok?  events not allowed")
    for name, pol, argv, want in cases:
        for who in ("root", "uid1000"):
            rf = tempfile.TemporaryFile()
            pre = [] if who == "root" else ["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups"]
            QUERIES.clear()
            p = subprocess.run(pre + [sv, "--report-fd", str(rf.fileno())] + pol + ["--"] + argv, env=env, pass_fds=[rf.fileno()], capture_output=True, timeout=120)
            rf.seek(0)
            raw = rf.read().decode()
            i = raw.rfind("egress-supervisor-report-record/1 final")
            hdr, body = raw[i:].split("\n", 1)
            r = json.loads(body[: int(hdr.split()[-1])])
            pexit = r["agent"]["exit_code"]
            nq = len(QUERIES)
            if want == "fail" or (want == "root-fail" and who == "root"):
                ok = p.returncode == 1 and nq == 0
            elif want == "root-fail":
                ok = p.returncode == 0 and pexit == 0
            else:
                ok = p.returncode == 0 and pexit == want
            bad += not ok
            ev = sorted({(e["syscall"], e["bucket"], e.get("reason"), e.get("dest")) for e in r["events"] if e["bucket"] != "allowed"}, key=str)
            with open(os.path.join(out, "reports", f"{name}-{who}.json"), "w") as f:
                json.dump({"rc": p.returncode, "stderr": p.stderr.decode(errors="replace"), "report": r}, f, indent=1)
            print(f"{name:22} {who:8} {r['verdict']:10} {p.returncode:>3} {pexit!s:>5} {nq:>7}  {'ok' if ok else 'BAD'}  {ev[:3]}", flush=True)
    print(f"{bad} BAD")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
