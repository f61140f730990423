"""Integration tests: containment of the agent process (issues 11 and 12).

Inherited descriptors, a root agent and the kernel's knobs, pid chains,
set_tid, another process's memory, an interrupted ID_VALID, a netlink socket
of the caller's, a listener rebound while judged, the agent's session and
stdio, and a refused unshare named by the probe.

Registered into harness.TESTS when run.py imports it."""

import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time

from harness import (AGENTS, BUILD, DECLARED, NO_USERNS, SV, SV_FAULTS, TOP, UNDECLARED, USERNS_CONTAINMENT, Skip,
                     subreaper_containment, expect_agent,
                     expect_event, expect_inherited_socket_closed, expect_outcome, host_descendants,
                     in_pid_namespace, load_report, mutant_binary, read_log, mutant_faults_binary, review, rewrite_run, run_script, start_launched,
                     test, wait_for)


# ------------------------------------------- containment of the agent process
# Issues 11 (class 6, inherited descriptors; class 5, a root agent) and 12
# (nothing outlives the run). docs/design.md, "Threat model: the agent process".

@test()
def inherited_socket_closed_before_agent_exec(ctx):
    sink = ctx.udp(UNDECLARED)
    proc, report_path, log_path = start_launched(ctx, "udp", sink.dest, "inherit-fd", [])
    expect_inherited_socket_closed(ctx, ctx.finish(proc, report_path, log_path), sink)
    # The launcher logs its own set-up, but the run's first agent process is
    # the agent: only its exit line may say top, which the appliance's
    # oracle reads where a supervisor writes no report (agentlib.h).
    tops = [x.get("agent") for x in read_log(log_path, exits=True) if x.get("top") is True]
    ctx.expect_eq(tops, ["inherit-fd"], "agents whose exit line says top behind a launcher")
    # The check can fail: mutant no-close-range leaves the caller's socket
    # to the agent (the kill that was only in make mutants: h-docaudit).
    sink = ctx.udp(UNDECLARED)
    proc, report_path, log_path = start_launched(ctx, "udp", sink.dest, "inherit-fd", [],
                                                 binary=mutant_binary("no-close-range"))
    ctx.finish(proc, report_path, log_path)
    ctx.expect(wait_for(lambda: sink.got(), 2), "no-close-range mutant: nothing at the sink")


@test()
def socket_activation_told_its_listener_never_reaches_the_agent(ctx):
    """A socket handed on a descriptor above 2 (socket activation's
    LISTEN_FDS) is closed before the agent runs; stderr says which and why
    (review h-realprog3: the service failed with EBADF and the run passed,
    with nothing said). Mutant closed-sockets-silent says nothing."""
    sink = ctx.udp(UNDECLARED)
    for binary, told in ((SV, True), (mutant_binary("closed-sockets-silent"), False)):
        argv = [os.path.join(AGENTS, "fd-launcher"), "udp", sink.dest, "--", binary, "--",
                os.path.join(AGENTS, "inherit-fd")]
        env = dict(os.environ, LISTEN_FDS="1", EGRESS_AGENT_LOG=os.path.join(ctx.tmp, "a.log"))
        p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30, check=False)
        said = "never reach" in p.stderr and "socket activation (LISTEN_FDS)" in p.stderr
        ctx.expect_eq(said, told, "%s: stderr names the closed socket and socket activation: %r"
                      % (os.path.basename(os.path.dirname(binary)), p.stderr[-600:]))
        ctx.expect_eq(p.returncode, 0, "exit status")
    ctx.expect_eq(sink.got(), [], "datagrams at the undeclared sink")


@test()
def namespace_limit_used_up_by_another_process_refuses_the_run_not_weaker(ctx):
    """A uid's namespace allowances and process slots are shared by every
    process of the uid: another run's agent that holds them must not choose
    this run's containment (review h-attack65: ENOSPC read as a host that
    refuses user namespaces, the run passed in subreaper+landlock, where its
    agent wrote into an outsider's SysV memory). Seam userns:ENOSPC (the
    user namespace, with every limit nonzero) and clone_newpid:EAGAIN (the
    pid namespace inside it): capability-error with the hint; userns:EPERM,
    a host that refuses, still falls back; mutant fallback-any-errno falls
    back on all three."""
    os.chmod(ctx.tmp, 0o711)
    for n in ("user", "pid", "mnt", "ipc"):
        with open("/proc/sys/user/max_%s_namespaces" % n) as f:
            if int(f.read()) == 0:
                raise Skip("user.max_%s_namespaces is 0 here: ENOSPC is this host's refusal" % n)
    cases = (("userns:ENOSPC", "used up for now"), ("clone_newpid:EAGAIN", "try again"),
             (NO_USERNS, None))
    for binary in (SV_FAULTS, mutant_faults_binary("fallback-any-errno")):
        for fault, hint in cases:
            d = tempfile.mkdtemp(dir=ctx.tmp)
            os.chmod(d, 0o777)
            report_path = os.path.join(d, "report.json")
            env = dict(os.environ, EGRESS_SV_FAULT=fault)
            p = subprocess.run(["setpriv", "--reuid", "1000", "--regid", "1000", "--clear-groups",
                                binary, "--report", report_path, "--", "/bin/true"], env=env,
                               capture_output=True, text=True, timeout=60, check=False)
            rep = load_report(ctx, report_path) or {}
            refused = binary == SV_FAULTS and hint is not None
            what = "%s %s" % (os.path.basename(os.path.dirname(binary)), fault)
            if refused:
                ctx.expect_eq((p.returncode, rep.get("verdict")), (3, "capability-error"), what)
                ctx.expect(hint in p.stdout + p.stderr, "%s: no hint %r: %r" % (what, hint, p.stderr[-400:]))
            else:
                ctx.expect_eq((p.returncode, rep.get("verdict")), (0, "pass"), what)
                ctx.expect_eq(rep.get("containment"), subreaper_containment(), what + ": containment")


@test()
def kernel_without_user_namespaces_falls_back_as_the_host_refuses(ctx):
    """Where the kernel's /proc/self/ns has no user entry (CONFIG_USER_NS=n,
    seam ns_user:ENOENT), the owner cannot be read, and f896633 read that as
    a namespace our uid owns: every uid-1000 run on such a kernel was
    refused (mutant userns-absent-ours; cwd-shut and inherit-fd on the
    custom kernels in the matrix). There the host's refusals are the host's:
    EINVAL (a vanilla kernel) and EPERM (Debian's patched source) fall back
    and pass. But a directory without the entry that is not procfs (seam
    ns_dir: mounted over /proc by a process of the uid) proves nothing: the
    run is refused (mutant userns-absent-unproven falls back and passes)."""
    absent = "ns_user:ENOENT,"
    faked = "ns_user:ENOENT,ns_dir:EXDEV,"
    cases = ((SV_FAULTS, absent + "userns:EINVAL", 0, "pass"),
             (SV_FAULTS, absent + "userns:EPERM", 0, "pass"),
             (SV_FAULTS, faked + "userns:EPERM", 3, "capability-error"),
             (mutant_faults_binary("userns-absent-ours"), absent + "userns:EPERM", 3,
              "capability-error"),
             (mutant_faults_binary("userns-absent-unproven"), faked + "userns:EPERM", 0, "pass"))
    for binary, fault, rc, verdict in cases:
        run = ctx.sv("/bin/sh", ["-c", "true"], uid1000=True, fault=fault, binary=binary)
        what = "%s %s" % (os.path.basename(os.path.dirname(binary)), fault)
        ctx.expect_eq((run.rc, (run.report or {}).get("verdict")), (rc, verdict), what)
        if rc == 0:
            ctx.expect_eq(run.report.get("containment"), subreaper_containment(),
                          what + ": containment")


