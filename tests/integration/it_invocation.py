"""Integration tests: invocation, the probe and the fault seam.

Bad invocations (exit 2, naming the argument, nothing run), the probe's
capability lines, the release build without the seam, and each runtime and
probe fault site giving capability-error.

Registered into harness.TESTS when run.py imports it."""

import os
import resource
import subprocess
import time

from harness import (AGENTS, SV, SV_FAULTS, UNDECLARED, Run, check_report, errno_in,
                     expect_agent, expect_outcome, load_report, mutant_binary, test, wait_for)


# Bad invocations: exit 2, the message names the argument, nothing is run.
BAD_INVOCATIONS = {
    "allow_host_bits_set": (["--allow", "192.0.2.1/24"], "192.0.2.1/24"),
    "allow_ipv4_mapped_rule": (["--allow", "[::ffff:192.0.2.1]"], "::ffff:192.0.2.1"),
    "allow_port_zero": (["--allow", "192.0.2.1:0"], "192.0.2.1:0"),
    "allow_port_too_big": (["--allow", "192.0.2.1:65536"], "192.0.2.1:65536"),
    "allow_port_range_reversed": (["--allow", "192.0.2.1:2000-1000"], "192.0.2.1:2000-1000"),
    "allow_unbracketed_ipv6": (["--allow", "2001:db8::1"], "2001:db8::1"),
    "allow_prefix_too_long": (["--allow", "192.0.2.0/33"], "192.0.2.0/33"),
    "allow_hostname": (["--allow", "example.com"], "example.com"),
    "unknown_option": (["--frobnicate"], "--frobnicate"),
}


def make_bad_invocation_test(slug, args, needle):
    def fn(ctx):
        log_path = os.path.join(ctx.tmp, "agent.log")
        report_path = os.path.join(ctx.tmp, "report.json")
        ctx.require(os.access(SV, os.X_OK), "%s missing" % SV)
        argv = [SV] + args + ["--report", report_path, "--", os.path.join(AGENTS, "no-network")]
        p = subprocess.run(argv, env=dict(os.environ, EGRESS_AGENT_LOG=log_path), capture_output=True, text=True,
                           timeout=20, check=False)
        ctx.expect_eq(p.returncode, 2, "exit status of %s" % argv[1:])
        ctx.expect(needle in p.stderr, "message does not name %r: %r" % (needle, p.stderr))
        ctx.expect(not os.path.exists(log_path), "the agent ran")
    fn.__name__ = "bad_invocation_%s_exits_2" % slug
    test()(fn)


for _slug, (_args, _needle) in BAD_INVOCATIONS.items():
    make_bad_invocation_test(_slug, _args, _needle)


def run_plain(ctx, argv, timeout=20):
    ctx.require(os.access(argv[0], os.X_OK), "%s missing" % argv[0])
    log_path = os.path.join(ctx.tmp, "plain-agent.log")
    p = subprocess.run(argv, env=dict(os.environ, EGRESS_AGENT_LOG=log_path), capture_output=True, text=True,
                       timeout=timeout, check=False)
    return p, log_path


@test()
def bad_invocation_allow_without_value_exits_2(ctx):
    p, _ = run_plain(ctx, [SV, "--allow"])
    ctx.expect_eq(p.returncode, 2, "exit status")
    ctx.expect("--allow" in p.stderr, "message does not name --allow: %r" % p.stderr)


@test()
def bad_invocation_report_without_value_exits_2(ctx):
    p, _ = run_plain(ctx, [SV, "--report"])
    ctx.expect_eq(p.returncode, 2, "exit status")
    ctx.expect("--report" in p.stderr, "message does not name --report: %r" % p.stderr)


@test()
def bad_invocation_missing_program_exits_2(ctx):
    p, _ = run_plain(ctx, [SV, "--"])
    ctx.expect_eq(p.returncode, 2, "exit status")
    ctx.expect("program" in p.stderr.lower(), "message does not name PROGRAM: %r" % p.stderr)


@test()
def probe_prints_capability_lines_and_exits_0(ctx):
    report_path = os.path.join(ctx.tmp, "probe.json")
    p, _ = run_plain(ctx, [SV, "--probe", "--report", report_path])
    ctx.expect_eq(p.returncode, 0, "exit status")
    lines = dict(line.split(": ", 1) for line in p.stdout.splitlines() if ": " in line)
    for cap in ("listener", "process_vm_readv", "pidfd_open", "pidfd_getfd", "id_valid"):
        ctx.expect_eq(lines.get(cap), "ok", "probe line %s" % cap)
    rep = load_report(ctx, report_path)
    ctx.require(rep is not None, "probe wrote no report")
    ctx.expect_eq((rep.get("probe") or {}).get("result"), "ok", "report probe.result")
    ctx.expect(rep.get("verdict") != "capability-error", "probe report verdict %r" % rep.get("verdict"))
    check_report(ctx, Run(p.returncode, p.stdout, p.stderr, rep, [], 0), "release")


