"""The integration tests' harness: everything the test modules share, and no test.

Loopback listeners, Skip and Abort, one supervisor run (Run) and the test's
context (Ctx: starts and finishes runs; EXPECT records and goes on, ASSERT
stops), the design's invariants checked on every report a test reads
(check_report), the registry (TESTS and the @test decorator), the expect_*
helpers and the helpers more than one test module uses. It imports no test
module: run.py imports it, then the it_*.py modules in the order of TESTS."""

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

TOP = os.environ.get("TOP") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD") or os.path.join(TOP, "build")
SV = os.path.join(BUILD, "egress-supervisor")
SV_FAULTS = os.path.join(BUILD, "faults", "egress-supervisor")
AGENTS = os.path.join(BUILD, "agents")

SKIP_STATUS = 77
DECLARED = "127.0.0.1"
UNDECLARED = "127.0.0.2"
UNDECLARED2 = "127.0.0.3"
VERDICT_FOR_RC = {0: "pass", 1: "fail", 3: "capability-error"}


class Skip(Exception):
    """The test cannot run here; the message names the missing feature."""


class Abort(Exception):
    """An ASSERT failed: the rest of the test would be meaningless."""


class Stopped(BaseException):
    """The test was stopped from outside (run.py's SIGTERM at its timeout):
    unwinds through run_script, which ends the script it runs, and ctx.close."""


# ---------------------------------------------------------------- listeners


class TcpListener:
    """Accepts on ADDR:0; records every connection's bytes; with reply=True
    answers each received line with "ok: LINE"."""

    def __init__(self, addr=DECLARED, reply=False, backlog=1024):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((addr, 0))
        self.sock.listen(backlog)
        self.addr = addr
        self.port = self.sock.getsockname()[1]
        self.reply = reply
        self.lock = threading.Lock()
        self.conns = 0
        self.data = []
        self.closed = False
        threading.Thread(target=self._accept_loop, daemon=True).start()

    @property
    def dest(self):
        return "%s:%d" % (self.addr, self.port)

    def _accept_loop(self):
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.conns += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        buf = b""
        conn.settimeout(10)
        try:
            while True:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                buf += chunk
                while self.reply and b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    with self.lock:
                        self.data.append(line + b"\n")
                    conn.sendall(b"ok: " + line + b"\n")
        except OSError:
            pass
        finally:
            conn.close()
        if buf:
            with self.lock:
                self.data.append(buf)

    def received(self):
        with self.lock:
            return b"".join(self.data)

    def close(self):
        self.closed = True
        self.sock.close()


class UdpListener:
    """Records every datagram arriving on ADDR:0 (an IPv6 ADDR: [ADDR]:0)."""

    def __init__(self, addr=DECLARED):
        self.sock = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((addr, 0))
        self.sock.settimeout(0.2)
        self.addr = addr
        self.port = self.sock.getsockname()[1]
        self.datagrams = []
        self.closed = False
        self.lock = threading.Lock()
        threading.Thread(target=self._loop, daemon=True).start()

    @property
    def dest(self):
        return ("[%s]:%d" if ":" in self.addr else "%s:%d") % (self.addr, self.port)

    def _loop(self):
        while not self.closed:
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                self.datagrams.append(data)

    def got(self):
        with self.lock:
            return list(self.datagrams)

    def close(self):
        self.closed = True
        self.sock.close()


class UnixDgramListener(UdpListener):
    def __init__(self, path):  # pylint: disable=super-init-not-called
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.2)
        self.path = path
        self.datagrams = []
        self.closed = False
        self.lock = threading.Lock()
        threading.Thread(target=self._loop, daemon=True).start()


