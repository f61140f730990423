"""Integration tests: the agent's joins of namespaces that exist already
(setns; supervisor/nsjoin.h).

A root agent owns, by the owner rule, every user namespace uid 0 made (a
container's), and after setuid every other uid's: it can enter one, then
its network namespace, whose loopback is not the run's, or its mount
namespace, where the host's files are not read-only. A join is allowed
only into a namespace the run made, and only when no other task can swap
the descriptor between the supervisor's look and the kernel's.

Registered into harness.TESTS when run.py imports it."""

import ctypes
import os
import re
import shutil
import subprocess
import sys

from harness import (AGENTS, NO_USERNS, SETPRIV_UID1000, SV, Skip, expect_event, mutant_binary,
                     mutant_faults_binary, review, test, wait_for)

# One uid 1000 may execute too (not a pyenv under /root).
PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
CLONE_NEWNS = 0x00020000
MS_REC, MS_PRIVATE, MS_BIND = 0x4000, 1 << 18, 0x1000

# A container's service: a listener on its own loopback that prints the
# port, then every line it is sent.
SERVICE = r'''
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(4)
print("port", s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept()
    print("got", c.recv(4096).decode(errors="replace"), flush=True)
    c.close()
'''


def require_root_and_tools(ctx):
    if os.geteuid() != 0:
        raise Skip("needs root: the class is a root agent")
    for tool in ("unshare", "ip"):
        if not shutil.which(tool):
            raise Skip("needs %s" % tool)


class Container:
    """A stand-in container: a user and a network namespace uid 0 made
    (owned by uid 0, as LXC's or one systemd's PrivateUsers= makes), its
    loopback up, a service on it that prints what it gets."""

    def __init__(self, ctx, uid1000=False):
        self.out = os.path.join(ctx.tmp, "container.out")
        with open(self.out, "w") as f:
            self.proc = subprocess.Popen(
                (list(SETPRIV_UID1000) if uid1000 else []) + ["unshare", "-U", "-r", "-n", "sh", "-c",
                 'ip link set lo up && exec "$0" -c "$1"', PYTHON, SERVICE],
                stdout=f, stderr=subprocess.STDOUT)
        ctx.closers.append(self.close)
        ctx.require(wait_for(lambda: "port" in self.text(), 10),
                    "container service did not start: %r" % self.text())
        self.port = int(self.text().split()[1])

    def text(self):
        with open(self.out) as f:
            return f.read()

    def close(self):
        self.proc.kill()
        self.proc.wait()


def bind_namespaces(ctx, pid, names):
    """A preexec for the supervisor: a private mount namespace of its own
    where /proc/PID/ns/NAME of the container is bind-mounted on
    ctx.tmp/ns/NAME, as `ip netns attach` leaves a namespace (the agent's
    view then has them, read-only). Returns (preexec, {name: path})."""
    libc = ctypes.CDLL(None, use_errno=True)
    d = os.path.join(ctx.tmp, "ns")
    os.makedirs(d, exist_ok=True)
    paths = {n: os.path.join(d, n) for n in names}
    for p in paths.values():
        open(p, "w").close()

    def preexec():
        if libc.unshare(CLONE_NEWNS) != 0 or \
                libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0:
            os._exit(97)
        for n, p in paths.items():
            src = ("/proc/%d/ns/%s" % (pid, n)).encode()
            if libc.mount(src, p.encode(), None, MS_BIND, None) != 0:
                os._exit(98)

    return preexec, paths


@test()
def root_agent_enters_the_namespaces_its_run_made(ctx):
    # The false-red control: a child of the run makes a user and a network
    # namespace; one process enters them by their /proc files, another by
    # the child's pidfd. Allowed (run-namespace), pass.
    require_root_and_tools(ctx)
    run = ctx.sv("ns-join", ["own"])
    ctx.expect_eq(run.rc, 0, "supervisor exit status (%s)" % run.err[-400:])
    for what in ("own-user", "own-net", "own-pidfd"):
        lines = run.agent_lines(call="setns", dest=what)
        ctx.expect(lines and lines[0].get("result") == 0, "%s: %s" % (what, lines))
    ctx.expect(run.events(syscall="setns", reason="run-namespace"),
               "no setns allowed as run-namespace: %s" % run.report.get("events"))
    ctx.expect(not run.events(syscall="setns", bucket="denied"),
               "a join of the run's own namespaces denied: %s" % run.report.get("events"))


