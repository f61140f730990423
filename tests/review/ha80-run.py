#!/usr/bin/env python3
"""h-attack80: runs ha80-agent's attack variants under the supervisor on this
host, in a private network namespace whose lo holds documentation addresses
(nothing leaves the namespace), as root and as uid 1000 (setpriv), with the
report on --report-fd (an unlinked file) and, for `forge`, --report FILE too.

Ground truth: a sink on the undeclared addresses 198.51.100.1:9999 and
[2001:db8::2]:9999 (TCP and UDP) records every byte; a prober connects from
198.51.100.1 to every non-loopback listener that appears and records what it
is sent. A case is an ESCAPE when the sink or the prober saw the case's
secret, whatever the verdict; it is a FALSE-GREEN when that happened with
exit 0. Survivors: after the supervisor exits, any process whose command line
holds "ha80-survivor" is reported (then killed by its pid).

Usage (root): ha80-run.py [--sv PATH] [--agent PATH] [--users root,uid1000]
                          [--repeat N] CASE...
CASE is MODE[:ARG[:ARG...]] as ha80-agent takes it, e.g. inbound:autobind.
"""
import argparse
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time

UNDECL = [("198.51.100.1", socket.AF_INET), ("2001:db8::2", socket.AF_INET6)]
DECL = [("192.0.2.1", socket.AF_INET), ("2001:db8::1", socket.AF_INET6)]
arrivals = []  # (time, where, bytes)
lock = threading.Lock()


def record(where, data):
    with lock:
        arrivals.append((time.time(), where, data))


def tcp_server(addr, fam, port, tag):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(64)

    def serve(c, peer):
        c.settimeout(5)
        try:
            while True:
                d = c.recv(4096)
                if not d:
                    break
                record("%s tcp %s:%d from %s" % (tag, addr, port, peer[0]), d)
        except OSError:
            pass
        c.close()

    def loop():
        while True:
            c, peer = s.accept()
            record("%s tcp-connect %s:%d from %s" % (tag, addr, port, peer[0]), b"")
            threading.Thread(target=serve, args=(c, peer), daemon=True).start()

    threading.Thread(target=loop, daemon=True).start()


def udp_server(addr, fam, port, tag):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind((addr, port))

    def loop():
        while True:
            d, peer = s.recvfrom(65536)
            record("%s udp %s:%d from %s" % (tag, addr, port, peer[0]), d)

    threading.Thread(target=loop, daemon=True).start()


OWN_PORTS = {7000, 9999}


def listeners():
    """(addr, port) of every listening TCP socket in this namespace."""
    out = []
    for path, fam in (("/proc/net/tcp", socket.AF_INET), ("/proc/net/tcp6", socket.AF_INET6)):
        try:
            lines = open(path).read().splitlines()[1:]
        except OSError:
            continue
        for ln in lines:
            f = ln.split()
            if f[3] != "0A":
                continue
            a, p = f[1].split(":")
            port = int(p, 16)
            if port in OWN_PORTS:
                continue
            raw = bytes.fromhex(a)
            if fam == socket.AF_INET:
                ip = socket.inet_ntop(fam, raw[::-1])
            else:
                ip = socket.inet_ntop(fam, b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4)))
            out.append((ip, port, fam))
    return out


def prober(stop):
    """Connects from the undeclared address to every listener that is not
    on loopback (a wildcard one through the declared address)."""
    tried = set()
    while not stop.is_set():
        for ip, port, fam in listeners():
            if ip.startswith("127.") or ip in ("::1", "::ffff:127.0.0.1"):
                continue
            for dst, src, f in (("192.0.2.1", "198.51.100.1", socket.AF_INET),
                                ("2001:db8::1", "2001:db8::2", socket.AF_INET6)):
                if fam == socket.AF_INET and f == socket.AF_INET6:
                    continue
                key = (dst, port)
                if key in tried:
                    continue
                tried.add(key)
                try:
                    c = socket.socket(f, socket.SOCK_STREAM)
                    c.bind((src, 0))
                    c.settimeout(4)
                    c.connect((dst, port))
                    record("inbound-probe connected %s:%d" % (dst, port), b"")
                    d = c.recv(4096)
                    record("inbound-probe got %s:%d" % (dst, port), d)
                    c.close()
                except OSError as e:
                    record("inbound-probe %s:%d %s" % (dst, port, e.__class__.__name__), b"")
        time.sleep(0.02)


def unix_service(path):
    """A root service outside the run on an AF_UNIX path: records what it
    is sent (a root agent's peer the caller did not declare)."""
    try:
        os.unlink(path)
    except OSError:
        pass
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, 0o777)
    s.listen(16)

    def loop():
        while True:
            c, _ = s.accept()
            c.settimeout(3)
            try:
                d = c.recv(4096)
                record("UNDECLARED unix-service %s" % path, d)
            except OSError:
                pass
            c.close()

    threading.Thread(target=loop, daemon=True).start()


