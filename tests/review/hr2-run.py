#!/usr/bin/env python3
"""Real programs under egress-supervisor, round two (review h-realprog2).

Re-runs itself in a mount namespace of its own (unshare -m, private
propagation) and bind-mounts a private resolv.conf there (nameserver
127.0.0.3, a DNS responder of this script on 127.0.0.3:53, UDP and TCP):
the host's /etc/resolv.conf is never written, and the bind ends with the
namespace whatever happens. Loopback servers of its own: HTTP on 127.0.0.1
and ::1, TCP and UDP echo (both families), TLS (openssl s_server), an
rsync daemon, an sshd with its own config on a private port; a sink (TCP
and UDP) on an undeclared port of 127.0.0.1, ::1 and 127.0.0.2, and on the
HTTP port of 127.0.0.2, counting connections, datagrams and bytes.

Each case runs under the supervisor with --no-loopback and the declared
servers' ports (the DNS server too unless the case says otherwise), as root
and as uid 1000 (setpriv), aimed at declared servers (expect pass, the
program's exit) and at one undeclared destination (expect fail, sink 0).

    tests/review/hr2-run.py SUPERVISOR [OUT] [--only NAME,...] [--who root,uid1000] [--repeat N]

Needs: chromium, openssl, socat, ncat, rsync, openssh-server (sshd, not
started as a service), bind9-dnsutils, node, java, perl, busybox, and
/tmp/hr2-progs-rs (rustc -O -o /tmp/hr2-progs-rs tests/review/hr2-progs.rs).
"""
import json
import os
import shutil
import socket
import socketserver
import struct
import subprocess
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

UID = 1000
HERE = os.path.dirname(os.path.abspath(__file__))
DNS_ADDR = "127.0.0.3"


# ---------------------------------------------------------------- DNS
NAMES = {
    "a.hr2.test": {1: ["127.0.0.1"], 28: []},
    "dual.hr2.test": {1: ["127.0.0.1"], 28: ["::1"]},
    "v6.hr2.test": {1: [], 28: ["::1"]},
    "sink.hr2.test": {1: ["127.0.0.2"], 28: []},
    "tc.hr2.test": {1: ["127.0.0.1"], 28: []},
}


class Dns:
    """A names-only authoritative responder for *.hr2.test; tc.* is truncated over UDP."""

    asked = set()

    def __init__(self):
        self.lock = threading.Lock()
        self.udp = self.tcp = 0
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.bind((DNS_ADDR, 53))
        t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        t.bind((DNS_ADDR, 53))
        t.listen(16)
        threading.Thread(target=self._udp, args=(u,), daemon=True).start()
        threading.Thread(target=self._tcp, args=(t,), daemon=True).start()

    @staticmethod
    def answer(q, udp):
        qid, _fl, qd = struct.unpack(">HHH", q[:6])
        i, labels = 12, []
        while q[i]:
            labels.append(q[i + 1 : i + 1 + q[i]].decode().lower())
            i += 1 + q[i]
        qtype = struct.unpack(">H", q[i + 1 : i + 3])[0]
        question = q[12 : i + 5]
        name = ".".join(labels)
        Dns.asked.add(name)
        rec = NAMES.get(name)
        rcode = 0 if rec else 3
        ans = b""
        n = 0
        if rec and not (udp and name.startswith("tc.")):
            for a in rec.get(qtype, []):
                data = socket.inet_pton(socket.AF_INET if qtype == 1 else socket.AF_INET6, a)
                ans += struct.pack(">HHHIH", 0xC00C, qtype, 1, 5, len(data)) + data
                n += 1
        flags = 0x8400 | rcode | (0x0200 if udp and name.startswith("tc.") else 0)
        return struct.pack(">HHHHHH", qid, flags, 1, n, 0, 0) + question + ans

    def _udp(self, u):
        while True:
            q, peer = u.recvfrom(4096)
            with self.lock:
                self.udp += 1
            try:
                u.sendto(self.answer(q, True), peer)
            except (IndexError, struct.error):
                pass

    def _tcp(self, t):
        while True:
            c, _ = t.accept()
            threading.Thread(target=self._tcp1, args=(c,), daemon=True).start()

    def _tcp1(self, c):
        c.settimeout(5)
        try:
            while True:
                h = c.recv(2)
                if len(h) < 2:
                    break
                ln = struct.unpack(">H", h)[0]
                q = b""
                while len(q) < ln:
                    q += c.recv(ln - len(q))
                with self.lock:
                    self.tcp += 1
                r = self.answer(q, False)
                c.sendall(struct.pack(">H", len(r)) + r)
        except OSError:
            pass
        c.close()

    def take(self):
        with self.lock:
            r = (self.udp, self.tcp)
            self.udp = self.tcp = 0
            self.names = sorted(n for n in Dns.asked if n not in NAMES)
            Dns.asked.clear()
        return r


