#!/usr/bin/env python3
"""Real programs under egress-supervisor, round four (review h-realprog4).

Go (net/http client keep-alive, 50 goroutines at once, net.Dialer's Happy
Eyeballs over a dual-stack name, Go's own DNS resolver and glibc's through
cgo, UDP, an http.Server fetched by itself, os/exec children; a static
CGO_ENABLED=0 binary and a cgo one), Go 1.22+'s pidfd use (hr4-pidfd.c),
OpenSSH (ControlMaster, ProxyJump, -D dynamic forwarding), git clone over
smart HTTPS and ssh, openssl s_client.

Re-runs itself under unshare -m and binds a private /etc/hosts and
resolv.conf (hr2-run.py's DNS responder on 127.0.0.3:53 with the names
below added; hr3-run.py's git smart-HTTP handler and run_one). Names, in DNS
only so that resolvers sort them: a.hr4.test (127.0.0.1), dual.hr4.test
(127.0.0.1, ::1), sink.hr4.test (127.0.0.2). Every case runs as root and as
uid 1000 (setpriv) with --no-loopback and the servers' ports declared in
both families (cases marked loopback run with the default policy, since a
loopback listen is denied under --no-loopback by design), aimed at declared
servers (expect pass and exit 0) and at an undeclared one (expect fail,
nothing at the sink).

    go build: see hr4-build.sh (writes /tmp/hr4-prog-static, /tmp/hr4-prog-cgo, /tmp/hr4-pidfd)
    tests/review/hr4-run.py SUPERVISOR [OUT] [--only NAME,...] [--who root,uid1000] [--repeat N]
"""
import importlib.util
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import time
from http.server import ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))


def _load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


hr2 = _load("hr2run", "hr2-run.py")
hr3 = _load("hr3run", "hr3-run.py")
hr2.NAMES.update({
    "a.hr4.test": {1: ["127.0.0.1"], 28: []},
    "dual.hr4.test": {1: ["127.0.0.1"], 28: ["::1"]},
    "sink.hr4.test": {1: ["127.0.0.2"], 28: []},
})
UID = 1000
HOSTS = "127.0.0.1 localhost\n::1 localhost ip6-localhost\n"
GS, GC, PIDFD = "/tmp/hr4-prog-static", "/tmp/hr4-prog-cgo", "/tmp/hr4-pidfd"