def setup_netns():
    cmds = [
        "ip link set lo up",
        "ip addr add 192.0.2.1/32 dev lo",
        "ip addr add 198.51.100.1/32 dev lo",
        "ip -6 addr add 2001:db8::1/128 dev lo nodad",
        "ip -6 addr add 2001:db8::2/128 dev lo nodad",
    ]
    for c in cmds:
        subprocess.run(c.split(), check=True)
    for a, f in UNDECL:
        tcp_server(a, f, 9999, "UNDECLARED")
        udp_server(a, f, 9999, "UNDECLARED")
    unix_service("/tmp/ha80-svc.sock")
    for a, f in DECL:
        tcp_server(a, f, 7000, "declared")
        udp_server(a, f, 7000, "declared")


def read_records(fd):
    os.lseek(fd, 0, os.SEEK_SET)
    data = b""
    while True:
        b = os.read(fd, 1 << 20)
        if not b:
            break
        data += b
    recs = []
    pos = 0
    while True:
        m = re.compile(rb"egress-supervisor-report-record/1 (\w+) (\d+)\n").match(data, pos)
        if not m:
            break
        n = int(m.group(2))
        body = data[m.end():m.end() + n]
        if len(body) < n:
            break
        recs.append((m.group(1).decode(), json.loads(body)))
        pos = m.end() + n
    return recs


def survivors():
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            cmd = open("/proc/%s/cmdline" % p, "rb").read().replace(b"\0", b" ")
            comm = open("/proc/%s/comm" % p).read().strip()
        except OSError:
            continue
        if b"ha80-survivor" in cmd or comm.startswith("ha80-surv"):
            found.append((int(p), cmd.decode(errors="replace").strip()))
    return found


def start_outsider(user):
    """A process outside the run, dumpable, holding a TCP connection to the
    undeclared sink on descriptor 3; returns (Popen, pid)."""
    code = ("import socket,os,time\n"
            "s=socket.create_connection(('198.51.100.1',9999))\n"
            "os.dup2(s.fileno(),3)\n"
            "print('ready',flush=True)\n"
            "time.sleep(60)\n")
    cmd = [sys.executable, "-c", code]
    if user == "uid1000":
        cmd = ["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups"] + cmd
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE)
    p.stdout.readline()
    # The python under setpriv is the process itself (setpriv execs).
    return p, p.pid