@test(timeout=120)
def ns_directory_reached_through_a_mount_is_no_kernel_without_user_namespaces(ctx):
    """In a user and mount namespace our uid owns (a rootless container's)
    any process of the uid may put a procfs directory without a user entry
    on the way to /proc/self/ns: /proc/PID/fdinfo bound over /proc/PID/ns,
    or the /proc/self symlink covered by one leading to a directory whose
    ns is /proc/thread-self/fdinfo (review h-attack72: read as a kernel
    without CONFIG_USER_NS, the namespace's own zero limit was the host's,
    and the run fell back to subreaper+landlock and passed, 3 of 3). The
    directory is the kernel's only when reached from a procfs /proc
    without crossing a mount: the run is refused; mutant
    ns-dir-through-mounts looks it up through the mounts and falls back.
    The review's own reproduction (ha72-host.sh)."""
    for name, weak in ((None, 0), ("ns-dir-through-mounts", 2)):
        for how in ("fdinfo", "selfsym"):
            out = review(ctx, "ha72-host.sh", mutant_binary(name) if name else SV,
                         extra=(how, "2"))
            ctx.expect("passed in subreaper+landlock: %d of 2" % weak in out,
                       "%s %s: %s" % (name or "release", how, out[-600:]))
            if not name:
                ctx.expect(out.count("exit 3 capability-error") == 2,
                           "release %s refuses: %s" % (how, out[-600:]))


@test()
def id_map_another_process_wrote_refuses_the_run_not_weaker(ctx):
    """While the supervisor writes its user namespace's id maps it is
    dumpable, so any process of its uid may write them first (review
    h-attack67: a parallel run's agent did, 20 of 20, the trial's own write
    was EPERM and the run fell back to subreaper+landlock and passed). A
    map that refused us but holds a line is another's doing: capability-
    error. Seam map_taken writes the map first; mutant map-taken-trusted
    reads it as the host's EPERM and falls back."""
    cases = ((SV_FAULTS, 3, "capability-error", None),
             (mutant_faults_binary("map-taken-trusted"), 0, "pass", subreaper_containment()))
    for binary, rc, verdict, containment in cases:
        run = ctx.sv("/bin/sh", ["-c", "true"], uid1000=True, fault="map_taken:EBUSY",
                     binary=binary)
        expect_outcome(ctx, run, rc, verdict)
        ctx.expect_eq(run.report.get("containment"), containment,
                      "%s: containment" % os.path.basename(os.path.dirname(binary)))
        if rc == 3:
            ctx.expect_eq((run.report.get("probe") or {}).get("containment"), "EBUSY",
                          "probe.containment")


@test()
def working_directory_shut_by_a_process_of_the_uid_refuses_the_run_not_weaker(ctx):
    """The child's last namespace step is chdir() to the run's working
    directory by its path, which any process of the uid owning a directory
    above it can shut with a chmod (review h-attack68: EACCES read as the
    host refusing namespaces, the run fell back to subreaper+landlock and
    passed, 9 of 10). Here the parent is shut before the supervisor starts:
    capability-error; mutant cwd-refusal-hosts falls back and passes."""
    os.chmod(ctx.tmp, 0o711)
    for binary, rc, verdict in ((SV, 3, "capability-error"),
                                (mutant_binary("cwd-refusal-hosts"), 0, "pass")):
        top = tempfile.mkdtemp(dir=ctx.tmp)
        os.chmod(top, 0o777)
        inner = os.path.join(top, "a", "b")
        os.makedirs(inner)
        shutil.chown(inner, 1000, 1000)
        report = os.path.join(top, "report.json")
        script = ('cd "$1" && chmod 000 "$2" && exec setpriv --reuid 1000 --regid 1000 '
                  '--clear-groups "$3" --report "$4" -- /bin/true')
        p = subprocess.run(["sh", "-c", script, "sh", inner, os.path.dirname(inner), binary,
                            report], capture_output=True, text=True, timeout=60, check=False)
        os.chmod(os.path.dirname(inner), 0o755)
        rep = load_report(ctx, report) or {}
        what = os.path.basename(os.path.dirname(binary))
        ctx.expect_eq((p.returncode, rep.get("verdict")), (rc, verdict),
                      "%s (%s)" % (what, p.stderr[-300:]))
        if rc == 0:
            ctx.expect_eq(rep.get("containment"), subreaper_containment(), what + ": containment")


@test(timeout=120)
def zero_limit_in_a_namespace_our_uid_owns_is_not_the_hosts(ctx):
    """In a user namespace our uid owns (a rootless container's) any process
    of the uid may join it and write its user.max_user_namespaces (review
    h-attack68: 0 written before the run read it, the run fell back to
    subreaper+landlock and passed): a zero limit there is not the host's
    refusal, and the run is refused; mutant own-userns-hosts trusts it
    and falls back. The review's own reproduction (ha68-host.sh nested)."""
    for name, weak in ((None, 0), ("own-userns-hosts", 2)):
        out = review(ctx, "ha68-host.sh", mutant_binary(name) if name else SV,
                     extra=("nested", "2"))
        ctx.expect("passed in subreaper+landlock: %d of 2" % weak in out,
                   "%s: %s" % (name or "release", out[-600:]))


@test()
def rootless_caller_zero_limit_is_refused_with_a_hint_naming_its_namespace(ctx):
    """The matrix's userns-owned on the host: userns-launcher (uid 1000) runs
    the supervisor in a user namespace it owns with its
    user.max_user_namespaces set to 0. capability-error, and the hint names
    that namespace instead of a limit used up for now ("try again" told a
    rootless container's user to retry a choice of their own); mutant
    own-userns-hosts falls back and passes."""
    os.chmod(ctx.tmp, 0o711)
    for binary, rc, verdict in ((SV, 3, "capability-error"),
                                (mutant_binary("own-userns-hosts"), 0, "pass")):
        d = tempfile.mkdtemp(dir=ctx.tmp)
        os.chmod(d, 0o777)
        report_path = os.path.join(d, "report.json")
        env = dict(os.environ, EGRESS_AGENT_LOG=os.path.join(d, "agent.log"))
        env.pop("EGRESS_SV_FAULT", None)
        p = subprocess.run(["setpriv", "--reuid", "1000", "--regid", "1000", "--clear-groups",
                            os.path.join(AGENTS, "userns-launcher"), "--", binary,
                            "--report", report_path, "--", "/bin/true"], env=env,
                           capture_output=True, text=True, timeout=60, check=False)
        rep = load_report(ctx, report_path) or {}
        what = os.path.basename(os.path.dirname(binary))
        ctx.expect_eq((p.returncode, rep.get("verdict")), (rc, verdict), what)
        if rc == 3:
            ctx.expect("user namespace its own uid owns" in p.stdout and
                       "try again" not in p.stdout,
                       "%s: the hint names the caller's namespace: %r" % (what, p.stdout[-600:]))


@test()
def mount_in_a_namespace_our_uid_owns_is_not_the_host_refusing(ctx):
    """In a user and mount namespace our uid owns (a rootless container's)
    any process of the uid may join them and mount over / (the trial's
    unshare(CLONE_NEWUSER) is EPERM: current_chrooted) or over a file of
    /proc (the children's proc mount is EPERM: mount_too_revealing); review
    h-attack69: both fell back to subreaper+landlock and passed, 3 of 3.
    Neither is the host's refusal: the run is refused; mutant
    own-userns-hosts falls back. The review's own reproduction
    (ha69-host.sh)."""
    for name, weak in ((None, 0), ("own-userns-hosts", 2)):
        for how in ("proc", "root"):
            out = review(ctx, "ha69-host.sh", mutant_binary(name) if name else SV,
                         extra=(how, "2"))
            ctx.expect("passed in subreaper+landlock: %d of 2" % weak in out,
                       "%s %s: %s" % (name or "release", how, out[-600:]))


