#!/usr/bin/env python3
"""Unit tests for scenario.py: the format, every error path, expansion and
compilation. Run: python3 scenarios/tools/test_scenario.py
Prints one line per test and ends with `N passed, N failed`."""

import ast
import os
import sys
import tempfile
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario as S  # noqa: E402

KERNELS = ("debian-6.1", "debian-6.1-cloud", "no-yama", "no-seccomp-filter")

GOOD = """\
# a comment
name = t
description = a test scenario
agent = /agents/model-client 127.0.0.1:8080 203.0.113.5:443
service = /agents/model-server 127.0.0.1:8080
addr = 203.0.113.5/32
allow = 198.51.100.0/24:443
allow = [2001:db8::]/32:1000-2000
loopback = yes
timeout = 30
axis ptrace_scope = 0 1 2 3
axis user = root nocap uid1000
when kernel=no-seccomp-filter -> capability-error: no filter
when ptrace_scope=3 -> capability-error: scope 3 refuses all
when ptrace_scope=2 user=nocap,uid1000 -> capability-error: needs CAP_SYS_PTRACE
expect = fail: readable, undeclared denied
"""

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def write(tmp, text, name="t"):
    path = os.path.join(tmp, name + ".scenario")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def parse(text, name="t"):
    with tempfile.TemporaryDirectory() as tmp:
        return S.parse_file(write(tmp, text, name), KERNELS)


def replace(old, new, text=GOOD):
    assert old in text, old
    return text.replace(old, new)


def expect_error(text, line, fragment, name="t"):
    """Parsing text must fail at `line` (0: whole file) with `fragment` in
    the message."""
    try:
        parse(text, name)
    except S.ScenarioError as e:
        assert e.line == line, f"error on line {e.line}, wanted {line}: {e}"
        assert fragment in e.msg, f"{fragment!r} not in {e.msg!r}"
        assert str(e).startswith(e.path), str(e)
        return
    raise AssertionError(f"no error, wanted line {line}: {fragment}")


# ------------------------------------------------------------ good paths

@test
def parse_good_file_expands_axes_in_order():
    sc = parse(GOOD)
    cells = sc.cells()
    assert len(cells) == 12, len(cells)
    assert cells[0][0] == "t.ptrace_scope=0,user=root", cells[0][0]
    assert cells[-1][0] == "t.ptrace_scope=3,user=uid1000", cells[-1][0]


@test
def resolve_first_match_wins():
    sc = parse(GOOD)
    r = lambda k, p, u: sc.resolve(k, {"ptrace_scope": p, "user": u}).verdict  # noqa: E731
    assert r("no-seccomp-filter", "0", "root") == "capability-error"
    assert r("debian-6.1", "3", "root") == "capability-error"
    assert r("debian-6.1", "2", "nocap") == "capability-error"
    assert r("debian-6.1", "2", "uid1000") == "capability-error"
    assert r("debian-6.1", "2", "root") == "fail"
    assert r("debian-6.1", "1", "uid1000") == "fail"


@test
def resolve_records_justification_and_line():
    sc = parse(GOOD)
    v = sc.resolve("debian-6.1", {"ptrace_scope": "3", "user": "root"})
    assert v.why == "scope 3 refuses all" and v.line == 14, (v.why, v.line)


@test
def kernel_condition_takes_globs():
    sc = parse(replace("kernel=no-seccomp-filter", "kernel=no-*"))
    assert sc.resolve("no-yama", {"ptrace_scope": "0", "user": "root"}).verdict \
        == "capability-error"


@test
def compile_cell_writes_contract_keys():
    sc = parse(GOOD)
    cid, text = S.compile_cell(sc, {"ptrace_scope": "2", "user": "nocap"}, "debian-6.1")
    assert cid == "t.ptrace_scope=2,user=nocap+debian-6.1", cid
    lines = [ln for ln in text.splitlines() if not ln.startswith("#")]
    for want in ("scenario=t", f"cell={cid}", "agent_arg=/agents/model-client",
                 "agent_arg=127.0.0.1:8080", "agent_arg=203.0.113.5:443",
                 "allow=198.51.100.0/24:443", "allow=[2001:db8::]/32:1000-2000",
                 "loopback=yes", "sysctl=kernel.yama.ptrace_scope=2", "uid=0", "gid=0",
                 "drop_cap=cap_sys_ptrace",
                 "service=/agents/model-server 127.0.0.1:8080",
                 "addr=203.0.113.5/32", "requires=yama", "expect=capability-error",
                 "expect_why=needs CAP_SYS_PTRACE", "timeout=30"):
        assert want in lines, f"{want!r} missing from\n{text}"
    keys = {ln.partition("=")[0] for ln in lines}
    allowed = {"scenario", "cell", "agent_arg", "allow", "loopback", "sysctl", "uid",
               "gid", "drop_cap", "mask", "service", "addr", "requires", "expect",
               "expect_why", "timeout", "sink", "kill_supervisor_after", "expect_agent_exit",
               "expect_finished", "expect_untried"}
    assert keys <= allowed, keys - allowed
    assert S.CELL_ID_RE.match(cid)


