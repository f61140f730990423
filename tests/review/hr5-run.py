#!/usr/bin/env python3
"""Real programs under egress-supervisor, round five (helper h-realprog5).

Re-runs itself in a network and mount namespace of its own (unshare -mn,
lo up, net.ipv4.tcp_fastopen=3 there: TCP Fast Open for client and server
without touching the host's sysctls; nothing can leave the namespace).
Servers of its own, outside the supervisor: UDP and TCP echo (TCP with
TCP_FASTOPEN on the listener) on 127.0.0.1 and ::1, two ports (E, E2); an
HTTP/2 TLS server (node's http2) on 127.0.0.1 and ::1; PostgreSQL 15 as uid
1000 on 127.0.0.1 and ::1 (trust); an sshd with its own config (rsync over
ssh); a Tcl-, perl- and socat-friendly AF_UNIX echo. The sink: TCP and UDP
on an undeclared port K of 127.0.0.1, ::1 and 127.0.0.2, and on the ssh and
postgres ports of 127.0.0.2, counting connections, datagrams and bytes.

Every case runs under the supervisor with --no-loopback and the servers'
ports declared in both families (cases marked loopback use the default
policy: they listen on loopback themselves), as root and as uid 1000
(setpriv), aimed at declared servers (expect pass and the program's work
done, exit 0) and at an undeclared destination (expect fail, sink 0).

    gcc -O2 -Wall -o /tmp/hr5-sock tests/review/hr5-sock.c
    rustc -O -o /tmp/hr5-prog-rs tests/review/hr5-prog.rs
    mkdir -p /tmp/hr5-build && cp tests/review/hr5-Prog.java /tmp/hr5-build/Prog.java && javac -d /tmp/hr5-build /tmp/hr5-build/Prog.java
    tests/review/hr5-run.py SUPERVISOR [OUT] [--only NAME,...] [--who root,uid1000,bare] [--repeat N]

--who bare runs each program as root without the supervisor (the control:
the declared aim must exit 0, the undeclared one must reach the sink).

Needs (Debian): socat rsync openssh-server (installed for this review),
openjdk-17, postgresql-15, tcl, perl, node (already present).
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

UID = 1000
HERE = os.path.dirname(os.path.abspath(__file__))
SOCK, RS, JCP = "/tmp/hr5-sock", "/tmp/hr5-prog-rs", "/tmp/hr5-build"
TCP_FASTOPEN = 23


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


class Counter:
    """Counts connections/datagrams and bytes; an echo answers them."""

    def __init__(self, binds, echo):
        self.lock = threading.Lock()
        self.bytes = self.conns = 0
        self.echo = echo
        for fam, addr, port, udp in binds:
            if udp:
                u = socket.socket(fam, socket.SOCK_DGRAM)
                u.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
                u.bind((addr, port))
                threading.Thread(target=self._udp, args=(u,), daemon=True).start()
            else:
                t = socket.socket(fam, socket.SOCK_STREAM)
                t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                t.setsockopt(socket.IPPROTO_TCP, TCP_FASTOPEN, 16)
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
        c.settimeout(5)
        try:
            while True:
                b = c.recv(65536)
                if not b:
                    break
                with self.lock:
                    self.bytes += len(b)
                if self.echo:
                    c.sendall(b)
        except OSError:
            pass
        c.close()

    def _udp(self, u):
        while True:
            b, peer = u.recvfrom(65536)
            with self.lock:
                self.bytes += len(b)
                self.conns += 1
            if self.echo:
                try:
                    u.sendto(b, peer)
                except OSError:
                    pass

    def take(self):
        with self.lock:
            r = (self.conns, self.bytes)
            self.conns = self.bytes = 0
        return r


def read_report(f):
    """The last final record of the report file (the framing of docs/design.md)."""
    f.seek(0)
    raw = f.read().decode(errors="replace")
    idx = raw.rfind("egress-supervisor-report-record/1 final")
    if idx < 0:
        return None
    hdr, body = raw[idx:].split("\n", 1)
    return json.loads(body[: int(hdr.split()[-1])])


def setup(out):
    w = os.path.join(out, "w")
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(os.path.join(out, "reports"), exist_ok=True)
    os.makedirs(w, exist_ok=True)
    os.chmod(out, 0o755)
    os.chmod(w, 0o1777)
    P = {k: free_port() for k in ("echo", "echo2", "sink", "h2", "pg", "ssh")}
    P["pg"] = free_port()
    return w, P


def start_h2(w, port):
    """node's http2 secure server on 127.0.0.1 and ::1 (a self-signed certificate)."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1,IP:::1", "-keyout", f"{w}/h2.key", "-out", f"{w}/h2.crt"],
                   check=True, capture_output=True)
    js = f"""
const http2 = require('http2'), fs = require('fs');
for (const host of ['127.0.0.1', '::1']) {{
  const s = http2.createSecureServer({{key: fs.readFileSync('{w}/h2.key'), cert: fs.readFileSync('{w}/h2.crt')}});
  s.on('stream', (st, h) => {{ st.respond({{':status': 200}}); st.end('h2 ' + h[':path'] + '\\n'); }});
  s.listen({port}, host);
}}
"""
    return subprocess.Popen(["node", "-e", js], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_pg(w, port):
    d = f"{w}/pgdata"
    run_as = ["setpriv", f"--reuid={UID}", f"--regid={UID}", "--clear-groups"]
    subprocess.run(run_as + ["initdb", "-A", "trust", "-U", "cloudsdk", "-D", d], check=True, capture_output=True)
    p = subprocess.Popen(run_as + ["postgres", "-D", d, "-k", w, "-p", str(port), "-c", "listen_addresses=127.0.0.1,::1"],
                         stdout=subprocess.DEVNULL, stderr=open(f"{w}/pg.log", "w"))
    for _ in range(100):
        if os.path.exists(f"{w}/.s.PGSQL.{port}"):
            break
        time.sleep(0.1)
    return p


def start_sshd(w, port):
    os.makedirs(f"{w}/ssh", exist_ok=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", f"{w}/ssh/host"], check=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", f"{w}/ssh/id"], check=True)
    shutil.copy(f"{w}/ssh/id.pub", f"{w}/ssh/ak")
    os.chmod(f"{w}/ssh/id", 0o600)
    shutil.copy(f"{w}/ssh/id", f"{w}/ssh/id1000")
    os.chown(f"{w}/ssh/id1000", UID, UID)
    os.chmod(f"{w}/ssh/ak", 0o644)
    os.chmod(f"{w}/ssh", 0o755)
    with open(f"{w}/ssh/sshd_config", "w") as f:
        f.write(f"Port {port}\nListenAddress 127.0.0.1\nListenAddress ::1\nHostKey {w}/ssh/host\n"
                f"AuthorizedKeysFile {w}/ssh/ak\nStrictModes no\nPermitRootLogin yes\nUsePAM no\n"
                f"PidFile {w}/ssh/pid\nSubsystem sftp internal-sftp\n")
    os.makedirs("/run/sshd", exist_ok=True)
    return subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", f"{w}/ssh/sshd_config"],
                            stdout=subprocess.DEVNULL, stderr=open(f"{w}/sshd.log", "w"))