@test()
def inherited_socket_reaches_agent_without_supervisor(ctx):
    # The control: the same launcher and agent with nothing between them
    # deliver the datagram, so the test above can fail.
    sink = ctx.udp(UNDECLARED)
    log_path = os.path.join(ctx.tmp, "unsupervised-inherit.log")
    argv = [os.path.join(AGENTS, "fd-launcher"), "udp", sink.dest, "--",
            os.path.join(AGENTS, "inherit-fd")]
    subprocess.run(argv, env=dict(os.environ, EGRESS_AGENT_LOG=log_path), timeout=20,
                   capture_output=True, check=False)
    ctx.expect(wait_for(lambda: sink.got(), 2), "the unsupervised agent's datagram never arrived")


@test()
def root_agent_cannot_write_core_pattern(ctx):
    if os.geteuid() != 0:
        raise Skip("needs root: the class is a root agent")
    # --same writes core_pattern's own value back: nothing changes on this
    # host even if the write went through.
    run = ctx.sv("core-pattern", ["--same"])
    expect_outcome(ctx, run, 0, "pass")
    ctx.expect_eq(run.report.get("containment"), "pid-namespace", "containment")
    line = expect_agent(ctx, run, "write_core_pattern", -1)
    ctx.expect(line.get("errno") in ("EROFS", "30"),
               "core_pattern write: want EROFS, got %r" % line.get("errno"))
    # The other helpers the kernel starts as full root, and the sysrq knob:
    # read-only too (docs/design.md, "usermode helpers and /proc/sys").
    for path in ("/proc/sys/kernel/modprobe", "/sys/kernel/uevent_helper", "/proc/sysrq-trigger"):
        if not os.path.exists(path):
            continue
        line = expect_agent(ctx, run, "open_for_write", -1, dest=path)
        ctx.expect(line.get("errno") in ("EROFS", "30"), "%s: want EROFS, got %r" % (path, line))