# ---------------------------------------------------------------- sink, echo
def free_port():
    while True:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        p = s.getsockname()[1]
        s.close()
        ok = True
        for fam, addr in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1"), (socket.AF_INET, "127.0.0.2")):
            for typ in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
                t = socket.socket(fam, typ)
                try:
                    t.bind((addr, p))
                except OSError:
                    ok = False
                t.close()
        if ok:
            return p


class Sink:
    """Counts connections/datagrams and bytes on every undeclared listener."""

    def __init__(self, binds):
        self.lock = threading.Lock()
        self.bytes = self.conns = 0
        for fam, addr, port, udp in binds:
            if udp:
                u = socket.socket(fam, socket.SOCK_DGRAM)
                u.bind((addr, port))
                threading.Thread(target=self._udp, args=(u,), daemon=True).start()
            else:
                t = socket.socket(fam, socket.SOCK_STREAM)
                t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                t.bind((addr, port))
                t.listen(64)
                threading.Thread(target=self._accept, args=(t,), daemon=True).start()

    def _accept(self, t):
        while True:
            c, _ = t.accept()
            with self.lock:
                self.conns += 1
            threading.Thread(target=self._read, args=(c,), daemon=True).start()

    def _read(self, c):
        c.settimeout(3)
        try:
            while True:
                b = c.recv(65536)
                if not b:
                    break
                with self.lock:
                    self.bytes += len(b)
        except OSError:
            pass
        c.close()

    def _udp(self, u):
        while True:
            b = u.recv(65536)
            with self.lock:
                self.bytes += len(b)
                self.conns += 1

    def take(self):
        time.sleep(0.3)
        with self.lock:
            r = (self.conns, self.bytes)
            self.conns = self.bytes = 0
        return r


class TcpServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    allow_reuse_address = True
    daemon_threads = True


class TcpServer6(TcpServer):
    address_family = socket.AF_INET6


class EchoH(socketserver.StreamRequestHandler):
    def handle(self):
        while True:
            b = self.request.recv(65536)
            if not b:
                return
            self.request.sendall(b)


def udp_echo(fam, addr, port):
    u = socket.socket(fam, socket.SOCK_DGRAM)
    u.bind((addr, port))

    def loop():
        while True:
            b, peer = u.recvfrom(65536)
            u.sendto(b, peer)

    threading.Thread(target=loop, daemon=True).start()


class Http6(ThreadingHTTPServer):
    address_family = socket.AF_INET6


def http_handler(root):
    class H(SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def __init__(self, *a, **k):
            super().__init__(*a, directory=root, **k)

        def log_message(self, *a):
            pass

    return H


def serve(srv):
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c63f8cfc0f01f0005000201a5f8d2c10000000049454e44ae426082"
)

ASYNCIO = r'''
import asyncio, socket, sys
mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
async def tcp():
    r, w = await asyncio.wait_for(asyncio.open_connection(host, port, happy_eyeballs_delay=0.25), 5)
    w.write(b"SECRET"); await w.drain()
    d = await asyncio.wait_for(r.readexactly(6), 5)
    w.close()
    return d == b"SECRET"
async def udp():
    loop = asyncio.get_running_loop(); fut = loop.create_future()
    class P(asyncio.DatagramProtocol):
        def connection_made(self, t): t.sendto(b"SECRET")
        def datagram_received(self, d, a): fut.set_result(d)
        def error_received(self, e): fut.set_exception(e)
    t, _ = await loop.create_datagram_endpoint(P, remote_addr=(host, port))
    d = await asyncio.wait_for(fut, 3); t.close()
    return d == b"SECRET"
sys.exit(0 if asyncio.run(tcp() if mode == "tcp" else udp()) else 1)
'''

GAI = r'''
import socket, sys
r = socket.getaddrinfo(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else None, type=socket.SOCK_STREAM)
print(sorted(set(x[4][0] for x in r)))
sys.exit(0 if r else 1)
'''

