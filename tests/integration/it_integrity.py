"""Integration tests for issue 12 (run integrity).

The guarantees of docs/design.md that the audit of 20de0b1 found unshown, each
shown on this host, through the faults build's seam where the kernel condition
(a kernel before 5.9, one without pid namespaces, a filesystem without
O_TMPFILE, a refused kcmp) cannot be produced here.

Registered into harness.TESTS when run.py imports it."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from harness import (AGENTS, BUILD, NO_USERNS, SV, SV_FAULTS, TOP, UNDECLARED, USERNS_CONTAINMENT, Run, Skip,
                     check_report, errno_in, expect_agent,
                     expect_event, expect_inherited_socket_closed, expect_outcome, landlock_abi,
                     mutant_binary, mutant_faults_binary, parse_records, read_log, review,
                     rewrite_run, run_script, start_launched, test,
                     subreaper_containment, wait_for)


# ----------------------------------------- the agent's descriptors (close_range)

@test()
def close_range_enosys_falls_back_to_proc_self_fd(ctx):
    # A kernel before 5.9 (forced through the seam): every entry of
    # /proc/self/fd is closed instead, and the inherited socket is gone.
    sink = ctx.udp(UNDECLARED)
    proc, report_path, log_path = start_launched(ctx, "udp", sink.dest, "inherit-fd", [],
                                                 fault="close_range:ENOSYS")
    expect_inherited_socket_closed(ctx, ctx.finish(proc, report_path, log_path, build="faults"),
                                   sink)


@test()
def close_range_refused_means_the_agent_never_runs(ctx):
    # close_range refused with another errno (a seccomp profile, say): the
    # caller's descriptors cannot be shown closed, so the agent must not run.
    sink = ctx.udp(UNDECLARED)
    proc, report_path, log_path = start_launched(ctx, "udp", sink.dest, "inherit-fd", [],
                                                 fault="close_range:EPERM")
    run = ctx.finish(proc, report_path, log_path, build="faults")
    expect_outcome(ctx, run, 3, "capability-error")
    ctx.expect("could not execute the agent" in (run.report.get("reason") or ""),
               "reason: %r" % run.report.get("reason"))
    ctx.expect(errno_in(run.report.get("reason"), "EPERM") or "not permitted" in (run.report.get("reason") or ""),
               "reason does not name EPERM: %r" % run.report.get("reason"))
    ctx.expect_eq([x for x in run.log if x.get("agent") != "fd-launcher"], [],
                  "agent log (the agent ran)")
    time.sleep(0.2)
    ctx.expect_eq(sink.got(), [], "datagrams at the undeclared sink")


# ----------------------------------------- a kernel without pid namespaces

def require_root_containment(ctx):
    if os.geteuid() != 0:
        raise Skip("needs a root supervisor (pid-namespace containment)")


@test()
def kernel_without_pid_namespaces_refuses_a_root_agent(ctx):
    # clone(CLONE_NEWPID) answers EINVAL without CONFIG_PID_NS: in the probe
    # (its canary is contained as the agent will be) and, should the probe
    # have passed, again for the agent. Neither runs the agent.
    require_root_containment(ctx)
    for fault, where in (("probe.clone_newpid:EINVAL", "probe"), ("clone_newpid:EINVAL", "run")):
        lis = ctx.tcp()
        run = ctx.sv("connect-tcp", [lis.dest], fault=fault)
        expect_outcome(ctx, run, 3, "capability-error")
        probe = run.report.get("probe") or {}
        if where == "probe":
            ctx.expect_eq((probe.get("containment"), probe.get("result")), ("EINVAL", "failed"),
                          "probe containment / result")
            ctx.expect("no pid namespaces" in run.out and "SECCOMP" not in run.out,
                       "%s: want the pid-namespace hint alone on stdout: %r" % (where, run.out))
        else:
            ctx.expect_eq(probe.get("result"), "ok", "probe.result")
            ctx.expect("could not contain the agent" in (run.report.get("reason") or ""),
                       "%s: reason %r" % (where, run.report.get("reason")))
        ctx.expect_eq(run.log, [], "%s: agent log (the agent ran)" % where)
        time.sleep(0.2)
        ctx.expect_eq(lis.conns, 0, "%s: connections at the listener" % where)


@test()
def kernel_without_ipc_namespaces_refuses_where_sysv_ipc_exists(ctx):
    # clone(CLONE_NEWIPC) answers EINVAL without CONFIG_IPC_NS. This host
    # has SysV IPC, so an agent asked again without it would share the
    # host's segments (hostile re-run h-rerun2, 11.4): the run is refused,
    # in the probe and in the run. Mutant ipc-retry-blind asks again
    # anyway and runs the agent.
    require_root_containment(ctx)
    for fault, where in (("probe.clone_newipc:EINVAL", "probe"), ("clone_newipc:EINVAL", "run")):
        run = ctx.sv("no-network", [], fault=fault)
        expect_outcome(ctx, run, 3, "capability-error")
        if where == "probe":
            ctx.expect_eq((run.report.get("probe") or {}).get("containment"), "EINVAL",
                          "probe containment")
        ctx.expect("CONFIG_IPC_NS" in run.out + run.err, "%s: the hint: %r" % (where, run.err[-300:]))
        ctx.expect_eq(run.log, [], "%s: agent log (the agent ran)" % where)
    run = ctx.sv("no-network", [], fault="probe.clone_newipc:EINVAL,clone_newipc:EINVAL",
                 binary=mutant_faults_binary("ipc-retry-blind"))
    expect_outcome(ctx, run, 0, "pass")


def expect_containment_refused(ctx, site, errno_name, hint, also=None):
    """A uid-1000 connect-tcp run with the seam failing site (and the seam
    entry also, in both phases), in the probe's canary and then in the
    agent's child: capability-error, probe containment errno_name with hint
    on stdout (the probe) or a refused run, and the agent never runs."""
    for fault, where in (("probe.%s:%s" % (site, errno_name), "probe"), ("%s:%s" % (site, errno_name), "run")):
        fault = fault if also is None else "%s,%s" % (also, fault)
        lis = ctx.tcp()
        run = ctx.sv("connect-tcp", [lis.dest], fault=fault, uid1000=True)
        expect_outcome(ctx, run, 3, "capability-error")
        probe = run.report.get("probe") or {}
        if where == "probe":
            ctx.expect_eq((probe.get("containment"), probe.get("result")), (errno_name, "failed"),
                          "probe containment / result")
            ctx.expect(hint in run.out, "probe: no hint %r on stdout: %r" % (hint, run.out))
        else:
            ctx.expect_eq(probe.get("result"), "ok", "probe.result")
            ctx.expect("could not contain the agent" in (run.report.get("reason") or ""),
                       "run: reason %r" % run.report.get("reason"))
        ctx.expect_eq(run.log, [], "%s: agent log (the agent ran)" % where)
        if also == NO_USERNS:
            # A run that ends at the probe still says why it had no user
            # namespace.
            ctx.expect_eq(run.report.get("userns_refused"), "EPERM", "%s: userns_refused" % where)
        time.sleep(0.2)
        ctx.expect_eq(lis.conns, 0, "%s: connections at the listener" % where)


@test()
def no_landlock_refuses_a_non_root_agent(ctx):
    # A uid-1000 agent is always put in a Landlock domain, in its
    # supervisor's user namespace or not; Landlock not in the lsm= list
    # answers EOPNOTSUPP (the seam), in the probe's canary and in the
    # agent's child.
    expect_containment_refused(ctx, "landlock", "EOPNOTSUPP", "Landlock")
    expect_containment_refused(ctx, "landlock", "EOPNOTSUPP", "Landlock", also=NO_USERNS)


@test()
def signal_scope_not_kept_refuses_the_run(ctx):
    # Where user namespaces are refused (the seam NO_USERNS) the agent is
    # its supervisor's child, and the domain's signal scope is proven by
    # doing it: a signal to the supervisor from inside must be refused. The
    # seam makes the domain without the scope while everything else asks
    # for it: the proof sends the signal, so the probe (or the run) refuses
    # with containment EPROTO.
    if landlock_abi() < 6:
        raise Skip("needs Landlock ABI 6 (Linux >= 6.12) for the signal scope")
    expect_containment_refused(ctx, "signal_scope", "EPROTO", "scoped for signals", also=NO_USERNS)
    # The control: without the seam the same run passes.
    lis = ctx.tcp()
    run = ctx.sv("connect-tcp", [lis.dest], uid1000=True, fault=NO_USERNS)
    expect_outcome(ctx, run, 0, "pass")
    ctx.expect_eq(run.report.get("containment"), "subreaper+landlock+signal-scope", "containment")
    ctx.expect_eq(run.report.get("userns_refused"), "EPERM", "userns_refused")


@test()
def fallback_inside_the_user_namespace_drops_cap_sys_admin_and_says_so(ctx):
    # The user namespace is made but the pid and mount namespaces in it are
    # refused (seam clone_newpid, in the run only: the probe's canary had
    # them): the agent is the subreaper's child inside that namespace, and
    # the CAP_SYS_ADMIN kept for the namespaces must go all the same, as in
    # user-namespace mode (found by review h-attack7: it stayed for the
    # whole run). The mutant fallback-keeps-admin keeps it.
    for binary, want in ((None, 0), (mutant_faults_binary("fallback-keeps-admin"), 1 << 21)):
        proc, report_path, log_path = ctx.start("/bin/sleep", ["1"], uid1000=True,
                                                fault="clone_newpid:EPERM", binary=binary)
        time.sleep(0.5)
        try:
            with open("/proc/%d/status" % proc.pid) as f:
                eff = int(next(l for l in f if l.startswith("CapEff:")).split()[1], 16)
        except (OSError, StopIteration):
            eff = None
        run = ctx.finish(proc, report_path, log_path)
        expect_outcome(ctx, run, 0, "pass")
        ctx.expect_eq(run.report.get("containment"), subreaper_containment(), "containment")
        ctx.expect_eq(run.report.get("userns_refused"), "EPERM", "userns_refused")
        ctx.expect_eq(eff, want, "%s: the supervisor's CapEff during the run" % (binary or "release"))
        if binary is None:
            ctx.expect("no user namespace for the agent (Operation not permitted)" in run.err,
                       "no warning on stderr: %r" % run.err[-400:])


@test()
def outsider_mem_of_a_root_agent_cannot_be_named(ctx):
    # A root supervisor's agent has its own pid namespace and /proc: a root
    # process outside it (idle-as 0) is not there to open. The mutant
    # root-agent-open (no namespace) finds it.
    require_root_containment(ctx)
    victim = subprocess.Popen([os.path.join(AGENTS, "idle-as"), "0"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ctx.closers.append(victim.kill)
    ctx.require(wait_for(lambda: "--idle" in open("/proc/%d/cmdline" % victim.pid).read(), 5),
                "idle-as never re-executed itself")
    run = ctx.sv("outsider-mem", [])
    expect_outcome(ctx, run, 0, "pass")
    ctx.expect_eq(run.report.get("containment"), "pid-namespace", "containment")
    expect_agent(ctx, run, "open_outsider_mem", -1, "ESRCH", dest=None)
    mrun = ctx.sv("outsider-mem", [], binary=mutant_binary("root-agent-open"))
    line = expect_agent(ctx, mrun, "open_outsider_mem")
    ctx.expect_eq(line.get("dest"), "/proc/%d/mem" % victim.pid, "root-agent-open: the victim found")


@test()
def root_agent_cannot_write_through_a_second_sysfs_mount(ctx):
    # Kernel knobs are judged by file system type, not path: a sysfs mounted
    # outside /sys (a chroot builder's) is read-only to a root agent too.
    # The file rewritten is printk's time parameter, written back with the
    # bytes it holds (a no-op where it succeeds: under proc-by-path).
    require_root_containment(ctx)
    knob = "module/printk/parameters/time"
    if not os.path.exists("/sys/" + knob):
        raise Skip("no /sys/%s here" % knob)
    extra = os.path.join(ctx.tmp, "sys2")
    os.mkdir(extra)

    def second_sysfs(argv):
        return ["unshare", "-m", "--propagation", "private", "sh", "-c",
                'mount -t sysfs sysfs "$0" && exec "$@"', extra] + argv

    for real in (True, False):
        binary = SV if real else mutant_binary("proc-by-path")
        run = rewrite_run(ctx, binary, "/", [os.path.join(extra, knob)], wrap=second_sysfs)
        line = expect_agent(ctx, run, "rewrite") or {}
        if real:
            expect_outcome(ctx, run, 0, "pass")
            ctx.expect_eq((line.get("result"), line.get("errno")), (-1, "EROFS"), "second sysfs")
        else:
            ctx.expect(line.get("result", -1) >= 0, "proc-by-path: should be writable: %s" % line)


# ----------------------------------------- after the supervisor is killed

@test(timeout=90)
def supervisor_sigkilled_leaves_enosys_to_what_survives(ctx):
    # uid 1000 where user namespaces are refused (the seam: subreaper and
    # Landlock): a daemonized grandchild outlives the SIGKILLed supervisor
    # (a known limit). Its connection made before keeps working (write is
    # never trapped; its peer was allowed); its next trapped call finds no
    # listener and fails with ENOSYS, so nothing reaches the undeclared
    # destination.
    proc, log_path, lis, bad = kill_under_daemonize(ctx, uid1000=True, fault=NO_USERNS)
    ctx.require(wait_for(lambda: any(x.get("call") == "connect_after" for x in read_log(log_path)), 25),
                "the grandchild did not survive the supervisor: %s" % read_log(log_path))
    run = Run(proc.returncode, "", "", None, read_log(log_path), proc.pid)
    expect_agent(ctx, run, "write_after", 6)
    expect_agent(ctx, run, "connect_after", -1, "ENOSYS")
    ctx.expect(wait_for(lambda: lis.received() == b"before\nafter\n", 3),
               "declared listener got %r" % lis.received())
    time.sleep(0.2)
    ctx.expect_eq(bad.conns, 0, "connections at the undeclared destination")
    ctx.expect_eq(proc.returncode, -9, "supervisor exit (killed)")
    # The control: with the supervisor alive, the same late connect is its
    # denial, so the ENOSYS above is the dead listener's.
    flag2 = os.path.join(ctx.tmp, "go")
    with open(flag2, "w"):
        pass
    run = ctx.sv("daemonize", ["--outlive", flag2, lis.dest, bad.dest], allow=[lis.dest],
                 no_loopback=True, uid1000=True, fault=NO_USERNS)
    expect_outcome(ctx, run, 1, "fail")
    expect_agent(ctx, run, "connect_after", -1, "EACCES")


@test(timeout=90)
def killed_uid1000_supervisor_takes_its_daemonized_descendants_with_it(ctx):
    # A uid-1000 supervisor in a user namespace of its own runs the agent
    # under the reaper of its pid namespace, as root does: whatever kills
    # the supervisor (here SIGKILL from outside, as the OOM killer would)
    # kills the reaper by its death signal and the kernel the namespace.
    # The setsid grandchild never writes again. The control, the mutant
    # no-userns (the subreaper shape), leaves it alive.
    for binary in (None, mutant_binary("no-userns")):
        proc, log_path, lis, bad = kill_under_daemonize(ctx, uid1000=True, binary=binary)
        wait_for(lambda: any(x.get("call") == "connect_after" for x in read_log(log_path)), 3)
        late = [x for x in read_log(log_path) if x.get("call") in ("write_after", "connect_after")]
        if binary is None:
            ctx.expect_eq(late, [], "the grandchild's calls after its supervisor was SIGKILLed")
            ctx.expect_eq(lis.received(), b"before\n", "bytes at the declared listener")
        else:
            ctx.expect(late, "no-userns mutant: the grandchild did not outlive its supervisor")
        ctx.expect_eq(bad.conns, 0, "connections at the undeclared destination")


# ha34-reuse.sh made short: the run's pids above the reserved 300 (reused
# once pid_max wraps), a bystander that takes every pid freed at once, the
# signal after 1.5 s. The review's own settings hit 1 or 2 runs in 10.
REUSE_ENV = {"HA34_WAIT": "1.5", "HA34_LATE": "1", "HA34_PID_MAX": "700",
             "HA34_VICTIMS": "1000 3"}


def reuse_runs(ctx, binary, mode, runs):
    """ha34-reuse.sh MODE with RUNS runs against binary: (runs in which a
    bystander outside the run died of a SIGKILL, runs seen)."""
    out = review(ctx, "ha34-reuse.sh", binary, timeout=40 + 8 * runs,
                 env=dict(REUSE_ENV, HA34_MODE=mode, HA34_RUNS=str(runs)))
    seen = re.findall(r"^run \d+ \(%s\): supervisor exit (\d+); VICTIMS born \d+, "
                      r"killed by SIGKILL (\d+)," % mode, out, re.M)
    ctx.expect_eq(len(seen), runs, "%s runs that ended with the bystander's count:\n%s"
                  % (mode, out[-1500:]))
    ctx.expect_eq(sorted({rc for rc, _ in seen}), ["3"],
                  "%s: exit statuses of the interrupted supervisor" % mode)
    return sum(1 for _, killed in seen if int(killed)), len(seen)


@test(timeout=150)
def interrupted_supervisor_kills_nothing_outside_the_run(ctx):
    # Review h-attack34: SIGTERM to a supervisor whose agent keeps pids
    # moving; a bystander outside the run keeps as many short-lived children
    # as the pid namespace has pids. The kill loop that signalled /proc's
    # pids by number went on after the reaper's death had freed them, and
    # SIGKILLed the bystander's children that took them. Now nothing but our
    # unreaped children is signalled by number (the pid-namespace modes),
    # and every other descendant through a pidfd proven ours
    # (subreaper+landlock, the seam userns:EPERM of the test build). The
    # mutant kill-by-pid puts the old loop back: here it hit 10 of 12 runs
    # (uid 1000) and 5 of 8 (root), so 4 runs miss all by chance about
    # once in 2,000. One run per mode for the supervisor keeps make test
    # under 20 minutes; the review's script runs more.
    if os.geteuid() != 0 or not shutil.which("musl-gcc") or not shutil.which("unshare"):
        raise Skip("needs root (a pid namespace of its own), musl-gcc and unshare")
    try:
        major, minor = (int(x) for x in os.uname().release.split(".")[:2])
    except ValueError:
        raise Skip("cannot read the kernel version from %r" % os.uname().release)
    if (major, minor) < (6, 14):
        # Before 6.14 pid_max is global: the script would lower the host's.
        raise Skip("pid_max per pid namespace needs Linux 6.14 (this kernel: %s)"
                   % os.uname().release)
    mutant = mutant_binary("kill-by-pid")
    for binary, mode in ((SV, "root"), (SV, "uid1000"), (SV_FAULTS, "subreaper")):
        hit, runs = reuse_runs(ctx, binary, mode, 1)
        ctx.expect_eq(hit, 0, "%s: runs (of %d) in which the supervisor SIGKILLed a process "
                      "outside the run" % (mode, runs))
    hit, runs = reuse_runs(ctx, mutant, "uid1000", 4)
    print("  kill-by-pid: a bystander SIGKILLed in %d of %d runs" % (hit, runs))
    ctx.expect(hit > 0, "kill-by-pid mutant: no bystander SIGKILLed in %d runs" % runs)


def newpid_refused():
    """preexec_fn: CLONE_NEWPID refused (seccomp_mask.newpid_mask)."""
    sys.path.insert(0, os.path.join(TOP, "tests", "hostprofile"))
    import seccomp_mask
    seccomp_mask.newpid_mask()


def capbset_drop_refused_256():
    """preexec_fn: prctl(PR_CAPBSET_DROP) answered with errno 256, which an
    8-bit exit status reads as 0."""
    sys.path.insert(0, os.path.join(TOP, "tests", "hostprofile"))
    import seccomp_mask as M
    ld, jeq, ret = 0x20, 0x15, 0x06
    M.install(b"".join([
        M.bpf(ld, 0, 0, 4), M.bpf(jeq, 0, 4, M.AUDIT_ARCH_X86_64),
        M.bpf(ld, 0, 0, 0), M.bpf(jeq, 0, 2, 157),        # prctl
        M.bpf(ld, 0, 0, 16), M.bpf(jeq, 1, 0, 24),        # PR_CAPBSET_DROP
        M.bpf(ret, 0, 0, M.SECCOMP_RET_ALLOW),
        M.bpf(ret, 0, 0, M.SECCOMP_RET_ERRNO | 256),
    ]))


@test()
def user_namespace_trial_answer_is_read_whole(ctx):
    # Review h-attack8: a profile refusing a step of the trial with an errno
    # above 255 must make the supervisor stay out of the namespace, not read
    # the trial as a success and refuse the run from inside. An errno that
    # is not one a host refuses with (EPERM, EACCES, EINVAL, ENOSYS, EUSERS,
    # ENOSPC at a zero limit) refuses the run by its name rather than
    # falling back (review h-attack67: another process's interference must
    # not choose a weaker containment).
    for binary in (None, mutant_binary("trial-exit-code")):
        proc, report_path, log_path = ctx.start("/bin/sh", ["-c", "true"], uid1000=True,
                                                preexec=capbset_drop_refused_256,
                                                binary=binary)
        ctx.closers.append(proc.kill)
        run = ctx.finish(proc, report_path, log_path)
        if binary is None:
            expect_outcome(ctx, run, 3, "capability-error")
            ctx.expect_eq((run.report.get("probe") or {}).get("containment"), "E256",
                          "probe.containment under the errno-256 mask")
            ctx.expect("could not map our ids" not in run.err,
                       "entered the namespace under the mask: %r" % run.err[-200:])
        else:
            ctx.expect(run.rc == 3 and "could not map our ids" in run.err,
                       "trial-exit-code mutant: rc %s, %r" % (run.rc, run.err[-200:]))


@test()
def the_trial_does_not_take_the_last_user_namespace(ctx):
    # Review h-attack8: the trial's namespace is freed after an RCU grace
    # period, not when its child is reaped, so with one user namespace left
    # the supervisor's own entry met ENOSPC and fell back. Run as root in a
    # user namespace of the test's own (tests/review/ha8-inns.py), whose
    # user.max_user_namespaces is 1 for everything below it; one run each,
    # so no earlier run's namespace is still being freed. The mutant
    # trial-holds-slot believes the first ENOSPC.
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        raise Skip("needs root (a user namespace with its own limit) and setpriv")
    os.chmod(ctx.tmp, 0o777)
    for binary in (SV, mutant_binary("trial-holds-slot")):
        report = os.path.join(ctx.tmp, "slot-%s.json" % (binary != SV))
        script = ('echo 1 >/proc/sys/user/max_user_namespaces && '
                  'exec setpriv --reuid 1000 --regid 1000 --clear-groups "$0" --report "$1" -- /bin/true')
        argv = [sys.executable, os.path.join(TOP, "tests", "review", "ha8-inns.py"),
                "sh", "-c", script, binary, report]
        ctx.last_argv = argv
        p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        ctx.require(os.path.exists(report), "no report: rc %d, %s" % (p.returncode, p.stderr[-300:]))
        with open(report) as f:
            r = json.load(f)
        got = (r.get("containment"), r.get("userns_refused"))
        if binary == SV:
            ctx.expect_eq(got, (USERNS_CONTAINMENT, None), "containment with one namespace left")
        else:
            # Its ENOSPC with a limit of 1, not 0, is used up for now
            # (review h-attack65): refused, not run weaker.
            ctx.expect_eq((r.get("verdict"), got[0]), ("capability-error", None),
                          "trial-holds-slot mutant: verdict and containment")


@test()
def user_namespace_that_gives_nothing_is_found_before_the_supervisor_enters_one(ctx):
    # A host may let a user namespace be made and refuse what it gives
    # (Ubuntu's apparmor_restrict_unprivileged_userns; here a seccomp mask
    # refusing CLONE_NEWPID). The supervisor tries the whole of it in a
    # throwaway child first, so it stays in the initial user namespace and
    # falls back to the subreaper from there, not from inside a namespace it
    # could never leave. The control (no mask) is in a namespace of its own.
    init_ns = os.readlink("/proc/self/ns/user")
    for masked in (True, False):
        ns, run = run_reading_user_ns(ctx, newpid_refused if masked else None)
        expect_outcome(ctx, run, 0, "pass")
        if masked:
            ctx.expect_eq(ns, init_ns, "the supervisor's user namespace under the mask")
            ctx.expect_eq((run.report.get("containment"), run.report.get("userns_refused")),
                          (subreaper_containment(), "EPERM"), "containment, userns_refused")
            ctx.expect("no user namespace for the agent (Operation not permitted)" in run.err,
                       "no warning on stderr: %r" % run.err[-300:])
        else:
            ctx.expect(ns != init_ns, "the supervisor stayed in the initial user namespace")
            ctx.expect_eq(run.report.get("containment"), USERNS_CONTAINMENT, "containment")
    # The check can fail: without the trial the supervisor enters its
    # namespace first and falls back from inside it, for the rest of its life.
    ns, _ = run_reading_user_ns(ctx, newpid_refused, mutant_binary("userns-untried"))
    ctx.expect(ns != init_ns and not ns.startswith("gone"),
               "userns-untried mutant: the supervisor's namespace %s" % ns)


def run_reading_user_ns(ctx, preexec, binary=None):
    """A uid-1000 run of `sh -c 'sleep 0.5'` (preexec as root before it);
    reads the supervisor's /proc/PID/ns/user while the agent sleeps.
    Returns (that link, or "gone (...)", the finished Run)."""
    proc, report_path, log_path = ctx.start("/bin/sh", ["-c", "sleep 0.5"], uid1000=True,
                                            preexec=preexec, binary=binary)
    ctx.closers.append(proc.kill)
    time.sleep(0.25)
    try:
        ns = os.readlink("/proc/%d/ns/user" % proc.pid)
    except OSError as e:
        ns = "gone (%s)" % e
    return ns, ctx.finish(proc, report_path, log_path)


def kill_under_daemonize(ctx, uid1000=False, binary=None, fault=None):
    """Runs daemonize --outlive, SIGKILLs the supervisor once the grandchild
    has written on its declared connection, then lets the grandchild go on
    (if it lives). Returns (the killed supervisor, the agent log's path, the
    declared listener, the undeclared one)."""
    lis = ctx.tcp(reply=True)
    bad = ctx.tcp(UNDECLARED)
    flag = os.path.join(ctx.tmp, "supervisor-dead-%s-%s" % (binary is not None, fault is not None))
    proc, report_path, log_path = ctx.start("daemonize", ["--outlive", flag, lis.dest, bad.dest],
                                            allow=[lis.dest], no_loopback=True, uid1000=uid1000,
                                            binary=binary, fault=fault)
    ctx.closers.append(proc.kill)
    ctx.require(wait_for(lambda: any(x.get("call") == "write_before" for x in read_log(log_path)), 15),
                "the grandchild never connected: %s" % read_log(log_path))
    ctx.require(wait_for(lambda: lis.received() == b"before\n", 5), "listener got %r" % lis.received())
    proc.kill()
    proc.wait()
    # The kernel ends the tree after the supervisor, not with it: the
    # reaper's death signal, then its namespace's teardown
    # (zap_pid_ns_processes). A flag raised at once let the grandchild
    # write on its declared connection in that window (the clean-clone CI
    # run, once); what is claimed is that nothing outlives it.
    time.sleep(0.5)
    with open(flag, "w"):
        pass
    return proc, log_path, lis, bad


def killed_root_supervisor_run(ctx, binary=None):
    """kill_under_daemonize under a root supervisor. Returns (log lines,
    bytes at the declared listener, connections at the undeclared one)."""
    if os.geteuid() != 0:
        raise Skip("needs root (a root supervisor runs the agent in a pid namespace)")
    _, log_path, lis, bad = kill_under_daemonize(ctx, binary=binary)
    # The grandchild polls the flag every 10 ms: 3 s is ample to see it act.
    wait_for(lambda: any(x.get("call") == "connect_after" for x in read_log(log_path)), 3)
    return read_log(log_path), lis.received(), bad.conns


@test(timeout=60)
def killed_root_supervisor_takes_its_daemonized_descendants_with_it(ctx):
    # pid-namespace: the reaper has a death signal on the supervisor, and as
    # the namespace's init its death kills every process in it
    # (zap_pid_ns_processes), the setsid grandchild included. The uid-1000
    # counterparts above: gone in the user namespace, alive under a subreaper.
    log, got, bad_conns = killed_root_supervisor_run(ctx)
    ctx.expect(not [x for x in log if x.get("call") in ("write_after", "connect_after")],
               "the grandchild outlived the SIGKILLed root supervisor: %s" % log[-3:])
    ctx.expect_eq(got, b"before\n", "bytes at the declared listener")
    ctx.expect_eq(bad_conns, 0, "connections at the undeclared destination")


@test(timeout=60)
def root_agent_open_mutant_leaves_the_daemonized_grandchild_alive(ctx):
    # The control: without the pid namespace the same grandchild survives.
    binary = mutant_binary("root-agent-open")
    log, got, _ = killed_root_supervisor_run(ctx, binary=binary)
    ctx.expect([x for x in log if x.get("call") == "write_after"],
               "the grandchild did not outlive the mutant's supervisor: %s" % log[-3:])


# ----------------------------------------- --report-fd over a memfd and a pipe

def sv_over(ctx, kind, agent, args):
    """The supervisor with --report-fd 9 on a memfd or on a pipe a thread of
    ours drains. Returns (Run, records, trailing bytes)."""
    d, report_path, log_path = ctx.paths()
    chunks, drainer = [], None
    if kind == "memfd":
        fd = os.memfd_create("egress-report")
    else:
        rfd, fd = os.pipe()

        def drain():
            while True:
                b = os.read(rfd, 65536)
                if not b:
                    break
                chunks.append(b)
            os.close(rfd)
        drainer = threading.Thread(target=drain, daemon=True)
        drainer.start()
    argv = [SV, "--report-fd", "9", "--writable", ctx.tmp, "--", os.path.join(AGENTS, agent)] + \
        list(args)
    env = dict(os.environ, EGRESS_AGENT_LOG=log_path)
    env.pop("EGRESS_SV_FAULT", None)
    ctx.last_argv = argv
    try:
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30,
                              close_fds=False, preexec_fn=lambda: os.dup2(fd, 9))
        if kind == "memfd":
            chunks.append(os.pread(fd, 1 << 20, 0))
    finally:
        os.close(fd)
    if drainer:
        drainer.join(10)
        ctx.expect(not drainer.is_alive(), "the pipe never reached EOF (a writer outlived the run)")
    recs, rest = parse_records(b"".join(chunks))
    report = recs[-1][1] if recs else None
    run = Run(proc.returncode, proc.stdout, proc.stderr, report, read_log(log_path), None)
    if report is not None:
        check_report(ctx, run, "release")
    return run, recs, rest


@test()
def report_fd_on_memfd_and_drained_pipe_holds_provisional_then_final_record(ctx):
    for kind in ("memfd", "pipe"):
        lis = ctx.tcp()
        run, recs, rest = sv_over(ctx, kind, "connect-tcp", [lis.dest])
        ctx.expect_eq(run.rc, 0, "%s: supervisor exit status" % kind)
        kinds = [k for k, _ in recs]
        ctx.expect(kinds and kinds[0] == "provisional" and kinds[-1] == "final"
                   and all(k == "provisional" for k in kinds[:-1]),
                   "%s: records: want provisional... then final, got %s" % (kind, kinds))
        if recs:
            ctx.expect_eq(recs[-1][1].get("verdict"), "pass", "%s: final verdict" % kind)
            ctx.expect_eq(recs[0][1].get("complete"), False, "%s: first record complete" % kind)
        ctx.expect_eq(rest, b"", "%s: bytes after the last record" % kind)
        ctx.expect(wait_for(lambda: lis.conns == 1, 3), "%s: listener connections %d" % (kind, lis.conns))


# ----------------------------------------- kcmp refused (before 6.9)

@test()
def kcmp_refused_is_a_mechanism_failure_never_performed(ctx):
    # thread-files: the calling thread's descriptor 100 is its own socket,
    # the leader's 100 another. With thread pidfds off (before 6.9) the
    # duplicate comes from the leader's table and only kcmp could tell it
    # apart; kcmp refused (EPERM, forced through the seam) must stop the
    # call: performing it would connect the leader's socket.
    lis = ctx.tcp()
    run = ctx.sv("thread-files", [lis.dest], fault="pidfd_thread:EINVAL,kcmp:EPERM")
    expect_outcome(ctx, run, 3, "capability-error")
    ev = expect_event(ctx, run, "kcmp failure", bucket="mechanism_failure", mechanism="kcmp")
    ctx.expect(errno_in(ev, "EPERM"), "kcmp failure errno: %s" % ev)
    expect_agent(ctx, run, "connect", -1, "EPERM", thread_peer="ENOTCONN", leader_peer="ENOTCONN")
    time.sleep(0.2)
    ctx.expect_eq(lis.conns, 0, "connections made although kcmp was refused")


@test()
def descriptor_only_the_leader_has_is_the_threads_ebadf(ctx):
    # thread-files --closed: only the leader has a descriptor 100. On 6.9+
    # the thread's own pidfd answers EBADF; before 6.9 (the seam) the
    # leader's socket is duplicated and kcmp answers EBADF for the thread's
    # table. Either way the call is invalid (EBADF, as the kernel answers)
    # and the leader's socket is never connected (leader-table connects it).
    for fault in (None, "pidfd_thread:EINVAL"):
        lis = ctx.tcp()
        run = ctx.sv("thread-files", ["--closed", lis.dest], fault=fault)
        expect_outcome(ctx, run, 0, "pass")
        ev = expect_event(ctx, run, "the call", syscall="connect")
        ctx.expect_eq((ev.get("bucket"), ev.get("reason"), ev.get("errno")),
                      ("invalid", "bad-descriptor", "EBADF"), "%s: event" % fault)
        expect_agent(ctx, run, "connect", -1, "EBADF", leader_peer="ENOTCONN")
        time.sleep(0.2)
        ctx.expect_eq(lis.conns, 0, "%s: connections" % fault)
    lis = ctx.tcp()
    mrun = ctx.sv("thread-files", ["--closed", lis.dest], binary=mutant_binary("leader-table"))
    expect_agent(ctx, mrun, "table_mismatch")


@test()
def scm_rights_of_a_thread_with_its_own_table_checked_by_kcmp(ctx):
    # thread-files --rights: the thread passes its descriptor 100 (a UDP
    # socket) with SCM_RIGHTS; the leader's 100 is a TCP socket. On 6.9+ the
    # thread's own socket arrives. Before 6.9 (the seam) the duplicate comes
    # from the leader's table: kcmp finds another file (EXDEV), recorded with
    # mechanism kcmp, and nothing is sent. Mutants: leader-table passes the
    # leader's socket; rights-mech-unlabelled files it under pidfd_getfd.
    native = ctx.sv("thread-files", ["--rights"])
    line = expect_agent(ctx, native, "sendmsg")
    if line.get("result") == 1:
        expect_outcome(ctx, native, 0, "pass")
        ctx.expect_eq(line.get("received"), "thread", "6.9+: what arrived")
    run = ctx.sv("thread-files", ["--rights"], fault="pidfd_thread:EINVAL")
    expect_outcome(ctx, run, 3, "capability-error")
    ev = expect_event(ctx, run, "kcmp failure", syscall="sendmsg", bucket="mechanism_failure")
    ctx.expect_eq((ev.get("mechanism"), ev.get("mechanism_errno")), ("kcmp", "EXDEV"), "mechanism")
    expect_agent(ctx, run, "sendmsg", -1, "EPERM", received="none")
    mrun = ctx.sv("thread-files", ["--rights"], binary=mutant_binary("leader-table"))
    expect_agent(ctx, mrun, "table_mismatch", received="leader")
    binary = os.path.join(BUILD, "mutants-faults", "rights-mech-unlabelled", "egress-supervisor")
    if not os.access(binary, os.X_OK):
        raise Skip("%s missing (make mutant-faults-bin MUTANT=rights-mech-unlabelled)" % binary)
    mrun = ctx.sv("thread-files", ["--rights"], binary=binary, fault="pidfd_thread:EINVAL")
    ev = expect_event(ctx, mrun, "mutant's failure", syscall="sendmsg", bucket="mechanism_failure")
    ctx.expect_eq(ev.get("mechanism"), "pidfd_getfd", "rights-mech-unlabelled: mechanism")


# ----------------------------------------- --report FILE without O_TMPFILE

@test()
def report_file_without_o_tmpfile_uses_a_random_name_and_leaves_none(ctx):
    lis = ctx.tcp()
    run = ctx.sv("connect-tcp", [lis.dest], fault="tmpfile:EOPNOTSUPP")
    expect_outcome(ctx, run, 0, "pass")
    d = os.path.dirname(ctx.last_argv[ctx.last_argv.index("--report") + 1])
    ctx.expect_eq(sorted(os.listdir(d)), ["report.json"], "files in the report's directory")


@test()
def root_agent_neither_reopens_the_report_by_handle_nor_reaches_outside_sysv_memory(ctx):
    # The hostile re-run h-rerun2, its own runner and agent: a root agent
    # reopened the unlinked --report-fd file by its inode with
    # open_by_handle_at (CAP_DAC_READ_SEARCH, ext4 accepts generation 0)
    # and rewrote the supervisor's records into a forged final one; a root
    # or same-uid agent attached an outsider's 0600 SysV segment and wrote
    # into it. CAP_DAC_READ_SEARCH is dropped and the agent has its own IPC
    # namespace: EPERM and EINVAL, the outsider's bytes intact. Mutant
    # handle-open (the capability kept): the report is reopened.
    if os.geteuid() != 0 or not shutil.which("setpriv") or not shutil.which("gcc"):
        raise Skip("needs root (setpriv) and gcc")
    script = os.path.join(TOP, "tests", "review", "rerun2", "run.sh")

    def rerun(binary, cases):
        # Its own directory, which uid 1000 (the outsider, the agent) can reach.
        out_dir = tempfile.mkdtemp(prefix="egress-it-rerun2-")
        os.chmod(out_dir, 0o1777)
        try:
            p = run_script(ctx, ["bash", script] + cases, 240, env=dict(os.environ, SV=binary, OUT=out_dir))
        finally:
            shutil.rmtree(out_dir, ignore_errors=True)
        return p.stdout + p.stderr[-400:]

    out = rerun(SV, ["forge", "shm"])
    ctx.expect(re.search(r"forge-handle \(user root\)[\s\S]*?0 report\(s\) reopened", out),
               "root reopened no report: %s" % out[:600])
    ctx.expect_eq(len(re.findall(r"shmat\(\d+\) -> EINVAL", out)), 2, "shmat refused to root and uid 1000")
    ctx.expect(out.count("segment now holds 'outsider's own data'") == 2, "the outsider's bytes intact")
    ctx.expect("FORGED BY THE AGENT" not in out, "a forged record believed: %s" % out[-600:])
    out = rerun(mutant_binary("handle-open"), ["forge"])
    ctx.expect("FORGED BY THE AGENT" in out, "handle-open mutant: %s" % out[-600:])
