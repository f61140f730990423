"""Integration tests: the report, while the agent runs and on --report-fd.

The provisional non-pass report, atomic replacement, the supervisor ended by a
signal or SIGKILL, the channel's records, an agent forging them (as uid 1000
and as root), the reaper's descriptor table, and bad --report-fd values.

Registered into harness.TESTS when run.py imports it."""

import json
import os
import re
import shutil
import signal
import subprocess

from harness import (AGENTS, DECLARED, NO_USERNS, SV, UNDECLARED, USERNS_CONTAINMENT, Skip,
                     subreaper_containment, expect_agent, expect_outcome,
                     host_descendants, landlock_abi, load_report, mutant_binary, mutant_faults_binary,
                     process_alive, read_log, review, sv_with_channel, test, wait_for)


def start_long_running(ctx):
    """The run and the host pids of every descendant of the supervisor once
    the agent has started (in a pid namespace the agent's own log holds the
    namespace's pids, which mean other processes here)."""
    proc, report_path, log_path = ctx.start("model-server", [DECLARED + ":0"])
    ctx.closers.append(proc.kill)
    ctx.require(wait_for(lambda: read_log(log_path), 10), "agent (model-server) never started")
    return proc, report_path, log_path, host_descendants(proc.pid)


@test()
def report_provisional_non_pass_while_agent_runs(ctx):
    proc, report_path, log_path, _ = start_long_running(ctx)
    rep = load_report(ctx, report_path)
    ctx.require(rep is not None, "no provisional report while the agent runs")
    ctx.expect_eq(rep.get("complete"), False, "provisional complete")
    ctx.expect_eq(rep.get("verdict"), "capability-error", "provisional verdict")
    proc.send_signal(signal.SIGTERM)
    run = ctx.finish(proc, report_path, log_path)
    ctx.expect_eq(os.listdir(os.path.dirname(report_path)), ["report.json"],
                  "report directory holds only the report (no temporary left)")
    ctx.expect_eq(run.report.get("complete") if run.report else None, True, "final report complete")
    # The check can fail: mutant report-on-crash writes a provisional pass
    # (the kill that was only in make mutants: h-docaudit).
    proc, report_path, log_path = ctx.start("model-server", [DECLARED + ":0"],
                                            binary=mutant_binary("report-on-crash"))
    ctx.closers.append(proc.kill)
    ctx.require(wait_for(lambda: read_log(log_path), 10), "mutant's agent never started")
    rep = load_report(ctx, report_path)
    ctx.expect_eq((rep or {}).get("verdict"), "pass", "report-on-crash mutant: provisional verdict")
    proc.send_signal(signal.SIGTERM)
    ctx.finish(proc, report_path, log_path)


@test()
def report_replaced_atomically(ctx):
    """Readers polling the report during a busy run never see a torn file."""
    lis = ctx.tcp()
    proc, report_path, log_path = ctx.start("threads-load", ["4", "100", lis.dest])
    torn = []
    reads = 0
    while proc.poll() is None:
        try:
            with open(report_path) as f:
                text = f.read()
        except FileNotFoundError:
            continue
        reads += 1
        try:
            json.loads(text)
        except ValueError:
            torn.append(text[:80])
    ctx.finish(proc, report_path, log_path)
    ctx.expect(not torn, "%d of %d reads saw a torn report: %r" % (len(torn), reads, torn[:2]))


def make_signal_test(signame):
    def fn(ctx):
        proc, report_path, log_path, agent_pid = start_long_running(ctx)
        proc.send_signal(getattr(signal, signame))
        run = ctx.finish(proc, report_path, log_path)
        expect_outcome(ctx, run, 3, "capability-error")
        ctx.expect_eq(run.report.get("interrupted"), signame, "interrupted")
        ctx.expect(signame in (run.report.get("reason") or ""), "reason does not name %s: %r" %
                   (signame, run.report.get("reason")))
        ctx.expect(agent_pid and not any(process_alive(p) for p in agent_pid),
                   "agent %s outlived the supervisor" % agent_pid)
    fn.__name__ = "%s_kills_agent_and_gives_capability_error" % signame.lower()
    test()(fn)


for _sig in ("SIGTERM", "SIGINT", "SIGHUP"):
    make_signal_test(_sig)


