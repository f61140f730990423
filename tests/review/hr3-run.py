#!/usr/bin/env python3
"""Real programs under egress-supervisor, round three (review h-realprog3).

Node (libuv's thread pool, c-ares, undici keep-alive, worker_threads, a socket
handed to a forked child, cluster's round robin, batched UDP sends,
io_uring), python asyncio (happy eyeballs, datagram endpoints, the sock_*
API, a socket inherited by a subprocess), curl's happy eyeballs over a name
with a declared and an undeclared address, ssh through a ProxyCommand (and
one that passes the socket back, ProxyUseFdpass), git's smart HTTP, socat
fork and systemd-socket-activate relaying to TCP.

Re-runs itself in a mount namespace of its own (unshare -m) and binds a
private /etc/hosts and resolv.conf there (hr2-run.py's DNS responder on
127.0.0.3:53, whose helpers this script imports). Names:
dual.hr3.test (127.0.0.1, ::1), mix6.hr3.test (::1 declared, 127.0.0.2
undeclared), mix4.hr3.test (127.0.0.2 undeclared, then 127.0.0.1),
sink.hr3.test (127.0.0.2). Every case runs as root and as uid 1000
(setpriv) with --no-loopback and the servers' ports declared in both
families, aimed at declared servers (expect pass and the program's exit 0)
and at an undeclared one (expect fail, nothing at the sink). "mixed" cases
aim at a name with both kinds of address: good when the sink got nothing,
the program succeeded and the verdict is fail exactly when a connect was
denied.

    tests/review/hr3-run.py SUPERVISOR [OUT] [--only NAME,...] [--who root,uid1000] [--repeat N]
"""
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from http.server import ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("hr2run", os.path.join(HERE, "hr2-run.py"))
hr2 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hr2)
UID = 1000
PY = "/usr/bin/python3"
HOSTS = """127.0.0.1 localhost
::1 localhost ip6-localhost
127.0.0.1 dual.hr3.test
::1 dual.hr3.test
::1 mix6.hr3.test
127.0.0.2 mix6.hr3.test
127.0.0.2 mix4.hr3.test
127.0.0.1 mix4.hr3.test
127.0.0.2 sink.hr3.test
"""


def git_handler(www, gitroot):
    base = hr2.http_handler(www)

    class H(base):
        def _git(self):
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n) if n else b""
            path, _, qs = self.path[len("/git"):].partition("?")
            env = dict(os.environ, GIT_PROJECT_ROOT=gitroot, GIT_HTTP_EXPORT_ALL="1", PATH_INFO=path, QUERY_STRING=qs,
                       REQUEST_METHOD=self.command, CONTENT_TYPE=self.headers.get("Content-Type", ""),
                       CONTENT_LENGTH=str(len(body)), GIT_PROTOCOL=self.headers.get("Git-Protocol", ""))
            out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
            head, _, data = out.partition(b"\r\n\r\n")
            status = 200
            hdrs = []
            for line in head.decode().split("\r\n"):
                k, _, v = line.partition(": ")
                if k.lower() == "status":
                    status = int(v.split()[0])
                elif k:
                    hdrs.append((k, v))
            self.send_response(status)
            for k, v in hdrs:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            return self._git() if self.path.startswith("/git/") else super().do_GET()

        def do_POST(self):
            return self._git()

    return H