DESIGNED = replace("when ptrace_scope=3 -> capability-error: scope 3 refuses all",
                   "when ptrace_scope=3 design=ptrace-probe -> capability-error: scope 3 "
                   "refuses all")
DESIGNED = replace("when ptrace_scope=2 user=nocap,uid1000 -> capability-error",
                   "when ptrace_scope=2 user=nocap,uid1000 design=ptrace-probe -> "
                   "capability-error", DESIGNED)


@test
def design_condition_holds_for_a_bundle_with_the_trait_only():
    sc = parse(DESIGNED)
    axes = {"ptrace_scope": "3", "user": "root"}
    # Ours (every trait, the default) as before; a design without the
    # trait gets the next line that matches.
    assert sc.resolve("debian-6.1", axes).verdict == "capability-error"
    assert sc.resolve("debian-6.1", axes, ("ptrace-probe",)).verdict == "capability-error"
    assert sc.resolve("debian-6.1", axes, ()).verdict == "fail"
    assert sc.resolve("debian-6.1", axes, ("landlock",)).verdict == "fail"
    assert sc.resolve("no-seccomp-filter", axes, ()).verdict == "capability-error"


@test
def compile_resolves_for_the_design_and_says_which():
    sc = parse(DESIGNED)
    axes = {"ptrace_scope": "3", "user": "root"}
    _, ours = S.compile_cell(sc, axes, "debian-6.1")
    _, other = S.compile_cell(sc, axes, "debian-6.1", ())
    assert "expect=capability-error\n" in ours and "traits: ptrace-probe reads-agent landlock" in ours, ours
    assert "expect=fail\n" in other and "design traits: none" in other, other


@test
def unknown_design_trait_is_an_error():
    expect_error(replace("design=ptrace-probe", "design=ptrace", DESIGNED), 14,
                 "unknown design trait 'ptrace'")


@test
def design_override_shadowed_by_an_earlier_line_never_wins():
    text = replace("when ptrace_scope=3 design=ptrace-probe",
                   "when ptrace_scope=3 -> fail: x\nwhen ptrace_scope=3 design=ptrace-probe",
                   DESIGNED)
    expect_error(text, 15, "override never wins")


@test
def verdict_modifiers_finished_and_untried_compile():
    text = replace("expect = fail: readable", "expect = fail untried=pass: readable")
    text = replace("timeout = 30", "timeout = 30\nkill_supervisor_after = 4", text)
    text = replace("when ptrace_scope=3 -> capability-error:",
                   "when ptrace_scope=3 -> capability-error finished=fail:", text)
    sc = parse(text)
    _, out = S.compile_cell(sc, {"ptrace_scope": "3", "user": "root"}, "debian-6.1")
    assert "expect_finished=fail\n" in out and "expect_untried" not in out, out
    _, out = S.compile_cell(sc, {"ptrace_scope": "1", "user": "root"}, "debian-6.1")
    assert "expect_untried=pass\n" in out and "expect_finished" not in out, out


@test
def finished_without_a_kill_is_an_error():
    expect_error(replace("expect = fail: readable", "expect = fail finished=pass: readable"),
                 16, "kill_supervisor_after")


@test
def untried_other_than_pass_or_on_pass_is_an_error():
    expect_error(replace("expect = fail: readable", "expect = fail untried=fail: readable"),
                 16, "untried=pass may follow")
    expect_error(replace("expect = fail: readable", "expect = pass untried=pass: readable"),
                 16, "says nothing")


@test
def compile_uid1000_sets_ids_without_caps():
    sc = parse(GOOD)
    _, text = S.compile_cell(sc, {"ptrace_scope": "0", "user": "uid1000"}, "debian-6.1")
    assert "uid=1000\ngid=1000\n" in text and "drop_cap" not in text, text


@test
def compile_cgroup_delegated_reaches_the_cell_only_when_asked():
    _, text = S.compile_cell(parse(GOOD), {"ptrace_scope": "0", "user": "uid1000"}, "debian-6.1")
    assert "cgroup=" not in text, text
    sc = parse(replace("timeout = 30", "timeout = 30\ncgroup = delegated"))
    _, text = S.compile_cell(sc, {"ptrace_scope": "0", "user": "uid1000"}, "debian-6.1")
    assert "cgroup=delegated\n" in text, text