def cases(o, P):
    h, hs, e, s, ss, tl = P["http"], P["https"], P["echo"], P["sink"], P["ssh"], P["tls"]
    w = o["w"]
    sshopt = (f"-F /dev/null -i {o['sshkey']} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null "
              "-o BatchMode=yes -o LogLevel=ERROR")
    ssh = ["ssh"] + sshopt.split() + ["-p", str(ss)]  # noqa: F841 (kept as the review ran it)
    cgo = {"env": {"GODEBUG": "netdns=cgo"}}
    gogo = {"env": {"GODEBUG": "netdns=go"}}
    tlsenv = {"env": {"SSL_CERT_FILE": o["cert"]}}  # noqa: F841 (kept as the review ran it)
    c = {}
    for tag, bin_, opt in (("gs", GS, {}), ("gc", GC, cgo)):
        c.update({
            f"{tag}-get": ([bin_, "get", f"http://127.0.0.1:{h}/f.txt", "5"], [bin_, "get", f"http://127.0.0.2:{h}/f.txt"], "std", opt),
            f"{tag}-get6": ([bin_, "get", f"http://[::1]:{h}/f.txt", "5"], [bin_, "get", f"http://[::1]:{s}/f.txt"], "std", opt),
            f"{tag}-get-name": ([bin_, "get", f"http://a.hr4.test:{h}/f.txt"], [bin_, "get", f"http://sink.hr4.test:{h}/f.txt"], "std", opt),
            f"{tag}-get-dual": ([bin_, "get", f"http://dual.hr4.test:{h}/f.txt"], [bin_, "get", f"http://dual.hr4.test:{s}/f.txt"], "std", opt),
            f"{tag}-dial-dual": ([bin_, "dial", "dual.hr4.test", str(e)], [bin_, "dial", "dual.hr4.test", str(s)], "std", opt),
            f"{tag}-resolve-dual": ([bin_, "resolve", "dual.hr4.test"], None, "std", opt),
            f"{tag}-https": ([bin_, "get", f"https://127.0.0.1:{hs}/f.txt", "3"], [bin_, "get", f"https://127.0.0.2:{hs}/f.txt"], "std",
                             {"env": dict(opt.get("env", {}), SSL_CERT_FILE=o["cert"])}),
            f"{tag}-many": ([bin_, "many", f"http://127.0.0.1:{h}/f.txt", "50"], [bin_, "many", f"http://127.0.0.2:{h}/f.txt", "50"], "std",
                            {"env": dict(opt.get("env", {}), GOMAXPROCS="8")}),
            f"{tag}-udp": ([bin_, "udp", "127.0.0.1", str(e)], [bin_, "udp", "127.0.0.1", str(s)], "std", opt),
            f"{tag}-udp6": ([bin_, "udp", "::1", str(e)], [bin_, "udp", "::1", str(s)], "std", opt),
            f"{tag}-exec": ([bin_, "exec", "get", f"http://127.0.0.1:{h}/f.txt"], [bin_, "exec", "get", f"http://127.0.0.2:{h}/f.txt"], "std", opt),
            f"{tag}-serve": ([bin_, "serve", f"http://127.0.0.1:{h}/f.txt"], None, "std", dict(opt, loopback=True)),
        })
    c["gs-resolve-dual-go"] = ([GS, "resolve", "dual.hr4.test"], None, "std", gogo)
    c["gc-get-dual-go"] = ([GC, "get", f"http://dual.hr4.test:{h}/f.txt"], None, "std", gogo)
    c["pidfd-exec"] = ([PIDFD, GS, "get", f"http://127.0.0.1:{h}/f.txt"], [PIDFD, GS, "get", f"http://127.0.0.2:{h}/f.txt"], "std", {})
    cm = f"ssh {sshopt} -p {ss} -S {w}/cm"
    ctl = ("sh", "-c")
    for tag, host in (("", "127.0.0.1"), ("6", "::1")):
        c[f"ssh-cm{tag}"] = (list(ctl) + [f"rm -f {w}/cm; {cm} -M -o ControlPersist=yes -fN root@{host} && {cm} root@{host} echo OK && "
                                          f"{cm} root@{host} echo again && {cm} -O exit root@{host}"],
                             list(ctl) + [f"rm -f {w}/cm; {cm} -M -o ControlPersist=yes -fN root@127.0.0.2 && {cm} root@127.0.0.2 echo OK"],
                             "std", {})
    c["ssh-cm-persist"] = (list(ctl) + [f"rm -f {w}/cm; {cm} -o ControlMaster=auto -o ControlPersist=30 root@127.0.0.1 echo OK"], None, "std", {})
    # ProxyJump's own ssh -W gets -F but not -i: the options go in a file. The
    # jump host and the target differ by name (ssh refuses a "jumphost loop").
    jssh = ["ssh", "-F", o["sshconf"], "-p", str(ss)]
    c["ssh-jump"] = (jssh + ["-o", f"ProxyJump=root@127.0.0.1:{ss}", "root@::1", "echo", "OK"],
                     jssh + ["-o", f"ProxyJump=root@127.0.0.2:{ss}", "root@::1", "echo", "OK"], "std", {})
    c["ssh-jump6"] = (jssh + ["-o", f"ProxyJump=root@[::1]:{ss}", "root@127.0.0.1", "echo", "OK"],
                      jssh + ["-o", f"ProxyJump=root@[::1]:{s}", "root@127.0.0.1", "echo", "OK"], "std", {})
    dyn = (f"{cm} -M -fN -o ExitOnForwardFailure=yes -D 127.0.0.1:{P['dyn']} root@127.0.0.1 && "
           f"curl -sSf --socks5-hostname 127.0.0.1:{P['dyn']} http://127.0.0.1:{h}/f.txt; r=$?; {cm} -O exit root@127.0.0.1; exit $r")
    c["ssh-dynamic"] = (list(ctl) + [f"rm -f {w}/cm; {dyn}"], None, "std", {"loopback": True})
    gssh = f"ssh {sshopt}"
    c["git-ssh"] = (["git", "clone", "-q", f"ssh://root@127.0.0.1:{ss}{o['git']}/r.git", f"{w}/c1"],
                    ["git", "clone", "-q", f"ssh://root@127.0.0.2:{ss}{o['git']}/r.git", f"{w}/c2"], "std",
                    {"pre": f"rm -rf {w}/c1 {w}/c2", "env": {"GIT_SSH_COMMAND": gssh}})
    c["git-ssh6"] = (["git", "clone", "-q", f"ssh://root@[::1]:{ss}{o['git']}/r.git", f"{w}/c1"], None, "std",
                     {"pre": f"rm -rf {w}/c1 {w}/c2", "env": {"GIT_SSH_COMMAND": gssh}})
    c["git-https"] = (["git", "-c", f"http.sslCAInfo={o['cert']}", "clone", "-q", f"https://127.0.0.1:{hs}/git/r.git", f"{w}/c1"],
                      ["git", "-c", f"http.sslCAInfo={o['cert']}", "clone", "-q", f"https://127.0.0.2:{hs}/git/r.git", f"{w}/c2"], "std",
                      {"pre": f"rm -rf {w}/c1 {w}/c2"})
    c["git-https-dual"] = (["git", "-c", f"http.sslCAInfo={o['cert']}", "clone", "-q", f"https://dual.hr4.test:{hs}/git/r.git", f"{w}/c1"],
                           None, "std", {"pre": f"rm -rf {w}/c1 {w}/c2"})
    sc = ("printf 'GET / HTTP/1.0\\r\\n\\r\\n' | openssl s_client -quiet -verify_return_error -CAfile " + o["cert"]
          + " -connect {} 2>&1 | grep -q 'HTTP/1.0 200'")
    c["s_client"] = (["sh", "-c", sc.format(f"127.0.0.1:{tl}")], ["sh", "-c", sc.format(f"127.0.0.2:{tl}")], "std", {})
    c["s_client6"] = (["sh", "-c", sc.format(f"[::1]:{tl}")], ["sh", "-c", sc.format(f"[::1]:{s}")], "std", {})
    c["s_client-dual"] = (["sh", "-c", sc.format(f"dual.hr4.test:{tl}")], ["sh", "-c", sc.format(f"sink.hr4.test:{tl}")], "std", {})
    c["s_client-reconnect"] = (["sh", "-c", f"openssl s_client -tls1_2 -reconnect -CAfile {o['cert']} -connect 127.0.0.1:{tl} </dev/null 2>&1 | grep -c '^Reused' | grep -qv '^0$'"],
                               None, "std", {})
    return c