def cases(o, P):
    js = os.path.join(HERE, "hr3-prog.js")
    py = [PY, os.path.join(HERE, "hr3-prog.py")]
    h, e, s, ss = P["http"], P["echo"], P["sink"], P["ssh"]
    w = o["w"]
    ssh = ["ssh", "-F", "/dev/null", "-i", o["sshkey"], "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
           "-o", "BatchMode=yes", "-o", "LogLevel=ERROR", "-p", str(ss)]
    fdpass = (f"{PY} -c \"import socket; s=socket.create_connection(('%h', %p)); "
              "socket.send_fds(socket.socket(fileno=1), [b'x'], [s.fileno()])\"")

    def relay(listen_cmd, tgt):
        return ["sh", "-c", f"{listen_cmd} TCP:{tgt} & trap 'kill $!' EXIT; sleep 0.5; for i in 1 2 3; do printf 'GET /f.txt HTTP/1.0\\r\\n\\r\\n' | "
                f"socat - UNIX-CONNECT:{w}/r.sock | head -1 | grep -q 200 || exit 1; done; echo OK"]

    sock_act = f"rm -f {w}/r.sock; systemd-socket-activate -l {w}/r.sock -a --inetd -- socat STDIO"
    socat_fork = f"rm -f {w}/r.sock; socat UNIX-LISTEN:{w}/r.sock,fork"
    c = {
        # name: (declared argv, undeclared argv or None, kind, opts)
        "node-lookup-many": (["node", js, "lookup-many", "127.0.0.1", str(h)], ["node", js, "lookup-many", "127.0.0.1", str(s)], "std", {}),
        "node-resolve": (["node", js, "resolve", "127.0.0.1", str(e)], ["node", js, "resolve", "127.0.0.1", str(s)], "std", {}),
        "node-fetch-ka": (["node", js, "fetch-ka", "127.0.0.1", str(h)], ["node", js, "fetch-ka", "127.0.0.1", str(s)], "std", {}),
        "node-fetch-ka6": (["node", js, "fetch-ka", "[::1]", str(h)], ["node", js, "fetch-ka", "[::1]", str(s)], "std", {}),
        "node-worker": (["node", js, "worker", "::1", str(e)], ["node", js, "worker", "::1", str(s)], "std", {}),
        "node-fork-sock": (["node", js, "fork-sock", "127.0.0.1", str(e)], ["node", js, "fork-sock", "127.0.0.1", str(s)], "std", {}),
        "node-cluster": (["node", js, "cluster", "127.0.0.1", str(h), "127.0.0.1", str(P["cl"])], None, "std", {"loopback": True}),
        "node-dgram-batch": (["node", js, "dgram-batch", "127.0.0.1", str(e)], ["node", js, "dgram-batch", "127.0.0.1", str(e), "127.0.0.1", str(s)], "std", {}),
        "node-uring": (["node", js, "uring", "127.0.0.1", str(h)], ["node", js, "uring", "127.0.0.1", str(s)], "std", {"env": {"UV_USE_IO_URING": "1"}}),
        "py-he-dual": (py + ["he", "dual.hr3.test", str(h)], py + ["he", "sink.hr3.test", str(h)], "std", {}),
        "py-he-mix6": (py + ["he", "mix6.hr3.test", str(h)], None, "mixed", {}),
        "py-he-mix4": (py + ["he", "mix4.hr3.test", str(h)], None, "mixed", {}),
        "py-dgram": (py + ["dgram", "127.0.0.1", str(e)], py + ["dgram", "127.0.0.1", str(s)], "std", {}),
        "py-dgram6": (py + ["dgram", "::1", str(e)], py + ["dgram", "::1", str(s)], "std", {}),
        "py-sock-api": (py + ["sock-api", "::1", str(e)], py + ["sock-api", "::1", str(s)], "std", {}),
        "py-subproc-fd": (py + ["subproc-fd", "127.0.0.1", str(e)], py + ["subproc-fd", "127.0.0.1", str(s)], "std", {}),
        "curl-he-dual": (["curl", "-sSf", "--happy-eyeballs-timeout-ms", "1", f"http://dual.hr3.test:{h}/f.txt"],
                         ["curl", "-sSf", "--happy-eyeballs-timeout-ms", "1", f"http://sink.hr3.test:{h}/f.txt"], "std", {}),
        "curl-he-mix6": (["curl", "-sSf", "--happy-eyeballs-timeout-ms", "1", f"http://mix6.hr3.test:{h}/f.txt"], None, "mixed", {}),
        "curl-he-mix6-200": (["curl", "-sSf", f"http://mix6.hr3.test:{h}/f.txt"], None, "mixed", {}),
        "node-ase-mix6": (["node", js, "ase", "mix6.hr3.test", str(h)], None, "mixed", {}),
        "node-ase-mix4": (["node", js, "ase", "mix4.hr3.test", str(h)], None, "mixed", {}),
        # curl's own happy eyeballs without glibc's sort probe: --resolve gives both addresses.
        "curl-he-resolve6": (["curl", "-sSf", "--happy-eyeballs-timeout-ms", "1", "--resolve", f"mix6.hr3.test:{h}:[::1],127.0.0.2",
                              f"http://mix6.hr3.test:{h}/f.txt"], None, "mixed", {}),
        "curl-he-mix4": (["curl", "-sSf", f"http://mix4.hr3.test:{h}/f.txt"], None, "mixed", {}),
        "ssh-proxycmd": (ssh + ["-o", "ProxyCommand=nc %h %p", "root@127.0.0.1", "echo", "OK"],
                         ssh + ["-o", "ProxyCommand=nc %h %p", "root@127.0.0.2", "echo", "OK"], "std", {}),
        "ssh-fdpass": (ssh + ["-o", "ProxyUseFdpass=yes", "-o", f"ProxyCommand={fdpass}", "root@127.0.0.1", "echo", "OK"],
                       ssh + ["-o", "ProxyUseFdpass=yes", "-o", f"ProxyCommand={fdpass}", "root@127.0.0.2", "echo", "OK"], "std", {}),
        "git-smart-clone": (["git", "clone", "-q", f"http://127.0.0.1:{h}/git/r.git", f"{w}/c1"],
                            ["git", "clone", "-q", f"http://127.0.0.2:{h}/git/r.git", f"{w}/c2"], "std", {"pre": f"rm -rf {w}/c1 {w}/c2"}),
        "socat-fork": (relay(socat_fork, f"127.0.0.1:{h}"), relay(socat_fork, f"127.0.0.2:{h}"), "std", {}),
        "sd-socket-activate": (relay(sock_act, f"127.0.0.1:{h}"), relay(sock_act, f"127.0.0.2:{h}"), "std", {}),
    }
    return c