@test()
def root_supervisor_without_cap_sys_admin_refuses_root_agent(ctx):
    if os.geteuid() != 0 or not shutil.which("capsh"):
        raise Skip("needs root and capsh")
    d, report_path, log_path = ctx.paths()
    argv = ["capsh", "--drop=cap_sys_admin", "--", "-c",
            "exec \"$0\" \"$@\"", SV, "--report", report_path, "--",
            os.path.join(AGENTS, "no-network")]
    ctx.last_argv = argv
    proc = subprocess.Popen(argv, env=dict(os.environ, EGRESS_AGENT_LOG=log_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    run = ctx.finish(proc, report_path, log_path)
    expect_outcome(ctx, run, 3, "capability-error")
    ctx.expect_eq((run.report.get("probe") or {}).get("containment"), "EPERM", "probe containment")
    ctx.expect_eq(run.log, [], "the agent ran")


@test()
def rootless_containers_root_agent_runs_with_the_callers_nodes_bound(ctx):
    """Root of a rootless container (unshare -Ur: uid 0 of a user namespace
    uid 0 of the host owns here, as podman's default user's) may not make
    device nodes: mknod is EPERM outside the initial namespace, and every
    such run was capability-error (review h-attack72, finding 2). The nodes
    are bound from the caller's /dev instead, read-only and nosuid, and the
    read-back allows them: the run passes and the agent writes /dev/null.
    Also as root on the host with seam mknod:EPERM. Mutant mknod-only
    refuses both."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        raise Skip("needs root and unshare")
    script = "echo x >/dev/null && test -c /dev/null && test -c /dev/urandom"
    for binary, rc, verdict in ((SV, 0, "pass"), (mutant_binary("mknod-only"), 3, "capability-error")):
        d, report_path, log_path = ctx.paths()
        argv = ["unshare", "-Ur", binary, "--report", report_path, "--", "/bin/sh", "-c", script]
        ctx.last_argv = argv
        proc = subprocess.Popen(argv, env=dict(os.environ, EGRESS_AGENT_LOG=log_path),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        run = ctx.finish(proc, report_path, log_path)
        expect_outcome(ctx, run, rc, verdict)
    run = ctx.sv("/bin/sh", ["-c", script], fault="mknod:EPERM")
    expect_outcome(ctx, run, 0, "pass")


@test(timeout=120)
def pid_chain_signalling_its_supervisor_leaves_no_survivor(ctx):
    proc, report_path, log_path = ctx.start("pid-chain", ["1100"])
    run = ctx.finish(proc, report_path, log_path, timeout=90)
    pidns = in_pid_namespace(run)
    # In a pid namespace the agent cannot name its supervisor (its parent is
    # the reaper, which ignores the signal); otherwise the SIGTERM lands.
    expect_outcome(ctx, run, 0 if pidns else 3, "pass" if pidns else "capability-error")
    time.sleep(0.5)
    ctx.expect_eq(run.agent_lines(call="survivor"), [], "survivors")
    ctx.expect_eq(host_descendants(proc.pid), [], "processes left of the run")


@test()
def set_tid_refused_to_the_agent(ctx):
    run = ctx.sv("set-tid", [])
    expect_outcome(ctx, run, 0, "pass")
    ctx.expect_eq((run.report.get("agent") or {}).get("exit_code"), 0,
                  "set-tid exit code (1: the agent chose its pid)")


@test()
def outsider_mem_refused_to_unprivileged_agent(ctx):
    # In its supervisor's user namespace a uid-1000 agent has a pid
    # namespace and /proc of its own: the victim cannot be named (ESRCH,
    # exit 0 from outside the initial pid namespace). Where user namespaces
    # are refused (the seam) it is its supervisor's child, and its Landlock
    # domain is what keeps it from /proc/PID/mem of another uid-1000 process.
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        raise Skip("needs root (to be uid 1000 and start the victim) and setpriv")
    victim = subprocess.Popen([os.path.join(AGENTS, "idle-as"), "1000"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ctx.closers.append(victim.kill)
    ctx.require(wait_for(lambda: "--idle" in open("/proc/%d/cmdline" % victim.pid).read(), 5),
                "idle-as never re-executed itself")
    # Inside the test's own directory (kept only when the test fails), which
    # uid 1000 must be able to pass through.
    os.chmod(ctx.tmp, 0o711)
    for fault in (None, NO_USERNS):
        d = os.path.join(ctx.tmp, "uid1000-%s" % (fault is not None))
        os.mkdir(d)
        os.chmod(d, 0o777)
        report_path, log_path = os.path.join(d, "report.json"), os.path.join(d, "agent.log")
        env = dict(os.environ, EGRESS_AGENT_LOG=log_path)
        env.pop("EGRESS_SV_FAULT", None)
        if fault:
            env["EGRESS_SV_FAULT"] = fault
        argv = ["setpriv", "--reuid", "1000", "--regid", "1000", "--clear-groups",
                SV_FAULTS if fault else SV,
                "--report", report_path, "--", os.path.join(AGENTS, "outsider-mem")]
        ctx.last_argv = argv
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        run = ctx.finish(proc, report_path, log_path)
        probe = run.report.get("probe") or {}
        if probe.get("containment") in ("ENOSYS", "EOPNOTSUPP"):
            expect_outcome(ctx, run, 3, "capability-error")
            return
        expect_outcome(ctx, run, 0, "pass")
        if fault is None:
            ctx.expect_eq(run.report.get("containment"), USERNS_CONTAINMENT, "containment")
            expect_agent(ctx, run, "open_outsider_mem", -1, "ESRCH", dest=None)
        else:
            ctx.expect_eq(run.report.get("containment"), subreaper_containment(), "containment")
            line = expect_agent(ctx, run, "open_outsider_mem", -1, "EACCES")
            ctx.expect_eq(line.get("dest"), "/proc/%d/mem" % victim.pid, "the victim's mem")
        ctx.expect_eq((run.report.get("agent") or {}).get("exit_code"), 0, "outsider-mem exit code")


# ------------------------------------------------ a supervisor thread interrupted in ID_VALID

@test()
def id_valid_interrupted_by_a_signal_is_asked_again(ctx):
    # The kernel takes the notify lock interruptibly, so ID_VALID can answer
    # EINTR before it checked anything (exit-storm on 7.3 in the matrix).
    # Through the seam every first attempt is interrupted.
    lis = ctx.tcp(reply=True)
    proc, report_path, log_path = ctx.start("connect-tcp", ["--send", "hi", lis.dest],
                                            fault="id_valid_intr:EINTR")
    run = ctx.finish(proc, report_path, log_path)
    expect_outcome(ctx, run, 0, "pass")
    ctx.expect(wait_for(lambda: lis.received() == b"hi\n"), "listener got %r" % lis.received())
    # The check can fail: without the retry the interrupted ID_VALID is a
    # mechanism failure and the run a capability-error.
    binary = os.path.join(BUILD, "mutants-faults", "id-valid-eintr", "egress-supervisor")
    if not os.access(binary, os.X_OK):
        raise Skip("%s missing (make mutant-faults-bin MUTANT=id-valid-eintr)" % binary)
    proc, report_path, log_path = ctx.start("connect-tcp", ["--send", "hi", lis.dest],
                                            fault="id_valid_intr:EINTR", binary=binary)
    mrun = ctx.finish(proc, report_path, log_path)
    expect_outcome(ctx, mrun, 3, "capability-error")
    expect_event(ctx, mrun, "the interrupted ID_VALID", bucket="mechanism_failure",
                 mechanism="id_valid")


# ------------------------------------------------ our capabilities lent to the agent

def netlink_on_stdin_run(ctx, binary):
    """A root caller in a network namespace of its own opens a NETLINK_ROUTE
    socket on the supervisor's stdin; the root agent (no CAP_NET_ADMIN) asks
    through it for a clsact qdisc on lo by a named sendto. The kernel checks
    the socket's opener (the caller: root) and the sending task, which is the
    receiver thread that performs the send. Returns (Run, the namespace's
    qdiscs on lo after the run)."""
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("tc"):
        raise Skip("needs root, unshare and tc (a network namespace of its own)")
    d, report_path, log_path = ctx.paths()
    qdisc = os.path.join(d, "qdisc")
    script = ("import os, socket, subprocess, sys\n"
              "s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)\n"
              "os.dup2(s.fileno(), 0)\n"
              "rc = subprocess.run(sys.argv[2:], stdin=0, close_fds=False).returncode\n"
              "q = subprocess.run(['tc', 'qdisc', 'show', 'dev', 'lo'], capture_output=True, text=True)\n"
              "open(sys.argv[1], 'w').write(q.stdout)\n"
              "sys.exit(rc)\n")
    argv = ["unshare", "-n", sys.executable, "-c", script, qdisc, binary, "--report", report_path,
            "--allow", "198.51.100.1:9", "--writable", ctx.tmp, "--", os.path.join(AGENTS, "netlink-admin"), "EPERM", "0"]
    ctx.last_argv = argv
    proc = subprocess.Popen(argv, env=dict(os.environ, EGRESS_AGENT_LOG=log_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    run = ctx.finish(proc, report_path, log_path)
    try:
        with open(qdisc) as f:
            return run, f.read()
    except OSError:
        return run, ""


@test()
def netlink_socket_of_the_caller_gets_no_capability_of_ours(ctx):
    run, qdiscs = netlink_on_stdin_run(ctx, SV)
    expect_outcome(ctx, run, 0, "pass")
    line = expect_agent(ctx, run, "new_qdisc", -1)
    ctx.expect_eq(line.get("errno"), "EPERM", "the kernel's answer to the qdisc request")
    ctx.expect("clsact" not in qdiscs, "a clsact qdisc on lo: %r" % qdiscs)
    # The check can fail: the netlink-deputy mutant performs with our
    # capabilities (and the name), and the qdisc is made.
    mrun, mqdiscs = netlink_on_stdin_run(ctx, mutant_binary("netlink-deputy"))
    ctx.expect("clsact" in mqdiscs, "netlink-deputy mutant: no qdisc (%s)" % mrun.log)


# ------------------------------------------------ a listener rebound while it is judged

def listen_race_run(ctx, binary):
    """listen-race under the listen_window seam: the supervisor waits 300 ms
    between judging the second listen (127.0.0.1:P) and performing it; the
    agent's other thread shuts the socket down and binds it to 0.0.0.0:P
    100 ms into that window."""
    proc, report_path, log_path = ctx.start("listen-race", ["100"], no_loopback=False,
                                            fault="listen_window:EAGAIN", binary=binary)
    return ctx.finish(proc, report_path, log_path)


@test()
def listen_rebound_during_judgement_is_stopped_and_denied(ctx):
    run = listen_race_run(ctx, SV_FAULTS)
    expect_outcome(ctx, run, 1, "fail")
    expect_agent(ctx, run, "bind", 0)
    expect_agent(ctx, run, "listen", -1, "EACCES", which="second")
    line = expect_agent(ctx, run, "listening")
    ctx.expect_eq(line.get("acceptconn"), 0, "the rebound socket still listens: %s" % line)
    ev = expect_event(ctx, run, "the rebound listen", syscall="listen", bucket="denied")
    ctx.expect_eq(ev.get("reason"), "inbound-rebound", "reason")
    ctx.expect((ev.get("dest") or "").startswith("0.0.0.0:"), "recorded name %s" % ev.get("dest"))
    ctx.expect_eq((run.report.get("agent") or {}).get("exit_code"), 0, "listen-race exit code")
    # The check can fail: without the second read the socket listens on the
    # wildcard and the run passes.
    binary = os.path.join(BUILD, "mutants-faults", "listen-name-unchecked", "egress-supervisor")
    if not os.access(binary, os.X_OK):
        raise Skip("%s missing (make mutant-faults-bin MUTANT=listen-name-unchecked)" % binary)
    mrun = listen_race_run(ctx, binary)
    expect_outcome(ctx, mrun, 0, "pass")
    mline = expect_agent(ctx, mrun, "listening")
    ctx.expect_eq(mline.get("acceptconn"), 1, "listen-name-unchecked mutant: %s" % mline)
    ctx.expect((mline.get("dest") or "").startswith("0.0.0.0:"), "mutant's name %s" % mline.get("dest"))


# ------------------------------------------------ the agent's session, stdio and kernel knobs
# Found by the hostile review of the merged supervisor: each fix is checked
# against the real supervisor and against the mutant that reopens it.

def tty_run(ctx, binary):
    """The supervisor as the session leader of a fresh pty (its controlling
    terminal on 0-2), tty-inject as the agent typing a command. Returns
    (Run, what the terminal's input queue holds afterwards)."""
    import fcntl
    import termios
    master, slave = os.openpty()
    ctx.closers.append(lambda: (os.close(master), os.close(slave)))
    d, report_path, log_path = ctx.paths()

    def ctty():
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

    argv = [binary, "--report", report_path, "--writable", ctx.tmp, "--",
            os.path.join(AGENTS, "tty-inject"),
            "touch /tmp/egress-it-injected\n"]
    ctx.last_argv = argv
    proc = subprocess.Popen(argv, env=dict(os.environ, EGRESS_AGENT_LOG=log_path), stdin=slave,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=ctty)
    run = ctx.finish(proc, report_path, log_path)
    os.set_blocking(slave, False)
    try:
        queued = os.read(slave, 4096)
    except BlockingIOError:
        queued = b""
    return run, queued


def legacy_tiocsti():
    """Whether TIOCSTI works for a session's own terminal (before 6.2 there
    is no knob: always)."""
    path = "/proc/sys/dev/tty/legacy_tiocsti"
    return not os.path.exists(path) or open(path).read().strip() == "1"


@test()
def agent_in_its_own_session_cannot_type_into_the_callers_terminal(ctx):
    # Two defences: TIOCSTI is trapped and denied (tty-inject, review
    # h-attack40), and the agent leads a session of its own, where the
    # caller's terminal is not its controlling one. Either alone types
    # nothing here; the two mutants together type.
    run, queued = tty_run(ctx, SV)
    expect_outcome(ctx, run, 1, "fail")
    expect_agent(ctx, run, "session", 1)
    expect_agent(ctx, run, "tiocsti", -1, "EACCES")
    ev = expect_event(ctx, run, "the denied TIOCSTI", syscall="ioctl", bucket="denied")
    ctx.expect_eq(ev.get("reason"), "tty-inject", "reason")
    ctx.expect_eq(queued, b"", "input typed into the caller's terminal")
    # The check can fail: in the caller's session, TIOCSTI untrapped, the
    # same agent types.
    mrun, mqueued = tty_run(ctx, mutant_binary("shared-session+tty-inject-open"))
    if legacy_tiocsti():
        ctx.expect(mqueued != b"", "shared-session+tty-inject-open: nothing typed (%s)" % mrun.log)


@test(timeout=120)
def agent_cannot_take_a_sessionless_terminal_and_type_into_it(ctx):
    # Review h-attack40's ha40-ctty.sh: a harness's pty that is no
    # session's controlling terminal is on 0-2; the agent, a session leader
    # without one, takes it (TIOCSCTTY, or reopening /proc/self/fd/0
    # without O_NOCTTY) and types a line with TIOCSTI that the harness's
    # next shell ran outside the run: pass, 6 of 6. TIOCSTI is denied now
    # (tty-inject). Mutant tty-inject-open types again.
    if os.geteuid() != 0 or not legacy_tiocsti():
        raise Skip("needs root (setpriv to uid 1000) and TIOCSTI (dev.tty.legacy_tiocsti=1)")
    for mode in ("ioctl", "open"):
        for binary, hit in ((SV, False), (mutant_binary("tty-inject-open"), True)):
            out = review(ctx, "ha40-ctty.sh", binary, extra=[binary, "1", mode], timeout=60)
            m = re.search(r"hits (\d+) of (\d+)", out)
            ctx.require(m, "%s %s: no hits line (%s)" % (binary, mode, out[-600:]))
            ctx.expect((int(m.group(1)) > 0) == hit, "%s %s: %s" % (binary, mode, m.group(0)))


@test()
def hung_up_terminal_on_stdio_is_no_refusal_and_kmsg_is(ctx):
    # Review h-attack40's ha40-falsered.sh: a terminal that hung up (musl's
    # isatty answers no: TIOCGWINSZ is EIO) was refused as a character
    # device, exit 3: allowed now, for root and uid 1000. /dev/kmsg on
    # stdout stays refused (review h-attack41: a record written at level <0>
    # reaches every console, a serial log or netconsole). Mutant
    # hung-up-terminal-refused refuses the hung-up terminal again (the
    # controls, the console and a live pty, pass either way).
    if os.geteuid() != 0 or not os.path.exists("/dev/kmsg"):
        raise Skip("needs root (setpriv to uid 1000) and /dev/kmsg")
    for binary, refused in ((SV, 2), (mutant_binary("hung-up-terminal-refused"), 4)):
        out = review(ctx, "ha40-falsered.sh", binary, extra=[binary], timeout=60)
        exits = re.findall(r"^(\w+) (.*?): exit (\d+)", out, re.M)
        ctx.require(len(exits) == 8, "cases run: %s (%s)" % (exits, out[-600:]))
        ctx.expect_eq(len([e for e in exits if e[2] == "3"]), refused,
                      "%s: cases refused (%s)" % (binary, exits))


@test()
def pty_master_on_stdio_is_refused(ctx):
    # Review h-attack41's ha41-ptmaster.sh: a harness handed the supervisor
    # the master of a pty; the agent's write() was input to the shell the
    # harness then started on the slave, which ran it: pass, root and uid
    # 1000. A master on 0-2 refuses the run now (exit 3). Mutant
    # pty-master-kept takes it for a terminal again.
    if os.geteuid() != 0:
        raise Skip("needs root (setpriv to uid 1000)")
    for binary, hits in ((SV, "0"), (mutant_binary("pty-master-kept"), "2")):
        out = review(ctx, "ha41-ptmaster.sh", binary, extra=["1"], timeout=60)
        ctx.expect("the agent's line ran outside the run in %s of 2 runs" % hits in out,
                   "%s: %s" % (binary, out[-900:]))


@test(timeout=200)
def agents_lease_on_a_file_of_its_uid_is_refused(ctx):
    # Review h-attack41's ha41-lease.sh: a root agent's read lease on a
    # root-owned host file (no CAP_LEASE needed for its owner) stalled a
    # host writer for 18 s; review h-attack42's ha42-stall.sh: a uid-1000
    # agent's on its caller's own file likewise. F_SETLEASE is neutralized
    # for every agent now (EPERM). Mutant lease-open lets it through.
    if os.geteuid() != 0 or not shutil.which("musl-gcc"):
        raise Skip("needs root (the class is a root agent) and musl-gcc")
    for binary, held in ((SV, False), (mutant_binary("lease-open"), True)):
        out = review(ctx, "ha41-lease.sh", binary, timeout=120, extra=["1"], env={"HOLD": "5"})
        m = re.search(r"\(root\): the host's append took (\d+) ms; agent: F_SETLEASE F_RDLCK "
                      r"\(held\): ([^;]+);", out)
        ctx.require(m, "%s: no root line (%s)" % (binary, out[-900:]))
        ctx.expect((m.group(2) == "ok") == held, "%s: %s" % (binary, m.group(0)))
        # Only uid 1000's lease is read here (the other nine forms of
        # ha42-stall.sh are other tests' classes): 30 s less a binary.
        out = review(ctx, "ha42-stall.sh", binary, timeout=90, extra=["1"],
                     env={"HOLD": "3", "WHO": "uid1000", "MODES": "lease"})
        m = re.search(r"\(uid1000, lease\): .*?agent: lease F_RDLCK: ([^;]+);", out)
        ctx.require(m, "%s: no uid-1000 lease line (%s)" % (binary, out[-900:]))
        ctx.expect((m.group(1) == "ok") == held, "%s: %s" % (binary, m.group(0)))


@test()
def lease_and_delegation_are_neutralized_for_every_agent(ctx):
    # Review h-attack43: F_SETDELEG (Linux 6.19) is the lease machinery on
    # a file or a directory, with the same rule of ownership; a root
    # service's create in a delegated directory waited 8 s on 7.3. Both
    # are answered EPERM (neutralized, reason lease) whatever the kernel:
    # here, on a kernel before 6.19, the mutant's F_SETDELEG is the
    # kernel's own EINVAL and its F_SETLEASE is granted. As root and as
    # uid 1000. Mutant lease-open lets both through.
    for binary, trapped in ((SV, True), (mutant_binary("lease-open"), False)):
        for uid1000 in (False, True):
            d = tempfile.mkdtemp(dir=ctx.tmp)
            os.chmod(d, 0o777)
            run = ctx.sv("lease-take", [d], binary=binary, uid1000=uid1000)
            calls = ("F_SETLEASE", "F_SETDELEG_file", "F_SETDELEG_dir")
            got = {c: [line.get("errno") for line in run.agent_lines(call=c)] for c in calls}
            leases = run.events(reason="lease")
            print("  %s%s: %s; %d lease events" % (binary, " (uid 1000)" if uid1000 else "", got, len(leases)))
            if trapped:
                expect_outcome(ctx, run, 0, "pass")
                ctx.expect(all(v == ["EPERM"] for v in got.values()), "not all EPERM: %s" % got)
                ctx.expect(len(leases) == 3 and all(e.get("bucket") == "neutralized" for e in leases),
                           "lease events: %s" % leases)
            else:
                ctx.expect(not all(v == ["EPERM"] for v in got.values()), "the mutant refused them all: %s" % got)


@test()
def root_agent_keeps_no_capability_that_reaches_the_whole_host(ctx):
    # Review h-attack39's ha39-caps.sh: a root agent's adjtimex (the host's
    # clock), syslog (its kernel log), SCHED_FIFO and mlock past its limit
    # all worked, each tried without changing anything. Those capabilities
    # are dropped now: every line refused, as for uid 1000 (the control).
    # Mutant host-caps-kept: the root agent's lines work again.
    if os.geteuid() != 0 or not shutil.which("musl-gcc"):
        raise Skip("needs root (the class is a root agent) and musl-gcc")
    for binary, root_ok in ((SV, 0), (mutant_binary("host-caps-kept"), 4)):
        out = review(ctx, "ha39-caps.sh", binary, timeout=60)
        part = out.split("== uid1000")[0]
        ok = len(re.findall(r"^  ha39 .*: ok$", part, re.M))
        # oom_score_adj needs CAP_SYS_RESOURCE, which a host's root may lack.
        ctx.expect(ok >= root_ok and (root_ok or ok == 0), "%s: root lines that worked: %d (%s)"
                   % (binary, ok, part[-900:]))
    # Review h-attack41's ha41-vtkey.sh: CAP_SYS_TTY_CONFIG rewrote the
    # keymap of every virtual console (tried with the value it has). Two
    # defences now: the capability is dropped, and the keyboard-table
    # ioctls are denied (tty-inject, review h-attack42); the two mutants
    # together let it through.
    if os.path.exists("/dev/tty1"):
        for binary, set_ok in ((SV, False), (mutant_binary("host-caps-kept+tty-inject-open"), True)):
            out = review(ctx, "ha41-vtkey.sh", binary, timeout=60)
            root = out.split("== uid 1000")[0]
            ctx.expect(("KDSKBENT Enter (the value it has): ok" in root) == set_ok,
                       "%s: a root agent's KDSKBENT: %s" % (binary, root[-600:]))


def stdout_socket_run(ctx, binary, no_loopback):
    lis = ctx.tcp()
    s = socket.create_connection(lis.sock.getsockname()[:2])
    ctx.closers.append(s.close)
    d, report_path, log_path = ctx.paths()
    argv = [binary, "--report", report_path, "--writable", ctx.tmp] + \
        (["--no-loopback"] if no_loopback else []) + ["--", os.path.join(AGENTS, "no-network")]
    ctx.last_argv = argv
    proc = subprocess.Popen(argv, env=dict(os.environ, EGRESS_AGENT_LOG=log_path),
                            stdout=s.fileno(), stderr=subprocess.PIPE, text=True)
    return ctx.finish(proc, report_path, log_path)


@test()
def socket_on_stdout_outside_the_allow_list_refuses_the_run(ctx):
    run = stdout_socket_run(ctx, SV, no_loopback=True)
    expect_outcome(ctx, run, 3, "capability-error")
    ctx.expect("descriptor 1 is a socket connected to 127.0.0.1" in (run.report.get("reason") or ""),
               "reason: %r" % run.report.get("reason"))
    ctx.expect(not run.agent_lines(), "the agent ran: %s" % run.log)
    # Loopback allowed: the same socket leads to a declared destination.
    ok = stdout_socket_run(ctx, SV, no_loopback=False)
    expect_outcome(ctx, ok, 0, "pass")
    # The check can fail.
    m = stdout_socket_run(ctx, mutant_binary("stdio-socket-open"), no_loopback=True)
    ctx.expect_eq(m.rc, 0, "stdio-socket-open mutant exit status (the agent ran with the socket)")


def stdin_inet_run(ctx, binary, sock, port, uid1000=False):
    """inherit-fd --stdio under binary with sock on the supervisor's stdin,
    only 127.0.0.1:port allowed."""
    proc, report_path, log_path = ctx.start(
        "inherit-fd", ["--stdio"], allow=["127.0.0.1:%d" % port], no_loopback=True, binary=binary,
        uid1000=uid1000, preexec=lambda fd=sock.fileno(): os.dup2(fd, 0))
    return ctx.finish(proc, report_path, log_path)


@test()
def inet_socket_on_stdin_with_state_beyond_its_peer_refuses_the_run(ctx):
    # Review h-attack9: a caller's UDP socket connected to the declared
    # address but carrying a loose source route through 127.0.0.2 (or, for
    # IPv6, a corked datagram started towards another address) sent the
    # agent's write() there: verdict pass. Only TCP without IP options or a
    # routing header is given to the agent now (mutant stdio-state-unchecked).
    lis = ctx.udp()
    lsrr = bytes([131, 7, 4, 127, 0, 0, 2, 0])  # IPOPT_LSRR via 127.0.0.2, then IPOPT_END
    for binary in (SV, mutant_binary("stdio-state-unchecked")):
        for name, opts in (("udp", None), ("udp+lsrr", lsrr)):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            ctx.closers.append(s.close)
            if opts:
                s.setsockopt(socket.IPPROTO_IP, socket.IP_OPTIONS, opts)
            s.connect((DECLARED, lis.port))
            run = stdin_inet_run(ctx, binary, s, lis.port)
            if binary == SV:
                expect_outcome(ctx, run, 3, "capability-error")
                ctx.expect("descriptor 0 is an inet socket" in (run.report.get("reason") or ""),
                           "%s: reason %r" % (name, run.report.get("reason")))
                ctx.expect(not run.agent_lines(), "%s: the agent ran: %s" % (name, run.log))
            else:
                expect_outcome(ctx, run, 0, "pass")
    # A TCP socket with a source route is refused too; without one it is
    # given to the agent (socket_on_stdout_outside_the_allow_list_refuses_the_run).
    tl = ctx.tcp()
    t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ctx.closers.append(t.close)
    t.connect(tl.sock.getsockname()[:2])
    t.setsockopt(socket.IPPROTO_IP, socket.IP_OPTIONS, lsrr)  # after: no SYN to route
    run = stdin_inet_run(ctx, SV, t, tl.sock.getsockname()[1])
    expect_outcome(ctx, run, 3, "capability-error")
    ctx.expect("IP options" in (run.report.get("reason") or ""), "tcp+lsrr: reason %r" % run.report.get("reason"))
    # Bound to a device (review h-attack12): it sends on that link whatever
    # the routes say (the same check, so the same mutant).
    tcp_on_stdin_refused(ctx, tl, "stdio-state-unchecked", "bound to a device",
                         lambda t: t.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, b"lo"),
                         None)


def tcp_on_stdin_refused(ctx, tl, mutant, phrase, before, after):
    """A TCP socket connected to listener tl, with before(sock) done before
    its connect and after(sock) after, on the supervisor's stdin: refused
    (capability-error whose reason holds phrase); the mutant passes it."""
    for binary in (SV, mutant_binary(mutant)):
        t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ctx.closers.append(t.close)
        if before:
            before(t)
        t.connect(tl.sock.getsockname()[:2])
        if after:
            after(t)
        run = stdin_inet_run(ctx, binary, t, tl.sock.getsockname()[1])
        if binary == SV:
            expect_outcome(ctx, run, 3, "capability-error")
            ctx.expect(phrase in (run.report.get("reason") or ""),
                       "%s: reason %r" % (phrase, run.report.get("reason")))
        else:
            expect_outcome(ctx, run, 0, "pass")


@test()
def tcp_socket_on_stdin_marked_dont_route_refuses_the_run(ctx):
    # Review h-attack35: SO_DONTROUTE makes IPv4 take only a route without
    # a gateway, so a fallback default route over another link wins over
    # the host's gateway route (ha35-dontroute.sh). A caller's TCP socket
    # with it set is refused (capability-error naming it); mutant
    # stdio-dontroute-kept gives it to the agent: pass.
    tcp_on_stdin_refused(ctx, ctx.tcp(), "stdio-dontroute-kept", "SO_DONTROUTE", None,
                         lambda t: t.setsockopt(socket.SOL_SOCKET, socket.SO_DONTROUTE, 1))


@test()
def tcp_socket_on_stdin_routed_through_a_cleared_source_route_is_routed_again(ctx):
    # Review h-attack10: a caller's TCP socket connected through a loose
    # source route (via 127.0.0.2) whose option was then cleared reads back
    # no IP options, yet keeps sending to the route's first hop while its
    # cached route lives. The supervisor changes IP_TOS and back, which drops
    # that route (mutant stdio-route-kept). The reproduction (root: a network
    # namespace of its own, TCP_REPAIR) is the review's own.
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("musl-gcc"):
        raise Skip("needs root (a network namespace, TCP_REPAIR), unshare and musl-gcc")
    script = os.path.join(TOP, "tests", "review", "ha10-stdio.sh")
    for binary in (SV, mutant_binary("stdio-route-kept")):
        ctx.require(os.access(binary, os.X_OK), "%s missing" % binary)
        p = run_script(ctx, ["bash", script, binary], 120, env=dict(os.environ, MODES="lsrr-cleared"))
        m = re.search(r"undeclared 127\.0\.0\.2 \(raw TCP receiver\): (\d+) segment", p.stdout)
        ctx.require(m is not None, "no count in the reproduction's output: %s %s" % (p.stdout[-400:], p.stderr[-400:]))
        if binary == SV:
            ctx.expect_eq(int(m.group(1)), 0, "segments with the agent's bytes at 127.0.0.2")
        else:
            ctx.expect(int(m.group(1)) > 0, "stdio-route-kept mutant: nothing at 127.0.0.2 (%s)" % p.stdout[-300:])


@test()
def tcp_socket_on_stdin_keeps_its_priority_through_the_route_reset(ctx):
    # Review h-attack11: each IP_TOS write of the route reset also sets
    # SO_PRIORITY from the TOS, so the caller's priority was lost (mutant
    # stdio-priority-lost). It is put back; a priority above 6, which a
    # uid-1000 supervisor may not write, refuses the run with the socket
    # untouched. Read on the test's own copy of the socket after the run.
    tl = ctx.tcp()
    addr = tl.sock.getsockname()[:2]
    cases = ((SV, False, 5, 5), (mutant_binary("stdio-priority-lost"), False, 5, 0),
             (SV, True, 5, 5), (SV, True, 7, None))
    for binary, uid1000, prio, want in cases:
        s = socket.create_connection(addr)
        ctx.closers.append(s.close)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, prio)
        what = "%s uid1000=%s priority %d" % (os.path.basename(os.path.dirname(binary)), uid1000, prio)
        run = stdin_inet_run(ctx, binary, s, addr[1], uid1000=uid1000)
        got = s.getsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY)
        if want is None:
            expect_outcome(ctx, run, 3, "capability-error")
            ctx.expect("SO_PRIORITY" in (run.report.get("reason") or ""),
                       "%s: reason %r" % (what, run.report.get("reason")))
            ctx.expect_eq(got, prio, "%s: priority after the refused run" % what)
        else:
            expect_outcome(ctx, run, 0, "pass")
            ctx.expect_eq(got, want, "%s: priority after the run" % what)