class Blackhole:
    """A declared TCP address that never answers: a listener with backlog 0
    whose accept queue is already full, so the kernel drops further SYNs."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind((DECLARED, 0))
        self.sock.listen(0)
        self.port = self.sock.getsockname()[1]
        self.fillers = [socket.create_connection((DECLARED, self.port), timeout=2)]
        extra = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        extra.setblocking(False)
        extra.connect_ex((DECLARED, self.port))
        self.fillers.append(extra)
        probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        probe.settimeout(0.5)
        try:
            probe.connect((DECLARED, self.port))
            raise Skip("cannot build a never-answering loopback address (accept queue never fills)")
        except socket.timeout:
            pass
        finally:
            probe.close()

    @property
    def dest(self):
        return "%s:%d" % (DECLARED, self.port)


# ------------------------------------------------------------------ the test context


def wait_for(pred, timeout=3.0, step=0.02):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()


def process_alive(pid):
    """True if PID exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def host_parents():
    """{pid: ppid} of every process, as this (the host's) /proc shows it."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                out[int(name)] = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return out


def host_descendants(pid):
    """Host pids of every live descendant of pid."""
    parents = host_parents()
    mine, grew = {pid}, True
    while grew:
        grew = False
        for p, pp in parents.items():
            if pp in mine and p not in mine:
                mine.add(p)
                grew = True
    mine.discard(pid)
    return sorted(mine)


def in_pid_namespace(run):
    """The supervisor ran the agent in its own pid namespace (a root host)."""
    return (run.report or {}).get("containment") == "pid-namespace"


def errno_in(obj, name):
    return name in json.dumps(obj)


class Run:
    """One supervisor run: exit status, output, parsed report and agent log."""

    def __init__(self, rc, out, err, report, log, pid):
        self.rc, self.out, self.err, self.report, self.log, self.pid = rc, out, err, report, log, pid

    def events(self, **match):
        evs = (self.report or {}).get("events") or []
        return [e for e in evs if all(e.get(k) == v for k, v in match.items())]

    def agent_lines(self, **match):
        return [line for line in self.log if all(line.get(k) == v for k, v in match.items())]

    def counts(self):
        return (self.report or {}).get("counts") or {}


class Ctx:
    def __init__(self, name):
        self.name = name
        self.tmp = tempfile.mkdtemp(prefix="egress-it-%s-" % name)
        self.failures = []
        self.closers = []
        self.runs = 0

    # EXPECT: record and go on; ASSERT: stop the test.
    def expect(self, cond, msg):
        if not cond:
            self.failures.append(msg)
        return bool(cond)

    def require(self, cond, msg):
        if not cond:
            self.failures.append(msg)
            raise Abort(msg)

    def expect_eq(self, got, want, what):
        return self.expect(got == want, "%s: expected %r, got %r" % (what, want, got))

    def tcp(self, addr=DECLARED, **kw):
        listener = TcpListener(addr, **kw)
        self.closers.append(listener.close)
        return listener

    def udp(self, addr=DECLARED):
        listener = UdpListener(addr)
        self.closers.append(listener.close)
        return listener

    def close(self):
        for closer in self.closers:
            try:
                closer()
            except OSError:
                pass

    def paths(self):
        self.runs += 1
        d = os.path.join(self.tmp, "run%d" % self.runs)
        os.mkdir(d)
        return d, os.path.join(d, "report.json"), os.path.join(self.tmp, "agent%d.log" % self.runs)

    def start(self, agent, args, allow=(), no_loopback=False, fault=None, binary=None, sv_args=None,
              report=True, uid1000=False, preexec=None):
        """Starts the supervisor (as uid 1000 with uid1000=True; preexec runs
        in the child before the exec, as root); returns (Popen, report path,
        agent log path)."""
        binary = binary or (SV_FAULTS if fault is not None else SV)
        self.require(os.access(binary, os.X_OK), "%s missing: build it first (make supervisor supervisor-faults)" % binary)
        d, report_path, log_path = self.paths()
        argv = as_uid1000(self, d, uid1000) + [binary]
        for spec in allow:
            argv += ["--allow", spec]
        if no_loopback:
            argv.append("--no-loopback")
        if report:
            argv += ["--report", report_path]
        # Where the agent logs: a root agent sees every other host path
        # read-only (supervisor/rootfs.h).
        argv += ["--writable", self.tmp]
        argv += list(sv_args or [])
        argv += ["--", os.path.join(AGENTS, agent)] + list(args)
        env = dict(os.environ, EGRESS_AGENT_LOG=log_path)
        env.pop("EGRESS_SV_FAULT", None)
        if fault is not None:
            env["EGRESS_SV_FAULT"] = fault
        self.last_argv = argv
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=preexec)
        return proc, report_path, log_path

    def finish(self, proc, report_path, log_path, timeout=30, build=None):
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            self.require(False, "supervisor did not finish within %ss: %s" % (timeout, " ".join(self.last_argv)))
        report = load_report(self, report_path)
        log = read_log(log_path)
        run = Run(proc.returncode, out, err, report, log, proc.pid)
        if report is not None:
            # The supervisor's own path decides, wherever a launcher put it.
            sv = next((a for a in self.last_argv if a.endswith("/egress-supervisor")), self.last_argv[0])
            check_report(self, run, build or ("faults" if "faults" in sv else "release"))
        for line in (err or "").splitlines()[-5:]:
            print("  supervisor stderr: " + line)
        return run

    def sv(self, agent, args, timeout=30, **kw):
        proc, report_path, log_path = self.start(agent, args, **kw)
        return self.finish(proc, report_path, log_path, timeout=timeout)

    def unsupervised(self, agent, args, timeout=20):
        log_path = os.path.join(self.tmp, "unsupervised-%s.log" % agent)
        env = dict(os.environ, EGRESS_AGENT_LOG=log_path)
        subprocess.run([os.path.join(AGENTS, agent)] + list(args), env=env, timeout=timeout, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return read_log(log_path)


SETPRIV_UID1000 = ["setpriv", "--reuid", "1000", "--regid", "1000", "--clear-groups"]


def landlock_abi():
    """This kernel's Landlock ABI (landlock_create_ruleset with the VERSION
    flag), 0 without Landlock. From 6 (6.12) a uid-1000 agent's domain is
    scoped for signals: it cannot signal its supervisor."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    return max(libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1)), 0)