def setup(out):
    for sub in ("www", "w", "reports", "ssh", "git"):
        os.makedirs(os.path.join(out, sub))
    os.chmod(out, 0o755)
    with open(os.path.join(out, "www", "f.txt"), "w") as f:
        f.write("hello from hr3\n")
    g = os.path.join(out, "git")
    subprocess.run(["git", "init", "-q", "--bare", os.path.join(g, "r.git")], check=True)
    src = os.path.join(out, "src")
    subprocess.run(["git", "init", "-q", src], check=True)
    with open(os.path.join(src, "a"), "w") as f:
        f.write("a\n")
    genv = dict(os.environ, GIT_AUTHOR_NAME="h", GIT_AUTHOR_EMAIL="h@x", GIT_COMMITTER_NAME="h", GIT_COMMITTER_EMAIL="h@x")
    for cmd in (["add", "a"], ["commit", "-qm", "a"], ["push", "-q", os.path.join(g, "r.git"), "HEAD:refs/heads/master"]):
        subprocess.run(["git", "-C", src] + cmd, check=True, env=genv)
    subprocess.run(["chmod", "-R", "a+rX", g], check=True)
    sd = os.path.join(out, "ssh")
    o = {"w": os.path.join(out, "w"), "out": out, "sshkey": os.path.join(sd, "id"), "git": g}
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", o["sshkey"]], check=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(sd, "hostkey")], check=True)
    shutil.copy(o["sshkey"] + ".pub", os.path.join(sd, "authorized_keys"))
    for p in (o["sshkey"], o["sshkey"] + ".pub"):
        os.chown(p, UID, UID)  # uid 1000's ssh insists the key is its own; root reads it anyway
    os.chmod(sd, 0o755)
    return o


def main():
    if os.environ.get("HR3_IN_NS") != "1":
        os.environ["HR3_IN_NS"] = "1"
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
    out = os.path.abspath(args[1] if len(args) > 1 else "/tmp/hr3-real")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    o = setup(out)
    for name, text in (("resolv.conf", f"nameserver {hr2.DNS_ADDR}\noptions timeout:2 attempts:1\n"), ("hosts", HOSTS)):
        p = os.path.join(out, name)
        with open(p, "w") as f:
            f.write(text)
        subprocess.run(["mount", "--bind", p, "/etc/" + name], check=True)
    P = {}
    for k in ("http", "echo", "ssh", "sink", "cl"):
        while True:
            p = hr2.free_port()
            if all(abs(p - v) > 3 for v in P.values()) and hr2.free_port_ok(p):
                break
        P[k] = p
    dns = hr2.Dns()  # noqa: F841 (the server lives while the run does)
    H = git_handler(os.path.join(out, "www"), o["git"])
    hr2.serve(ThreadingHTTPServer(("127.0.0.1", P["http"]), H))
    hr2.serve(hr2.Http6(("::1", P["http"]), H))
    hr2.serve(hr2.TcpServer(("127.0.0.1", P["echo"]), hr2.EchoH))
    hr2.serve(hr2.TcpServer6(("::1", P["echo"]), hr2.EchoH))
    hr2.udp_echo(socket.AF_INET, "127.0.0.1", P["echo"])
    hr2.udp_echo(socket.AF_INET6, "::1", P["echo"])
    s = P["sink"]
    sink = hr2.Sink([(socket.AF_INET, "127.0.0.1", s, u) for u in (0, 1)] + [(socket.AF_INET6, "::1", s, u) for u in (0, 1)]
                    + [(socket.AF_INET, "127.0.0.2", s, u) for u in (0, 1)]
                    + [(socket.AF_INET, "127.0.0.2", P[k], 0) for k in ("http", "ssh")])
    sd = os.path.join(out, "ssh")
    sconf = os.path.join(sd, "sshd_config")
    with open(sconf, "w") as f:
        f.write(f"Port {P['ssh']}\nListenAddress 127.0.0.1\nHostKey {sd}/hostkey\nAuthorizedKeysFile {sd}/authorized_keys\n"
                f"PidFile {sd}/sshd.pid\nUsePAM no\nPermitRootLogin prohibit-password\nStrictModes no\nPasswordAuthentication no\n")
    os.makedirs("/run/sshd", exist_ok=True)
    sshd = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", sconf], stdout=subprocess.DEVNULL, stderr=open(os.path.join(sd, "sshd.log"), "w"))
    subprocess.run(["chown", "-R", f"{UID}:{UID}", o["w"]], check=True)
    time.sleep(1)
    try:
        allow = ["--no-loopback", "--allow", f"{hr2.DNS_ADDR}:53"]
        for k in ("http", "echo"):
            allow += ["--allow", f"127.0.0.1:{P[k]}", "--allow", f"[::1]:{P[k]}"]
        allow += ["--allow", f"127.0.0.1:{P['ssh']}"]
        rows = []
        print(f"ports {P}", flush=True)
        for name, (decl, undecl, kind, opt) in cases(o, P).items():
            if only and name not in only:
                continue
            for w in who:
                for aim, argv in (("declared", decl), ("undeclared", undecl)):
                    if argv is None:
                        continue
                    for rep in range(repeat):
                        rows.append(run_one(sv, o, sink, name, w, aim, argv, kind, opt, allow, rep))
        with open(os.path.join(out, "rows.json"), "w") as f:
            json.dump(rows, f, indent=1)
        bad = sum(1 for r in rows if r["flag"] != "ok")
        print(f"{len(rows) - bad} ok, {bad} BAD of {len(rows)}")
        return 1 if bad else 0
    finally:
        sshd.terminate()
        sshd.wait()