@test()
def uid1000_agents_clone_sharing_its_table_into_a_cgroup_namespace_is_allowed(ctx):
    # The filter traps every clone with CLONE_FILES but not CLONE_THREAD
    # (the table rule), and a root agent's CLONE_NEWCGROUP (it could mount
    # cgroup2 over its caller's cgroup). A uid-1000 agent's clone with both
    # came here for the table only: allowed as shared-table, the child made.
    # Mutant cgroup-refused-any-uid refuses it as cgroup-namespace (EPERM),
    # the false red of stop 37's close.
    if os.geteuid() != 0:
        raise Skip("needs root to run the agent as uid 1000")
    for binary, ok in ((SV, True), (mutant_binary("cgroup-refused-any-uid"), False)):
        run = ctx.sv("ns-join", ["cgroup-shared"], binary=binary, uid1000=True)
        lines = run.agent_lines(call="clone")
        ctx.expect(lines and (lines[0].get("result") == 0) == ok,
                   "%s: the clone %s: %s" % (binary, "made" if ok else "refused", lines))
        reason = "shared-table" if ok else "cgroup-namespace"
        ctx.expect(run.events(syscall="clone", reason=reason),
                   "%s: no clone filed %s: %s" % (binary, reason, run.report.get("events")))


def foreign_run(ctx, binary=None, uid1000=False, fault=None):
    box = Container(ctx, uid1000)
    preexec, ns = bind_namespaces(ctx, box.proc.pid, ("user", "net"))
    run = ctx.finish(*ctx.start("ns-join", ["foreign", ns["user"], ns["net"],
                                            "127.0.0.1:%d" % box.port, "EGRESS-IT-NSJOIN"],
                                binary=binary, preexec=preexec, uid1000=uid1000, fault=fault))
    return box, run


@test(timeout=90)
def root_agent_is_denied_a_containers_namespaces(ctx):
    # A root agent enters a container's user namespace (uid 0 owns it),
    # then its network namespace, and sends to the container's loopback
    # service. Denied (foreign-namespace, fail): the connect goes to the
    # run's own loopback, where nothing listens, and the service gets
    # nothing. Mutants setns-open (not trapped) and setns-owner-past-ours
    # (the run "lives" in the initial user namespace, which owns all)
    # deliver the line.
    require_root_and_tools(ctx)
    box, run = foreign_run(ctx)
    ctx.expect_eq(run.rc, 1, "supervisor exit status (%s)" % run.err[-400:])
    expect_event(ctx, run, "the user namespace join", syscall="setns", bucket="denied",
                 reason="foreign-namespace")
    ctx.expect("EGRESS-IT-NSJOIN" not in box.text(), "the container's service got: %r" % box.text())
    for mutant in ("setns-open", "setns-owner-past-ours"):
        box, run = foreign_run(ctx, mutant_binary(mutant))
        ctx.expect(wait_for(lambda: "EGRESS-IT-NSJOIN" in box.text(), 5),
                   "mutant %s: the service got nothing (%s, exit %s)" % (mutant, box.text(), run.rc))


def race_run(ctx, binary=None):
    box = Container(ctx)
    preexec, ns = bind_namespaces(ctx, box.proc.pid, ("user",))
    return ctx.finish(*ctx.start("ns-join", ["race", ns["user"], "150"], binary=binary,
                                 preexec=preexec), timeout=120)


@test(timeout=300)
def join_refused_while_another_process_can_swap_the_descriptor(ctx):
    # Another process shares the descriptor table (clone with CLONE_FILES)
    # and swaps descriptor 10 between a user namespace of the run and a
    # container's while workers sharing the table enter 10. Every join is
    # refused (shared-table, or foreign-namespace when the look saw the
    # container's): no worker ends up in the container's. Mutant
    # setns-table-unchecked judges the run's and the kernel enters the
    # container's.
    require_root_and_tools(ctx)
    run = race_run(ctx)
    race = run.agent_lines(call="race")
    ctx.expect(race and race[0].get("foreign_joins") == 0 and race[0].get("tries") == 150,
               "race: %s (%s)" % (race, run.err[-400:]))
    expect_event(ctx, run, "a refused join", syscall="setns", reason="shared-table")
    expect_event(ctx, run, "the sharing clone", syscall="clone", reason="shared-table")
    run = race_run(ctx, mutant_binary("setns-table-unchecked"))
    race = run.agent_lines(call="race")
    ctx.expect(race and race[0].get("foreign_joins", 0) > 0,
               "mutant setns-table-unchecked: no worker entered the container's: %s" % race)