# A uid-1000 supervisor's containment where it may enter a user namespace
# of its own, and the seam that makes the host refuse one (the subreaper
# shape, subreaper_containment()).
USERNS_CONTAINMENT = "user-namespace+pid-namespace+landlock"
NO_USERNS = "userns:EPERM"


def subreaper_containment():
    """The containment a uid-1000 supervisor reports where user namespaces
    are refused: the Landlock domain is scoped for signals from ABI 6."""
    return "subreaper+landlock+signal-scope" if landlock_abi() >= 6 else "subreaper+landlock"


def mutant_faults_binary(name):
    """A mutant with the fault seam (make mutant-faults-bin MUTANT=name)."""
    binary = os.path.join(BUILD, "mutants-faults", name, "egress-supervisor")
    if not os.access(binary, os.X_OK):
        # A failure, not a skip: make test builds every mutant listed in
        # IT_FAULT_MUTANTS, so a missing one is one a test names and the
        # list does not, whose kill would otherwise never run.
        raise AssertionError("build/mutants-faults/%s missing: list it in IT_FAULT_MUTANTS "
                             "(tests/integration/integration.mk) or make mutant-faults-bin "
                             "MUTANT=%s" % (name, name))
    return binary


def as_uid1000(ctx, run_dir, wanted=True):
    """The argv prefix that runs the supervisor as uid 1000 (no capabilities:
    a user namespace of its own, or the subreaper where that is refused),
    with the run's files writable to it; [] when not wanted. Skips where
    this host cannot."""
    if not wanted:
        return []
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        raise Skip("needs root (to become uid 1000) and setpriv")
    for d in (ctx.tmp, run_dir):
        os.chmod(d, 0o777)
    return list(SETPRIV_UID1000)


def load_report(ctx, path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text)
    except ValueError as e:
        ctx.expect(False, "report %s is not valid JSON (%s): %r" % (path, e, text[:200]))
        return None


def read_log(path, exits=False):
    """The agent log's attempt lines; with exits, only the exit-status lines
    agentlib writes as an agent's main returns (tests/agents/agentlib.h),
    which the attempt lines leave out: the tests count and compare attempts."""
    lines = []
    if os.path.exists(path):
        with open(path) as f:
            for raw in f:
                raw = raw.strip()
                if raw:
                    try:
                        lines.append(json.loads(raw))
                    except ValueError:
                        lines.append({"unparsed": raw})
    return [x for x in lines if (x.get("call") == "exit") == exits]