@test
def compile_without_axes_and_defaults():
    text = replace("axis ptrace_scope = 0 1 2 3\naxis user = root nocap uid1000\n", "")
    text = replace("when ptrace_scope=3 -> capability-error: scope 3 refuses all\n", "", text)
    text = replace("when ptrace_scope=2 user=nocap,uid1000 -> capability-error: "
                   "needs CAP_SYS_PTRACE\n", "", text)
    text = replace("timeout = 30\n", "", text)
    sc = parse(text)
    assert [c for c, _ in sc.cells()] == ["t"]
    cid, out = S.compile_cell(sc, {}, "debian-6.1")
    assert cid == "t+debian-6.1" and "timeout=60" in out and "requires=" not in out, out


@test
def static_environment_keys_compile():
    text = replace("axis user = root nocap uid1000\n",
                   "uid = 1000\ngid = 1000\ndrop_cap = cap_net_raw\n"
                   "mask = pidfd_getfd:ENOSYS\nsysctl = kernel.unprivileged_bpf_disabled=1\n"
                   "requires = pidfd_getfd io_uring\n")
    text = replace("when ptrace_scope=2 user=nocap,uid1000 ->", "when ptrace_scope=2 ->", text)
    sc = parse(text)
    _, out = S.compile_cell(sc, {"ptrace_scope": "1"}, "debian-6.1")
    for want in ("uid=1000", "gid=1000", "drop_cap=cap_net_raw", "mask=pidfd_getfd:ENOSYS",
                 "sysctl=kernel.unprivileged_bpf_disabled=1",
                 "sysctl=kernel.yama.ptrace_scope=1", "requires=pidfd_getfd",
                 "requires=io_uring", "requires=yama"):
        assert want + "\n" in out, f"{want} missing:\n{out}"


@test
def sysctl_axis_compiles():
    text = replace("axis user = root nocap uid1000\n", "axis sysctl.net.core.somaxconn = 16 64\n")
    text = replace(" user=nocap,uid1000", " sysctl.net.core.somaxconn=16", text)
    sc = parse(text)
    _, out = S.compile_cell(sc, {"ptrace_scope": "0", "sysctl.net.core.somaxconn": "64"},
                            "debian-6.1")
    assert "sysctl=net.core.somaxconn=64\n" in out, out


@test
def load_directory_sorted_and_agents_named():
    with tempfile.TemporaryDirectory() as tmp:
        write(tmp, replace("name = t", "name = b"), "b")
        write(tmp, replace("name = t", "name = a"), "a")
        with open(os.path.join(tmp, "README"), "w", encoding="utf-8") as f:
            f.write("not a scenario")
        scs = S.load([tmp], KERNELS)
        assert [s.name for s in scs] == ["a", "b"]
        assert S.agents_named(scs[0]) == ["model-client", "model-server"]


@test
def shipped_scenarios_are_valid():
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    scs = S.load([top], S.live_kernels(os.path.join(top, "..")))
    names = [s.name for s in scs]
    assert "starter-undeclared" in names and "starter-declared" in names, names


def no_landlock(kernel, user, want):
    """A uid-1000 agent needs a Landlock domain (5.13+) to be kept from other
    processes of its uid; on 5.10 the supervisor refuses the run."""
    return "capability-error" if user == "uid1000" and kernel.endswith("5.10") else want


# Scenarios whose agent makes a declared connect from a non-leader thread.
THREADED_CONNECT = ("blocking-connect", "exit-storm", "threads-load")


def no_kcmp(kernel, name, want):
    """The custom kernels are tinyconfig + base.config: no CONFIG_KCMP. Before
    6.9 pidfd_getfd sees only the leader's table, so a declared call from
    another thread cannot be tied to its socket without kcmp: the supervisor
    must not perform it and says capability-error."""
    custom = kernel.startswith("min-") or kernel in ("no-cross-memory-attach", "no-yama")
    return "capability-error" if custom and name in THREADED_CONNECT else want


@test
def starter_verdicts_match_kernel_semantics():
    """The hand-derived table of issue 3, restated here independently."""
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    scs = {s.name: s for s in S.load([top], S.live_kernels(os.path.join(top, "..")))}
    for name, ok in (("starter-undeclared", "fail"), ("starter-declared", "pass")):
        sc = scs[name]
        for scope in "0123":
            for user in ("root", "nocap", "uid1000"):
                if scope in "01" or (scope == "2" and user == "root"):
                    want = ok
                else:
                    want = "capability-error"
                for k in ("debian-5.10", "debian-6.1", "debian-6.1-cloud", "debian-6.12",
                          "min-6.1", "no-cross-memory-attach"):
                    got = sc.resolve(k, {"ptrace_scope": scope, "user": user}).verdict
                    assert got == no_landlock(k, user, want), (name, k, scope, user, got, want)
                for k in ("no-seccomp-filter", "no-pidfd-getfd"):
                    got = sc.resolve(k, {"ptrace_scope": scope, "user": user}).verdict
                    assert got == "capability-error", (name, k, scope, user, got)