def cases(w, P):
    e, e2, k, h2, pg, ssh = P["echo"], P["echo2"], P["sink"], P["h2"], P["pg"], P["ssh"]
    J = ["java", "-cp", JCP, "Prog"]
    c = []

    def add(name, dec, und, **opt):
        c.append((name, dec, und, opt))

    # the socket calls of QUIC stacks, batching servers, TFO clients, dual-stack programs
    add("gso-v4", [SOCK, "gso", "127.0.0.1", str(e), "1000", "8"], [SOCK, "gso", "127.0.0.2", str(k), "1000", "8"])
    add("gso-v6", [SOCK, "gso", "::1", str(e), "1200", "16"], [SOCK, "gso", "::1", str(k), "1200", "16"])
    add("gso-sockopt", [SOCK, "gsoopt", "127.0.0.1", str(e), "1000", "8"], [SOCK, "gsoopt", "127.0.0.1", str(k), "1000", "8"])
    add("quic-v4", [SOCK, "quic", "127.0.0.1", str(e)], [SOCK, "quic", "127.0.0.2", str(k)])
    add("quic-v6", [SOCK, "quic", "::1", str(e)], [SOCK, "quic", "::1", str(k)])
    add("quic-mapped", [SOCK, "quicmapped", "127.0.0.1", str(e)], [SOCK, "quicmapped", "127.0.0.2", str(k)])
    add("sendmmsg-gso", [SOCK, "mmsggso", "127.0.0.1", str(e)], [SOCK, "mmsggso", "127.0.0.2", str(k)])
    add("sendmmsg-gso-v6", [SOCK, "mmsggso", "::1", str(e)], [SOCK, "mmsggso", "::1", str(k)])
    add("zerocopy", [SOCK, "zerocopy", "127.0.0.1", str(e)], [SOCK, "zerocopy", "127.0.0.2", str(k)])
    add("zerocopy-conn", [SOCK, "zerocopyc", "127.0.0.1", str(e)], [SOCK, "zerocopyc", "127.0.0.2", str(k)])
    add("zerocopy-seq", [SOCK, "zcseq", "127.0.0.1", str(e)], [SOCK, "zcseq", "127.0.0.2", str(k)])
    add("txtime", [SOCK, "txtime", "127.0.0.1", str(e)], [SOCK, "txtime", "127.0.0.2", str(k)])
    add("tstamp", [SOCK, "tstamp", "127.0.0.1", str(e)], [SOCK, "tstamp", "127.0.0.2", str(k)])
    add("dontfrag-v6", [SOCK, "dontfrag", "::1", str(e)], [SOCK, "dontfrag", "::1", str(k)])
    add("sendmmsg-32", [SOCK, "mmsg", "127.0.0.1", str(e), "32"], [SOCK, "mmsg", "127.0.0.2", str(k), "32"])
    add("sendmmsg-conn-v6", [SOCK, "mmsgc", "::1", str(e), "32"], [SOCK, "mmsgc", "::1", str(k), "32"])
    add("sendmmsg-mix", [SOCK, "mmsgmix", "127.0.0.1", str(e), "127.0.0.1", str(e2), "4"],
        [SOCK, "mmsgmix", "127.0.0.1", str(e), "127.0.0.2", str(k), "1"])
    add("tfo-sendto-v4", [SOCK, "tfo", "127.0.0.1", str(e)], [SOCK, "tfo", "127.0.0.2", str(k)])
    add("tfo-sendto-v6", [SOCK, "tfo", "::1", str(e)], [SOCK, "tfo", "::1", str(k)])
    add("tfo-connect-v4", [SOCK, "tfoc", "127.0.0.1", str(e)], [SOCK, "tfoc", "127.0.0.2", str(k)])
    add("tfo-connect-v6", [SOCK, "tfoc", "::1", str(e)], [SOCK, "tfoc", "::1", str(k)])
    add("mapped-udp", [SOCK, "mapped", "127.0.0.1", str(e)], [SOCK, "mapped", "127.0.0.2", str(k)])
    add("mapped-tcp", [SOCK, "mappedc", "127.0.0.1", str(e)], [SOCK, "mappedc", "127.0.0.2", str(k)])
    add("reuseport-udp", [SOCK, "reuseport", str(e2 + 1)], None, loopback=True)
    add("reuseport-tcp", [SOCK, "reuseporttcp", str(e2 + 5)], None, loopback=True)
    add("gro", [SOCK, "gro", str(e2 + 6)], None, loopback=True)
    # the JVM
    add("java-h2-v4", J + ["h2", f"https://127.0.0.1:{h2}/", "10"], J + ["h2", f"https://127.0.0.2:{k}/", "2"])
    add("java-h2-v6", J + ["h2", f"https://[::1]:{h2}/", "10"], J + ["h2", f"https://[::1]:{k}/", "2"])
    add("java-nio-16", J + ["nio", "127.0.0.1", str(e), "16"], J + ["nio", "127.0.0.2", str(k), "4"])
    add("java-nio-v6", J + ["nio", "::1", str(e), "16"], J + ["nio", "::1", str(k), "4"])
    add("java-threads-16", J + ["threads", "127.0.0.1", str(e), "16"], J + ["threads", "127.0.0.2", str(k), "4"])
    add("java-dgram-v4", J + ["dgram", "127.0.0.1", str(e), "20"], J + ["dgram", "127.0.0.2", str(k), "4"])
    add("java-dgram-v6", J + ["dgram", "::1", str(e), "20"], J + ["dgram", "::1", str(k), "4"])
    add("java-server", J + ["server", "16"], None, loopback=True)
    # Rust std::net
    add("rust-ct-v4", [RS, "ct", f"127.0.0.1:{e}"], [RS, "ct", f"127.0.0.2:{k}"])
    add("rust-ct-v6", [RS, "ct", f"[::1]:{e}"], [RS, "ct", f"[::1]:{k}"])
    add("rust-udp-v4", [RS, "udp", f"127.0.0.1:{e}", "10"], [RS, "udp", f"127.0.0.2:{k}", "2"])
    add("rust-udpc-v6", [RS, "udpc", f"[::1]:{e}", "10"], [RS, "udpc", f"[::1]:{k}", "2"])
    add("rust-dual-mapped", [RS, "dual", f"127.0.0.1:{e}", "10"], [RS, "dual", f"127.0.0.2:{k}", "2"])
    add("rust-srv", [RS, "srv"], None, loopback=True)
    # Tcl
    tcl = ('set s [socket {a} {p}]; fconfigure $s -buffering line; puts $s hello-tcl; '
           'gets $s l; puts "got $l"; close $s; exit [expr {{$l ne "hello-tcl"}}]')
    add("tcl-v4", ["tclsh"], ["tclsh"], stdin_dec=tcl.format(a="127.0.0.1", p=e), stdin_und=tcl.format(a="127.0.0.2", p=k))
    add("tcl-v6", ["tclsh"], ["tclsh"], stdin_dec=tcl.format(a="::1", p=e), stdin_und=tcl.format(a="::1", p=k))
    tcla = ('set s [socket -async {a} {p}]; fconfigure $s -blocking 0 -buffering line; '
            'fileevent $s writable {{set ::w 1}}; after 3000 {{set ::w 0}}; vwait ::w; '
            'if {{[fconfigure $s -error] ne ""}} {{puts "error [fconfigure $s -error]"; exit 1}}; '
            'puts $s async-tcl; fconfigure $s -blocking 1; gets $s l; puts "got $l"; exit [expr {{$l ne "async-tcl"}}]')
    add("tcl-async", ["tclsh"], ["tclsh"], stdin_dec=tcla.format(a="127.0.0.1", p=e), stdin_und=tcla.format(a="127.0.0.2", p=k))
    tcls = ('proc acc {c a p} {fconfigure $c -buffering line; gets $c l; puts $c $l; close $c}; '
            'set srv [socket -server acc -myaddr 127.0.0.1 0]; set p [lindex [fconfigure $srv -sockname] 2]; '
            'set s [socket 127.0.0.1 $p]; fconfigure $s -buffering line; puts $s tcl-srv; '
            'fileevent $s readable {set ::l [gets $s]}; vwait ::l; puts "got $::l"; exit [expr {$::l ne "tcl-srv"}]')
    add("tcl-server", ["tclsh"], None, stdin_dec=tcls, loopback=True)
    # perl: IO::Socket::IP with a Timeout (a non-blocking connect), IO::Socket::INET UDP to a v4-mapped peer
    pl = ('use IO::Socket::IP; my $s = IO::Socket::IP->new(PeerHost=>"{a}", PeerPort=>{p}, Timeout=>3) or die "connect: $@"; '
          'print $s "perl\\n"; my $l = <$s>; print "got $l"; exit($l eq "perl\\n" ? 0 : 1);')
    add("perl-timeout-v4", ["perl", "-e", pl.format(a="127.0.0.1", p=e)], ["perl", "-e", pl.format(a="127.0.0.2", p=k)])
    add("perl-timeout-v6", ["perl", "-e", pl.format(a="::1", p=e)], ["perl", "-e", pl.format(a="::1", p=k)])
    plm = ('use Socket qw(:all); socket(my $s, AF_INET6, SOCK_DGRAM, 0) or die; setsockopt($s, IPPROTO_IPV6, IPV6_V6ONLY, 0); '
           'my $to = pack_sockaddr_in6({p}, inet_pton(AF_INET6, "::ffff:{a}")); send($s, "perl-mapped", 0, $to) or die "send: $!"; '
           'my $r = ""; vec(my $rin = "", fileno($s), 1) = 1; select($rin, undef, undef, 3) and recv($s, $r, 64, 0); '
           'print "got $r\\n"; exit($r eq "perl-mapped" ? 0 : 1);')
    add("perl-mapped-udp", ["perl", "-e", plm.format(a="127.0.0.1", p=e)], ["perl", "-e", plm.format(a="127.0.0.2", p=k)])
    # socat relays, both directions, inside the agent
    sx = ("socat UNIX-LISTEN:{w}/rel-$$.sock TCP:{a}:{p} & sleep 0.5; "
          "r=$(echo via-unix | socat -t 2 - UNIX-CONNECT:{w}/rel-$$.sock); wait; echo \"got $r\"; test \"$r\" = via-unix")
    add("socat-unix-to-tcp", ["sh", "-c", sx.format(w=w, a="127.0.0.1", p=e)], ["sh", "-c", sx.format(w=w, a="127.0.0.2", p=k)])
    add("socat-unix-to-tcp6", ["sh", "-c", sx.format(w=w, a="[::1]", p=e)], ["sh", "-c", sx.format(w=w, a="[::1]", p=k)])
    sy = ("socat TCP-LISTEN:{lp},bind=127.0.0.1,reuseaddr UNIX-CONNECT:{w}/uecho-$$.sock & "
          "socat UNIX-LISTEN:{w}/uecho-$$.sock EXEC:cat & sleep 0.5; "
          "r=$(echo via-tcp | socat -t 2 - TCP:127.0.0.1:{lp}); wait; echo \"got $r\"; test \"$r\" = via-tcp")
    add("socat-tcp-to-unix", ["sh", "-c", sy.format(w=w, lp=e2 + 2)], None, loopback=True)
    su = ("socat -T 2 UDP4-RECVFROM:{lp},bind=127.0.0.1 UNIX-CONNECT:{w}/ud-$$.sock & "
          "socat UNIX-LISTEN:{w}/ud-$$.sock EXEC:cat & sleep 0.5; "
          "r=$(echo via-udp | socat -t 2 - UDP4:127.0.0.1:{lp}); echo \"got $r\"; test \"$r\" = via-udp")
    add("socat-udp-to-unix", ["sh", "-c", su.format(w=w, lp=e2 + 3)], None, loopback=True)
    # rsync over ssh (sshd outside on 127.0.0.1 and ::1; cloudsdk's account is locked, so both log in as root)
    so = "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR"
    rs = ("t=$(mktemp -d -p {w}) && mkdir $t/src && head -c 300000 /dev/urandom > $t/src/f && "
          "rsync -a -e 'ssh -p {p} -i {w}/ssh/ID {so}' $t/src/ {u}@{a}:$t/dst/ && cmp $t/src/f $t/dst/f && echo same")
    for nm, a in (("rsync-ssh-v4", "127.0.0.1"), ("rsync-ssh-v6", "[::1]")):
        add(nm, ["sh", "-c", rs.format(w=w, p=ssh, so=so, u="USER", a=a)],
            ["sh", "-c", rs.format(w=w, p=ssh, so=so, u="USER", a="127.0.0.2")], ssh=True)
    # psql: the server outside, the client inside (TCP v4, v6, by localhost, the unix socket)
    q = "select 6*7"
    add("psql-v4", ["psql", "-h", "127.0.0.1", "-p", str(pg), "-U", "cloudsdk", "-d", "postgres", "-Atc", q],
        ["psql", "-h", "127.0.0.2", "-p", str(pg), "-U", "cloudsdk", "-d", "postgres", "-Atc", q], sinkpg=True)
    add("psql-v6", ["psql", "-h", "::1", "-p", str(pg), "-U", "cloudsdk", "-d", "postgres", "-Atc", q],
        ["psql", "-h", "::1", "-p", str(k), "-U", "cloudsdk", "-d", "postgres", "-Atc", q])
    add("psql-localhost", ["psql", "-h", "localhost", "-p", str(pg), "-U", "cloudsdk", "-d", "postgres", "-Atc", q], None)
    add("psql-unix", ["psql", "-h", w, "-p", str(pg), "-U", "cloudsdk", "-d", "postgres", "-Atc", q], None, unixpeer=f"{w}/.s.PGSQL.{pg}")
    # psql: the server inside (as uid 1000), the client outside
    pgin = (f"d=$(mktemp -d -p {w}); initdb -A trust -U cloudsdk -D $d >/dev/null && "
            f"(postgres -D $d -k $d -p {e2 + 4} -c listen_addresses=127.0.0.1 & echo $! > $d.pid; wait) & "
            f"for i in $(seq 100); do test -e {w}/pgin-done && break; sleep 0.1; done; kill -INT $(cat $d.pid); wait; "
            f"cat {w}/pgin-result")
    add("postgres-inside", ["sh", "-c", pgin], None, loopback=True, pgin=e2 + 4)
    return c


