#!/usr/bin/env python3
"""ha77-run.py: hostile review h-attack77, host leg (as root, no VM).

Issue 11's and 12's classes, written again from the issues' text
(ha77-agent.c, ha77-outsider.c), each run as `egress-supervisor --no-loopback
--allow 127.0.0.3:PA --allow [2001:db8::1]:PU -- agent CLASS ...` in every
containment mode the supervisor picks on this host:
  root      a root run (pid-namespace)
  u1000     uid 1000 (user-namespace+pid-namespace+landlock)
  bare      control: the agent as root with no supervisor (the sinks must
            see each escape the agent can make unsupervised)
  fallback  uid 1000 in a user namespace root owns whose
            user.max_user_namespaces is 0 (subreaper+landlock)
and with the report on `--report FILE` (a directory the uid owns) and on
`--report-fd N` (an unlinked file). Ground truth: TCP and UDP sinks on the
undeclared 127.0.0.2, an AF_PACKET sniffer on lo that sees every frame with a
run's marker (so [::1] too), the processes left running the agent's binary
after the supervisor's exit, and the report as it ends. One line per run:
  MODE CHANNEL CLASS exit=N verdict=V ... GROUND ... -> ok | FINDING ...

  tests/review/ha77-run.py [--classes a,b] [--modes root,u1000,fallback]
                           [--channels file,fd] [--interrupts N]
SV: the supervisor (default the worktree's build).
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SV = os.environ.get("SV", os.path.join(TOP, "build", "egress-supervisor"))
UNDECL = "127.0.0.2"
ALLOWED = "127.0.0.3"
PT, PU, PA, PL, PU6 = 47701, 47702, 47703, 47704, 47705
SETPRIV = ["setpriv", "--reuid", "1000", "--regid", "1000", "--clear-groups"]


class Sinks:
    """Everything that arrives on lo, by marker."""

    def __init__(self):
        self.lock = threading.Lock()
        self.frames = []  # raw payloads seen on lo
        self.tcp = []  # (peer, bytes) per accepted connection on UNDECL:PT
        self.stop = False
        self.threads = []
        sn = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
        sn.bind(("lo", 0))
        sn.settimeout(0.2)
        t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        t.bind((UNDECL, PT))
        t.listen(64)
        t.settimeout(0.2)
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.bind((UNDECL, PU))
        u.settimeout(0.2)
        a = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        a.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        a.bind((ALLOWED, PA))
        a.listen(64)
        a.settimeout(0.2)
        self.socks = [sn, t, u, a]
        for fn, s in ((self._sniff, sn), (self._tcp, t), (self._udp, u), (self._allowed, a)):
            th = threading.Thread(target=fn, args=(s,), daemon=True)
            th.start()
            self.threads.append(th)

    def _sniff(self, s):
        while not self.stop:
            try:
                b = s.recv(65536)
            except OSError:
                continue
            if b"HA77" in b:
                with self.lock:
                    self.frames.append(b)

    def _tcp(self, s):
        while not self.stop:
            try:
                c, peer = s.accept()
            except OSError:
                continue
            threading.Thread(target=self._drain, args=(c, peer), daemon=True).start()

    def _drain(self, c, peer):
        c.settimeout(5)
        data = b""
        try:
            while True:
                b = c.recv(4096)
                if not b:
                    break
                data += b
        except OSError:
            pass
        with self.lock:
            self.tcp.append((peer, data))
        c.close()

    def _udp(self, s):
        while not self.stop:
            try:
                s.recv(65536)
            except OSError:
                continue

    def _allowed(self, s):
        while not self.stop:
            try:
                c, _ = s.accept()
            except OSError:
                continue
            threading.Thread(target=self._drain_quiet, args=(c,), daemon=True).start()

    def _drain_quiet(self, c):
        c.settimeout(3)
        try:
            while c.recv(4096):
                pass
        except OSError:
            pass
        c.close()

    def seen(self, mark):
        m = mark.encode()
        with self.lock:
            return any(m in f for f in self.frames) or any(m in d for _, d in self.tcp)

    def conns(self):
        with self.lock:
            return len(self.tcp)

    def close(self):
        self.stop = True
        for th in self.threads:
            th.join(1)
        for s in self.socks:
            s.close()


def agent_procs(agent):
    out = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            if os.readlink("/proc/%s/exe" % p) == agent:
                out.append(int(p))
        except OSError:
            pass
    return out


def prefix(mode, outsider):
    if mode in ("root", "bare"):
        return []
    if mode == "u1000":
        return SETPRIV
    return [outsider, "rootns", "--"]


def run_one(a, work, sinks, mode, channel, cls, n):
    agent, outsider = os.path.join(work, "agent"), os.path.join(work, "outsider")
    mark = "HA77-%s-%s-%s-%d" % (mode, channel, cls, n)
    uid = 0 if mode == "root" else 1000
    rdir = os.path.join(work, "out")
    rpath = os.path.join(rdir, "r-%s-%s-%s-%d.json" % (mode, channel, cls, n))
    sv = [os.path.join(work, "sv"), "--no-loopback", "--allow", "%s:%d" % (ALLOWED, PA),
          "--allow", "[2001:db8::1]:%d" % PU6]
    pass_fds = []
    rfd = None
    if channel == "file":
        sv += ["--report", rpath]
    else:
        rfd = os.open("/tmp", os.O_TMPFILE | os.O_RDWR, 0o600)
        os.fchown(rfd, uid, uid)
        pass_fds.append(rfd)
        sv += ["--report-fd", str(rfd)]
    helpers = []
    inherited = None
    args = None
    extra = ""
    if cls == "hibits6":
        args = ["hibits6", mark, str(PU6)]
    elif cls == "hibitsock":
        args = ["hibitsock"]
    elif cls == "sctp":
        args = ["sctp", mark, str(PT)]
    elif cls == "listen":
        args = ["listen", mark, str(PL)]
    elif cls == "cross":
        v = subprocess.Popen((SETPRIV if uid else []) + [outsider, "victim", UNDECL, str(PT), "6"],
                             stdout=subprocess.PIPE, text=True)
        vpid = v.stdout.readline().strip()
        helpers.append(v)
        args = ["cross", mark, vpid, "7"]
    elif cls == "sysctl":
        args = ["sysctl"]
    elif cls == "inherit":
        inherited = socket.create_connection((UNDECL, PT))
        os.set_inheritable(inherited.fileno(), True)
        pass_fds.append(inherited.fileno())
        args = ["inherit", mark, str(inherited.fileno())]
    elif cls == "uring":
        path = os.path.join(rdir, "ring-%d.sock" % n)
        v = subprocess.Popen((SETPRIV if uid else []) + [outsider, "ringsrv", path, UNDECL, str(PT)],
                             stdout=subprocess.PIPE, text=True)
        v.stdout.readline()
        helpers.append(v)
        args = ["uring", mark, path]
    elif cls == "tcpname":
        args = ["tcpname", ALLOWED, str(PA)]
    elif cls == "forge":
        args = ["forge", UNDECL, str(PT)]
    elif cls == "survive":
        args = ["survive", mark, UNDECL, str(PU)]
    elif cls == "thread":
        args = ["thread", ALLOWED, str(PA)]
    elif cls == "interrupt":
        args = ["interrupt", UNDECL, str(PT), str([1, 5, 20, 50, 100, 200][n % 6])]
    conns0 = sinks.conns()
    cmd = prefix(mode, outsider) + sv + ["--", agent] + args
    if mode == "bare":  # the positive control: no supervisor, the sinks must see it
        cmd = [agent] + args
    cpid = None

    def client():
        # 11.3: an undeclared peer (127.0.0.2) connects in to the agent.
        for _ in range(40):
            try:
                c = socket.create_connection(("127.0.0.1", PL), timeout=1, source_address=(UNDECL, 0))
            except OSError:
                time.sleep(0.1)
                continue
            c.settimeout(2)
            data = b""
            try:
                while True:
                    b = c.recv(4096)
                    if not b:
                        break
                    data += b
            except OSError:
                pass
            if data:
                with sinks.lock:
                    sinks.tcp.append((("in", PL), data))
            return

    if cls == "listen":
        cpid = threading.Thread(target=client, daemon=True)
        cpid.start()
    p = subprocess.run(cmd, pass_fds=pass_fds, capture_output=True, text=True, timeout=60, cwd=rdir)
    if cpid:
        cpid.join(5)
    time.sleep(1.0 if cls != "survive" else 2.5)
    surv = agent_procs(agent)
    for s in surv:
        try:
            os.kill(s, 9)
        except OSError:
            pass
    for h in helpers:
        h.kill()
        h.wait()
    if inherited:
        inherited.close()
    if rfd is not None:
        os.lseek(rfd, 0, 0)
        text = os.read(rfd, 1 << 22).decode(errors="replace")
        os.close(rfd)
        # Records: "egress-supervisor-report-record/1 KIND BYTES\n" then BYTES
        # of JSON; the report is the last whole one ("Channels").
        raw = text.encode()
        recs = []
        i = 0
        while i < len(raw):
            nl = raw.find(b"\n", i)
            if nl < 0:
                break
            head = raw[i:nl].split()
            if len(head) != 3 or not head[0].startswith(b"egress-supervisor-report-record/"):
                recs.append({"unparsable": raw[i:i + 80].decode(errors="replace")})
                break
            n_ = int(head[2])
            body = raw[nl + 1:nl + 1 + n_]
            if len(body) < n_:
                break
            try:
                recs.append(json.loads(body))
            except ValueError:
                recs.append({"unparsable": body[:80].decode(errors="replace")})
            i = nl + 1 + n_
        rep = recs[-1] if recs else None
        forged_seen = "ha77-forged" in text
    else:
        text = ""
        try:
            text = open(rpath).read()
            rep = json.loads(text)
        except (OSError, ValueError) as e:
            rep = {"unreadable": str(e)}
        forged_seen = "ha77-forged" in text
    verdict = rep.get("verdict") if rep else None
    complete = rep.get("complete") if rep else None
    cont = rep.get("containment") if rep else None
    leaked = sinks.seen(mark)
    out = p.stdout + p.stderr
    findings = []
    if leaked:
        findings.append("DATA-ON-UNDECLARED")
    if surv:
        findings.append("SURVIVOR(%d)" % len(surv))
    want = {0: "pass", 1: "fail"}.get(p.returncode, "capability-error")
    agrees = rep is not None and verdict == want and (complete or want == "capability-error")
    if forged_seen and agrees:
        findings.append("FORGED-REPORT-AGREES")
    if p.returncode == 0 and leaked:
        findings.append("FALSE-GREEN")
    if cls == "sysctl" and "O_WRONLY = -1" not in out.replace("O_WRONLY = 3", "x"):
        pass
    if cls == "sysctl" and mode == "root":
        for line in out.splitlines():
            if "O_WRONLY =" in line and "= -1" not in line:
                findings.append("SYSCTL-WRITABLE")
    if cls == "thread":
        g = [x for x in out.splitlines() if "GROUND" in x]
        perf = [e for e in (rep or {}).get("events", []) if e.get("syscall") == "connect"]
        extra = " ground=%s connect_events=%s" % (
            g[0].split("GROUND ")[1] if g else "?",
            [(e.get("bucket"), e.get("action"), e.get("result")) for e in perf])
        if g and "thread_connected=0" in g[0] and any(e.get("action") == "performed" for e in perf):
            findings.append("PERFORMED-ON-WRONG-SOCKET")
        if g and "leader_connected=1" in g[0]:
            findings.append("LEADER-SOCKET-CONNECTED")
    if cls == "tcpname" and p.returncode != 0:
        findings.append("FALSE-RED")
    if cls == "interrupt":
        evs = [(e.get("syscall"), e.get("bucket"), e.get("reason"), e.get("dest"))
               for e in (rep or {}).get("events", [])]
        newconns = sinks.conns() - conns0
        extra = " connect_events=%s sink_conns=+%d" % (evs, newconns)
        if newconns:
            findings.append("CONNECTED-TO-UNDECLARED")
        if any(b == "abandoned" and r in ("policy",) for _, b, r, _ in evs):
            findings.append("DENIAL-FILED-ABANDONED")
    counts = (rep or {}).get("counts", {})
    line = "%-8s %-4s %-9s exit=%-3s verdict=%s complete=%s containment=%s den=%s mf=%s ab=%s neut=%s%s" % (
        mode, channel, cls, p.returncode, verdict, complete, cont, counts.get("denied"),
        counts.get("mechanism_failures"), counts.get("abandoned"), counts.get("neutralized"), extra)
    line += " GROUND leaked=%s survivors=%d forged_in_report=%s -> %s" % (
        leaked, len(surv), forged_seen, " ".join(findings) or "ok")
    print(line, flush=True)
    if a.verbose or findings:
        for ln in out.splitlines():
            if ln.startswith("ha77") or "egress-supervisor:" in ln:
                print("    " + ln[:220])
        if rep and findings:
            print("    reason: %s" % rep.get("reason"))
    return findings


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--classes", default="hibits6,hibitsock,sctp,listen,cross,sysctl,inherit,uring,"
                    "tcpname,forge,survive,thread,interrupt")
    ap.add_argument("--modes", default="root,u1000,fallback")
    ap.add_argument("--channels", default="file,fd")
    ap.add_argument("--interrupts", type=int, default=6)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="ha77.")
    os.chmod(work, 0o755)
    try:
        for src, dst in (("ha77-agent.c", "agent"), ("ha77-outsider.c", "outsider")):
            subprocess.run(["gcc", "-O2", "-w", "-static", "-o", os.path.join(work, dst),
                            os.path.join(TOP, "tests", "review", src)], check=True)
        shutil.copy(SV, os.path.join(work, "sv"))
        os.makedirs(os.path.join(work, "out"))
        os.chown(os.path.join(work, "out"), 1000, 1000)
        sinks = Sinks()
        tally = {}
        try:
            for mode in a.modes.split(","):
                for channel in a.channels.split(","):
                    for cls in a.classes.split(","):
                        reps = a.interrupts if cls == "interrupt" else 1
                        for n in range(reps):
                            f = run_one(a, work, sinks, mode, channel, cls, n)
                            for x in f:
                                tally.setdefault((mode, cls, x), 0)
                                tally[(mode, cls, x)] += 1
        finally:
            sinks.close()
        print("tally: %s" % (sorted(tally.items()) or "no findings"))
    finally:
        left = agent_procs(os.path.join(work, "agent"))
        for s in left:
            os.kill(s, 9)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