@test
def adversarial_verdicts_match_kernel_semantics():
    """Issue 4's scenarios 12-22, restated from the access rules: the
    supervisor's CAP_SYS_PTRACE overrides a non-dumpable agent; exec of an
    unreadable binary makes only an agent that cannot read it (uid 1000, not
    root with CAP_DAC_OVERRIDE) non-dumpable; Yama 2 needs CAP_SYS_PTRACE,
    Yama 3 refuses everyone; a killed supervisor leaves capability-error."""
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    scs = {s.name: s for s in S.load([top], S.live_kernels(os.path.join(top, "..")))}
    enforcing = ("debian-5.10", "debian-6.1", "debian-6.1-cloud", "debian-6.12", "min-6.1",
                 "no-cross-memory-attach")
    table = [("nodump", {"user": "root"}, "fail"),
             ("nodump", {"user": "nocap"}, "capability-error"),
             ("nodump", {"user": "uid1000"}, "capability-error"),
             ("nodump-exec", {"user": "root"}, "fail"),
             ("nodump-exec", {"user": "nocap"}, "fail"),
             ("nodump-exec", {"user": "uid1000"}, "capability-error"),
             ("daemonize", {}, "fail"), ("toctou-flip", {}, "fail"),
             ("blocking-connect", {}, "pass"), ("threads-load", {}, "fail"),
             ("fork-storm", {}, "fail"), ("exec-chain", {}, "fail"),
             ("signal-interrupt-declared", {}, "pass"),
             ("signal-interrupt-undeclared", {}, "fail"),
             ("supervisor-killed", {}, "capability-error"),
             ("mask-pre56", {}, "capability-error"), ("mask-container", {}, "capability-error"),
             ("mask-container-connect", {}, "capability-error"),
             ("negative-control", {}, "pass")]
    for scope in "23":
        for user in ("root", "nocap", "uid1000"):
            want = "pass" if (scope, user) == ("2", "root") else "capability-error"
            table.append(("no-network", {"ptrace_scope": scope, "user": user}, want))
    for name, axes, want in table:
        user = "uid1000" if name == "daemonize" else axes.get("user", "root")
        for k in enforcing:
            got = scs[name].resolve(k, axes).verdict
            assert got == no_kcmp(k, name, no_landlock(k, user, want)), (name, k, axes, got, want)
            if got != want and name in ("blocking-connect", "threads-load"):
                # Their declared thread connects fail: both agents exit 1.
                assert scs[name].resolve(k, axes).agent_exit == "1", (name, k)
        for k in ("no-seccomp-filter", "no-pidfd-getfd"):
            got = scs[name].resolve(k, axes).verdict
            assert got == "capability-error", (name, k, axes, got)


# ------------------------------------------------------------ error paths

@test
def error_unknown_key():
    expect_error(replace("loopback = yes", "loopbak = yes"), 9, "unknown key 'loopbak'")


@test
def stdio_and_mount_compile_with_the_features_they_need():
    text = replace("timeout = 30", "timeout = 30\nstdio = 0 udp 203.0.113.5:9\nstdio = 1 pty\n"
                   "stdio = 2 io_uring\nmount = proc /tmp/chroot/proc")
    sc = parse(text)
    _, out = S.compile_cell(sc, {"ptrace_scope": "1", "user": "root"}, "debian-6.1")
    for want in ("stdio=0 udp 203.0.113.5:9", "stdio=1 pty", "stdio=2 io_uring",
                 "mount=proc /tmp/chroot/proc", "requires=pty", "requires=io_uring"):
        assert want + "\n" in out, f"{want} missing:\n{out}"