@test(timeout=90)
def uid1000_agent_without_a_user_namespace_is_denied_a_rootless_containers(ctx):
    # A uid-1000 supervisor where user namespaces are refused (seam
    # userns:EPERM: subreaper+landlock): its agent, in the initial user
    # namespace with uid 1000, owns a rootless container's user namespace
    # and could enter it and its network namespace. It can make none of
    # its own, so every join is denied (foreign-namespace, fail) and the
    # container's service gets nothing. The control: the same agent
    # without a supervisor enters both and the line arrives (mutant
    # setns-open has no seam to force this mode with).
    require_root_and_tools(ctx)
    box = Container(ctx, uid1000=True)
    preexec, ns = bind_namespaces(ctx, box.proc.pid, ("user", "net"))
    os.chmod(ctx.tmp, 0o755)
    subprocess.run(list(SETPRIV_UID1000) + [
        os.path.join(AGENTS, "ns-join"), "foreign", ns["user"], ns["net"],
        "127.0.0.1:%d" % box.port, "EGRESS-IT-CONTROL"], preexec_fn=preexec, timeout=30,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ctx.expect(wait_for(lambda: "EGRESS-IT-CONTROL" in box.text(), 5),
               "control: the unsupervised agent did not reach the service: %r" % box.text())
    box, run = foreign_run(ctx, uid1000=True, fault=NO_USERNS)
    ctx.expect_eq(run.rc, 1, "supervisor exit status (%s)" % run.err[-400:])
    ctx.expect("subreaper" in (run.report or {}).get("containment", ""),
               "containment: %s" % (run.report or {}).get("containment"))
    expect_event(ctx, run, "the user namespace join", syscall="setns", bucket="denied",
                 reason="foreign-namespace")
    ctx.expect("EGRESS-IT-NSJOIN" not in box.text(), "the container's service got: %r" % box.text())


@test(timeout=200)
def independent_reproduction_of_namespace_joins_delivers_nothing(ctx):
    # Review h-nsjoin's ha25-setns.sh, written against the supervisor
    # before setns was judged: root agents entering a container's user and
    # network or mount namespace by a bind-mounted nsfs file or a pidfd
    # (SCM_RIGHTS, SO_PEERPIDFD), uid 1000 in subreaper mode. No case
    # delivers (exit 0); mutant setns-open delivers again.
    require_root_and_tools(ctx)
    if not shutil.which("gcc"):
        raise Skip("needs gcc")
    out = review(ctx, "ha25-setns.sh", SV)
    ctx.expect("no case delivered" in out, "ha25-setns.sh: %s" % out[-1200:])
    out = review(ctx, "ha25-setns.sh", mutant_binary("setns-open"))
    ctx.expect("### delivered: 0" not in out and "delivered: yes" in out,
               "mutant setns-open: nothing delivered: %s" % out[-1200:])


@test(timeout=90)
def root_supervisor_without_cap_sys_ptrace_judges_joins(ctx):
    # Helper h-nsguest's ha25-nocap-setns.sh: a root supervisor without
    # CAP_SYS_PTRACE (Docker's default set) named the run's pid namespace
    # through the reaper, which is not dumpable (EACCES): every join was a
    # mechanism failure. Named through the calling thread, the run's own
    # joins pass (exit 0); mutant run-ns-by-reaper gives capability-error.
    require_root_and_tools(ctx)
    if not shutil.which("setpriv"):
        raise Skip("needs setpriv")
    for binary, want in ((SV, "supervisor exit 0"), (mutant_binary("run-ns-by-reaper"), "supervisor exit 3")):
        out = review(ctx, "ha25-nocap-setns.sh", binary)
        ctx.expect(want in out, "%s: want %r: %s" % (binary, want, out[-800:]))


@test(timeout=300)
def thread_that_swaps_the_descriptor_and_exits_never_gets_a_join_through(ctx):
    # Review h-attack26's ha26-swapexit.sh: a second thread swaps the
    # descriptor from a user namespace of the run to a container's after
    # the supervisor took it, and exits before a later count of threads.
    # The count comes first now: every try is shared-table or
    # foreign-namespace, the container's service gets nothing. Mutant
    # setns-threads-late counts after the judgment: the line arrives.
    require_root_and_tools(ctx)
    if not shutil.which("gcc"):
        raise Skip("needs gcc")
    # 400 tries each; the script's 300 filler processes only widen the
    # window, which the mutant needs none of (it won the first try on the
    # old machine; on a faster one a run of 400 tries went by with the
    # swapping thread not yet gone at every late count, 1 run in 4: up to
    # three runs; at load 5-6 three went by once: up to six, the first
    # arrival ends them).
    out = review(ctx, "ha26-swapexit.sh", SV, timeout=280, env={"FILLERS": "50"})
    ctx.expect("supervisor exit" in out and "got HA26-REACHED" not in out,
               "ha26-swapexit.sh: %s" % out[-1200:])
    for _ in range(6):
        out = review(ctx, "ha26-swapexit.sh", mutant_binary("setns-threads-late"), timeout=280,
                     env={"FILLERS": "0"})
        if "got HA26-REACHED" in out:
            break
    ctx.expect("got HA26-REACHED" in out, "mutant setns-threads-late: nothing arrived in 6 runs: %s"
               % out[-1200:])


def exiting_runs(ctx, binary, runs, stop_at_first=False):
    """Runs ns-join exiting under binary runs times, the main thread's
    spin spread over what the supervisor's handling of the join takes
    here; returns the exit statuses that were not 0."""
    bad = []
    for i in range(runs):
        argv = [binary, "--report", os.path.join(ctx.tmp, "exiting.json"), "--",
                os.path.join(AGENTS, "ns-join"), "exiting", str((i % 8) * 20000)]
        ctx.last_argv = argv
        rc = subprocess.run(argv, capture_output=True, timeout=30, stdin=subprocess.DEVNULL).returncode
        if rc != 0:
            bad.append(rc)
            if stop_at_first:
                break
    return bad


@test(timeout=300)
def join_racing_the_runs_own_exit_is_never_a_denial_or_a_failure(ctx):
    # An audit: a thread enters its own network namespace while its
    # process exits. The run's namespace links go with the run, so the
    # look for a process of the run in it found none: foreign-namespace,
    # a false fail; and a thread gone before its /proc status was read was
    # a mechanism failure (capability-error). The caller's own links are
    # read first now, and a thread gone is an abandoned call. A race: the
    # supervisor must pass all 60 runs; mutant thread-gone-fails shows in
    # about 1 run of 5 to 20 here, so it gets up to 400 (150 went by once
    # at load 5-6; the first exit other than 0 ends them). The false fail
    # has no mutant: it showed in 3 of 60 runs one day and 0 of 150 the
    # next, too rare to kill.
    require_root_and_tools(ctx)
    ctx.expect_eq(exiting_runs(ctx, SV, 60), [], "exit statuses other than 0")
    bad = exiting_runs(ctx, mutant_binary("thread-gone-fails"), 400, stop_at_first=True)
    ctx.expect_eq(bad, [3], "mutant thread-gone-fails: the first exit status other than 0 in 400 runs")


@test(timeout=300)
def foreign_join_interrupted_during_the_scan_stays_a_denial(ctx):
    # Review h-attack32's ha32-nshide.sh: 300 idle children make the scan
    # of the run's processes take milliseconds; a thread's setns into a
    # foreign network namespace is interrupted 1 to 10 ms in (a signal, or
    # the process's exit_group). A check of the call's life after the scan
    # filed the attempt abandoned: pass in 36 of 48 runs. Checked before
    # the scan now, so a call found alive is judged: denied. Mutant
    # setns-checked-after-scan puts the later check back.
    require_root_and_tools(ctx)
    if not shutil.which("gcc"):
        raise Skip("needs gcc")
    # Not 1 ms: on a loaded machine (load 27 here once) the call is not
    # yet taken by then, and one interrupted before the supervisor took it
    # is abandoned by any supervisor (docs/design.md, "What the supervisor
    # cannot see").
    env = {"RUNS": "3", "DELAYS": "3000 10000", "MUT": "/nonexistent"}
    out = review(ctx, "ha32-nshide.sh", SV, env=env)
    ctx.expect("RESULT: 0 release runs" in out, "ha32-nshide.sh: %s" % out[-1500:])
    out = review(ctx, "ha32-nshide.sh", mutant_binary("setns-checked-after-scan"), env=env)
    ctx.expect(re.search(r"RESULT: [1-9][0-9]* release runs", out),
               "mutant setns-checked-after-scan: no attempt hidden: %s" % out[-1500:])


@test(timeout=120)
def foreign_join_whose_caller_dies_before_the_scan_stays_a_denial(ctx):
    # A thread's setns into a container's network namespace, its process
    # ended (exit_group) while the supervisor, having found the call
    # alive, waits before the scan (the test build's setns_window, 300 ms;
    # the main thread spins some 10 to 100 ms first). The run is named
    # through the caller before that check, so the scan still runs and
    # the attempt is denied: fail. Mutant run-named-late names it after,
    # through a caller that is gone: the attempt was filed no-process
    # (invalid, which a dead notification makes abandoned), a pass.
    require_root_and_tools(ctx)
    for binary, rc, bucket in ((None, 1, "denied"),
                               (mutant_faults_binary("run-named-late"), 0, "abandoned")):
        box = Container(ctx)
        preexec, ns = bind_namespaces(ctx, box.proc.pid, ("net",))
        run = ctx.finish(*ctx.start("ns-join", ["exiting", "50000000", ns["net"]], binary=binary,
                                    preexec=preexec, fault="setns_window:EIO"))
        box.close()
        what = binary or "supervisor"
        ctx.expect_eq(run.rc, rc, "%s: exit status (%s)" % (what, run.err[-400:]))
        ctx.expect(run.events(syscall="setns", bucket=bucket),
                   "%s: no setns %s: %s" % (what, bucket, run.report and run.report.get("events")))