@test()
def supervisor_sigkill_leaves_no_agent(ctx):
    proc, report_path, log_path, agent_pid = start_long_running(ctx)
    proc.kill()
    proc.wait()
    ctx.expect(agent_pid and wait_for(lambda: not any(process_alive(p) for p in agent_pid), 3),
               "agent %s outlived the SIGKILLed supervisor" % agent_pid)
    rep = load_report(ctx, report_path)
    ctx.require(rep is not None, "no report left behind")
    ctx.expect(rep.get("verdict") != "pass", "the left-behind report says pass")
    ctx.expect_eq(rep.get("complete"), False, "left-behind report complete")


# -------------------------------------------- issue 12: run integrity

@test()
def report_fd_holds_provisional_then_final_record(ctx):
    lis = ctx.tcp()
    run, recs, rest, _ = sv_with_channel(ctx, "connect-tcp", [lis.dest])
    ctx.expect_eq(run.rc, 0, "supervisor exit status")
    kinds = [k for k, _ in recs]
    ctx.require(kinds, "no record on the report channel")
    ctx.expect(all(k == "provisional" for k in kinds[:-1]) and kinds[-1] == "final",
               "records: want provisional... then final, got %s" % kinds)
    ctx.expect_eq([r.get("complete") for _, r in recs], [False] * (len(recs) - 1) + [True],
                  "complete per record")
    ctx.expect_eq(recs[-1][1].get("verdict"), "pass", "final verdict")
    ctx.expect_eq(recs[-1][1].get("channel"), {"fd": True, "fd_named": True, "path": False,
                                                "path_agent_writable": False},
                  "channel")
    ctx.expect_eq(rest, b"", "bytes after the last record")


@test()
def failed_report_file_makes_the_descriptors_final_record_a_capability_error(ctx):
    # Review h-attack34 (ha34-reportfail.sh): with --report-fd and --report
    # FILE, the record went to the descriptor first; when the agent then
    # made the file's write fail (its directory made read-only or renamed,
    # the disk filled) the supervisor exited 3 while the descriptor, the
    # channel the agent cannot write, ended in a complete pass. The file is
    # written first now, and its failure is an internal error that the
    # record after it carries. The test build's report_path seam fails the
    # final write of the file; mutant report-fd-first puts the old order
    # back.
    lis = ctx.tcp()
    for binary, verdict in ((None, "capability-error"),
                            (mutant_faults_binary("report-fd-first"), "pass")):
        # The harness's own check of record against exit status is the
        # defect the mutant shows: checked here instead.
        run, recs, _, _ = sv_with_channel(ctx, "connect-tcp", [lis.dest], path=True, binary=binary,
                                          fault="report_path:EIO", check=binary is None)
        ctx.expect_eq(run.rc, 3, "%s: exit status" % (binary or "supervisor"))
        ctx.require(recs, "no record on the report channel")
        kind, last = recs[-1]
        ctx.expect_eq((kind, last.get("complete"), last.get("verdict")), ("final", True, verdict),
                      "%s: the channel's last record" % (binary or "supervisor"))
        if binary is None:
            ctx.expect("report file: EIO" in (last.get("reason") or ""),
                       "reason %r" % last.get("reason"))


@test(timeout=120)
def report_file_directory_swapped_for_a_link_is_not_followed(ctx):
    # Review h-attack34's ha34-redirect.sh: a root agent replaced the
    # directory of --report FILE (under a --writable path) with a symbolic
    # link to a host directory it cannot write (EROFS); the root
    # supervisor's final write looked the directory up again and replaced
    # the host's file of that name, pass. The directory is opened once at
    # set-up and every write is relative to it now. Mutant
    # report-path-resolved looks it up at each write again.
    if os.geteuid() != 0:
        raise Skip("needs root: the class is a root agent and a root supervisor")
    if not shutil.which("musl-gcc"):
        raise Skip("needs musl-gcc")
    out = review(ctx, "ha34-redirect.sh", SV)
    ctx.expect("RESULT: the host's file replaced in 0 of 3 runs" in out, "ha34-redirect.sh: %s" % out[-1200:])
    out = review(ctx, "ha34-redirect.sh", mutant_binary("report-path-resolved"))
    ctx.expect(re.search(r"RESULT: the host's file replaced in [1-3] of 3 runs", out),
               "mutant report-path-resolved: %s" % out[-1200:])