@test
def error_stdio_and_mount_values_name_their_line():
    for line, fragment in (("stdio = 3 pty", "FD 0, 1 or 2"),
                           ("stdio = 0 fifo", "KIND one of"),
                           ("stdio = 0 udp", "needs ADDR:PORT"),
                           ("stdio = 0 pty extra", "takes no argument"),
                           ("stdio = 0 udp 8.8.8.8:53", "documentation ranges"),
                           ("mount = tmpfs /tmp/x", "mount must be"),
                           ("mount = proc /srv/chroot/proc", "mount must be"),
                           ("mount = proc /tmp/a/../b", "mount must be")):
        expect_error(replace("timeout = 30", "timeout = 30\n" + line), 11, fragment)
    expect_error(replace("timeout = 30", "timeout = 30\nstdio = 0 pty\nstdio = 0 io_uring"), 12,
                 "descriptor 0 already given on line 11")
    expect_error(replace("timeout = 30", "timeout = 30\nstdio = 0 pty\nstdio = 1 pty"), 12,
                 "one pty")
    expect_error(replace("timeout = 30", "timeout = 30\nstdio = 0 udp 192.0.2.1:9"), 11,
                 "not on the guest's lo")


@test
def error_isolation_value_names_its_line():
    expect_error(replace("timeout = 30", "timeout = 30\nisolation = alone"), 11,
                 "isolation must be boot or batch")


@test
def isolation_boot_parses_and_stays_out_of_the_cell_file():
    sc = parse(replace("timeout = 30", "timeout = 30\nisolation = boot"))
    assert sc.get("isolation") == "boot"
    _, text = S.compile_cell(sc, sc.cells()[0][1], "debian-6.1-cloud")
    assert "isolation" not in text, text


@test
def error_not_key_value():
    expect_error(replace("loopback = yes", "loopback yes"), 9, "expected 'key = value'")


@test
def error_empty_value():
    expect_error(replace("timeout = 30", "timeout ="), 10, "empty value")


@test
def error_duplicate_key():
    expect_error(replace("loopback = yes", "loopback = yes\nloopback = no"), 10,
                 "duplicate key 'loopback' (first on line 9)")


@test
def error_missing_required_fields():
    for key, line in (("name", "name = t\n"), ("description", "description = a test scenario\n"),
                      ("agent", "agent = /agents/model-client 127.0.0.1:8080 203.0.113.5:443\n"),
                      ("expect", "expect = fail: readable, undeclared denied\n")):
        expect_error(replace(line, ""), 0, f"missing required key '{key}'")


@test
def error_bad_name_and_file_mismatch():
    expect_error(replace("name = t", "name = T_1"), 2, "bad name 'T_1'", name="T_1")
    expect_error(replace("name = t", "name = other"), 2, "differs from the file name")


@test
def error_duplicate_scenario_name():
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        write(a, GOOD)
        write(b, GOOD)
        try:
            S.load([a, b], KERNELS)
        except S.ScenarioError as e:
            assert e.line == 2 and "duplicate scenario name 't'" in e.msg, str(e)
            return
        raise AssertionError("duplicate name accepted")


@test
def error_missing_path():
    try:
        S.load(["/nonexistent/x.scenario"], KERNELS)
    except S.ScenarioError as e:
        assert "no such file" in e.msg
        return
    raise AssertionError("missing path accepted")


@test
def error_unreadable_file():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.scenario")
        with open(path, "wb") as f:
            f.write(b"name = \xff\n")
        try:
            S.parse_file(path, KERNELS)
        except S.ScenarioError as e:
            assert "cannot read" in e.msg, e.msg
            return
        raise AssertionError("undecodable file accepted")


@test
def error_agent_paths():
    expect_error(replace("agent = /agents/model-client", "agent = model-client"), 4,
                 "must be a guest path /agents/NAME")
    expect_error(replace("agent = /agents/model-client", "agent = /bin/sh"), 4, "/agents/NAME")
    expect_error(replace("agent = /agents/model-client 127.0.0.1:8080 203.0.113.5:443",
                         "agent = /agents/x 'unterminated"), 4, "bad agent command line")
    expect_error(replace("service = /agents/model-server", "service = /usr/bin/nc"), 5,
                 "service program")


@test
def error_bad_values():
    cases = [
        ("loopback = yes", "loopback = maybe", 9, "loopback must be yes or no"),
        ("timeout = 30", "timeout = 0", 10, "timeout must be seconds"),
        ("timeout = 30", "timeout = 1m", 10, "timeout must be seconds"),
        ("addr = 203.0.113.5/32", "addr = 10.0.0.1/32", 6, "outside the documentation ranges"),
        ("addr = 203.0.113.5/32", "addr = 203.0.113.5", 6, "give the prefix"),
        ("addr = 203.0.113.5/32", "addr = nonsense", 6, "addr must be IP/PREFIX"),
        ("allow = 198.51.100.0/24:443", "allow = 198.51.100.1/24", 7, "host bits set"),
        ("allow = 198.51.100.0/24:443", "allow = 198.51.100.0/33", 7, "prefix /33"),
        ("allow = 198.51.100.0/24:443", "allow = 198.51.100.0/24:0", 7, "bad port range"),
        ("allow = 198.51.100.0/24:443", "allow = 198.51.100.0/24:9-8", 7, "bad port range"),
        ("allow = 198.51.100.0/24:443", "allow = 198.51.100.0/24:http", 7, "bad port"),
        ("allow = 198.51.100.0/24:443", "allow = 1.2.3", 7, "bad IPv4 address"),
        ("allow = 198.51.100.0/24:443", "allow = 2001:db8::1", 7, "go in brackets"),
        ("allow = 198.51.100.0/24:443", "allow = host.example", 7, "expected v4"),
        ("allow = [2001:db8::]/32:1000-2000", "allow = [2001:zz::]", 8, "bad IPv6 address"),
        ("allow = [2001:db8::]/32:1000-2000", "allow = [::ffff:192.0.2.1]", 8, "IPv4-mapped"),
        ("expect = fail: readable, undeclared denied", "expect = allowed: x", 16,
         "bad verdict 'allowed'"),
    ]
    for old, new, line, frag in cases:
        expect_error(replace(old, new), line, frag)