def run_one(sv, out, w, sinks, name, who, aim, argv, opt, allow, rep):
    tag = f"{name}-{who}-{aim}-{rep}"
    if opt.get("loopback"):
        allow = []
    argv = [x.replace("ID", "id" if who in ("root", "bare") else "id1000").replace("USER", "root")
            if isinstance(x, str) and ("ssh/ID" in x or "USER@" in x) else x for x in argv]
    if opt.get("unixpeer") and who == "root":
        allow = allow + ["--unix-peer", opt["unixpeer"]]
    rf = tempfile.TemporaryFile()
    if who in ("root", "bare") and opt.get("pgin"):
        argv = ["setpriv", f"--reuid={UID}", f"--regid={UID}", "--clear-groups"] + argv
    pre = [] if who in ("root", "bare") else ["setpriv", f"--reuid={UID}", f"--regid={UID}", "--clear-groups"]
    cmd = pre + [sv, "--report-fd", str(rf.fileno()), "--writable", w] + allow + ["--"] + argv
    if who == "bare":
        # the control: the program as root without the supervisor (its own
        # exit for the declared aim; the undeclared aim must reach the sink)
        cmd = argv
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin", "LANG": "C.UTF-8", "HOME": w, "TMPDIR": w}
    stdin = opt.get("stdin_dec" if aim == "declared" else "stdin_und")
    for s in sinks:
        s.take()
    if opt.get("pgin"):
        for f in ("pgin-done", "pgin-result"):
            if os.path.exists(f"{w}/{f}"):
                os.unlink(f"{w}/{f}")
        threading.Thread(target=pg_client, args=(w, opt["pgin"]), daemon=True).start()
    t0 = time.time()
    try:
        p = subprocess.run(cmd, env=env, pass_fds=[rf.fileno()], input=(stdin or "").encode(), capture_output=True, timeout=90, cwd=w)
        rc, err, sout = p.returncode, p.stderr.decode(errors="replace"), p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as ex:
        rc, err, sout = "T/O", (ex.stderr or b"").decode(errors="replace"), (ex.stdout or b"").decode(errors="replace")
    dt = time.time() - t0
    conns = nbytes = 0
    for s in sinks[1:]:
        cc, bb = s.take()
        conns += cc
        nbytes += bb
    rep_json = read_report(rf)
    verdict = rep_json["verdict"] if rep_json else "?"
    ag = (rep_json or {}).get("agent") or {}
    pexit = ag.get("signal") or ag.get("exit_code")
    events = (rep_json or {}).get("events", [])
    with open(os.path.join(out, "reports", tag + ".json"), "w") as f:
        json.dump({"cmd": cmd, "stdin": stdin, "rc": rc, "stderr": err[-4000:], "stdout": sout[-3000:], "report": rep_json}, f, indent=1)
    if who == "bare":
        pexit = rc
        expect = "0" if aim == "declared" else "sink>0"
        good = rc == 0 and conns == 0 if aim == "declared" else conns > 0
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
        k = (ev["syscall"], ev["bucket"], ev.get("reason"), ev.get("dest"), ev.get("errno"))
        if k not in seen:
            seen.append(k)
    note = "; ".join("/".join(str(x) for x in k if x is not None) for k in seen[:3])
    if len(seen) > 3:
        note += f"; +{len(seen) - 3} more"
    if not good:
        note += " | " + ((err.strip().splitlines() or [""])[-1][:160]) + " | " + ((sout.strip().splitlines() or [""])[-1][:100])
    flag = "ok" if good else "BAD"
    print(f"{name:20} {who:8} {aim:10} {expect:10} {verdict:17} {rc!s:>3} {pexit!s:>4} {conns:>2}c/{nbytes:<6}b {flag} {dt:.1f}s {note}",
          flush=True)
    return {"name": name, "who": who, "aim": aim, "verdict": verdict, "sv": rc, "prog": pexit, "sink": [conns, nbytes], "flag": flag,
            "note": note, "t": round(dt, 1)}


