#!/usr/bin/env python3
"""Scenario files: parse, validate, expand into cells, compile cell files.

The format is documented in docs/scenarios.md. In short, one statement a line:

    key = value                       a field (some keys repeat)
    axis NAME = V1 V2 ...             vary the environment over these values
    expect = VERDICT [MOD...]: WHY    the verdict kernel semantics predict
    when COND [COND...] -> VERDICT [MOD...]: WHY
                                      an override; the first that matches wins
                                      (COND: kernel=GLOB, AXIS=VALUE or
                                      design=TRAIT, a trait of the bundle)
    MOD: agent_exit=N, finished=VERDICT (the verdict if the supervisor ended
    before kill_supervisor_after), untried=pass (pass is right too when the
    ground truth shows the agent tried nothing undeclared)

Every error names the file and line. Python 3 standard library only.

Command line:
    scenario.py check [--design TRAITS] FILE|DIR...
                                             validate, print the cells
    scenario.py compile --kernel NAME --out DIR [--design TRAITS] FILE|DIR...
                                             write one cell file per cell
    (--design: the bundle's traits, or none; default ours, every trait)
"""

import argparse
import fnmatch
import ipaddress
import itertools
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "initramfs", "host"))
from contract import (CELL_ID_CHARS, CELL_ID_RE, DEFAULT_TIMEOUT, DESIGN_TRAITS,  # noqa: E402
                      FEATURES, OUR_DESIGN, VERDICTS, parse_allow_spec)
MASK_ERRNOS = ("ENOSYS", "EPERM")

# The supervisor's user, as the `user` key or axis names it. `nocap` is root
# with CAP_SYS_PTRACE dropped from every set (the guest drops it from the
# bounding, permitted, effective and inheritable sets).
USERS = {
    "root": {"uid": "0", "gid": "0", "drop_cap": []},
    "nocap": {"uid": "0", "gid": "0", "drop_cap": ["cap_sys_ptrace"]},
    "uid1000": {"uid": "1000", "gid": "1000", "drop_cap": []},
}