@test
def error_bad_environment_values():
    base = replace("axis user = root nocap uid1000\n", "")
    base = replace(" user=nocap,uid1000", "", base)
    cases = [
        ("uid = x", "uid must be a number"),
        ("gid = -1", "gid must be a number"),
        ("user = admin", "user must be one of"),
        ("drop_cap = SYS_PTRACE", "drop_cap must be a capability name"),
        ("mask = pidfd_getfd", "mask must be SYSCALL:ERRNO"),
        ("mask = pidfd_getfd:EIO", "mask must be SYSCALL:ERRNO"),
        ("sysctl = ptrace_scope", "sysctl must be KEY=VALUE"),
        ("requires = yama warp_drive", "unknown feature 'warp_drive'"),
    ]
    for line, frag in cases:
        expect_error(replace("timeout = 30", "timeout = 30\n" + line, base), 11, frag)
    expect_error(replace("timeout = 30", "timeout = 30\nsysctl = a.b=1\nsysctl = a.b=2", base),
                 12, "sysctl a.b set twice")


@test
def error_conflicting_environment():
    expect_error(replace("timeout = 30", "timeout = 30\nuid = 5"), 11, "uid conflicts with 'user'")
    expect_error(replace("timeout = 30", "timeout = 30\ndrop_cap = cap_net_raw"), 11,
                 "drop_cap conflicts")
    expect_error(replace("timeout = 30", "timeout = 30\nuser = root"), 11, "user is also an axis")
    expect_error(replace("timeout = 30", "timeout = 30\nsysctl = kernel.yama.ptrace_scope=1"),
                 12, "also sets")


@test
def error_bad_axes():
    expect_error(replace("axis user = root nocap uid1000", "axis colour = red"), 12,
                 "unknown axis 'colour'")
    expect_error(replace("axis user = root nocap uid1000", "axis user = root admin"), 12,
                 "user value 'admin'")
    expect_error(replace("axis ptrace_scope = 0 1 2 3", "axis ptrace_scope = 0 4"), 11,
                 "ptrace_scope value '4'")
    expect_error(replace("axis ptrace_scope = 0 1 2 3", "axis ptrace_scope = 0 1 1 2 3"), 11,
                 "repeats a value")
    expect_error(replace("axis ptrace_scope = 0 1 2 3", "axis ptrace_scope ="), 11, "no values")
    expect_error(replace("axis user = root nocap uid1000", "axis ptrace_scope = 1"), 12,
                 "duplicate axis")
    expect_error(replace("axis user = root nocap uid1000", "axis sysctl.a.b = x/y"), 12,
                 "characters outside")


@test
def error_justification_missing():
    expect_error(replace("expect = fail: readable, undeclared denied", "expect = fail"), 16,
                 "has no justification")
    expect_error(replace("expect = fail: readable, undeclared denied", "expect = fail:   "),
                 16, "has no justification")
    expect_error(replace("-> capability-error: scope 3 refuses all", "-> capability-error"), 14,
                 "has no justification")


@test
def error_bad_override_syntax():
    expect_error(replace("when ptrace_scope=3 -> capability-error: scope 3 refuses all",
                         "when ptrace_scope=3 capability-error: x"), 14, "must be 'when COND")
    expect_error(replace("when ptrace_scope=3 ->", "when ptrace_scope ->"), 14,
                 "bad condition 'ptrace_scope'")
    expect_error(replace("when ptrace_scope=3 ->", "when ->"), 14, "has no condition")
    expect_error(replace("when ptrace_scope=3 ->", "when ptrace_scope=3 ptrace_scope=2 ->"), 14,
                 "given twice")
    expect_error(replace("when ptrace_scope=3 -> capability-error",
                         "when ptrace_scope=3 -> skipped"), 14, "bad verdict 'skipped'")