@test(timeout=150)
def root_agent_cannot_kill_or_freeze_its_callers_cgroup(ctx):
    # Review h-attack34's ha34-cgroup.sh: a root agent made a user
    # namespace of its own, a cgroup namespace in it, and mounted cgroup2,
    # whose root is the cgroup the supervisor started in and whose files
    # its uid 0 owns: cgroup.kill killed the supervisor, its caller and a
    # bystander; cgroup.freeze froze them, the caller's timeout included.
    # A root agent's CLONE_NEWCGROUP is refused now (neutralized). Mutant
    # cgroup-namespace-open lets it through: the kill and freeze legs reach
    # the caller's cgroup.
    if os.geteuid() != 0:
        raise Skip("needs root: the class is a root agent")
    if not shutil.which("musl-gcc") or not shutil.which("timeout"):
        raise Skip("needs musl-gcc and timeout")
    with open("/proc/mounts") as f:
        if not any(line.split()[2] == "cgroup2" for line in f):
            raise Skip("needs a cgroup2 mount")
    out = review(ctx, "ha34-cgroup.sh", SV, timeout=70, env={"RUNS": "1"})
    ctx.expect("RESULT: the caller's cgroup killed or frozen in 0 of 3 legs" in out,
               "ha34-cgroup.sh: %s" % out[-1500:])
    out = review(ctx, "ha34-cgroup.sh", mutant_binary("cgroup-namespace-open"), timeout=70,
                 env={"RUNS": "1"})
    ctx.expect(re.search(r"RESULT: the caller's cgroup killed or frozen in [12] of 3 legs", out),
               "mutant cgroup-namespace-open: %s" % out[-1500:])


@test(timeout=150)
def later_run_follows_no_link_an_earlier_root_agent_left(ctx):
    # Review h-attack36's ha36-nextrun.sh: run 1's root agent replaced its
    # report's directory, and a path under its --writable one, with
    # symbolic links to a host directory it could not write; run 2 (the
    # same command line, a harmless agent) opened them at set-up through
    # the links: its reports replaced the host's file, and its root agent
    # wrote the host directory. A root supervisor follows no link in those
    # paths now (the run is refused, naming the link). Mutants
    # report-link-followed and declared-link-followed each reopen one.
    if os.geteuid() != 0:
        raise Skip("needs root: the class is a root agent and a root supervisor")
    if not shutil.which("musl-gcc"):
        raise Skip("needs musl-gcc")
    report_leg = "RESULT: the host's file replaced by a later run in %s of 1 runs"
    declared_leg = "RESULT: a later run's root agent wrote the host directory in %s of 1 runs"
    for binary, report_n, declared_n in (
            (SV, "0", "0"), (mutant_binary("report-link-followed"), "1", "0"),
            (mutant_binary("declared-link-followed"), "0", "1")):
        out = review(ctx, "ha36-nextrun.sh", binary, env={"RUNS": "1"})
        ctx.expect(report_leg % report_n in out and declared_leg % declared_n in out,
                   "%s: %s" % (binary, out[-1200:]))


@test(timeout=120)
def report_directory_moved_aside_during_the_run_is_a_capability_error(ctx):
    # Review h-attack36's ha36-swapdir.sh: the agent moved the report's
    # directory aside, put its own in its place with a forged pass, and
    # made a denied connect: the supervisor's report went to the moved
    # directory, exit 1, while FILE said pass. The directory is checked
    # against the one opened at set-up at the final write now: moved is an
    # error (ESTALE), so the exit status and the descriptor's last record
    # say capability-error, and FILE's pass is never believed. Mutant
    # report-dir-moved-trusted writes the moved directory again: exit 1.
    if not shutil.which("musl-gcc"):
        raise Skip("needs musl-gcc")
    out = review(ctx, "ha36-swapdir.sh", SV, env={"RUNS": "1"})
    ctx.expect_eq(len(re.findall(r"supervisor exit 3", out)), 2, "exit 3 as root and as uid 1000: %s"
                  % out[-1500:])
    ctx.expect_eq(out.count('descriptor\'s last record: "verdict": "capability-error"'), 2,
                  "the descriptor's last records: %s" % out[-1500:])
    out = review(ctx, "ha36-swapdir.sh", mutant_binary("report-dir-moved-trusted"), env={"RUNS": "1"})
    ctx.expect(re.search(r"supervisor exit 1", out), "mutant report-dir-moved-trusted: %s" % out[-1500:])