@test()
def root_agent_cannot_write_sysctls_through_its_working_directory_or_another_proc(ctx):
    if os.geteuid() != 0 or not shutil.which("unshare"):
        raise Skip("needs root (a root agent's pid and mount namespace) and unshare")
    extra = os.path.join(ctx.tmp, "proc2")
    os.mkdir(extra)

    def second_proc(argv):
        return ["unshare", "-m", "--propagation", "private", "sh", "-c",
                'mount -t proc proc "$0" && exec "$@"', extra] + argv

    for binary, must_fail in ((SV, True), (mutant_binary("proc-by-path"), False)):
        run = rewrite_run(ctx, binary, "/proc/sys/kernel", ["core_pattern"])
        run2 = rewrite_run(ctx, binary, "/", [extra + "/sys/kernel/core_pattern"], wrap=second_proc)
        for r, what in ((run, "kernel/core_pattern from cwd /proc/sys/kernel"),
                        (run2, "core_pattern of a second proc mount")):
            line = expect_agent(ctx, r, "rewrite") or {}
            if must_fail:
                ctx.expect_eq(r.report.get("containment"), "pid-namespace", "containment")
                ctx.expect_eq((line.get("result"), line.get("errno")), (-1, "EROFS"),
                              "%s: want EROFS" % what)
            elif r is run2:
                # The working directory is re-entered by path in both
                # builds; the second proc mount is what only the type
                # rule reaches.
                ctx.expect(line.get("result", -1) >= 0,
                           "proc-by-path mutant: %s should be writable: %s" % (what, line))