@test
def error_override_matches_nothing():
    expect_error(replace("kernel=no-seccomp-filter", "kernel=no-seccomp-filtr"), 13,
                 "override matches nothing: kernel 'no-seccomp-filtr'")
    expect_error(replace("when ptrace_scope=3 ->", "when colour=red ->"), 14,
                 "override matches nothing: 'colour' is neither")
    expect_error(replace("when ptrace_scope=3 ->", "when ptrace_scope=7 ->"), 14,
                 "override matches nothing: ptrace_scope=7")


@test
def error_override_never_wins():
    text = replace("expect = fail", "when kernel=no-seccomp-filter ptrace_scope=1 -> "
                   "pass: shadowed\nexpect = fail")
    expect_error(text, 16, "override never wins: every cell it matches is taken by the "
                 "earlier override(s) on line(s) 13")


@test
def error_cell_id_characters():
    # Axis values are restricted, so only a kernel name can break a cell id.
    with tempfile.TemporaryDirectory() as tmp:
        try:
            S.parse_file(write(tmp, GOOD), KERNELS + ("bad kernel",))
        except S.ScenarioError as e:
            assert "cell id" in e.msg, e.msg
            return
        raise AssertionError("bad cell id accepted")


@test
def sink_kill_and_agent_exit_keys_compile():
    text = replace("timeout = 30", "timeout = 30\nsink = tcp 203.0.113.5:443\n"
                   "sink = udp  [2001:DB8::5]:53\naddr = 2001:db8::5/128\nsink = tcp 127.0.0.1:9\n"
                   "kill_supervisor_after = 3\nexpect_agent_exit = 0")
    sc = parse(text)
    _, out = S.compile_cell(sc, {"ptrace_scope": "1", "user": "root"}, "debian-6.1")
    for want in ("sink=tcp 203.0.113.5:443", "sink=udp [2001:db8::5]:53", "sink=tcp 127.0.0.1:9",
                 "kill_supervisor_after=3", "expect_agent_exit=0"):
        assert want + "\n" in out, f"{want} missing:\n{out}"


@test
def verdict_agent_exit_replaces_expect_agent_exit_only_where_it_applies():
    text = replace("timeout = 30", "timeout = 30\nexpect_agent_exit = 0")
    text = replace("when kernel=no-seccomp-filter -> capability-error: no filter",
                   "when kernel=no-seccomp-filter -> capability-error agent_exit=3: no filter", text)
    sc = parse(text)
    axes = {"ptrace_scope": "1", "user": "root"}
    _, out = S.compile_cell(sc, axes, "no-seccomp-filter")
    assert "expect_agent_exit=3\n" in out and "expect_agent_exit=0" not in out, out
    _, out = S.compile_cell(sc, axes, "debian-6.1")
    assert "expect_agent_exit=0\n" in out, out


@test
def error_bad_verdict_agent_exit():
    for word, frag in (("agent_exit=256", "only agent_exit=N (0..255)"),
                       ("agent_exit=", "only agent_exit=N"), ("exit=1", "not 'exit=1'"),
                       ("agent_exit=1 agent_exit=2", "agent_exit given twice")):
        expect_error(replace("-> capability-error: no filter",
                             f"-> capability-error {word}: no filter"), 13, frag)


@test
def error_bad_sink_kill_and_agent_exit():
    base = replace("timeout = 30", "timeout = 30\n{}")
    for line, frag in (
            ("sink = sctp 203.0.113.5:443", "want 'tcp ADDR:PORT'"),
            ("sink = tcp 203.0.113.5", "want A.B.C.D:PORT"),
            ("sink = tcp 203.0.113.5:0", "outside 1..65535"),
            ("sink = tcp 2001:db8::5:443", "want A.B.C.D:PORT or [V6]:PORT"),
            ("sink = tcp 8.8.8.8:53", "neither loopback nor in the documentation"),
            ("sink = udp 203.0.113.300:53", "bad address"),
            ("kill_supervisor_after = 0", "kill_supervisor_after must be seconds"),
            ("kill_supervisor_after = soon", "kill_supervisor_after must be seconds"),
            ("expect_agent_exit = 256", "expect_agent_exit must be an exit status"),
            ("expect_agent_exit = -1", "expect_agent_exit must be an exit status"),
            ("cgroup = yes", "cgroup must be delegated")):
        expect_error(base.format(line), 11, frag)
    expect_error(base.format("sink = tcp 198.51.100.7:443"), 11,
                 "198.51.100.7 is not on the guest's lo: add 'addr = 198.51.100.7/32'")
    expect_error(base.format("sink = tcp 203.0.113.5:443\nsink = tcp 203.0.113.5:443"), 12,
                 "given twice (first on line 11)")
    expect_error(base.format("kill_supervisor_after = 1\nkill_supervisor_after = 2"), 12,
                 "duplicate key")
    expect_error(base.format("cgroup = delegated\ncgroup = delegated"), 12, "duplicate key")