@test()
def release_binary_has_no_fault_seam(ctx):
    ctx.require(os.access(SV, os.X_OK), "%s missing" % SV)
    with open(SV, "rb") as f:
        ctx.expect(b"EGRESS_SV_FAULT" not in f.read(), "release binary contains EGRESS_SV_FAULT")
    ctx.require(os.access(SV_FAULTS, os.X_OK), "%s missing" % SV_FAULTS)
    with open(SV_FAULTS, "rb") as f:
        ctx.expect(b"EGRESS_SV_FAULT" in f.read(), "faults build lacks EGRESS_SV_FAULT: the byte check proves nothing")


@test()
def release_binary_ignores_fault_variable(ctx):
    lis = ctx.tcp()
    run = ctx.sv("connect-tcp", [lis.dest], fault="pidfd_getfd:EPERM", binary=SV)
    expect_outcome(ctx, run, 0, "pass")
    ctx.expect_eq(run.report.get("build"), "release", "build")


# Runtime fault sites: (site, injected faults, errno to find recorded).
# proc_mem is only used where process_vm_readv is ENOSYS, so that is injected too.
RUNTIME_FAULTS = [
    ("recv", "recv:EIO", "EIO"),
    ("process_vm_readv", "process_vm_readv:EPERM", "EPERM"),
    ("proc_mem", "process_vm_readv:ENOSYS,proc_mem:EACCES", "EACCES"),
    ("id_valid", "id_valid:EIO", "EIO"),
    ("pidfd_open", "pidfd_open:EMFILE", "EMFILE"),
    ("pidfd_getfd", "pidfd_getfd:EPERM", "EPERM"),
    ("dup_close", "dup_close:EIO", "EIO"),
    ("send", "send:EIO", "EIO"),
]
PROBE_FAULTS = [(site, ",".join("probe." + f for f in faults.split(",")), err) for site, faults, err in RUNTIME_FAULTS]


def make_runtime_fault_test(site, faults, err):
    def fn(ctx):
        lis = ctx.tcp()
        run = ctx.sv("connect-tcp", [lis.dest], fault=faults, timeout=30)
        expect_outcome(ctx, run, 3, "capability-error")
        ctx.expect_eq(run.report.get("build"), "faults", "build")
        ctx.expect(run.counts().get("mechanism_failures", 0) >= 1, "mechanism_failures: %s" % run.counts())
        evs = run.events(bucket="mechanism_failure")
        mine = [e for e in evs if e.get("mechanism") == site]
        ctx.expect(mine, "no mechanism_failure event with mechanism %r: %s" % (site, evs))
        ctx.expect(any(errno_in(e, err) for e in mine) or err in (run.report.get("reason") or ""),
                   "injected %s not recorded: %s / %r" % (err, mine, run.report.get("reason")))
        if site in ("process_vm_readv", "proc_mem", "id_valid", "pidfd_open", "pidfd_getfd"):
            expect_agent(ctx, run, "connect", -1, "EPERM")
            time.sleep(0.2)
            ctx.expect_eq(lis.conns, 0, "connections made despite the failure")
    fn.__name__ = "fault_%s_gives_capability_error" % site
    test()(fn)


def make_probe_fault_test(site, faults, err):
    def fn(ctx):
        lis = ctx.tcp()
        run = ctx.sv("connect-tcp", [lis.dest], fault=faults, timeout=30)
        expect_outcome(ctx, run, 3, "capability-error")
        probe = run.report.get("probe") or {}
        ctx.expect_eq(probe.get("result"), "failed", "probe.result")
        ctx.expect(errno_in(probe, err) or err in (run.report.get("reason") or ""),
                   "injected %s not in the probe record: %s / %r" % (err, probe, run.report.get("reason")))
        if run.log and probe.get("result") == "failed":
            print("  note: the agent ran although the probe failed: %s" % run.log)
    fn.__name__ = "fault_probe_%s_gives_capability_error" % site
    test()(fn)


for _site, _faults, _err in RUNTIME_FAULTS:
    make_runtime_fault_test(_site, _faults, _err)
for _site, _faults, _err in PROBE_FAULTS:
    make_probe_fault_test(_site, _faults, _err)


@test()
def fault_process_vm_readv_enosys_falls_back_to_proc_mem(ctx):
    lis = ctx.tcp(reply=True)
    run = ctx.sv("connect-tcp", ["--send", "x", lis.dest], fault="process_vm_readv:ENOSYS")
    expect_outcome(ctx, run, 0, "pass")
    ctx.expect(wait_for(lambda: lis.received() == b"x\n"), "listener got %r" % lis.received())