def run_one(sv, o, sink, name, w, aim, argv, kind, opt, allow, rep):
    tag = f"{name}-{w}-{aim}-{rep}"
    if opt.get("loopback"):
        allow = []
    if opt.get("pre"):
        subprocess.run(["sh", "-c", opt["pre"]], check=True)
    rf = tempfile.TemporaryFile()
    pre = [] if w == "root" else ["setpriv", f"--reuid={UID}", f"--regid={UID}", "--clear-groups"]
    cmd = pre + [sv, "--report-fd", str(rf.fileno()), "--writable", o["w"]] + allow + ["--"] + argv
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin", "LANG": "C.UTF-8", "HOME": o["w"], "TMPDIR": o["w"]}
    env.update(opt.get("env", {}))
    sink.take()
    t0 = time.time()
    try:
        p = subprocess.run(cmd, env=env, pass_fds=[rf.fileno()], stdin=subprocess.DEVNULL, capture_output=True, timeout=90, cwd=o["w"])
        rc, err, sout = p.returncode, p.stderr.decode(errors="replace"), p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as ex:
        rc, err, sout = "T/O", (ex.stderr or b"").decode(errors="replace"), (ex.stdout or b"").decode(errors="replace")
    dt = time.time() - t0
    conns, nbytes = sink.take()
    rep_json = hr2.read_report(rf)
    verdict = rep_json["verdict"] if rep_json else "?"
    ag = (rep_json or {}).get("agent") or {}
    pexit = ag.get("signal") or ag.get("exit_code")
    events = (rep_json or {}).get("events", [])
    denied = any(ev["bucket"] == "denied" for ev in events)
    with open(os.path.join(o["out"], "reports", tag + ".json"), "w") as f:
        json.dump({"cmd": cmd, "rc": rc, "stderr": err[-4000:], "stdout": sout[-2000:], "report": rep_json}, f, indent=1)
    if kind == "mixed":
        expect = "either/0"
        good = pexit == 0 and nbytes == 0 and conns == 0 and rc == (1 if denied else 0)
    elif aim == "declared":
        expect = "pass/0"
        good = rc == 0 and pexit == 0 and nbytes == 0 and conns == 0
    else:
        expect = "fail/sink0"
        good = rc == 1 and nbytes == 0 and conns == 0
    seen = []
    for ev in events:
        if ev["bucket"] == "allowed":
            continue
        k = (ev["syscall"], ev["bucket"], ev.get("reason"), ev.get("dest"), ev.get("errno"), ev.get("mechanism"))
        if k not in seen:
            seen.append(k)
    note = "; ".join("/".join(str(x) for x in k if x is not None) for k in seen[:3])
    if len(seen) > 3:
        note += f"; +{len(seen) - 3} more"
    if not good:
        note += " | " + ((err.strip().splitlines() or [""])[-1][:160]) + " | " + ((sout.strip().splitlines() or [""])[-1][:100])
    flag = "ok" if good else "BAD"
    print(f"{name:20} {w:8} {aim:10} {expect:10} {verdict:17} {rc!s:>3} {pexit!s:>4} {conns:>2}c/{nbytes:<4}b {flag} {dt:.1f}s {note}", flush=True)
    return {"name": name, "who": w, "aim": aim, "verdict": verdict, "sv": rc, "prog": pexit, "sink": [conns, nbytes], "flag": flag,
            "note": note, "t": round(dt, 1)}


if __name__ == "__main__":
    sys.exit(main())