# Addresses a scenario may add to the guest's lo: documentation ranges only,
# so nothing a scenario names could ever be a real host.
DOC_NETS = [ipaddress.ip_network(n) for n in
            ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32")]

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
SYSCTL_KEY_RE = re.compile(r"^[a-z0-9_]+(\.[a-z0-9_-]+)+$")
SYSCALL_RE = re.compile(r"^[a-z0-9_]+$")
CAP_RE = re.compile(r"^cap_[a-z_]+$")
AXIS_VALUE_RE = re.compile(r"^[A-Za-z0-9._+-]+$")
PTRACE_SCOPE_KEY = "kernel.yama.ptrace_scope"

SINGLE_KEYS = ("name", "description", "agent", "loopback", "user", "uid", "gid",
               "timeout", "expect", "kill_supervisor_after", "expect_agent_exit", "launcher",
               "guest_profile", "isolation", "cgroup")
REPEATED_KEYS = ("allow", "service", "addr", "route", "sysctl", "drop_cap", "mask", "requires",
                 "sink", "stdio", "mount", "writable", "unix_peer")
# stdio = FD KIND [ADDR:PORT]: what the supervisor's caller puts on its
# descriptor FD (docs/scenarios.md), and the feature each kind's set-up needs.
STDIO_KINDS = {"tcp": None, "udp": None, "unix-rights": None, "unix-dgram-rights": None,
               "io_uring": "io_uring", "pty": "pty",
               "pty-nosession": "pty"}
# Kinds whose ADDR:PORT is a UDP socket the caller connects (and, for the
# unix-* kinds, queues with SCM_RIGHTS on an AF_UNIX socketpair end).
STDIO_ENDPOINT = {"tcp": "tcp", "udp": "udp", "unix-rights": "udp", "unix-dgram-rights": "udp"}
MOUNT_RE = re.compile(r"^(proc|sysfs) (/tmp(/[A-Za-z0-9._-]+)+)$")
WRITABLE_RE = re.compile(r"^/tmp(/[A-Za-z0-9._-]+)+$")
# A declared AF_UNIX peer: a socket file under /tmp, or @NAME (abstract).
UNIX_PEER_RE = re.compile(r"^(/tmp(/[A-Za-z0-9._-]+)+|@[A-Za-z0-9._/-]{1,100})$")
REQUIRED_KEYS = ("name", "description", "agent", "expect")


class ScenarioError(Exception):
    """A problem in a scenario file; str() is `FILE:LINE: message`."""

    def __init__(self, path, line, msg):
        super().__init__(f"{path}:{line}: {msg}" if line else f"{path}: {msg}")
        self.path = path
        self.line = line
        self.msg = msg


class Verdict:
    """An expected verdict with its justification and where it was written."""

    def __init__(self, verdict, why, line, agent_exit=None, finished=None, untried=None):
        self.verdict = verdict
        self.why = why
        self.line = line
        # The agent's exit status under this verdict, when it differs from
        # expect_agent_exit (e.g. its calls fail on a kernel that refuses the
        # mechanism): None keeps the scenario's expect_agent_exit.
        self.agent_exit = agent_exit
        # finished=VERDICT: the verdict due when the supervisor ended before
        # the cell's kill_supervisor_after landed (the kill is not there to
        # judge); None: the cell's kill is assumed to land.
        self.finished = finished
        # untried=pass: pass is right as well when the ground truth shows
        # the agent tried nothing undeclared (oracle.tried): a design that
        # ends the run before the agent's violation, or never hands it the
        # means, has nothing to refuse.
        self.untried = untried


class Override:
    """`when CONDS -> VERDICT: WHY`. conds: list of (key, [patterns])."""

    def __init__(self, conds, verdict, line):
        self.conds = conds
        self.verdict = verdict
        self.line = line

    def matches(self, kernel, axes, design=OUR_DESIGN):
        for key, pats in self.conds:
            if key == "kernel":
                if not any(fnmatch.fnmatchcase(kernel, p) for p in pats):
                    return False
            elif key == "design":
                # design=T1,T2: the bundle has one of these traits.
                if not any(p in design for p in pats):
                    return False
            elif axes.get(key) not in pats:
                return False
        return True

    def text(self):
        return " ".join(f"{k}={','.join(p)}" for k, p in self.conds)


class Scenario:
    def __init__(self, path):
        self.path = path
        self.fields = {}      # single keys -> (value, line)
        self.lists = {k: [] for k in REPEATED_KEYS}   # -> [(value, line)]
        self.axes = []        # [(name, [values], line)]
        self.expect = None
        self.overrides = []

    @property
    def name(self):
        return self.fields["name"][0]

    def get(self, key, default=None):
        return self.fields[key][0] if key in self.fields else default

    def cells(self):
        """Every combination of axis values, in declaration order: a list of
        (cell_name, {axis: value})."""
        if not self.axes:
            return [(self.name, {})]
        out = []
        for combo in itertools.product(*[vals for _, vals, _ in self.axes]):
            axes = {name: v for (name, _, _), v in zip(self.axes, combo)}
            out.append((cell_name(self.name, axes), axes))
        return out

    def resolve(self, kernel, axes, design=OUR_DESIGN):
        """The expected Verdict for one cell on one kernel, for a bundle with
        the DESIGN traits (ours: all of them): the first override that
        matches, else `expect`."""
        for ov in self.overrides:
            if ov.matches(kernel, axes, design):
                return ov.verdict
        return self.expect


def cell_name(scenario, axes):
    """scenario[.axis=value,axis=value] (axes in declaration order)."""
    if not axes:
        return scenario
    return scenario + "." + ",".join(f"{k}={v}" for k, v in axes.items())


def cell_id(scenario_cell, kernel):
    """The cell file's id: the scenario cell and the kernel it is compiled
    for, so the cells of every kernel can share one initramfs."""
    return f"{scenario_cell}+{kernel}"


# ---------------------------------------------------------------- values

def parse_verdict(path, line, text):
    """`VERDICT [agent_exit=N] [finished=VERDICT] [untried=pass]: WHY` ->
    Verdict; the justification is mandatory."""
    head, sep, why = text.partition(":")
    words = head.split()
    verdict = words[0] if words else ""
    why = why.strip()
    mods = {}
    for word in words[1:]:
        key, eq, value = word.partition("=")
        ok = eq and (key == "agent_exit" and value.isdigit() and int(value) <= 255 or
                     key == "finished" and value in VERDICTS or
                     key == "untried" and value == "pass")
        if not ok:
            raise ScenarioError(path, line, f"after the verdict only agent_exit=N (0..255), "
                                f"finished=VERDICT or untried=pass may follow, not {word!r}")
        if key in mods:
            raise ScenarioError(path, line, f"{key} given twice")
        mods[key] = value
    agent_exit = mods.get("agent_exit")
    if mods.get("untried") is not None and verdict == "pass":
        raise ScenarioError(path, line, "untried=pass on a pass verdict says nothing")
    if verdict not in VERDICTS:
        raise ScenarioError(path, line, f"bad verdict {verdict!r}: expected one of "
                            f"{', '.join(VERDICTS)} followed by ': <justification>'")
    if not sep or not why:
        raise ScenarioError(path, line, f"verdict {verdict} has no justification: "
                            f"write '{verdict}: <one line from kernel semantics>'")
    return Verdict(verdict, why, line, agent_exit, mods.get("finished"), mods.get("untried"))


def check_allow(spec):
    """Validate an allow-list SPEC (docs/design.md grammar); return an error
    message or None."""
    try:
        parse_allow_spec(spec)
    except ValueError as e:
        return str(e)
    return None


def check_argv(text, what):
    """Split a command line (shell-like quoting); argv[0] must be an absolute
    guest path under /agents/. Returns (argv, error)."""
    try:
        argv = shlex.split(text)
    except ValueError as e:
        return None, f"bad {what} command line: {e}"
    if not argv:
        return None, f"empty {what} command"
    if not argv[0].startswith("/agents/") or "/" in argv[0][len("/agents/"):] \
            or argv[0] == "/agents/":
        return None, (f"{what} program {argv[0]!r} must be a guest path "
                      f"/agents/NAME (the static agents are installed there)")
    return argv, None


def check_axis_value(name, value):
    if not AXIS_VALUE_RE.match(value):
        return f"axis value {value!r} has characters outside [A-Za-z0-9._+-]"
    if name == "ptrace_scope" and value not in ("0", "1", "2", "3"):
        return f"ptrace_scope value {value!r} not one of 0 1 2 3"
    if name == "user" and value not in USERS:
        return f"user value {value!r} not one of {' '.join(USERS)}"
    return None


def known_axis(name):
    return name in ("ptrace_scope", "user") or (
        name.startswith("sysctl.") and SYSCTL_KEY_RE.match(name[len("sysctl."):]))


# ---------------------------------------------------------------- parsing

def parse_file(path, kernels):
    """Parse and validate one scenario file. Raises ScenarioError."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(path, 0, f"cannot read: {e}") from None
    sc = Scenario(path)
    for no, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("when ") or line == "when":
            sc.overrides.append(parse_when(path, no, line[4:].strip()))
            continue
        key, sep, value = line.partition("=")
        key = key.strip()
        value = value.strip()
        if not sep:
            raise ScenarioError(path, no, f"expected 'key = value', got {line!r}")
        if key.startswith("axis ") or key == "axis":
            parse_axis(sc, path, no, key[4:].strip(), value)
            continue
        if key not in SINGLE_KEYS and key not in REPEATED_KEYS:
            raise ScenarioError(path, no, f"unknown key {key!r} (keys: "
                                f"{', '.join(SINGLE_KEYS + REPEATED_KEYS)}, axis NAME, when)")
        if not value:
            raise ScenarioError(path, no, f"{key} has an empty value")
        parse_field(sc, path, no, key, value)
    finish(sc, kernels)
    return sc


def parse_field(sc, path, no, key, value):
    if key in SINGLE_KEYS and key in sc.fields:
        raise ScenarioError(path, no, f"duplicate key {key!r} (first on line "
                            f"{sc.fields[key][1]})")
    err = None
    if key == "name" and not NAME_RE.match(value):
        err = f"bad name {value!r}: lower-case letters, digits and '-'"
    elif key == "agent":
        _, err = check_argv(value, "agent")
    elif key == "service":
        _, err = check_argv(value, "service")
    elif key == "launcher":
        _, err = check_argv(value, "launcher")
    elif key == "isolation" and value not in ("boot", "batch"):
        # boot: the scenario's cells change what a reset cannot put back
        # (docs/guest.md "Batches"), so each runs in a boot of its own.
        err = f"isolation must be boot or batch, not {value!r}"
    elif key == "cgroup" and value != "delegated":
        # delegated: the supervisor's cgroup and its parent belong to the
        # cell's uid, as a systemd user session delegates user@UID.service.
        err = f"cgroup must be delegated, not {value!r}"
    elif key in ("loopback", "guest_profile") and value not in ("yes", "no"):
        err = f"{key} must be yes or no, not {value!r}"
    elif key == "user" and value not in USERS:
        err = f"user must be one of {' '.join(USERS)}, not {value!r}"
    elif key in ("uid", "gid") and not (value.isdigit() and int(value) < 2**31):
        err = f"{key} must be a number, not {value!r}"
    elif key == "timeout" and not (value.isdigit() and 1 <= int(value) <= 3600):
        err = f"timeout must be seconds in 1..3600, not {value!r}"
    elif key == "expect":
        sc.expect = parse_verdict(path, no, value)
    elif key == "kill_supervisor_after" and not (value.isdigit() and 1 <= int(value) <= 3600):
        err = f"kill_supervisor_after must be seconds in 1..3600, not {value!r}"
    elif key == "expect_agent_exit" and not (value.isdigit() and int(value) <= 255):
        err = f"expect_agent_exit must be an exit status 0..255, not {value!r}"
    elif key == "sink":
        value, err = check_sink(value)
    elif key == "stdio":
        value, err = check_stdio(value, sc.lists["stdio"])
    elif key == "mount" and not MOUNT_RE.match(value) or key == "mount" and "/.." in value:
        err = (f"mount must be 'proc /tmp/PATH' or 'sysfs /tmp/PATH' (/ is read-only in the "
               f"run; no ..), not {value!r}")
    elif key == "writable" and (not WRITABLE_RE.match(value) or "/.." in value):
        err = (f"writable must be a directory /tmp/PATH (the caller makes it; / is read-only "
               f"in the run; no ..), not {value!r}")
    elif key == "unix_peer" and (not UNIX_PEER_RE.match(value) or "/.." in value):
        err = (f"unix_peer must be a socket /tmp/PATH or an abstract @NAME (letters, digits, "
               f"._/-; no ..), not {value!r}")
    elif key == "allow":
        e = check_allow(value)
        err = f"bad allow {value!r}: {e}" if e else None
    elif key == "addr":
        err = check_addr(value)
    elif key == "route":
        err = check_route(value)
        value = " ".join(value.split())
    elif key == "sysctl":
        k, sep, v = value.partition("=")
        if not sep or not SYSCTL_KEY_RE.match(k.strip()) or not v.strip():
            err = f"sysctl must be KEY=VALUE like kernel.yama.ptrace_scope=1, not {value!r}"
        elif any(k.strip() == s[0].partition("=")[0].strip() for s in sc.lists["sysctl"]):
            err = f"sysctl {k.strip()} set twice"
        else:
            value = f"{k.strip()}={v.strip()}"
    elif key == "drop_cap" and not CAP_RE.match(value):
        err = f"drop_cap must be a capability name like cap_sys_ptrace, not {value!r}"
    elif key == "mask":
        sysc, sep, errno = value.partition(":")
        if not sep or not SYSCALL_RE.match(sysc) or errno not in MASK_ERRNOS:
            err = (f"mask must be SYSCALL:ERRNO with ERRNO one of "
                   f"{', '.join(MASK_ERRNOS)}, not {value!r}")
    elif key == "requires":
        for feat in value.split():
            if feat not in FEATURES:
                raise ScenarioError(path, no, f"unknown feature {feat!r} "
                                    f"(features: {', '.join(FEATURES)})")
            sc.lists["requires"].append((feat, no))
        return
    if err:
        raise ScenarioError(path, no, err)
    if key in SINGLE_KEYS:
        sc.fields[key] = (value, no)
    else:
        sc.lists[key].append((value, no))


def parse_sink(value):
    """`tcp|udp ADDR:PORT` (IPv6 in brackets) -> (proto, ip, port, text), or
    raises ValueError with the problem."""
    parts = value.split()
    if len(parts) != 2 or parts[0] not in ("tcp", "udp"):
        raise ValueError("want 'tcp ADDR:PORT' or 'udp ADDR:PORT'")
    proto, ep = parts
    m = re.match(r"^\[([^\]]+)\]:(\d+)$", ep) or re.match(r"^([0-9.]+):(\d+)$", ep)
    if not m:
        raise ValueError(f"endpoint {ep!r}: want A.B.C.D:PORT or [V6]:PORT")
    try:
        ip = ipaddress.ip_address(m.group(1))
    except ValueError:
        raise ValueError(f"bad address {m.group(1)!r}") from None
    if ip.version == 6 and not ep.startswith("["):
        raise ValueError("IPv6 addresses go in brackets: [2001:db8::5]:443")
    port = int(m.group(2))
    if not 1 <= port <= 65535:
        raise ValueError(f"port {port} outside 1..65535")
    if not (ip.is_loopback or any(ip in net for net in DOC_NETS)):
        raise ValueError(f"{ip} is neither loopback nor in the documentation ranges")
    if ip.version == 6 and ip.ipv4_mapped is not None:
        raise ValueError("an IPv4-mapped address cannot be bound: write the IPv4 form")
    text = f"[{ip}]:{port}" if ip.version == 6 else f"{ip}:{port}"
    return proto, ip, port, f"{proto} {text}"


def check_sink(value):
    """Returns (canonical value, error or None)."""
    try:
        return parse_sink(value)[3], None
    except ValueError as e:
        return value, f"bad sink {value!r}: {e}"


def check_stdio(value, earlier):
    """`FD KIND [ADDR:PORT]` -> (canonical value, error or None). FD 0-2,
    each once; tcp and udp take an endpoint like sink's."""
    parts = value.split()
    if len(parts) < 2 or parts[0] not in ("0", "1", "2") or parts[1] not in STDIO_KINDS:
        return value, (f"stdio must be 'FD KIND [ADDR:PORT]' with FD 0, 1 or 2 and KIND one of "
                       f"{', '.join(STDIO_KINDS)}, not {value!r}")
    fd, kind = parts[0], parts[1]
    for v, ln in earlier:
        if v.split()[0] == fd:
            return value, f"stdio: descriptor {fd} already given on line {ln}"
    if kind in STDIO_ENDPOINT:
        if len(parts) != 3:
            return value, f"stdio {fd} {kind} needs ADDR:PORT"
        try:
            text = parse_sink(f"{STDIO_ENDPOINT[kind]} {parts[2]}")[3]
        except ValueError as e:
            return value, f"bad stdio {value!r}: {e}"
        return f"{fd} {kind} {text.split(' ', 1)[1]}", None
    if len(parts) != 2:
        return value, f"stdio {fd} {kind} takes no argument"
    if kind.startswith("pty") and any(v.split()[1].startswith("pty") for v, _ in earlier):
        return value, "stdio: one pty (the caller's terminal) at most"
    return f"{fd} {kind}", None


def check_addr(value):
    try:
        iface = ipaddress.ip_interface(value)
    except ValueError:
        return f"addr must be IP/PREFIX, not {value!r}"
    if "/" not in value:
        return f"addr must be IP/PREFIX (give the prefix), not {value!r}"
    if not any(iface.ip in net for net in DOC_NETS):
        return (f"addr {value} is outside the documentation ranges "
                f"({', '.join(str(n) for n in DOC_NETS)})")
    return None


def check_route(value):
    """A route the guest adds: 'unreachable PREFIX' or 'PREFIX dev lo
    [metric N]', PREFIX 'default' (IPv4) or a documentation network with
    its prefix (lo is the guest's only link)."""
    words = value.split()
    if len(words) == 2 and words[0] == "unreachable":
        prefix = words[1]
    elif len(words) in (3, 5) and words[1:3] == ["dev", "lo"] and \
            (len(words) == 3 or (words[3] == "metric" and words[4].isdigit() and
                                 0 < int(words[4]) < 2 ** 32)):
        prefix = words[0]
    else:
        return (f"route must be 'unreachable PREFIX' or 'PREFIX dev lo [metric N]', "
                f"not {value!r}")
    if prefix == "default":
        return None
    try:
        net = ipaddress.ip_network(prefix, strict=True)
    except ValueError:
        return f"route prefix must be default or NET/PREFIX with no host bits, not {prefix!r}"
    if "/" not in prefix or not any(net.subnet_of(d) for d in DOC_NETS if d.version == net.version):
        return (f"route prefix {prefix} must be written with its prefix and lie inside the "
                f"documentation ranges ({', '.join(str(n) for n in DOC_NETS)})")
    return None


def parse_axis(sc, path, no, name, value):
    if not known_axis(name):
        raise ScenarioError(path, no, f"unknown axis {name!r} (axes: ptrace_scope, "
                            f"user, sysctl.KEY)")
    if any(a[0] == name for a in sc.axes):
        raise ScenarioError(path, no, f"duplicate axis {name!r}")
    values = value.split()
    if not values:
        raise ScenarioError(path, no, f"axis {name} has no values")
    for v in values:
        err = check_axis_value(name, v)
        if err:
            raise ScenarioError(path, no, err)
    if len(set(values)) != len(values):
        raise ScenarioError(path, no, f"axis {name} repeats a value")
    sc.axes.append((name, values, no))


def parse_when(path, no, text):
    conds_text, sep, verdict_text = text.partition("->")
    if not sep:
        raise ScenarioError(path, no, "override must be 'when COND... -> VERDICT: WHY'")
    conds = []
    for tok in conds_text.split():
        key, eq, pats = tok.partition("=")
        if not eq or not key or not pats:
            raise ScenarioError(path, no, f"bad condition {tok!r}: expected "
                                f"kernel=GLOB[,GLOB], AXIS=VALUE[,VALUE] or "
                                f"design=TRAIT[,TRAIT]")
        if any(c[0] == key for c in conds):
            raise ScenarioError(path, no, f"condition on {key!r} given twice")
        conds.append((key, pats.split(",")))
    if not conds:
        raise ScenarioError(path, no, "override has no condition")
    return Override(conds, parse_verdict(path, no, verdict_text.strip()), no)


def finish(sc, kernels):
    """Whole-file checks, after every line is read."""
    path = sc.path
    for key in REQUIRED_KEYS:
        if key not in sc.fields:
            raise ScenarioError(path, 0, f"missing required key {key!r}")
    stem = os.path.basename(path)
    if stem.endswith(".scenario"):
        stem = stem[:-len(".scenario")]
    if stem != sc.name:
        raise ScenarioError(path, sc.fields["name"][1],
                            f"name {sc.name!r} differs from the file name "
                            f"{os.path.basename(path)!r} (want {sc.name}.scenario)")
    axis_names = [a[0] for a in sc.axes]
    if "user" in axis_names or "user" in sc.fields:
        for k in ("uid", "gid"):
            if k in sc.fields:
                raise ScenarioError(path, sc.fields[k][1],
                                    f"{k} conflicts with 'user' (which sets uid, gid "
                                    f"and capabilities): use one or the other")
        if sc.lists["drop_cap"]:
            raise ScenarioError(path, sc.lists["drop_cap"][0][1],
                                "drop_cap conflicts with 'user': use one or the other")
    if "user" in axis_names and "user" in sc.fields:
        raise ScenarioError(path, sc.fields["user"][1], "user is also an axis")
    static_sysctls = {s.partition("=")[0]: ln for s, ln in sc.lists["sysctl"]}
    for name, _, ln in sc.axes:
        key = PTRACE_SCOPE_KEY if name == "ptrace_scope" else (
            name[len("sysctl."):] if name.startswith("sysctl.") else None)
        if key is not None and key in static_sysctls:
            raise ScenarioError(path, ln, f"axis {name} sets sysctl {key}, which line "
                                f"{static_sysctls[key]} also sets")
    # A sink binds its address, so the address must be on lo: loopback, or
    # inside an addr= line; one endpoint once.
    addrs = [ipaddress.ip_interface(a) for a, _ in sc.lists["addr"]]
    # The caller connects a stdio socket before the run: its address must be
    # reachable on lo too.
    for value, ln in sc.lists["stdio"]:
        parts = value.split()
        if parts[1] in STDIO_ENDPOINT:
            ip = parse_sink(f"{STDIO_ENDPOINT[parts[1]]} {parts[2]}")[1]
            if not ip.is_loopback and not any(ip in a.network for a in addrs):
                raise ScenarioError(path, ln, f"stdio {value}: {ip} is not on the guest's lo: "
                                    f"add 'addr = {ip}/{ip.max_prefixlen}'")
    seen_sinks = {}
    for value, ln in sc.lists["sink"]:
        proto, ip, port, text = parse_sink(value)
        if not ip.is_loopback and not any(ip in a.network for a in addrs):
            raise ScenarioError(path, ln, f"sink {text}: {ip} is not on the guest's lo: add "
                                f"'addr = {ip}/{ip.max_prefixlen}'")
        if text in seen_sinks:
            raise ScenarioError(path, ln, f"sink {text} given twice (first on line "
                                f"{seen_sinks[text]})")
        seen_sinks[text] = ln
    # Overrides: every condition names a kernel or a declared axis and a
    # value that exists; every override wins for at least one cell.
    axes = {name: vals for name, vals, _ in sc.axes}
    for ov in sc.overrides:
        for key, pats in ov.conds:
            if key == "kernel":
                for p in pats:
                    if not any(fnmatch.fnmatchcase(k, p) for k in kernels):
                        raise ScenarioError(path, ov.line, f"override matches nothing: "
                                            f"kernel {p!r} matches none of "
                                            f"{', '.join(kernels)}")
            elif key == "design":
                for p in pats:
                    if p not in DESIGN_TRAITS:
                        raise ScenarioError(path, ov.line, f"unknown design trait {p!r} "
                                            f"(traits: {', '.join(DESIGN_TRAITS)})")
            elif key not in axes:
                raise ScenarioError(path, ov.line, f"override matches nothing: {key!r} "
                                    f"is neither 'kernel', 'design' nor an axis of this "
                                    f"scenario (axes: {', '.join(axes) or 'none'})")
            else:
                for p in pats:
                    if p not in axes[key]:
                        raise ScenarioError(path, ov.line, f"override matches nothing: "
                                            f"{key}={p} is not among the axis values "
                                            f"{' '.join(axes[key])}")
    # Design traits span a dimension of their own: every combination of the
    # traits the file names (the one with all of them is ours).
    named = sorted({p for ov in sc.overrides for key, pats in ov.conds if key == "design"
                    for p in pats})
    designs = [frozenset(c) for n in range(len(named) + 1)
               for c in itertools.combinations(named, n)]
    space = [(k, a, d) for k in kernels for _, a in sc.cells() for d in designs]
    for i, ov in enumerate(sc.overrides):
        hits = [(k, a, d) for k, a, d in space if ov.matches(k, a, d)]
        if not hits:
            raise ScenarioError(path, ov.line, f"override matches nothing: no "
                                f"kernel x axis cell has {ov.text()}")
        earlier = sc.overrides[:i]
        if all(any(e.matches(k, a, d) for e in earlier) for k, a, d in hits):
            lines = sorted({e.line for k, a, d in hits for e in earlier if e.matches(k, a, d)})
            raise ScenarioError(path, ov.line, f"override never wins: every cell it "
                                f"matches is taken by the earlier override(s) on line(s) "
                                f"{', '.join(map(str, lines))} (first match wins)")
    for v in [sc.expect] + [ov.verdict for ov in sc.overrides]:
        if v.finished is not None and "kill_supervisor_after" not in sc.fields:
            raise ScenarioError(path, v.line, "finished= names the verdict of a supervisor "
                                "that ended before kill_supervisor_after, which this "
                                "scenario does not set")
    for cname, _ in sc.cells():
        for k in kernels:
            if not CELL_ID_RE.match(cell_id(cname, k)):
                raise ScenarioError(path, 0, f"cell id {cell_id(cname, k)!r} has "
                                    f"characters outside [{CELL_ID_CHARS}]")


def scenario_files(paths):
    """Expand directories into their *.scenario files (sorted)."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(os.path.join(p, f) for f in os.listdir(p)
                           if f.endswith(".scenario"))
            out.extend(found)
        elif os.path.exists(p):
            out.append(p)
        else:
            raise ScenarioError(p, 0, "no such file or directory")
    return out


def load(paths, kernels):
    """Parse every scenario under paths; names must be unique. Returns
    scenarios sorted by name. Raises ScenarioError (the first problem)."""
    seen = {}
    out = []
    for f in scenario_files(paths):
        sc = parse_file(f, kernels)
        if sc.name in seen:
            raise ScenarioError(f, sc.fields["name"][1], f"duplicate scenario name "
                                f"{sc.name!r} (also in {seen[sc.name]})")
        seen[sc.name] = f
        out.append(sc)
    return sorted(out, key=lambda s: s.name)


# ---------------------------------------------------------------- compiling

def environment(sc, axes):
    """The cell's environment: (sysctls, uid, gid, drop_caps, requires)."""
    sysctls = [s for s, _ in sc.lists["sysctl"]]
    user = axes.get("user", sc.get("user"))
    if user is not None:
        preset = USERS[user]
        uid, gid, caps = preset["uid"], preset["gid"], list(preset["drop_cap"])
    else:
        uid, gid = sc.get("uid", "0"), sc.get("gid", "0")
        caps = [c for c, _ in sc.lists["drop_cap"]]
    for name, _, _ in sc.axes:
        if name == "ptrace_scope":
            sysctls.append(f"{PTRACE_SCOPE_KEY}={axes[name]}")
        elif name.startswith("sysctl."):
            sysctls.append(f"{name[len('sysctl.'):]}={axes[name]}")
    requires = [r for r, _ in sc.lists["requires"]]
    # What the caller's objects need (a ring, a terminal), like yama below.
    for value, _ in sc.lists["stdio"]:
        need = STDIO_KINDS[value.split()[1]]
        if need and need not in requires:
            requires.append(need)
    # Setting a Yama sysctl is only meaningful where Yama exists: without it
    # the cell is skipped with that reason, never run with the setting absent.
    if any(s.startswith("kernel.yama.") for s in sysctls) and "yama" not in requires:
        requires.append("yama")
    return sysctls, uid, gid, caps, requires


def compile_cell(sc, axes, kernel, design=OUR_DESIGN):
    """The cell file text for one scenario cell on one kernel, its verdict
    resolved for a bundle with the DESIGN traits (bundle.py; ours: all)."""
    cname = cell_name(sc.name, axes)
    cid = cell_id(cname, kernel)
    v = sc.resolve(kernel, axes, design)
    sysctls, uid, gid, caps, requires = environment(sc, axes)
    agent, _ = check_argv(sc.get("agent"), "agent")
    traits = " ".join(t for t in DESIGN_TRAITS if t in design) or "none"
    out = [f"# {cid}: compiled by scenarios/tools/scenario.py from "
           f"{os.path.basename(sc.path)} for kernel {kernel}",
           f"# expected verdict from line {v.line} for design traits: {traits}",
           f"scenario={sc.name}", f"cell={cid}"]
    out += [f"agent_arg={a}" for a in agent]
    out += [f"allow={a}" for a, _ in sc.lists["allow"]]
    out.append(f"loopback={sc.get('loopback', 'yes')}")
    out += [f"sysctl={s}" for s in sysctls]
    out += [f"uid={uid}", f"gid={gid}"]
    out += [f"drop_cap={c}" for c in caps]
    out += [f"mask={m}" for m, _ in sc.lists["mask"]]
    out += [f"service={' '.join(check_argv(s, 'service')[0])}" for s, _ in sc.lists["service"]]
    out += [f"addr={a}" for a, _ in sc.lists["addr"]]
    out += [f"route={r}" for r, _ in sc.lists["route"]]
    out += [f"sink={x}" for x, _ in sc.lists["sink"]]
    out += [f"stdio={x}" for x, _ in sc.lists["stdio"]]
    out += [f"mount={x}" for x, _ in sc.lists["mount"]]
    out += [f"writable={x}" for x, _ in sc.lists["writable"]]
    out += [f"unix_peer={x}" for x, _ in sc.lists["unix_peer"]]
    out += [f"requires={r}" for r in requires]
    out += [f"expect={v.verdict}", f"expect_why={v.why}",
            f"timeout={sc.get('timeout', str(DEFAULT_TIMEOUT))}"]
    if "kill_supervisor_after" in sc.fields:
        out.append(f"kill_supervisor_after={sc.get('kill_supervisor_after')}")
    if v.finished is not None:
        out.append(f"expect_finished={v.finished}")
    if v.untried is not None:
        out.append(f"expect_untried={v.untried}")
    agent_exit = v.agent_exit if v.agent_exit is not None else sc.get("expect_agent_exit")
    if agent_exit is not None:
        out.append(f"expect_agent_exit={agent_exit}")
    if "launcher" in sc.fields:
        out.append(f"launcher={' '.join(check_argv(sc.get('launcher'), 'launcher')[0])}")
    if sc.get("guest_profile") == "yes":
        out.append("guest_profile=yes")
    if "cgroup" in sc.fields:
        out.append(f"cgroup={sc.get('cgroup')}")
    for line in out:
        if "\n" in line or "\r" in line:
            raise ScenarioError(sc.path, 0, f"newline in compiled value {line!r}")
    return cid, "\n".join(out) + "\n"


def agents_named(sc):
    """Basenames of the agent programs a scenario runs (agent and services)."""
    names = [check_argv(sc.get("agent"), "agent")[0][0]]
    names += [check_argv(s, "service")[0][0] for s, _ in sc.lists["service"]]
    if "launcher" in sc.fields:
        names.append(check_argv(sc.get("launcher"), "launcher")[0][0])
    return sorted({n[len("/agents/"):] for n in names})


def live_kernels(top):
    """Kernel names from kernel-configs/kernels.sh names (in its order).
    Raises RuntimeError when the script is missing or fails."""
    script = os.path.join(top, "kernel-configs", "kernels.sh")
    if not os.path.exists(script):
        raise RuntimeError(f"{script} not found: the kernel matrix is not there")
    res = subprocess.run([script, "names"], capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"{script} names failed ({res.returncode}): {res.stderr.strip()}")
    names = res.stdout.split()
    if not names:
        raise RuntimeError(f"{script} names printed no kernel names")
    return tuple(names)


def main(argv=None):
    top = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check", help="validate scenario files and list their cells")
    c.add_argument("--design", default=None,
                   help="list the verdicts for a bundle with these design traits, "
                        "space-separated, or 'none' (default: ours, every trait)")
    c.add_argument("paths", nargs="+")
    p = sub.add_parser("compile", help="write the cell files for one kernel")
    p.add_argument("--kernel", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--design", default=None,
                   help="the bundle's design traits, space-separated, or 'none' "
                        "(default: ours, every trait)")
    p.add_argument("paths", nargs="+")
    args = ap.parse_args(argv)
    try:
        kernels = live_kernels(top)
    except RuntimeError as e:
        print(f"scenario.py: error: {e}", file=sys.stderr)
        return 1
    try:
        scenarios = load(args.paths, kernels)
    except ScenarioError as e:
        print(f"scenario.py: error: {e}", file=sys.stderr)
        return 1
    design = OUR_DESIGN
    if args.design is not None:
        design = tuple(t for t in args.design.split() if t != "none")
        bad = [t for t in design if t not in DESIGN_TRAITS]
        if bad:
            print(f"scenario.py: error: unknown design trait(s) {' '.join(bad)} (traits: "
                  f"{' '.join(DESIGN_TRAITS)})", file=sys.stderr)
            return 1
    if args.cmd == "check":
        n = 0
        for sc in scenarios:
            for cname, axes in sc.cells():
                n += 1
                row = " ".join(f"{k}:{sc.resolve(k, axes, design).verdict}" for k in kernels)
                print(f"{cname}  {row}")
        print(f"{len(scenarios)} scenarios, {n} scenario cells, {len(kernels)} kernels: ok")
        return 0
    if args.kernel not in kernels:
        print(f"scenario.py: error: unknown kernel {args.kernel!r} (kernels: "
              f"{' '.join(kernels)})", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    for sc in scenarios:
        for _, axes in sc.cells():
            cid, text = compile_cell(sc, axes, args.kernel, design)
            with open(os.path.join(args.out, cid + ".cell"), "w", encoding="utf-8") as f:
                f.write(text)
            print(cid)
    return 0


if __name__ == "__main__":
    sys.exit(main())