def refuse_unshare(*more):
    """A preexec_fn: unshare (and the syscalls MORE) answered EPERM, as
    Docker's default seccomp profile does for a container without
    CAP_SYS_ADMIN (and, without CAP_SYS_PTRACE, pidfd_getfd and
    process_vm_readv)."""
    masks = seccomp_mask_module()
    return lambda: masks.container_mask((masks.NR_UNSHARE,) + more)


def seccomp_mask_module():
    """tests/hostprofile/seccomp_mask.py, the masks the host profile tests
    use too."""
    sys.path.insert(0, os.path.join(TOP, "tests", "hostprofile"))
    import seccomp_mask
    return seccomp_mask


@test()
def refused_unshare_hands_the_listener_over_with_pidfd_getfd(ctx):
    # Docker's default seccomp profile refuses unshare without
    # CAP_SYS_ADMIN, so the child that shares our table to install the
    # filter cannot take a table of its own. A second child gets its own
    # table at the clone and the listener is taken from it with
    # pidfd_getfd, the access every performed call needs anyway: a
    # container with CAP_SYS_PTRACE added (or a uid-1000 job under Yama 0
    # or 1) is mediated as anywhere else. Root (its pid namespace) and uid
    # 1000 (the subreaper: the mask refuses its user namespace too); a
    # declared connect passes with its bytes at the listener, an
    # undeclared one is denied and nothing arrives. Mutant
    # handover-shared-only: every run refused, as before.
    for uid1000 in (False, True):
        lis, other = ctx.tcp(), ctx.tcp()
        run = ctx.sv("connect-tcp", ["--send", "hi", lis.dest], allow=[lis.dest], no_loopback=True,
                     uid1000=uid1000, preexec=refuse_unshare())
        expect_outcome(ctx, run, 0, "pass")
        probe = run.report.get("probe") or {}
        ctx.expect_eq(tuple(probe.get(k) for k in ("listener", "private_table", "handover", "unshare_files")),
                      ("ok", "ok", "pidfd_getfd", "EPERM"), "probe (uid1000=%s)" % uid1000)
        if uid1000:
            ctx.expect_eq(run.report.get("containment"), subreaper_containment(), "containment")
        wait_for(lambda: lis.received() == b"hi\n", 3)
        ctx.expect_eq(lis.received(), b"hi\n", "bytes at the declared listener (uid1000=%s)" % uid1000)
        run = ctx.sv("connect-tcp", ["--send", "hi", other.dest], allow=[lis.dest], no_loopback=True,
                     uid1000=uid1000, preexec=refuse_unshare())
        expect_outcome(ctx, run, 1, "fail")
        expect_event(ctx, run, "the undeclared connect", syscall="connect", bucket="denied")
        ctx.expect_eq(other.received(), b"", "bytes at the undeclared listener")
    run = ctx.sv("no-network", [], binary=mutant_binary("handover-shared-only"), preexec=refuse_unshare())
    expect_outcome(ctx, run, 3, "capability-error")
    probe = run.report.get("probe") or {}
    ctx.expect_eq((probe.get("listener"), probe.get("private_table"), probe.get("handover")),
                  ("ok", "EPERM", "shared-table"), "handover-shared-only: probe")
    ctx.expect(not run.agent_lines(), "the agent ran: %s" % run.log)


