#!/usr/bin/env python3
"""Real network programs under egress-supervisor (review h-realprog).

Starts loopback servers of its own (HTTP on 127.0.0.1 and ::1, a dumb-HTTP
git repository, git daemon, TCP and UDP echo, an SSH banner), and a sink on
an undeclared loopback port that counts every byte it receives. Each
program runs under the supervisor with --no-loopback and the servers'
ports declared, twice: aimed at the declared servers (expect pass, program
exit 0) and aimed at the sink (expect fail, sink 0 bytes). As root and as
uid 1000 (setpriv). Prints one row per run and writes every report under
OUT/.

    tests/review/hr-real-run.py SUPERVISOR [OUT] [--only NAME,...] [--who root,uid1000]
                               [--repeat N] [--mode strict|v4only|default]

Loopback only: every address is 127.0.0.1, ::1 or a name pinned to them;
no program is given a name its resolver would send to DNS.
"""
import json
import os
import shutil
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

UID = 1000


def free_port():
    """A port free on 127.0.0.1 and ::1 for TCP and UDP (checked by binding all four)."""
    while True:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        p = s.getsockname()[1]
        s.close()
        ok = True
        for fam, addr in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
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
    """Counts bytes (and connections/datagrams) on the undeclared port, both families, TCP and UDP."""

    def __init__(self, port):
        self.port = port
        self.lock = threading.Lock()
        self.bytes = 0
        self.conns = 0
        self.socks = []
        for fam, addr in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
            t = socket.socket(fam, socket.SOCK_STREAM)
            t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            t.bind((addr, port))
            t.listen(64)
            threading.Thread(target=self._accept, args=(t,), daemon=True).start()
            u = socket.socket(fam, socket.SOCK_DGRAM)
            u.bind((addr, port))
            threading.Thread(target=self._udp, args=(u,), daemon=True).start()
            self.socks += [t, u]

    def _accept(self, t):
        while True:
            c, _ = t.accept()
            with self.lock:
                self.conns += 1
            threading.Thread(target=self._read, args=(c,), daemon=True).start()

    def _read(self, c):
        c.settimeout(5)
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


class Echo(socketserver.ThreadingMixIn, socketserver.TCPServer):
    allow_reuse_address = True
    daemon_threads = True


class EchoH(socketserver.StreamRequestHandler):
    def handle(self):
        while True:
            b = self.request.recv(65536)
            if not b:
                return
            self.request.sendall(b)


class SshBanner(socketserver.StreamRequestHandler):
    def handle(self):
        self.request.sendall(b"SSH-2.0-hr-real-banner\r\n")
        self.request.settimeout(3)
        try:
            self.request.recv(4096)
        except OSError:
            pass


class Http6(ThreadingHTTPServer):
    address_family = socket.AF_INET6