@test()
def report_fd_forgery_by_agent_finds_no_route_and_killed_supervisor_vouches_for_nothing(ctx):
    # As uid 1000 in the supervisor's user namespace the agent's parent is
    # the reaper of its pid namespace (its SIGKILL is dropped, as for root:
    # the next test); where user namespaces are refused (the seam) the agent
    # is the supervisor's child and can SIGKILL it unless Landlock scopes
    # its domain for signals (6.12+).
    for fault in (None, NO_USERNS):
        bad = ctx.tcp(UNDECLARED)
        run, recs, rest, path = sv_with_channel(ctx, "forge-report", [bad.dest], path=True,
                                                no_loopback=True, uid1000=True, check=False,
                                                fault=fault)
        if run.report and (run.report.get("probe") or {}).get("containment") in ("ENOSYS", "EOPNOTSUPP"):
            raise Skip("no Landlock on this kernel: a uid-1000 agent is refused (capability-error)")
        userns = fault is None
        ctx.expect_eq(run.report and run.report.get("containment"),
                      USERNS_CONTAINMENT if userns else subreaper_containment(), "containment")
        # The supervisor finishes with its own final record when the kill
        # cannot reach it.
        scoped = userns or landlock_abi() >= 6
        ctx.expect_eq(run.rc, 1 if scoped else -signal.SIGKILL,
                      "supervisor exit (finished)" if scoped else "supervisor killed by its agent")
        expect_agent(ctx, run, "connect", -1, "EACCES")
        expect_agent(ctx, run, "kill_supervisor", 0)
        if scoped and not userns:
            ctx.expect_eq([x.get("errno") for x in run.agent_lines(call="kill_supervisor", failed=True)],
                          ["EPERM"], "the agent's kill of its supervisor (signal scope)")
        # The descriptor is not the agent's, and the supervisor's table (or
        # the reaper's) is closed to it (not dumpable): no route to the channel.
        expect_agent(ctx, run, "forge_fd", -1, "EBADF")
        for call in ("forge_proc_fd", "forge_fd_target"):
            line = expect_agent(ctx, run, call, -1)
            ctx.expect(line.get("errno") in ("EACCES", "EPERM", "ENOENT"), "%s: %s" % (call, line))
        ctx.require(recs, "no record on the report channel")
        if scoped:
            ctx.expect_eq([k for k, _ in recs][-1:], ["final"], "the last record is the supervisor's final one")
        else:
            ctx.expect_eq([k for k, _ in recs], ["provisional"] * len(recs), "records left by a killed supervisor")
        ctx.expect_eq((recs[0][1].get("channel") or {}).get("path_agent_writable"), True,
                      "the report says its --report path is the agent's to write")
        ctx.expect_eq(recs[-1][1].get("verdict"), "fail" if scoped else "capability-error",
                      "last record's verdict")
        ctx.expect_eq(rest, b"", "bytes after the last record")
        # The --report path is the documented weak channel: the agent (same
        # uid, writable directory) replaced it. Only the exit status
        # contradicts it.
        expect_agent(ctx, run, "forge_path", 0)
        with open(path) as f:
            # A supervisor that finishes renames its final report over the forgery.
            ctx.expect_eq(json.load(f).get("verdict"), "fail" if scoped else "pass",
                          "--report file (forged: documented limit, unless the supervisor finished)")
        ctx.expect("can write the directory" in run.err,
                   "no warning about the writable report directory: %r" % run.err[-300:])
        ctx.expect_eq(bad.conns, 0, "connections at the undeclared listener")


@test()
def report_fd_forging_root_agent_cannot_reach_its_supervisor(ctx):
    # A root supervisor runs the agent under the reaper of its own pid
    # namespace: the agent's parent is that reaper, which no signal from
    # inside reaches, so the supervisor finishes with its own final record.
    bad = ctx.tcp(UNDECLARED)
    run, recs, rest, _ = sv_with_channel(ctx, "forge-report", [bad.dest], no_loopback=True)
    ctx.expect_eq(run.report.get("containment"), "pid-namespace", "containment")
    expect_outcome(ctx, run, 1, "fail")
    expect_agent(ctx, run, "kill_supervisor", 0)
    expect_agent(ctx, run, "forge_fd", -1, "EBADF")
    # /proc/PPID is the reaper (pid 1 of the namespace): not dumpable, and
    # it holds nothing of the caller's.
    line = expect_agent(ctx, run, "forge_proc_fd", -1)
    ctx.expect(line.get("errno") in ("EACCES", "EPERM", "ENOENT"), "forge_proc_fd: %s" % line)
    ctx.expect_eq([k for k, _ in recs][-1:], ["final"], "the last record is the supervisor's final one")
    ctx.expect_eq(rest, b"", "bytes after the last record")
    ctx.expect_eq(bad.conns, 0, "connections at the undeclared listener")