NODE = r'''
const net = require("net");
const [host, port] = process.argv.slice(2);
const c = net.connect({ host, port: +port, autoSelectFamily: true, autoSelectFamilyAttemptTimeout: 250 }, () => c.write("SECRET"));
c.on("data", (d) => { console.log(c.remoteAddress); process.exit(String(d) === "SECRET" ? 0 : 1); });
c.on("error", (e) => { console.error(String(e)); process.exit(1); });
setTimeout(() => { console.error("timeout"); process.exit(1); }, 8000);
'''

PERL = r'''
use strict; use IO::Socket::IP;
my ($h, $p, $udp) = @ARGV;
my $s = IO::Socket::IP->new(PeerHost => $h, PeerPort => $p, Proto => $udp ? "udp" : "tcp", Timeout => 5) or die "connect: $@\n";
if ($udp) { $s->send("SECRET") or die "send: $!\n"; my $b; defined $s->recv($b, 100) or die "recv: $!\n"; exit($b eq "SECRET" ? 0 : 1); }
print $s "SECRET\n"; my $l = <$s>; exit(defined $l && $l eq "SECRET\n" ? 0 : 1);
'''

CHROME_FLAGS = [
    "--headless",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-domain-reliability",
    "--disable-breakpad",
    "--metrics-recording-only",
    "--disable-gpu",
    "--dump-dom",
]