@test()
def refused_unshare_and_pidfd_getfd_name_the_hand_over(ctx):
    # Docker's default profile without CAP_SYS_PTRACE refuses pidfd_getfd
    # as well: the listener cannot be taken, the probe says so on the
    # listener's line, and the agent never runs. The test build's seams
    # (unshare_files, handover) reach the same two steps on any host.
    run = ctx.sv("no-network", [], preexec=refuse_unshare(seccomp_mask_module().NR_PIDFD_GETFD))
    expect_outcome(ctx, run, 3, "capability-error")
    probe = run.report.get("probe") or {}
    ctx.expect_eq(tuple(probe.get(k) for k in ("listener", "private_table", "handover", "pidfd_getfd")),
                  ("EPERM", "ok", "pidfd_getfd", None), "probe")
    ctx.expect(not run.agent_lines(), "the agent ran: %s" % run.log)
    run = ctx.sv("no-network", [], fault="probe.unshare_files:EPERM,probe.handover:ESRCH")
    expect_outcome(ctx, run, 3, "capability-error")
    probe = run.report.get("probe") or {}
    ctx.expect_eq((probe.get("listener"), probe.get("handover")), ("ESRCH", "pidfd_getfd"), "seam probe")
    run = ctx.sv("no-network", [], fault="probe.unshare_files:EPERM")
    expect_outcome(ctx, run, 0, "pass")