@test()
def fault_probe_process_vm_readv_enosys_probe_falls_back(ctx):
    report_path = os.path.join(ctx.tmp, "probe.json")
    ctx.require(os.access(SV_FAULTS, os.X_OK), "%s missing" % SV_FAULTS)
    p = subprocess.run([SV_FAULTS, "--probe", "--report", report_path], capture_output=True, text=True,
                       env=dict(os.environ, EGRESS_SV_FAULT="probe.process_vm_readv:ENOSYS"), timeout=20,
                       check=False)
    ctx.expect_eq(p.returncode, 0, "exit status (proc_mem still works)")
    ctx.expect("process_vm_readv: ENOSYS" in p.stdout, "probe output: %r" % p.stdout)
    rep = load_report(ctx, report_path) or {}
    ctx.expect_eq((rep.get("probe") or {}).get("proc_mem"), "ok", "probe.proc_mem")


def nested_probe(ctx, inner_binary, fault=None):
    """A supervisor's --probe (with the seam's fault) under a filter that
    already has a listener (notify-holder, as a container runtime's notify
    profile or another supervisor puts it there): (probe report, stdout)."""
    inner = os.path.join(ctx.tmp, "inner.json")
    env = dict(os.environ, EGRESS_SV_FAULT=fault) if fault else None
    p = subprocess.run([os.path.join(AGENTS, "notify-holder"), inner_binary, "--probe",
                        "--report", inner], capture_output=True, text=True, timeout=60,
                       check=False, env=env)
    rep = load_report(ctx, inner)
    ctx.require(rep is not None, "the inner supervisor wrote no report: %r" % p.stderr[-400:])
    return rep.get("probe") or {}, p.stdout


@test()
def listener_refusal_named_ebusy_when_already_under_a_listener(ctx):
    """A supervisor under a container runtime's notify profile (or inside
    another supervisor): the kernel refuses a second listener in one filter
    chain with EBUSY, and the probe names it with its hint, not libseccomp 2.5.4's
    EFAULT for every errno outside its list."""
    probe, out = nested_probe(ctx, SV)
    ctx.expect_eq(probe.get("listener"), "EBUSY", "inner probe.listener")
    ctx.expect_eq(probe.get("result"), "failed", "inner probe.result")
    ctx.expect("one listener per filter chain" in out, "no hint on the listener line: %r" % out)
    mutant, _ = nested_probe(ctx, mutant_binary("listener-errno-mapped"))
    ctx.expect(mutant.get("listener") not in (None, "EBUSY"),
               "mutant listener-errno-mapped also said %r: the test cannot tell libseccomp's "
               "load from ours" % mutant.get("listener"))


@test()
def filter_loaded_by_libseccomp_when_memfd_refused(ctx):
    """Where memfd_create is refused (seam memfd, in the probe's canary and
    for the agent), libseccomp loads the same filter: the run is mediated
    as anywhere else, only a refusal's errno would be lost."""
    good = ctx.tcp(reply=True)
    bad = ctx.tcp(UNDECLARED)
    run = ctx.sv("connect-tcp", ["--send", "hi", good.dest, bad.dest], allow=[good.dest],
                 no_loopback=True, fault="memfd:ENOSYS,probe.memfd:ENOSYS")
    expect_outcome(ctx, run, 1, "fail")
    ctx.expect_eq((run.report.get("probe") or {}).get("listener"), "ok", "probe.listener")
    expect_agent(ctx, run, "connect", -1, "EACCES", dest=bad.dest)
    # Under a finite RLIMIT_FSIZE (the caller's) the export would be cut
    # short and the kernel would refuse the rest (review h-attack67):
    # libseccomp loads it; mutant fsize-export-trusted exports anyway.
    def fsize_4k():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    for binary, rc, verdict in ((SV, 0, "pass"), (mutant_binary("fsize-export-trusted"), 3,
                                                   "capability-error")):
        small = ctx.sv("/bin/true", [], binary=binary, preexec=fsize_4k)
        expect_outcome(ctx, small, rc, verdict)
    # The seam reached the load: nested, the refusal is libseccomp's now.
    probe, _ = nested_probe(ctx, SV_FAULTS, fault="probe.memfd:ENOSYS")
    ctx.expect_eq(probe.get("listener"), "ECANCELED", "nested probe.listener through libseccomp")
    ctx.expect(wait_for(lambda: good.received() == b"hi\n"), "declared listener got %r" % good.received())
    time.sleep(0.2)
    ctx.expect_eq(bad.conns, 0, "connections that reached the undeclared listener")