def pg_client(w, port):
    res = "no answer"
    for _ in range(80):
        time.sleep(0.25)
        p = subprocess.run(["setpriv", f"--reuid={UID}", f"--regid={UID}", "--clear-groups", "psql", "-h", "127.0.0.1", "-p", str(port),
                            "-U", "cloudsdk", "-d", "postgres", "-Atc", "select 6*7"], capture_output=True, env={"PATH": os.environ["PATH"]})
        if p.returncode == 0:
            res = "answer " + p.stdout.decode().strip()
            break
    with open(f"{w}/pgin-result", "w") as f:
        f.write(res + "\n")
    os.chmod(f"{w}/pgin-result", 0o644)
    open(f"{w}/pgin-done", "w").close()


def main():
    args = sys.argv[1:]
    if os.environ.get("HR5_NS") != "1":
        env = dict(os.environ, HR5_NS="1")
        return subprocess.call(["unshare", "-mn", "--propagation", "private", sys.executable, os.path.abspath(__file__)] + args, env=env)
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["sysctl", "-q", "-w", "net.ipv4.tcp_fastopen=3"], check=True)
    only = who_l = None
    repeat = 1
    pos = []
    i = 0
    while i < len(args):
        if args[i] == "--only":
            only = set(args[i + 1].split(","))
            i += 2
        elif args[i] == "--who":
            who_l = args[i + 1].split(",")
            i += 2
        elif args[i] == "--repeat":
            repeat = int(args[i + 1])
            i += 2
        else:
            pos.append(args[i])
            i += 1
    sv = os.path.abspath(pos[0])
    out = pos[1] if len(pos) > 1 else tempfile.mkdtemp(prefix="hr5-")
    w, P = setup(out)
    e, e2, k = P["echo"], P["echo2"], P["sink"]
    echo = Counter([(fam, a, p, u) for fam, a in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1"))
                    for p in (e, e2) for u in (False, True)], echo=True)
    sink = Counter([(fam, a, k, u) for fam, a in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1"), (socket.AF_INET, "127.0.0.2"))
                    for u in (False, True)] + [(socket.AF_INET, "127.0.0.2", P["ssh"], False), (socket.AF_INET, "127.0.0.2", P["pg"], False)],
                   echo=False)
    procs = []
    allow = []
    for port in (e, e2, P["h2"], P["pg"], P["ssh"]):
        allow += ["--allow", f"127.0.0.1:{port}", "--allow", f"[::1]:{port}"]
    allow = ["--no-loopback"] + allow
    rows = []
    try:
        for start, port in ((start_h2, P["h2"]), (start_pg, P["pg"]), (start_sshd, P["ssh"])):
            procs.append(start(w, port))
        time.sleep(1.0)
        for rep in range(repeat):
            for name, dec, und, opt in cases(w, P):
                if only and name not in only:
                    continue
                for who in who_l or ["root", "uid1000"]:
                    rows.append(run_one(sv, out, w, [echo, sink], name, who, "declared", dec, opt, allow, rep))
                    if und:
                        rows.append(run_one(sv, out, w, [echo, sink], name, who, "undeclared", und, opt, allow, rep))
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
    bad = [r for r in rows if r["flag"] != "ok"]
    with open(os.path.join(out, "rows.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print(f"{len(rows)} runs, {len(rows) - len(bad)} as expected, {len(bad)} not; out {out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