@test()
def root_agent_sees_no_host_device_and_no_node_it_or_its_caller_makes(ctx):
    # Issue 11 class 5: a root agent keeps CAP_DAC_OVERRIDE, so every host
    # mount it sees is read-only and nodev but the paths declared writable
    # (still nodev), /dev is its own, and CAP_MKNOD is dropped. The caller
    # left a node of /dev/null's numbers in the declared path (a chroot's
    # /dev under a build directory would hold /dev/sda): it must not open.
    # Mutants: root-files-writable (the stand-in for a program a root
    # service runs is replaced), host-dev (the host's nodes in /dev),
    # writable-dev (the caller's node opens), mknod-kept (the agent's own
    # node is made).
    if os.geteuid() != 0:
        raise Skip("needs root: the class is a root agent")
    decl = os.path.join(ctx.tmp, "declared")
    # Not under the harness's log directory, which is declared too.
    other = tempfile.mkdtemp(prefix="egress-it-undeclared-")
    ctx.closers.append(lambda: shutil.rmtree(other, ignore_errors=True))
    os.mkdir(decl)
    caller_node = os.path.join(decl, "callers-node")
    os.mknod(caller_node, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    program = os.path.join(other, "program")
    with open(program, "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    kept = {"null", "zero", "full", "random", "urandom", "tty", "userfaultfd", "fd", "stdin",
            "stdout", "stderr", "shm", "pts", "ptmx"}
    ops = ["write:" + os.path.join(decl, "work"), "write:" + program,
           "open-wr:" + caller_node, "mknod:" + os.path.join(decl, "agents-node"),
           "open-wr:/dev/null", "list:/dev"]

    def probe(binary):
        # Only the harness's log directory and decl are declared.
        run = ctx.sv("fs-probe", ops, binary=binary, sv_args=["--writable", decl])
        expect_outcome(ctx, run, 0, "pass")
        res = {}
        for line in run.log:
            if line.get("call") in ("write", "open_wr", "mknod"):
                res[(line["call"], line.get("dest"))] = line.get("errno") if line.get("result") else "ok"
        extra = sorted(os.path.basename(l.get("dest", "")) for l in run.agent_lines(call="entry")
                       if os.path.basename(l.get("dest", "")) not in kept)
        return run, res, extra

    run, res, extra = probe(SV)
    ctx.expect_eq(run.report.get("host_files"), "read-only", "host_files")
    ctx.expect_eq(run.report.get("writable"), [ctx.tmp, decl], "writable")
    ctx.expect_eq(res.get(("write", os.path.join(decl, "work"))), "ok", "write in the declared path")
    ctx.expect_eq(res.get(("open_wr", "/dev/null")), "ok", "/dev/null opens")
    ctx.expect_eq(res.get(("write", program)), "EROFS", "the undeclared program")
    ctx.expect_eq(res.get(("open_wr", caller_node)), "EACCES", "the caller's node (nodev)")
    ctx.expect_eq(res.get(("mknod", os.path.join(decl, "agents-node"))), "EPERM", "mknod (CAP_MKNOD)")
    ctx.expect_eq(extra, [], "host entries in the agent's /dev")
    with open(program) as f:
        ctx.expect_eq(f.read(), "#!/bin/sh\nexit 0\n", "the program's bytes")
    for mutant, key, want in (("root-files-writable", ("write", program), "ok"),
                              ("writable-dev", ("open_wr", caller_node), "ok"),
                              ("mknod-kept", ("mknod", os.path.join(decl, "agents-node")), "ok")):
        for p in (os.path.join(decl, "agents-node"),):
            if os.path.lexists(p):
                os.unlink(p)
        _, res, _ = probe(mutant_binary(mutant))
        ctx.expect_eq(res.get(key), want, "%s mutant: %s" % (mutant, key[0]))
    _, _, extra = probe(mutant_binary("host-dev"))
    ctx.expect(extra, "host-dev mutant: the host's /dev entries should show")


@test()
def root_agent_refused_when_a_host_mount_stays_writable(ctx):
    # The read-back after the set-up: the seam makes the pass that turns
    # host mounts read-only and nodev do nothing, as a remount that said it
    # worked and did not take would. The mounts are read back from inside
    # the namespace, so the agent never runs (capability-error, not pass).
    if os.geteuid() != 0:
        raise Skip("needs root: the class is a root agent")
    run = ctx.sv("no-network", [], fault="rootfs:EIO")
    expect_outcome(ctx, run, 3, "capability-error")
    ctx.expect("ENOTRECOVERABLE" in str(run.report.get("internal_error")),
               "internal_error: %r" % run.report.get("internal_error"))
    ctx.expect("is still writable or allows device nodes" in run.err,
               "stderr names the mount: %r" % run.err[-300:])
    ctx.expect_eq(run.log, [], "the agent ran")