def check_report(ctx, run, build):
    """The design's invariants, on every report a test reads."""
    rep = run.report
    ctx.expect_eq(rep.get("format"), "egress-supervisor-report/2", "report format")
    sv = rep.get("supervisor") if isinstance(rep.get("supervisor"), dict) else {}
    ctx.expect_eq(sv.get("name"), "egress-supervisor", "report supervisor.name")
    ctx.expect(isinstance(sv.get("denial_errno"), str), "report supervisor.denial_errno %r" % sv.get("denial_errno"))
    c = rep.get("counts")
    if not ctx.expect(isinstance(c, dict), "report has no counts object"):
        return
    keys = ["trapped", "notifications", "allowed", "denied", "invalid", "mechanism_failures",
            "abandoned", "neutralized", "events_dropped"]
    missing = [k for k in keys if not isinstance(c.get(k), int)]
    if not ctx.expect(not missing, "counts lack %s" % missing):
        return
    events = rep.get("events") or []
    ctx.expect(c["notifications"] == c["allowed"] + c["denied"] + c["invalid"] + c["mechanism_failures"] + c["abandoned"],
               "invariant notifications == allowed+denied+invalid+mechanism_failures+abandoned broken: %s" % c)
    ctx.expect(c["trapped"] == c["notifications"] + c["neutralized"],
               "invariant trapped == notifications+neutralized broken: %s" % c)
    ctx.expect(len(events) + c["events_dropped"] == c["trapped"],
               "invariant len(events)+events_dropped == trapped broken: %d events, %s" % (len(events), c))
    buckets = {}
    for e in events:
        buckets[e.get("bucket")] = buckets.get(e.get("bucket"), 0) + 1
    if c["events_dropped"] == 0:
        for b, k in [("allowed", "allowed"), ("denied", "denied"), ("invalid", "invalid"),
                     ("mechanism_failure", "mechanism_failures"), ("abandoned", "abandoned"),
                     ("neutralized", "neutralized")]:
            ctx.expect(buckets.get(b, 0) == c[k], "events in bucket %s (%d) != counts.%s (%d)" % (b, buckets.get(b, 0), k, c[k]))
    if rep.get("complete") is True:
        ctx.expect_eq(rep.get("build"), build, "report build")
        want = VERDICT_FOR_RC.get(run.rc)
        if want is not None:
            ctx.expect_eq(rep.get("verdict"), want, "verdict for exit %d" % run.rc)
        if c["mechanism_failures"] > 0:
            ctx.expect_eq(rep.get("verdict"), "capability-error", "verdict with mechanism failures")
        elif c["denied"] > 0 and rep.get("verdict") != "capability-error":
            ctx.expect_eq(rep.get("verdict"), "fail", "verdict with denials")
        if rep.get("verdict") == "pass":
            ctx.expect(c["denied"] == 0 and c["mechanism_failures"] == 0, "pass with denials or failures")
        kernel = rep.get("kernel") or {}
        ctx.expect_eq(kernel.get("release"), os.uname().release, "report kernel.release")
        ctx.expect(isinstance(rep.get("reason"), str) and rep.get("reason"), "report has no reason")


# ------------------------------------------------------------------ the registry and EXPECTs

TESTS = {}


def test(timeout=60, beside=False):
    """Registers a test. beside=True: the test runs wholly in network
    namespaces of its own (a review's reproduction under review-net.sh or
    unshare -n: its own links, addresses, sinks and abstract names, under
    its review lock), or its checks are exact counts that no timing can
    change and it listens only on ephemeral loopback ports of its own; and
    it writes nothing host-wide (no host sysctl, mount, ns_last_pid or
    fixed port), so run.py may run it beside the other tests instead of
    after them."""
    def register(fn):
        TESTS[fn.__name__] = (fn, timeout, beside)
        return fn
    return register


def expect_outcome(ctx, run, rc, verdict):
    ctx.expect_eq(run.rc, rc, "supervisor exit status")
    ctx.require(run.report is not None, "no report written")
    ctx.expect_eq(run.report.get("verdict"), verdict, "verdict")
    ctx.expect_eq(run.report.get("complete"), True, "report complete")