def run_case(args, case, user, idx):
    parts = case.split(":")
    mode = parts[0]
    extra = parts[1:]
    outsider = None
    pass_fds = []
    if mode in ("cross",) or (mode == "i386" and extra == ["outsider"]):
        outsider, opid = start_outsider(user)
        extra = [str(opid)]
    report_path = None
    rfd = os.open("/tmp", os.O_TMPFILE | os.O_RDWR, 0o600)
    os.fchmod(rfd, 0o600)
    if user == "uid1000":
        os.fchown(rfd, 1000, 1000)
    pass_fds.append(rfd)
    inherit = None
    if mode == "inherit":
        inherit = socket.create_connection(("198.51.100.1", 9999))
        os.set_inheritable(inherit.fileno(), True)
        pass_fds.append(inherit.fileno())
    sv = [args.sv, "--allow", "192.0.2.1", "--allow", "[2001:db8::1]", "--report-fd", str(rfd)]
    if args.report_dir and mode != "forge":
        sv += ["--report", os.path.join(args.report_dir, "report.json")]
    if mode == "forge":
        d = "/tmp/ha80-report-%s-%d" % (user, idx)
        os.makedirs(d, exist_ok=True)
        if user == "uid1000":
            os.chown(d, 1000, 1000)
        report_path = d + "/report.json"
        sv += ["--report", report_path]
        extra = [report_path]
    cmd = sv + ["--", args.agent, mode] + extra
    if args.control:
        # The control: the same agent without a supervisor.
        cmd = [args.agent, mode] + extra
    if user == "uid1000":
        cmd = ["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups"] + cmd
    t0 = time.time()
    stop = threading.Event()
    pt = threading.Thread(target=prober, args=(stop,), daemon=True)
    pt.start()
    closing = [int(x) for x in args.close_stdio.split(",")] if args.close_stdio else []

    def pre():
        for fd in closing:
            try:
                os.close(fd)
            except OSError:
                pass

    # stdout and stderr of the supervisor: the pipe; closing one of them
    # means the supervisor's caller closed it (its output is then lost).
    p = subprocess.Popen(cmd, pass_fds=pass_fds, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         preexec_fn=pre if closing else None)
    out = b""
    deadline = time.time() + args.timeout
    cut = False
    before_cut = []
    while True:
        r, _, _ = select.select([p.stdout], [], [], 0.2)
        if r:
            b = os.read(p.stdout.fileno(), 65536)
            if not b:
                break
            out += b
        if time.time() > deadline and p.poll() is None and not cut:
            before_cut = survivors()
            p.send_signal(signal.SIGKILL if args.cut_kill else signal.SIGTERM)
            cut = True
            deadline = time.time() + 10
        elif time.time() > deadline and cut:
            p.kill()
            break
    rc = p.wait()
    time.sleep(0.5)
    stop.set()
    surv = survivors()
    for pid, _ in surv:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    if outsider:
        outsider.kill()
        outsider.wait()
    if inherit:
        inherit.close()
    recs = read_records(rfd)
    os.close(rfd)
    secret = ("HA80SECRET-%s" % mode).encode()
    with lock:
        mine = [(w, d) for (t, w, d) in arrivals if t >= t0]
    leaked = [(w, d) for (w, d) in mine if secret in d and ("UNDECLARED" in w or "inbound" in w)]
    inbound = [w for (w, d) in mine if w.startswith("inbound-probe connected")]
    final = recs[-1][1] if recs else None
    kind = recs[-1][0] if recs else None
    verdict = final.get("verdict") if final else None
    ev = {}
    if final:
        for e in final.get("events", []):
            dest = e.get("dest") or ""
            where = "undeclared" if ("198.51.100.1" in dest or "2001:db8::2" in dest) else (
                "declared" if dest else "-")
            k = "%s/%s/%s/%s/%s/%s" % (e.get("syscall"), e.get("abi"), e.get("bucket"),
                                       e.get("reason"), e.get("action"), where)
            ev[k] = ev.get(k, 0) + 1
    file_report = None
    if report_path and os.path.exists(report_path):
        try:
            fr = json.load(open(report_path))
            file_report = (fr.get("complete"), fr.get("verdict"), fr.get("reason"))
        except ValueError as e:
            file_report = ("unparsable", str(e))
    status = []
    if leaked:
        status.append("ESCAPE" + ("+FALSE-GREEN" if rc == 0 else ""))
    if surv:
        status.append("SURVIVOR")
    if inbound:
        status.append("INBOUND-CONNECTED")
    if final and ((rc == 0) != (verdict == "pass") or (kind == "final") != final.get("complete")):
        status.append("REPORT-DISAGREES(exit %d, %s %s)" % (rc, kind, verdict))
    print("=" * 72)
    print("CASE %s user=%s run=%d exit=%d cut=%s record=%s verdict=%s containment=%s" % (
        case, user, idx, rc, cut, kind, verdict, final.get("containment") if final else None))
    if final:
        print("  counts:", json.dumps(final.get("counts")))
        print("  reason:", final.get("reason"))
    for k, v in sorted(ev.items()):
        print("  event %-60s x%d" % (k, v))
    if file_report:
        print("  --report file:", file_report)
    seen = {}
    for w, d in mine:
        if d or "inbound" in w:
            k = "%s %r" % (w, d[:60])
            seen[k] = seen.get(k, 0) + 1
    for k, n in seen.items():
        print("  sink: %s x%d" % (k, n))
    if surv:
        print("  survivors:", surv)
    if before_cut:
        print("  alive before the cut:", before_cut)
    if args.verbose:
        print(out.decode(errors="replace"))
    else:
        for ln in out.decode(errors="replace").splitlines():
            if ln.startswith("ha80 ") or "egress-supervisor" in ln:
                print("  |", ln)
    print("  RESULT:", " ".join(status) if status else "held")
    sys.stdout.flush()
    return status


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--sv", default=os.path.join(here, "../../build/egress-supervisor"))
    ap.add_argument("--agent", default="/tmp/ha80-agent")
    ap.add_argument("--users", default="root,uid1000")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--control", action="store_true", help="run the agents unsupervised")
    ap.add_argument("--close-stdio", default="", help="descriptors 0-2 the caller closes, e.g. 0 or 0,2")
    ap.add_argument("--cut-kill", action="store_true", help="cut the run with SIGKILL, not SIGTERM")
    ap.add_argument("--report-dir", default="", help="also --report DIR/report.json")
    ap.add_argument("cases", nargs="+")
    args = ap.parse_args()
    args.sv = os.path.abspath(args.sv)
    if os.environ.get("HA80_IN_NS") != "1":
        os.environ["HA80_IN_NS"] = "1"
        os.execvp("unshare", ["unshare", "-n", sys.executable] + sys.argv)
    setup_netns()
    time.sleep(0.2)
    tally = {}
    for case in args.cases:
        for user in args.users.split(","):
            for i in range(args.repeat):
                st = run_case(args, case, user, i)
                key = (case, user)
                tally.setdefault(key, []).append(" ".join(st) or "held")
    print("#" * 72)
    for (case, user), sts in tally.items():
        bad = [s for s in sts if s != "held"]
        print("SUMMARY %-32s %-8s runs=%d not-held=%d %s" % (case, user, len(sts), len(bad),
                                                            sorted(set(bad))))


if __name__ == "__main__":
    main()