def setup(out):
    o = hr3.setup(out)
    o["cert"] = os.path.join(out, "cert.pem")
    o["key"] = os.path.join(out, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                    "-subj", "/CN=hr4", "-addext", "subjectAltName=IP:127.0.0.1,IP:::1,DNS:dual.hr4.test,DNS:a.hr4.test",
                    "-keyout", o["key"], "-out", o["cert"]], check=True, capture_output=True)
    os.chmod(o["key"], 0o644)
    o["sshconf"] = os.path.join(out, "ssh", "config")
    with open(o["sshconf"], "w") as f:
        f.write(f"Host *\n  IdentityFile {o['sshkey']}\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n"
                "  BatchMode yes\n  LogLevel ERROR\n")
    os.chmod(o["sshconf"], 0o644)
    return o


def main():
    if os.environ.get("HR4_IN_NS") != "1":
        os.environ["HR4_IN_NS"] = "1"
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
    out = os.path.abspath(args[1] if len(args) > 1 else "/tmp/hr4-real")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    o = setup(out)
    for name, text in (("resolv.conf", f"nameserver {hr2.DNS_ADDR}\noptions timeout:2 attempts:1\n"), ("hosts", HOSTS)):
        p = os.path.join(out, name)
        with open(p, "w") as f:
            f.write(text)
        subprocess.run(["mount", "--bind", p, "/etc/" + name], check=True)
    P = {}
    for k in ("http", "https", "echo", "ssh", "sink", "tls", "dyn"):
        while True:
            p = hr2.free_port()
            if all(abs(p - v) > 3 for v in P.values()) and hr2.free_port_ok(p):
                break
        P[k] = p
    hr2.Dns()
    H = hr3.git_handler(os.path.join(out, "www"), o["git"])
    hr2.serve(ThreadingHTTPServer(("127.0.0.1", P["http"]), H))
    hr2.serve(hr2.Http6(("::1", P["http"]), H))
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(o["cert"], o["key"])
    for srv in (ThreadingHTTPServer(("127.0.0.1", P["https"]), H), hr2.Http6(("::1", P["https"]), H)):
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
        hr2.serve(srv)
    hr2.serve(hr2.TcpServer(("127.0.0.1", P["echo"]), hr2.EchoH))
    hr2.serve(hr2.TcpServer6(("::1", P["echo"]), hr2.EchoH))
    hr2.udp_echo(socket.AF_INET, "127.0.0.1", P["echo"])
    hr2.udp_echo(socket.AF_INET6, "::1", P["echo"])
    s = P["sink"]
    sink = hr2.Sink([(socket.AF_INET, "127.0.0.1", s, u) for u in (0, 1)] + [(socket.AF_INET6, "::1", s, u) for u in (0, 1)]
                    + [(socket.AF_INET, "127.0.0.2", s, u) for u in (0, 1)]
                    + [(socket.AF_INET, "127.0.0.2", P[k], 0) for k in ("http", "https", "ssh", "tls")])
    sd = os.path.join(out, "ssh")
    sconf = os.path.join(sd, "sshd_config")
    with open(sconf, "w") as f:
        f.write(f"Port {P['ssh']}\nListenAddress 127.0.0.1\nListenAddress ::1\nHostKey {sd}/hostkey\nAuthorizedKeysFile {sd}/authorized_keys\n"
                f"PidFile {sd}/sshd.pid\nUsePAM no\nPermitRootLogin prohibit-password\nStrictModes no\nPasswordAuthentication no\n")
    os.makedirs("/run/sshd", exist_ok=True)
    sshd = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", sconf], stdout=subprocess.DEVNULL, stderr=open(os.path.join(sd, "sshd.log"), "w"))
    tls = subprocess.Popen(["openssl", "s_server", "-quiet", "-www", "-accept", f"127.0.0.1:{P['tls']}", "-cert", o["cert"], "-key", o["key"]],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tls6 = subprocess.Popen(["openssl", "s_server", "-quiet", "-www", "-accept", f"[::1]:{P['tls']}", "-cert", o["cert"], "-key", o["key"]],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run(["chown", "-R", f"{UID}:{UID}", o["w"]], check=True)
    time.sleep(1)
    try:
        allow = ["--no-loopback", "--allow", f"{hr2.DNS_ADDR}:53"]
        for k in ("http", "https", "echo", "ssh", "tls"):
            allow += ["--allow", f"127.0.0.1:{P[k]}", "--allow", f"[::1]:{P[k]}"]
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
                        rows.append(hr3.run_one(sv, o, sink, name, w, aim, argv, kind, opt, allow, rep))
        with open(os.path.join(out, "rows.json"), "w") as f:
            json.dump(rows, f, indent=1)
        bad = sum(1 for r in rows if r["flag"] != "ok")
        print(f"{len(rows) - bad} ok, {bad} BAD of {len(rows)}")
        return 1 if bad else 0
    finally:
        for p in (sshd, tls, tls6):
            p.terminate()
            p.wait()


if __name__ == "__main__":
    sys.exit(main())