def expect_event(ctx, run, what, **match):
    evs = run.events(**match)
    ctx.expect(evs, "%s: no event with %s; events: %s" % (what, match, json.dumps(run.report.get("events"))[:600]))
    return evs[0] if evs else {}


def expect_agent(ctx, run, call, result=None, err=None, **match):
    lines = run.agent_lines(call=call, **match)
    if not ctx.expect(lines, "agent log has no %s line (%s): %s" % (call, match, run.log)):
        return {}
    line = lines[0]
    if result is not None:
        ctx.expect_eq(line.get("result"), result, "agent %s result" % call)
    if err is not None:
        ctx.expect_eq(line.get("errno"), err, "agent %s errno" % call)
    return line


# ------------------------------------------------------------------ builds and kernel features

# Seconds a script stopped with SIGTERM gets for its EXIT trap (deleting its
# network namespaces, unmounting, detaching loop devices) before SIGKILL.
SCRIPT_TERM_GRACE = 10.0


def stop_session(proc, grace=SCRIPT_TERM_GRACE):
    """Ends the session proc leads (started with start_new_session): SIGTERM
    to every process in it, up to grace seconds for the leader to finish and
    its output to close, then SIGKILL to whatever is left; reaps proc."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        if sig == signal.SIGTERM:
            try:
                proc.communicate(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
    proc.wait()


def run_script(ctx, argv, timeout, env=None, cwd=TOP):
    """Runs argv (a review script) in a session of its own and returns its
    subprocess.CompletedProcess (text stdout and stderr). On its timeout
    (TimeoutExpired is raised) or when the test itself is stopped (run.py's
    SIGTERM, raised here as Stopped) the whole session is ended by
    stop_session, so the script's EXIT trap runs and nothing it started
    outlives the test. subprocess.run's own timeout SIGKILLs the shell
    alone: no trap, and its servers, sinks and supervisors left running
    with their namespaces, mounts and loop devices."""
    ctx.last_argv = list(argv)
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException:
        stop_session(proc)
        raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def review(ctx, script, binary, timeout=120, env=None, extra=()):
    """Runs tests/review/SCRIPT (with the arguments extra) with SV=binary
    (and env's variables) by run_script; returns its output."""
    path = os.path.join(TOP, "tests", "review", script)
    p = run_script(ctx, ["bash", path] + list(extra), timeout,
                   env=dict(os.environ, SV=binary, **(env or {})))
    return p.stdout + p.stderr


def mutant_binary(name):
    binary = os.path.join(BUILD, "mutants", name, "egress-supervisor")
    if not os.access(binary, os.X_OK):
        # A failure, not a skip (as mutant_faults_binary): list it in
        # IT_MUTANTS.
        raise AssertionError("build/mutants/%s missing: list it in IT_MUTANTS "
                             "(tests/integration/integration.mk) or make mutant-bin MUTANT=%s"
                             % (name, name))
    return binary


def require_pidfd_thread(ctx):
    try:
        major, minor = (int(x) for x in os.uname().release.split(".")[:2])
    except ValueError:
        raise Skip("cannot read the kernel version from %r" % os.uname().release)
    if (major, minor) < (6, 9):
        raise Skip("PIDFD_THREAD needs Linux 6.9 (this kernel: %s)" % os.uname().release)


# ------------------------------------------------------------------ the report channel (--report-fd)

RECORD_MAGIC = "egress-supervisor-report-record/1"


def read_records(path):
    """[(kind, report)] of a --report-fd channel, and the trailing bytes that
    are not a whole record."""
    with open(path, "rb") as f:
        return parse_records(f.read())


def parse_records(data):
    """read_records on the bytes of a channel."""
    out, pos = [], 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        head = data[pos:nl].decode("ascii", "replace").split(" ") if nl >= 0 else []
        if len(head) != 3 or head[0] != RECORD_MAGIC or not head[2].isdigit():
            break
        end = nl + 1 + int(head[2])
        if end > len(data):
            break
        out.append((head[1], json.loads(data[nl + 1:end])))
        pos = end
    return out, data[pos:]


def sv_with_channel(ctx, agent, args, path=False, binary=None, fault=None, timeout=30, check=True,
                    uid1000=False, **kw):
    """Runs the supervisor with --report-fd 9 on a file only this test opened
    (and, with path=True, --report PATH as well), as uid 1000 with
    uid1000=True. Returns (Run, records, trailing bytes, path or None)."""
    d, report_path, log_path = ctx.paths()
    prefix = as_uid1000(ctx, d, uid1000)
    chan = os.path.join(d, "channel")
    fd = os.open(chan, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    sv_args = ["--report-fd", "9"]
    if path:
        sv_args += ["--report", report_path]
    binary = binary or (SV_FAULTS if fault is not None else SV)
    argv = prefix + [binary] + sv_args + ["--writable", ctx.tmp]
    for spec in kw.get("allow", ()):
        argv += ["--allow", spec]
    if kw.get("no_loopback"):
        argv.append("--no-loopback")
    argv += ["--", os.path.join(AGENTS, agent)] + list(args)
    env = dict(os.environ, EGRESS_AGENT_LOG=log_path)
    env.pop("EGRESS_SV_FAULT", None)
    if fault is not None:
        env["EGRESS_SV_FAULT"] = fault
    ctx.last_argv = argv
    try:
        # dup2 in the child: pass_fds would need descriptor 9 open here
        # already (CPython marks them inheritable before preexec_fn), and
        # every descriptor of ours is non-inheritable (PEP 446), so no
        # close_fds pass is needed to keep them from the supervisor.
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout,
                              close_fds=False, preexec_fn=lambda: os.dup2(fd, 9))
    finally:
        os.close(fd)
    recs, rest = read_records(chan)
    report = recs[-1][1] if recs else None
    run = Run(proc.returncode, proc.stdout, proc.stderr, report, read_log(log_path), None)
    if report is not None and check:
        check_report(ctx, run, "faults" if fault is not None else "release")
    return run, recs, rest, report_path if path else None


# ------------------------------------------------------------------ runs started in other ways

def start_launched(ctx, proto, dest, agent, args, binary=None, fault=None):
    """The supervisor started by fd-launcher, which leaves a socket of proto
    connected to dest open across its exec (a caller that connected before
    any filter existed); with fault, the faults build under that seam."""
    d, report_path, log_path = ctx.paths()
    binary = binary or (SV_FAULTS if fault is not None else SV)
    argv = [os.path.join(AGENTS, "fd-launcher"), proto, dest, "--", binary,
            "--no-loopback", "--report", report_path, "--writable", ctx.tmp, "--",
            os.path.join(AGENTS, agent)]
    argv += list(args)
    ctx.last_argv = argv
    env = dict(os.environ, EGRESS_AGENT_LOG=log_path)
    env.pop("EGRESS_SV_FAULT", None)
    if fault is not None:
        env["EGRESS_SV_FAULT"] = fault
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True), report_path, log_path


def expect_inherited_socket_closed(ctx, run, sink):
    """inherit-fd ran and found no socket above 2: nothing was written, and
    nothing reached the undeclared sink its launcher's socket led to."""
    expect_outcome(ctx, run, 0, "pass")
    line = expect_agent(ctx, run, "inherited_fds")
    ctx.expect_eq(line.get("sockets"), 0, "sockets the agent found open")
    ctx.expect_eq(run.agent_lines(call="write_inherited"), [], "writes over inherited sockets")
    time.sleep(0.2)
    ctx.expect_eq(sink.got(), [], "datagrams at the undeclared sink")


def rewrite_run(ctx, binary, cwd, paths, wrap=None):
    d, report_path, log_path = ctx.paths()
    argv = [binary, "--report", report_path, "--writable", ctx.tmp, "--",
            os.path.join(AGENTS, "rewrite-file")] + paths
    argv = (wrap(argv) if wrap else argv)
    ctx.last_argv = argv
    proc = subprocess.Popen(argv, env=dict(os.environ, EGRESS_AGENT_LOG=log_path), cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return ctx.finish(proc, report_path, log_path)