def cases(o, P):
    """name -> (declared argv, undeclared argv or None, want exit, options)."""
    H, E, S, T, R, SS = P["http"], P["echo"], P["sink"], P["tls"], P["rsync"], P["ssh"]
    py, w = "/usr/bin/python3", o["w"]  # uid 1000 cannot run a pyenv python under /root
    rs = "/tmp/hr2-progs-rs"
    jv = ["java", "-Xshare:off", os.path.join(HERE, "Hr2Net.java")]
    pr = o["progs"]
    ssh = ["ssh", "-F", "/dev/null", "-i", o["sshkey"], "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
           "-o", "BatchMode=yes", "-o", "LogLevel=ERROR"]
    c = {}

    def chrome(prof, sandbox, url):
        return ["chromium"] + CHROME_FLAGS + [f"--user-data-dir={w}/chrome-{prof}-@WHO@"] + ([] if sandbox else ["--no-sandbox"]) + [url]

    for sb in (False, True):
        tag = "sandbox" if sb else "nosandbox"
        c[f"chromium-{tag}"] = (chrome(tag, sb, f"http://127.0.0.1:{H}/index.html"), chrome(tag, sb, f"http://127.0.0.1:{H}/leak.html"), 0,
                                {"grep_out": "IMGOK"})
    for extra, tag in ((["--no-zygote"], "nozygote"), (["--no-zygote", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE 127.0.0.2"], "nozygote-rules"),
                       (["--single-process"], "single")):
        c[f"chromium-{tag}"] = (chrome(tag, False, f"http://127.0.0.1:{H}/index.html") + extra, chrome(tag, False, f"http://127.0.0.1:{H}/leak.html") + extra, 0,
                                {"grep_out": "IMGOK"})
    # glibc's resolver (private resolv.conf: nameserver 127.0.0.3)
    c["getent-a"] = (["getent", "ahosts", "a.hr2.test"], None, 0, {})
    c["getent-dual"] = (["getent", "ahosts", "dual.hr2.test"], None, 0, {})
    c["getent-tc"] = (["getent", "ahosts", "tc.hr2.test"], None, 0, {})
    c["getent-dns-undecl"] = (None, ["getent", "ahosts", "a.hr2.test"], 0, {"undecl_exit": 2, "dns_undeclared": True})
    c["curl-name"] = (["curl", "-sSf", "-o", "/dev/null", f"http://a.hr2.test:{H}/f.txt"], ["curl", "-sSf", "-o", "/dev/null", f"http://sink.hr2.test:{H}/f.txt"], 0, {})
    c["curl-dual"] = (["curl", "-sSf", "-o", "/dev/null", f"http://dual.hr2.test:{H}/f.txt"], ["curl", "-sSf", "-o", "/dev/null", f"http://dual.hr2.test:{S}/f.txt"], 0, {})
    c["curl-dns-undecl"] = (None, ["curl", "-sSf", "-o", "/dev/null", f"http://a.hr2.test:{H}/f.txt"], 0, {"dns_undeclared": True})
    c["py-gai-dual"] = ([py, f"{pr}/gai.py", "dual.hr2.test", str(H)], [py, f"{pr}/gai.py", "dual.hr2.test", str(S)], 0, {"undecl_exit": 0})
    c["py-gai-noport"] = ([py, f"{pr}/gai.py", "dual.hr2.test"], None, 0, {})
    c["getent-usevc"] = (["getent", "ahosts", "dual.hr2.test"], None, 0, {"res_options": "RES_OPTIONS=use-vc"})
    c["dig"] = (["dig", "+short", "+tries=1", "+time=2", f"@{DNS_ADDR}", "dual.hr2.test", "AAAA"], None, 0, {})
    c["dig-tcp"] = (["dig", "+tcp", "+short", "+tries=1", "+time=2", f"@{DNS_ADDR}", "a.hr2.test"], None, 0, {})
    c["dig-undecl"] = (None, ["dig", "+short", "+tries=1", "+time=2", "@127.0.0.2", "-p", str(S), "a.hr2.test"], 0, {"undecl_exit": 9})
    c["host"] = (["host", "-W", "2", "dual.hr2.test"], ["host", "-W", "2", "a.hr2.test", "127.0.0.2"], 0, {"undecl_exit": 1})
    # TLS
    sc = ["openssl", "s_client", "-quiet", "-ign_eof", "-verify_quiet"]
    c["openssl-s_client"] = (sc + ["-connect", f"127.0.0.1:{T}"], sc + ["-connect", f"127.0.0.2:{S}"], 0, {"stdin": b"GET / HTTP/1.0\r\n\r\n", "undecl_exit": 1,
                                                                                                   "grep_out": "HTTP/1.0 200"})
    c["openssl-s_client6"] = (sc + ["-connect", f"[::1]:{T}"], None, 0, {"stdin": b"GET / HTTP/1.0\r\n\r\n", "grep_out": "HTTP/1.0 200"})
    c["openssl-s_server"] = (["openssl", "s_server", "-quiet", "-naccept", "1", "-accept", f"127.0.0.1:{S + 1}", "-cert", o["cert"], "-key", o["key"], "-www"],
                             None, 0, {"client": ("tls", S + 1), "server": True})
    # socat
    c["socat-tcp4"] = (["socat", "-", f"TCP4:127.0.0.1:{E}"], ["socat", "-", f"TCP4:127.0.0.2:{S}"], 0, {"stdin": b"SECRET", "undecl_exit": 1})
    c["socat-tcp6-name"] = (["socat", "-", f"TCP6:v6.hr2.test:{E}"], ["socat", "-", f"TCP6:[::1]:{S}"], 0, {"stdin": b"SECRET", "undecl_exit": 1})
    c["socat-udp"] = (["socat", "-T2", "-", f"UDP4:127.0.0.1:{E}"], ["socat", "-T2", "-", f"UDP4:127.0.0.2:{S}"], 0, {"stdin": b"SECRET", "undecl_exit": None})
    c["socat-udp-sendto"] = (["socat", "-T2", "-", f"UDP4-SENDTO:127.0.0.1:{E}"], ["socat", "-T2", "-", f"UDP4-SENDTO:127.0.0.2:{S}"], 0, {"stdin": b"SECRET", "undecl_exit": None})
    c["socat-unix"] = (["socat", "-", f"UNIX-CONNECT:{o['usock']}"], None, 0, {"stdin": b"SECRET"})
    c["socat-listen"] = (["socat", "-T5", f"TCP4-LISTEN:{S + 2},bind=127.0.0.1", "EXEC:cat"], None, 0, {"client": ("echo", S + 2), "server": True})
    # ncat
    c["ncat-tcp"] = (["ncat", "--recv-only" if False else "-w3", "127.0.0.1", str(E)], ["ncat", "-w3", "127.0.0.2", str(S)], 0, {"stdin": b"SECRET", "undecl_exit": 1})
    c["ncat-udp"] = (["ncat", "-u", "-w2", "127.0.0.1", str(E)], ["ncat", "-u", "-w2", "127.0.0.2", str(S)], 0, {"stdin": b"SECRET", "undecl_exit": None})
    c["ncat-udp6-name"] = (["ncat", "-6", "-u", "-w2", "v6.hr2.test", str(E)], None, 0, {"stdin": b"SECRET"})
    c["ncat-unix"] = (["ncat", "-U", o["usock"]], None, 0, {"stdin": b"SECRET"})
    c["ncat-listen"] = (["ncat", "-l", "127.0.0.1", str(S + 3), "-c", "cat"], None, 0, {"client": ("echo", S + 3), "server": True})
    # rsync, ssh
    c["rsync"] = (["rsync", f"rsync://127.0.0.1:{R}/m/f.txt", f"{w}/"], ["rsync", f"rsync://127.0.0.2:{S}/m/f.txt", f"{w}/"], 0, {"undecl_exit": None})
    c["rsync-name"] = (["rsync", f"rsync://a.hr2.test:{R}/m/f.txt", f"{w}/"], None, 0, {})
    c["ssh"] = (ssh + ["-p", str(SS), "@USER@127.0.0.1", "echo", "hr2-ssh-ok"], ssh + ["-o", "ConnectTimeout=3", "-p", str(S), "@USER@127.0.0.2", "true"], 0,
                {"undecl_exit": 255, "grep_out": "hr2-ssh-ok"})
    # python asyncio
    c["py-asyncio-tcp"] = ([py, f"{pr}/aio.py", "tcp", "dual.hr2.test", str(E)], [py, f"{pr}/aio.py", "tcp", "dual.hr2.test", str(S)], 0, {"undecl_exit": 1})
    c["py-asyncio-udp"] = ([py, f"{pr}/aio.py", "udp", "127.0.0.1", str(E)], [py, f"{pr}/aio.py", "udp", "127.0.0.2", str(S)], 0, {"undecl_exit": 1})
    # node
    c["node-autoselect"] = (["node", f"{pr}/n.js", "dual.hr2.test", str(E)], ["node", f"{pr}/n.js", "dual.hr2.test", str(S)], 0, {"undecl_exit": 1})
    # java
    c["java-socket"] = (jv + ["tcp", "dual.hr2.test", str(E)], jv + ["tcp", "127.0.0.2", str(S)], 0, {"undecl_exit": 1})
    c["java-datagram"] = (jv + ["udp", "127.0.0.1", str(E)], jv + ["udp", "127.0.0.2", str(S)], 0, {"undecl_exit": 1})
    # rust
    c["rust-tcp"] = ([rs, "tcp", "dual.hr2.test", str(E)], [rs, "tcp", "127.0.0.2", str(S)], 0, {"undecl_exit": 101})
    c["rust-udp"] = ([rs, "udp", "a.hr2.test", str(E)], [rs, "udp", "sink.hr2.test", str(S)], 0, {"undecl_exit": 101})
    # perl
    c["perl-ip-tcp"] = (["perl", f"{pr}/p.pl", "dual.hr2.test", str(E)], ["perl", f"{pr}/p.pl", "dual.hr2.test", str(S)], 0, {"undecl_exit": 255})
    c["perl-ip-udp"] = (["perl", f"{pr}/p.pl", "a.hr2.test", str(E), "1"], ["perl", f"{pr}/p.pl", "sink.hr2.test", str(S), "1"], 0, {"undecl_exit": 255})
    # busybox
    c["bb-wget-name"] = (["busybox", "wget", "-q", "-O", "/dev/null", f"http://a.hr2.test:{H}/f.txt"], ["busybox", "wget", "-q", "-O", "/dev/null", f"http://sink.hr2.test:{S}/f.txt"], 0,
                         {"undecl_exit": 1})
    c["bb-nc-name"] = (["busybox", "nc", "-w", "2", "a.hr2.test", str(E)], ["busybox", "nc", "-w", "2", "sink.hr2.test", str(S)], 0, {"stdin": b"SECRET", "undecl_exit": 1})
    # (busybox 1.35 nc has no -u; its -l binds the wildcard, denied `inbound` by design)
    return c


def client(kind, port):
    """An outside client for a case whose program is a server; returns True when it got its answer."""
    for _ in range(50):
        time.sleep(0.1)
        try:
            if kind == "tls":
                p = subprocess.run(["openssl", "s_client", "-quiet", "-ign_eof", "-connect", f"127.0.0.1:{port}"], input=b"GET / HTTP/1.0\r\n\r\n",
                                   capture_output=True, timeout=10)
                if b"HTTP/1.0 200" in p.stdout:
                    return True
                continue
            s = socket.create_connection(("127.0.0.1", port), timeout=3)
            s.sendall(b"SECRET")
            d = s.recv(6)
            s.close()
            return d == b"SECRET"
        except (OSError, subprocess.TimeoutExpired):
            continue
    return False


def setup(out):
    for sub in ("progs", "www", "w", "reports", "rsync", "ssh"):
        os.makedirs(os.path.join(out, sub))
    os.chmod(out, 0o755)
    www = os.path.join(out, "www")
    with open(os.path.join(www, "f.txt"), "w") as f:
        f.write("hello from hr2\n")
    with open(os.path.join(www, "a.png"), "wb") as f:
        f.write(PNG)
    progs = os.path.join(out, "progs")
    for name, text in (("aio.py", ASYNCIO), ("gai.py", GAI), ("n.js", NODE), ("p.pl", PERL)):
        with open(os.path.join(progs, name), "w") as f:
            f.write(text)
    with open(os.path.join(out, "rsync", "f.txt"), "w") as f:
        f.write("rsync payload\n")
    o = {"w": os.path.join(out, "w"), "progs": progs, "out": out}
    o["cert"], o["key"] = os.path.join(out, "cert.pem"), os.path.join(out, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=hr2",
                    "-keyout", o["key"], "-out", o["cert"]], check=True, capture_output=True)
    os.chmod(o["key"], 0o644)  # a throwaway key: uid 1000's s_server reads it
    sd = os.path.join(out, "ssh")
    o["sshkey"] = os.path.join(sd, "id")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", o["sshkey"]], check=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(sd, "hostkey")], check=True)
    shutil.copy(o["sshkey"] + ".pub", os.path.join(sd, "authorized_keys"))
    for p in (os.path.join(sd, "id"), os.path.join(sd, "id.pub")):
        os.chown(p, UID, UID)  # uid 1000's ssh insists the key is its own; root reads it anyway
    os.chmod(sd, 0o755)
    o["usock"] = os.path.join(out, "echo.sock")
    return o


def main():
    if os.environ.get("HR2_IN_NS") != "1":
        # A mount namespace of our own: the private resolv.conf is bound only here.
        os.environ["HR2_IN_NS"] = "1"
        os.execvp("unshare", ["unshare", "-m", "--propagation", "private", sys.executable] + sys.argv)
    args = list(sys.argv[1:])
    only, who, repeat = None, ("root", "uid1000"), 1
    for flag in ("--only", "--who", "--repeat"):
        if flag in args:
            i = args.index(flag)
            val = args[i + 1]
            del args[i : i + 2]
            if flag == "--only":
                only = val.split(",")
            elif flag == "--who":
                who = val.split(",")
            else:
                repeat = int(val)
    sv = os.path.abspath(args[0])
    out = os.path.abspath(args[1] if len(args) > 1 else "/tmp/hr2-real")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    o = setup(out)
    rc = os.path.join(out, "resolv.conf")
    with open(rc, "w") as f:
        f.write(f"nameserver {DNS_ADDR}\noptions timeout:2 attempts:1\n")
    subprocess.run(["mount", "--bind", rc, "/etc/resolv.conf"], check=True)
    if os.path.exists("/etc/hosts"):
        hosts = os.path.join(out, "hosts")
        with open(hosts, "w") as f:
            f.write("127.0.0.1 localhost\n::1 localhost ip6-localhost\n")
        subprocess.run(["mount", "--bind", hosts, "/etc/hosts"], check=True)

    P = {}
    for k in ("http", "echo", "tls", "rsync", "ssh", "sink"):
        while True:
            s = free_port()
            near = [s + i for i in range(4)] if k == "sink" else [s]
            if not any(abs(x - v) < 4 for v in P.values() for x in near) and all(free_port_ok(x) for x in near):
                break
        P[k] = s
    dns = Dns()
    www = os.path.join(out, "www")
    with open(os.path.join(www, "index.html"), "w") as f:
        f.write('<html><body><p id=x>start</p><img src="/a.png" onload="document.getElementById(\'x\').textContent=\'IMGOK\'"></body></html>\n')
    with open(os.path.join(www, "leak.html"), "w") as f:
        f.write(f'<html><body><p id=x>start</p><img src="http://127.0.0.2:{P["http"]}/a.png?SECRET" '
                'onload="document.getElementById(\'x\').textContent=\'IMGOK\'" onerror="document.getElementById(\'x\').textContent=\'IMGERR\'"></body></html>\n')
    H = http_handler(www)
    serve(ThreadingHTTPServer(("127.0.0.1", P["http"]), H))
    serve(Http6(("::1", P["http"]), H))
    serve(TcpServer(("127.0.0.1", P["echo"]), EchoH))
    serve(TcpServer6(("::1", P["echo"]), EchoH))
    udp_echo(socket.AF_INET, "127.0.0.1", P["echo"])
    udp_echo(socket.AF_INET6, "::1", P["echo"])

    class UEcho(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
        daemon_threads = True

    serve(UEcho(o["usock"], EchoH))
    os.chmod(o["usock"], 0o777)
    sink = Sink([(socket.AF_INET, "127.0.0.1", s, u) for u in (0, 1)] + [(socket.AF_INET6, "::1", s, u) for u in (0, 1)]
                + [(socket.AF_INET, "127.0.0.2", s, u) for u in (0, 1)] + [(socket.AF_INET, "127.0.0.2", P["http"], 0)])
    daemons = []
    daemons.append(subprocess.Popen(["openssl", "s_server", "-quiet", "-accept", f"127.0.0.1:{P['tls']}", "-cert", o["cert"], "-key", o["key"], "-www"],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    daemons.append(subprocess.Popen(["openssl", "s_server", "-quiet", "-accept", f"[::1]:{P['tls']}", "-cert", o["cert"], "-key", o["key"], "-www"],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    rconf = os.path.join(out, "rsyncd.conf")
    with open(rconf, "w") as f:
        f.write(f"use chroot = no\n[m]\npath = {out}/rsync\nread only = yes\n")
    daemons.append(subprocess.Popen(["rsync", "--daemon", "--no-detach", f"--config={rconf}", "--address=127.0.0.1", f"--port={P['rsync']}"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    sd = os.path.join(out, "ssh")
    sconf = os.path.join(sd, "sshd_config")
    with open(sconf, "w") as f:
        f.write(f"Port {P['ssh']}\nListenAddress 127.0.0.1\nHostKey {sd}/hostkey\nAuthorizedKeysFile {sd}/authorized_keys\n"
                f"PidFile {sd}/sshd.pid\nUsePAM no\nPermitRootLogin prohibit-password\nStrictModes no\nPasswordAuthentication no\n")
    os.makedirs("/run/sshd", exist_ok=True)  # privilege separation directory (in our namespace's view of /run: the host's)
    daemons.append(subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", sconf], stdout=subprocess.DEVNULL, stderr=open(os.path.join(sd, "sshd.log"), "w")))
    subprocess.run(["chown", "-R", f"{UID}:{UID}", o["w"]], check=True)
    time.sleep(1)
    try:
        return run_all(sv, o, P, sink, dns, only, who, repeat)
    finally:
        for d in daemons:
            d.terminate()
            d.wait()


def free_port_ok(p):
    for fam, addr in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1"), (socket.AF_INET, "127.0.0.2")):
        for typ in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
            t = socket.socket(fam, typ)
            try:
                t.bind((addr, p))
            except OSError:
                return False
            finally:
                t.close()
    return True


def read_report(rf):
    rf.seek(0)
    raw = rf.read().decode(errors="replace")
    idx = raw.rfind("egress-supervisor-report-record/1 final")
    if idx < 0:
        return None
    hdr, body = raw[idx:].split("\n", 1)
    return json.loads(body[: int(hdr.split()[-1])])


def run_all(sv, o, P, sink, dns, only, who, repeat):
    allow_base = ["--no-loopback"]
    for k in ("http", "echo", "tls"):
        allow_base += ["--allow", f"127.0.0.1:{P[k]}", "--allow", f"[::1]:{P[k]}"]
    allow_base += ["--allow", f"127.0.0.1:{P['rsync']}", "--allow", f"127.0.0.1:{P['ssh']}", "--unix-peer", o["usock"]]
    dns_allow = ["--allow", f"{DNS_ADDR}:53"]
    rows = []
    print(f"ports {P}", flush=True)
    print(f"{'program':24} {'who':8} {'aim':10} {'expect':12} {'verdict':17} {'sv':>3} {'prog':>7} {'sink':>9} {'dns':>5}  note", flush=True)
    for name, (decl, undecl, want, opt) in cases(o, P).items():
        if only and name not in only:
            continue
        for w in who:
            for aim, argv in (("declared", decl), ("undeclared", undecl)):
                if argv is None:
                    continue
                for rep in range(repeat):
                    rows.append(run_one(sv, o, P, sink, dns, name, w, aim, argv, want, opt, allow_base, dns_allow, rep))
    with open(os.path.join(o["out"], "rows.json"), "w") as f:
        json.dump(rows, f, indent=1)
    bad = sum(1 for r in rows if r["flag"] != "ok")
    print(f"{len(rows) - bad} ok, {bad} BAD of {len(rows)}")
    return 1 if bad else 0


def run_one(sv, o, P, sink, dns, name, w, aim, argv, want, opt, allow_base, dns_allow, rep):
    user = "root"  # the server side: cloudsdk is locked (no PAM); the client runs as root or uid 1000
    argv = [a.replace("@USER@", user + "@").replace("@WHO@", w) for a in argv]
    tag = f"{name}-{w}-{aim}-{rep}"
    allow = allow_base + ([] if opt.get("dns_undeclared") else dns_allow)
    if opt.get("server"):
        # listen() on loopback needs loopback allowed (docs/design.md: a loopback
        # listen under --no-loopback is denied `inbound`): the default policy.
        allow = ["--unix-peer", o["usock"]]
    rf = tempfile.TemporaryFile()
    pre = [] if w == "root" else ["setpriv", f"--reuid={UID}", f"--regid={UID}", "--clear-groups"]
    cmd = pre + [sv, "--report-fd", str(rf.fileno()), "--writable", o["w"]] + allow + ["--"] + argv
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin", "LANG": "C.UTF-8", "HOME": o["w"], "TMPDIR": o["w"]}
    if "res_options" in opt:
        k, v = opt["res_options"].split("=", 1)
        env[k] = v
    sink.take()
    dns.take()
    t0 = time.time()
    cl = None
    if "client" in opt:
        res = {}
        cl = threading.Thread(target=lambda: res.setdefault("ok", client(*opt["client"])))
        cl.start()
    try:
        p = subprocess.run(cmd, env=env, pass_fds=[rf.fileno()], input=opt.get("stdin", b""), capture_output=True, timeout=90, cwd=o["w"])
        rc, err, sout = p.returncode, p.stderr.decode(errors="replace"), p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        rc, err, sout = "T/O", (e.stderr or b"").decode(errors="replace"), (e.stdout or b"").decode(errors="replace")
    if cl:
        cl.join()
    dt = time.time() - t0
    conns, nbytes = sink.take()
    dq = dns.take()
    rep_json = read_report(rf)
    verdict = rep_json["verdict"] if rep_json else "?"
    ag = (rep_json or {}).get("agent") or {}
    pexit = ag.get("signal") or ag.get("exit_code")
    nonloop = []
    if rep_json:
        for e in rep_json.get("events", []):
            d = e.get("dest") or ""
            if e.get("family") in ("inet", "inet6") and not (d.startswith("127.") or d.startswith("[::1]") or d.startswith("[::ffff:127.")):
                nonloop.append(f"{e['syscall']} {d} {e['bucket']}/{e.get('reason')}")
    with open(os.path.join(o["out"], "reports", tag + ".json"), "w") as f:
        json.dump({"cmd": cmd, "rc": rc, "stderr": err[-4000:], "stdout": sout[-2000:], "report": rep_json}, f, indent=1)
    if aim == "declared":
        expect = f"pass/{want}"
        good = rc == 0 and pexit == want and nbytes == 0 and conns == 0
        if "grep_out" in opt and opt["grep_out"] not in sout:
            good = False
        if "client" in opt and not res.get("ok"):
            good = False
    else:
        ue = opt.get("undecl_exit", "any")  # noqa: F841 (kept as the review ran it)
        expect = "fail/sink0"
        good = rc == 1 and nbytes == 0 and conns == 0
        if opt.get("dns_undeclared") and dq != (0, 0):
            good = False
    note = ""
    if rep_json:
        seen = []
        for e in rep_json.get("events", []):
            if e["bucket"] == "allowed" or e.get("reason") in ("clone3",):
                continue
            k = (e["syscall"], e["bucket"], e.get("reason"), e.get("dest"), e.get("errno"), e.get("mechanism"))
            if k not in seen:
                seen.append(k)
        note = "; ".join("/".join(str(x) for x in k if x is not None) for k in seen[:3])
        if len(seen) > 3:
            note += f"; +{len(seen) - 3} more"
    if not good and not note:
        note = (err.strip().splitlines() or [""])[-1][:140]
    if nonloop:
        note += f" | non-loopback: {sorted(set(nonloop))[:3]}"
    if dns.names:
        note += f" | other names asked: {dns.names[:6]}"
    flag = "ok" if good else "BAD"
    print(f"{name:24} {w:8} {aim:10} {expect:12} {verdict:17} {rc!s:>3} {pexit!s:>7} {conns:>3}c/{nbytes:<4}b {dq[0]}/{dq[1]:<3} {flag} {dt:.1f}s {note}", flush=True)
    return {"name": name, "who": w, "aim": aim, "expect": expect, "verdict": verdict, "sv": rc, "prog": pexit, "sink": [conns, nbytes], "dns": dq,
            "flag": flag, "note": note, "t": round(dt, 1)}


if __name__ == "__main__":
    sys.exit(main())