@test
def route_lines_compile_in_order_and_share_a_batch():
    # The reset between cells deletes the routes a cell added
    # (initramfs/tests/test_reset_net.py), so a route needs no boot of its own.
    text = replace("loopback = yes\n", "loopback = yes\nroute = unreachable 198.51.100.7/32\n"
                   "route = default  dev lo metric 500\n")
    sc = parse(text)
    assert sc.get("isolation", "batch") == "batch"
    _, cell = S.compile_cell(sc, sc.cells()[0][1], "debian-6.1")
    lines = cell.splitlines()
    assert lines.index("route=unreachable 198.51.100.7/32") < lines.index(
        "route=default dev lo metric 500"), cell


@test
def route_outside_the_documentation_ranges_or_off_lo_is_refused():
    for bad, fragment in (("unreachable 10.0.0.0/8", "documentation ranges"),
                          ("unreachable 198.51.100.7", "with its prefix"),
                          ("198.51.100.0/24 dev eth0", "PREFIX dev lo"),
                          ("default via 192.0.2.1", "PREFIX dev lo"),
                          ("default dev lo metric x", "PREFIX dev lo"),
                          ("198.51.100.1/24 dev lo", "no host bits")):
        expect_error(replace("loopback = yes\n", "loopback = yes\nroute = %s\n"
                             % bad), 10, fragment)


@test
def cell_id_characters_are_the_ones_the_guest_init_accepts():
    # The id's characters are written in contract.py for the compiler and the
    # host, and once more as a shell pattern in the guest's init: a character
    # one side takes and the other refuses turns every cell of a scenario
    # into cell=invalid. Both places in init use the same set.
    init = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                        "initramfs", "guest", "init")
    with open(init, encoding="utf-8") as f:
        text = f.read()
    pattern = "*[!%s]*" % S.CELL_ID_CHARS
    assert text.count(pattern) == 2, f"{init}: {pattern} appears {text.count(pattern)} times"
    assert S.CELL_ID_RE.match(S.cell_id("a.user=root,ptrace_scope=2", "debian-6.1-cloud"))
    assert not S.CELL_ID_RE.match("a b")


def import_arrows(d):
    """{module: [modules of d it imports]} for every .py of d, counting
    imports inside functions too (the kind that hid a cycle)."""
    mods = {f[:-3] for f in os.listdir(d) if f.endswith(".py")}
    out = {}
    for m in sorted(mods):
        with open(os.path.join(d, m + ".py"), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        deps = set()
        for n in ast.walk(tree):
            if isinstance(n, ast.Import):
                deps |= {a.name for a in n.names}
            elif isinstance(n, ast.ImportFrom) and n.module:
                deps.add(n.module)
        out[m] = sorted((deps & mods) - {m})
    return out


def first_cycle(graph):
    state = {}

    def visit(m, path):
        state[m] = "open"
        for n in graph[m]:
            if state.get(n) == "open":
                return path[path.index(n):] + [n]
            if n not in state:
                found = visit(n, path + [n])
                if found:
                    return found
        state[m] = "done"
        return None

    for m in graph:
        if m not in state:
            found = visit(m, [m])
            if found:
                return found
    return None


@test
def tools_and_host_modules_import_no_cycle_even_inside_functions():
    # The style's "no cycles between modules", for the Python side
    # (supervisor/tools/include-cycles.py checks the C). The floor, the shard
    # merge and the HTML report each imported matrix.py inside main() while
    # matrix.py imported them: kernels.py and summary.py now hold what they
    # needed.
    here = os.path.dirname(os.path.abspath(__file__))
    for d in (here, os.path.join(here, "..", "..", "initramfs", "host")):
        cycle = first_cycle(import_arrows(d))
        assert cycle is None, f"{os.path.normpath(d)}: {' -> '.join(cycle)}"
    assert first_cycle({"a": ["b"], "b": ["a"]}) == ["a", "b", "a"]


def main():
    passed = failed = 0
    for fn in TESTS:
        try:
            fn()
        except Exception:  # noqa: BLE001 - report every failure and go on
            failed += 1
            print(f"FAIL {fn.__name__}")
            traceback.print_exc(file=sys.stdout)
        else:
            passed += 1
            print(f"ok   {fn.__name__}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