def quiet_handler(root):
    class H(SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def __init__(self, *a, **k):
            super().__init__(*a, directory=root, **k)

        def log_message(self, *a):
            pass

    return H


def udp_echo(port):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(("127.0.0.1", port))

    def loop():
        while True:
            b, a = u.recvfrom(65536)
            u.sendto(b, a)

    threading.Thread(target=loop, daemon=True).start()
    return u


def serve(srv):
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def programs(base):
    """name -> (argv builder taking a port map, expected program exit when declared)."""
    py = "/usr/bin/python3"  # the host python; a pyenv under /root is not readable by uid 1000
    d = os.path.join(base, "progs")

    def P(name):
        return os.path.join(d, name)

    return {
        "curl-v4": (lambda p: ["curl", "-sS", "-o", "/dev/null", f"http://127.0.0.1:{p['http']}/f.txt"], 0),
        "curl-v6": (lambda p: ["curl", "-sS", "-o", "/dev/null", f"http://[::1]:{p['http']}/f.txt"], 0),
        "curl-keepalive": (
            lambda p: ["curl", "-sS", "-o", "/dev/null", "-o", "/dev/null", f"http://127.0.0.1:{p['http']}/f.txt", f"http://127.0.0.1:{p['http']}/f.txt"],
            0,
        ),
        "curl-resolve": (
            lambda p: ["curl", "-sS", "-o", "/dev/null", "--resolve", f"hr-real.test:{p['http']}:127.0.0.1", f"http://hr-real.test:{p['http']}/f.txt"],
            0,
        ),
        "curl-localhost": (lambda p: ["curl", "-sS", "-o", "/dev/null", f"http://localhost:{p['http']}/f.txt"], 0),
        "curl-post": (lambda p: ["curl", "-sS", "-o", "/dev/null", "--data-binary", "SECRET-hr-real", f"http://127.0.0.1:{p['http']}/f.txt"], 0),
        "wget-v4": (lambda p: ["wget", "-q", "-O", "/dev/null", f"http://127.0.0.1:{p['http']}/f.txt"], 0),
        "wget-v6": (lambda p: ["wget", "-q", "-O", "/dev/null", f"http://[::1]:{p['http']}/f.txt"], 0),
        "busybox-wget": (lambda p: ["busybox", "wget", "-q", "-O", "/dev/null", f"http://127.0.0.1:{p['http']}/f.txt"], 0),
        "bash-devtcp": (lambda p: ["bash", "-c", f"exec 3<>/dev/tcp/127.0.0.1/{p['echo']}; echo SECRET >&3; read -r l <&3; [ \"$l\" = SECRET ]"], 0),
        "py-urllib": (lambda p: [py, P("py.py"), "urllib", "127.0.0.1", str(p["http"])], 0),
        "py-httpclient-v6": (lambda p: [py, P("py.py"), "httpclient", "::1", str(p["http"])], 0),
        "py-asyncio": (lambda p: [py, P("py.py"), "asyncio", "127.0.0.1", str(p["echo"])], 0),
        "py-create-conn": (lambda p: [py, P("py.py"), "create_connection", "localhost", str(p["echo"])], 0),
        "py-udp": (lambda p: [py, P("py.py"), "udp", "127.0.0.1", str(p["echo"])], 0),
        "py-udp-connected": (lambda p: [py, P("py.py"), "udpconn", "127.0.0.1", str(p["echo"])], 0),
        "py-socketpair": (lambda p: [py, P("py.py"), "socketpair", "127.0.0.1", str(p["echo"])], 0),
        "py-mp-fork": (lambda p: [py, P("py.py"), "mp-fork", "127.0.0.1", str(p["http"])], 0),
        "py-mp-spawn": (lambda p: [py, P("py.py"), "mp-spawn", "127.0.0.1", str(p["http"])], 0),
        "py-mp-forkserver": (lambda p: [py, P("py.py"), "mp-forkserver", "127.0.0.1", str(p["http"])], 0),
        "node-http": (lambda p: ["node", P("n.js"), "http", "127.0.0.1", str(p["http"])], 0),
        "node-http-localhost": (lambda p: ["node", P("n.js"), "http", "localhost", str(p["http"])], 0),
        "node-fetch": (lambda p: ["node", P("n.js"), "fetch", "127.0.0.1", str(p["http"])], 0),
        "node-fetch-v6": (lambda p: ["node", P("n.js"), "fetch", "[::1]", str(p["http"])], 0),
        "node-net": (lambda p: ["node", P("n.js"), "net", "127.0.0.1", str(p["echo"])], 0),
        "node-dgram": (lambda p: ["node", P("n.js"), "dgram", "127.0.0.1", str(p["echo"])], 0),
        "node-worker": (lambda p: ["node", P("n.js"), "worker", "127.0.0.1", str(p["http"])], 0),
        "node-child": (lambda p: ["node", P("n.js"), "child", "127.0.0.1", str(p["http"])], 0),
        "node-fs-uring": (lambda p: ["env", "UV_USE_IO_URING=1", "node", P("n.js"), "fsnet", "127.0.0.1", str(p["http"])], 0),
        "git-http": (lambda p: ["git", "clone", "-q", f"http://127.0.0.1:{p['http']}/repo.git", P("..") + "/w/" + p["tag"] + "-h"], 0),
        "git-daemon": (lambda p: ["git", "clone", "-q", f"git://127.0.0.1:{p['git']}/repo.git", P("..") + "/w/" + p["tag"] + "-g"], 0),
        "java-httpclient": (lambda p: ["env", "HOME=" + P("..") + "/home", "java", P("Get.java"), f"http://127.0.0.1:{p['http']}/f.txt"], 0),
        "perl-iosocket": (lambda p: ["perl", P("p.pl"), "127.0.0.1", str(p["echo"])], 0),
        "perl-udp": (lambda p: ["perl", P("p.pl"), "127.0.0.1", str(p["echo"]), "udp"], 0),
        # The banner server speaks no SSH beyond its banner: 255 either way;
        # the declared run must reach it (kex error), the sink must get nothing.
        "curl-mapped": (lambda p: ["curl", "-sS", "-o", "/dev/null", f"http://[::ffff:127.0.0.1]:{p['http']}/f.txt"], 0),
        "curl-tfo": (lambda p: ["curl", "-sS", "-o", "/dev/null", "--tcp-fastopen", f"http://127.0.0.1:{p['http']}/f.txt"], 0),
        "busybox-nc": (lambda p: ["bash", "-c", f"echo SECRET | busybox nc -w 2 127.0.0.1 {p['echo']} | grep -q SECRET"], 0),
        "py-mp-forkserver-tmp": (lambda p: ["env", "TMPDIR=" + P("..") + "/w", py, P("py.py"), "mp-forkserver", "127.0.0.1", str(p["http"])], 0),
        "py-sendhandle": (lambda p: ["env", "TMPDIR=" + P("..") + "/w", py, P("py.py"), "sendhandle", "127.0.0.1", str(p["echo"])], 0),
        "ssh": (lambda p: ["ssh", "-F", "/dev/null", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o", f"UserKnownHostsFile={os.devnull}",
                           "-o", "ConnectTimeout=5", "-p", str(p["ssh"]), "hr@127.0.0.1", "true"], 255),
    }


PY = r'''
import asyncio, multiprocessing as mp, socket, sys, urllib.request, http.client
mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
def fetch(_=None):
    h = host if ":" not in host else "[" + host + "]"
    return urllib.request.urlopen(f"http://{h}:{port}/f.txt", timeout=10).read()
if mode == "urllib":
    assert fetch().startswith(b"hello")
elif mode == "httpclient":
    c = http.client.HTTPConnection(host, port, timeout=10)
    for _ in range(2):
        c.request("GET", "/f.txt"); r = c.getresponse(); assert r.status == 200; r.read()
elif mode == "asyncio":
    async def main():
        r, w = await asyncio.open_connection(host, port)
        w.write(b"SECRET\n"); await w.drain()
        assert await r.readline() == b"SECRET\n"
        w.close(); await w.wait_closed()
    asyncio.run(main())
elif mode == "create_connection":
    s = socket.create_connection((host, port), timeout=10)
    s.sendall(b"SECRET"); assert s.recv(10) == b"SECRET"
elif mode == "udp":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(5)
    for _ in range(3):
        s.sendto(b"SECRET", (host, port)); b, a = s.recvfrom(100); assert b == b"SECRET"
elif mode == "udpconn":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(5)
    s.connect((host, port))
    for _ in range(3):
        s.send(b"SECRET"); assert s.recv(100) == b"SECRET"
elif mode == "socketpair":
    a, b = socket.socketpair()
    a.sendall(b"x" * 1000); assert len(b.recv(2000)) == 1000
    a2, b2 = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    a2.send(b"dgram"); assert b2.recv(10) == b"dgram"
    s = socket.create_connection((host, port), timeout=10)
    s.sendall(b"SECRET"); assert s.recv(10) == b"SECRET"
elif mode == "sendhandle":
    # A connected TCP socket handed to a child over AF_UNIX (SCM_RIGHTS), as
    # multiprocessing.reduction does; the child sends on it.
    from multiprocessing import reduction
    s = socket.create_connection((host, port), timeout=10)
    a, b = socket.socketpair()
    import os
    pid = os.fork()
    if pid == 0:
        a.close(); fd = reduction.recvfds(b, 1)[0]; c = socket.socket(fileno=fd)
        c.sendall(b"SECRET"); os._exit(0)
    b.close(); reduction.sendfds(a, [s.fileno()]); os.waitpid(pid, 0)
    assert s.recv(10) == b"SECRET"
elif mode.startswith("mp-"):
    if __name__ == "__main__":
        ctx = mp.get_context(mode[3:])
        with ctx.Pool(2) as p:
            r = p.map(fetch, range(4))
        assert all(x.startswith(b"hello") for x in r)
'''

NODE = r'''
const [mode, host, port] = process.argv.slice(2);
const http = require("http"), net = require("net"), dgram = require("dgram");
const fail = (e) => { console.error(mode, String(e)); process.exit(1); };
const url = `http://${host}:${port}/f.txt`;
function get(cb) {
  http.get(url, (r) => { let n = 0; r.on("data", (d) => n += d.length); r.on("end", () => cb(r.statusCode, n)); }).on("error", fail);
}
if (mode === "http") get((s) => process.exit(s === 200 ? 0 : 1));
else if (mode === "fetch") fetch(url).then((r) => r.text()).then((t) => process.exit(t.startsWith("hello") ? 0 : 1), fail);
else if (mode === "net") {
  const c = net.connect(+port, host, () => c.write("SECRET"));
  c.on("data", (d) => { process.exit(String(d) === "SECRET" ? 0 : 1); }).on("error", fail);
} else if (mode === "dgram") {
  const s = dgram.createSocket("udp4");
  s.on("message", (m) => process.exit(String(m) === "SECRET" ? 0 : 1)).on("error", fail);
  s.send("SECRET", +port, host, (e) => e && fail(e));
  setTimeout(() => fail("timeout"), 5000);
} else if (mode === "worker") {
  const { Worker } = require("worker_threads");
  const w = new Worker(`const http=require("http");http.get(${JSON.stringify(url)},(r)=>{r.resume();r.on("end",()=>process.exit(r.statusCode===200?0:1))}).on("error",(e)=>{console.error(String(e));process.exit(1)})`, { eval: true });
  w.on("exit", (c) => process.exit(c)).on("error", fail);
} else if (mode === "child") {
  const { execFile } = require("child_process");
  execFile(process.execPath, [__filename, "http", host, port], (e) => process.exit(e ? 1 : 0));
} else if (mode === "fsnet") {
  const fs = require("fs");
  fs.promises.readFile(__filename).then(() => get((s) => process.exit(s === 200 ? 0 : 1)), fail);
}
'''

JAVA = r'''
public class Get { public static void main(String[] a) throws Exception {
  var c = java.net.http.HttpClient.newHttpClient();
  var r = c.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(a[0])).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
  System.exit(r.statusCode() == 200 ? 0 : 1); } }
'''

PERL = r'''
use strict; use IO::Socket::INET;
my ($h, $p, $udp) = @ARGV;
my $s = IO::Socket::INET->new(PeerAddr => $h, PeerPort => $p, Proto => $udp ? "udp" : "tcp", Timeout => 5) or die "connect: $!\n";
if ($udp) { $s->send("SECRET") or die "send: $!\n"; my $b; defined $s->recv($b, 100) or die "recv: $!\n"; exit($b eq "SECRET" ? 0 : 1); }
print $s "SECRET\n"; my $l = <$s>; exit(defined $l && $l eq "SECRET\n" ? 0 : 1);
'''


def main():
    args = [a for a in sys.argv[1:]]
    only = who = None
    repeat = 1
    mode = "strict"
    for flag in ("--only", "--who", "--repeat", "--mode"):
        if flag in args:
            i = args.index(flag)
            val = args[i + 1]
            del args[i : i + 2]
            if flag == "--only":
                only = val.split(",")
            elif flag == "--mode":
                mode = val
            elif flag == "--who":
                who = val.split(",")
            else:
                repeat = int(val)
    sv = os.path.abspath(args[0])
    out = os.path.abspath(args[1] if len(args) > 1 else "/tmp/hr-real")
    shutil.rmtree(out, ignore_errors=True)
    for sub in ("progs", "www", "w", "home", "reports"):
        os.makedirs(os.path.join(out, sub))
    os.chmod(out, 0o755)
    for name, text in (("py.py", PY), ("n.js", NODE), ("p.pl", PERL), ("Get.java", JAVA)):
        with open(os.path.join(out, "progs", name), "w") as f:
            f.write(text)
    with open(os.path.join(out, "www", "f.txt"), "w") as f:
        f.write("hello from hr-real\n")
    # A bare repository served two ways: dumb HTTP (update-server-info) and git daemon.
    src = os.path.join(out, "src")
    subprocess.run(["git", "init", "-q", src], check=True)
    subprocess.run(["git", "-C", src, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    repo = os.path.join(out, "www", "repo.git")
    subprocess.run(["git", "clone", "-q", "--bare", src, repo], check=True)
    subprocess.run(["git", "-C", repo, "update-server-info"], check=True)
    open(os.path.join(repo, "git-daemon-export-ok"), "w").close()
    subprocess.run(["chown", "-R", f"{UID}:{UID}", os.path.join(out, "w"), os.path.join(out, "home")], check=True)

    ports = {k: free_port() for k in ("http", "echo", "git", "ssh", "sink")}
    H = quiet_handler(os.path.join(out, "www"))
    serve(ThreadingHTTPServer(("127.0.0.1", ports["http"]), H))
    serve(Http6(("::1", ports["http"]), H))
    serve(Echo(("127.0.0.1", ports["echo"]), EchoH))
    udp_echo(ports["echo"])
    serve(Echo(("127.0.0.1", ports["ssh"]), SshBanner))
    gd = subprocess.Popen(
        ["git", "daemon", "--reuseaddr", "--export-all", f"--base-path={os.path.join(out, 'www')}", "--listen=127.0.0.1", f"--port={ports['git']}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        return run_all(out, ports, progs_only=only, who=who, repeat=repeat, mode=mode, sv=sv)
    finally:
        gd.terminate()
        gd.wait()


def run_all(out, ports, progs_only, who, repeat, mode, sv):
    only = progs_only
    sink = Sink(ports["sink"])
    time.sleep(0.5)

    # strict: --no-loopback and each server's port declared in both families;
    # v4only: the same, IPv4 only (a user who declares what the server listens
    # on); default: loopback allowed (no --allow), declared runs only.
    allow = ["--no-loopback"]
    for k in ("http", "echo", "git", "ssh"):
        allow += ["--allow", f"127.0.0.1:{ports[k]}"]
        if mode == "strict":
            allow += ["--allow", f"[::1]:{ports[k]}"]
    if mode == "default":
        allow = []
    aims = ("declared", "undeclared") if mode == "strict" else ("declared",)
    progs = programs(out)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": os.path.join(out, "home"), "GIT_TERMINAL_PROMPT": "0"}
    rows = []
    print(f"mode {mode} ports {ports}", flush=True)
    print(f"{'program':20} {'who':8} {'aim':10} {'expect':12} {'verdict':17} {'sv':>3} {'prog':>5} {'sink':>9}  note", flush=True)
    for name, (build, want_exit) in progs.items():
        if only and name not in only:
            continue
        for w in who or ("root", "uid1000"):
            for aim in aims:
                for rep in range(repeat):
                    tag = f"{name}-{w}-{aim}-{rep}"
                    pm = dict(ports, tag=tag)
                    if aim == "undeclared":
                        pm = dict(pm, http=ports["sink"], echo=ports["sink"], git=ports["sink"], ssh=ports["sink"])
                    argv = build(pm)
                    rf = tempfile.TemporaryFile()
                    pre = [] if w == "root" else ["setpriv", f"--reuid={UID}", f"--regid={UID}", "--clear-groups"]
                    cmd = pre + [sv, "--report-fd", str(rf.fileno()), "--writable", os.path.join(out, "w")] + allow + ["--"] + argv
                    t0 = time.time()
                    try:
                        p = subprocess.run(cmd, env=env, pass_fds=[rf.fileno()], capture_output=True, timeout=90, cwd=out)
                        rc, err = p.returncode, p.stderr.decode(errors="replace")
                    except subprocess.TimeoutExpired as e:
                        rc, err = "T/O", (e.stderr or b"").decode(errors="replace")
                    dt = time.time() - t0
                    conns, nbytes = sink.take()
                    rf.seek(0)
                    raw = rf.read().decode(errors="replace")
                    rep_json = None
                    idx = raw.rfind("egress-supervisor-report-record/1 final")
                    if idx >= 0:
                        hdr, body = raw[idx:].split("\n", 1)
                        rep_json = json.loads(body[: int(hdr.split()[-1])])
                    if rep_json is not None and "agent" not in rep_json:
                        rep_json["agent"] = {"exit_code": None}
                    verdict = rep_json["verdict"] if rep_json else "?"
                    pexit = rep_json["agent"]["exit_code"] if rep_json else None
                    if rep_json and rep_json["agent"].get("signal"):
                        pexit = rep_json["agent"]["signal"]
                    with open(os.path.join(out, "reports", tag + ".json"), "w") as f:
                        json.dump({"cmd": cmd, "rc": rc, "stderr": err, "report": rep_json}, f, indent=1)
                    if aim == "declared":
                        expect = f"pass/{want_exit}"
                        good = rc == 0 and pexit == want_exit and nbytes == 0
                    else:
                        expect = "fail/sink0"
                        good = rc == 1 and nbytes == 0 and conns == 0
                    note = ""
                    if not good and rep_json:
                        bad = [e for e in rep_json.get("events", []) if e["bucket"] not in ("allowed",)]
                        seen = []
                        for e in bad:
                            k = (e["syscall"], e["bucket"], e.get("reason"), e.get("dest"), e.get("errno"), e.get("mechanism"), e.get("mechanism_errno"))
                            if k not in seen:
                                seen.append(k)
                        note = "; ".join("/".join(str(x) for x in k if x is not None) for k in seen[:4])
                        if not note:
                            note = (rep_json.get("reason") or "") + " | " + err.strip().splitlines()[0][:120] if err.strip() else rep_json.get("reason")
                    elif not good:
                        note = err.strip()[-160:]
                    flag = "ok" if good else "BAD"
                    rows.append((name, w, aim, expect, verdict, rc, pexit, f"{conns}c/{nbytes}b", flag, note, round(dt, 1)))
                    print(f"{name:20} {w:8} {aim:10} {expect:12} {verdict:17} {rc!s:>3} {pexit!s:>5} {conns:>3}c/{nbytes:<4}b {flag} {dt:.1f}s {note}", flush=True)
    with open(os.path.join(out, "rows.json"), "w") as f:
        json.dump(rows, f, indent=1)
    bad = sum(1 for r in rows if r[8] != "ok")
    print(f"{len(rows) - bad} ok, {bad} BAD of {len(rows)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