def reaper_descriptors(ctx, binary):
    """Runs a root supervisor (pid-namespace containment) with --report-fd 9
    and /bin/sleep as the agent; returns the targets of the reaper's
    descriptors (the supervisor's child whose child is the agent) and the
    channel's path."""
    d, _, _ = ctx.paths()
    chan = os.path.join(d, "channel")
    fd = os.open(chan, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    argv = [binary, "--report-fd", "9", "--", "/bin/sleep", "3"]
    ctx.last_argv = argv
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, close_fds=False,
                                preexec_fn=lambda: os.dup2(fd, 9))
    finally:
        os.close(fd)
    ctx.closers.append(proc.kill)

    def children(pid):
        try:
            with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
                return [int(x) for x in f.read().split()]
        except OSError:
            return []

    def comm(pid):
        try:
            with open("/proc/%d/comm" % pid) as f:
                return f.read().strip()
        except OSError:
            return ""

    reaper = []
    ctx.require(wait_for(lambda: reaper.extend(r for r in children(proc.pid)
                                               if any(comm(a) == "sleep" for a in children(r)))
                         or reaper, 5), "no reaper with the agent under it")
    targets = []
    for name in os.listdir("/proc/%d/fd" % reaper[0]):
        try:
            targets.append(os.readlink("/proc/%d/fd/%s" % (reaper[0], name)))
        except OSError:
            pass
    proc.kill()
    proc.communicate()
    return targets, chan


@test()
def reaper_holds_none_of_the_callers_descriptors(ctx):
    # The reaper is init of the agent's pid namespace: the agent (same uid,
    # root here) names it /proc/1. It must hold nothing of the caller's: not
    # the report channel, not an inherited socket.
    targets, chan = reaper_descriptors(ctx, SV)
    ctx.expect(chan not in targets, "the reaper holds the report channel: %s" % targets)
    ctx.expect(len(targets) <= 4, "the reaper holds more than stdio and its status pipe: %s" % targets)
    # The check can fail: the reaper-holds-fds mutant keeps the caller's table.
    mtargets, mchan = reaper_descriptors(ctx, mutant_binary("reaper-holds-fds"))
    ctx.expect(mchan in mtargets, "reaper-holds-fds mutant: channel not held: %s" % mtargets)


@test()
def report_fd_leak_mutant_lets_agent_append_forged_final_record(ctx):
    """The check above must be able to fail: with the report-fd-leak mutant
    the agent's own descriptor 9 is the channel."""
    binary = mutant_binary("report-fd-leak")
    bad = ctx.tcp(UNDECLARED)
    run, recs, _, _ = sv_with_channel(ctx, "forge-report", [bad.dest], binary=binary, no_loopback=True,
                                      check=False, uid1000=True)
    expect_agent(ctx, run, "forge_fd", 0)
    if landlock_abi() >= 6:
        # The kill is EPERM (signal scope): the supervisor's own final record
        # comes after the forged one, but the forged one is on the channel.
        ctx.expect_eq(run.rc, 1, "supervisor exit (its agent could not kill it)")
        ctx.expect(any(k == "final" and r.get("verdict") == "pass" for k, r in recs),
                   "the mutant's channel should hold the forged final pass: %s" % [k for k, _ in recs])
        return
    ctx.expect_eq(run.rc, -signal.SIGKILL, "supervisor killed by its agent")
    ctx.expect(recs and recs[-1][0] == "final" and recs[-1][1].get("verdict") == "pass",
               "the mutant's channel should end in the forged final pass: %s" % [k for k, _ in recs])


def make_bad_report_fd_test(slug, fd_setup, needle):
    def fn(ctx):
        fd = fd_setup()
        argv = [SV, "--report-fd", str(fd), "--", os.path.join(AGENTS, "no-network")]
        ctx.last_argv = argv
        open_fd = fd > 2 and fd != 250
        p = subprocess.run(argv, capture_output=True, text=True, timeout=20,
                           pass_fds=(fd,) if open_fd else ())
        ctx.expect_eq(p.returncode, 2, "exit status")
        ctx.expect(needle in p.stderr, "message does not say %r: %r" % (needle, p.stderr))
    fn.__name__ = "bad_invocation_report_fd_%s_exits_2" % slug
    test()(fn)


make_bad_report_fd_test("read_only", lambda: os.open("/dev/null", os.O_RDONLY), "read-only")
make_bad_report_fd_test("not_open", lambda: 250, "Bad file descriptor")
make_bad_report_fd_test("stdio", lambda: 1, ">= 3")
