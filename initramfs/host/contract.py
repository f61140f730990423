"""The appliance's shared vocabulary, written once: the supervisor's
verdicts, every outcome a cell can have, the kernel features a scenario may
require and the guest reports (initramfs/guest/features.c prints the same
names), and the file digest every record uses. Imported by the cell path
(cell_result.py), the matrix and the scenario compiler. Stdlib only."""

import hashlib
import ipaddress
import os
import re

VERDICTS = ("pass", "fail", "capability-error")

# A cell's id (the scenario cell and its kernel, scenario.cell_id): the
# characters the compiler may write, the host reads back and the guest's init
# checks in shell (initramfs/guest/init: *[!A-Za-z0-9._=,+-]*).
CELL_ID_CHARS = "A-Za-z0-9._=,+-"
CELL_ID_RE = re.compile(f"^[{CELL_ID_CHARS}]+$")
# A cell's deadline in seconds (TCG-based) when its scenario names none: the
# compiler writes it into the cell file, and a cell file without one gets it.
DEFAULT_TIMEOUT = 60

# Every outcome, in the order reports count them (docs/guest.md decides
# them; cell_result.decide() is where).
OUTCOMES = ("ok", "mismatch", "false-green", "oracle-mismatch", "supervisor-hang",
            "precondition-error", "timeout", "panic", "boot-fail", "infra-error", "skipped",
            "not-run")
# not-run: a cell that a run told to stop (SIGTERM, SIGINT, SIGHUP) never
# decided; matrix.py alone gives it, never a guest or a runner's judgement.
# Printed in their own block at the end, loudest: the supervisor (or the
# ground truth) says something is fine when it is not, or the supervisor
# hung (the guest's hang monitor saw it make no progress).
LOUD_OUTCOMES = ("false-green", "oracle-mismatch", "supervisor-hang")
GOOD_OUTCOMES = ("ok", "skipped")

# How a cell shares its boot (ISOLATION=, docs/guest.md "Batches"): batch
# runs many cells per boot with the reset proven between them; boot gives
# every cell its own boot (release qualification, bisecting an interaction).
ISOLATIONS = ("batch", "boot")

# The ports resolvers sort a name's addresses on, with a UDP connect to each
# that sends nothing (glibc's getaddrinfo without a service 0, Go's resolver
# 9, musl's getaddrinfo 65535): a supervisor may refuse such a connect
# without counting it a denial (docs/design.md; supervisor/call.c has the
# supervisor's own table). The oracle accepts that refusal nowhere else.
SORT_PROBE_PORTS = (0, 9, 65535)

# Design traits (docs/supervisor-contract.md "Design traits"): what a
# supervisor's design needs or does where the threat model leaves it a
# choice, so a scenario's verdict may follow one design and not another. A
# `when ... design=TRAIT` line holds only for a bundle whose manifest lists
# TRAIT (`design =`); every other bundle gets the next line that matches.
# Our supervisor has all of them, and so does a bundle that declares none
# (judged as ours).
DESIGN_TRAITS = {
    "ptrace-probe": "needs ptrace attach access to the agent (Yama, CAP_SYS_PTRACE) and "
                    "refuses the run without it",
    "reads-agent": "reads a call's arguments in the agent's memory to judge it (ptrace "
                   "access at the call), so where that is refused it cannot see the call",
    "landlock": "needs Landlock for a uid-1000 agent and refuses the run without it "
                "(before 5.13)",
    "sort-probe": "refuses a resolver's UDP connect to an undeclared sort-probe port "
                  "without counting it a denial (bucket neutralized), so the run can pass",
    "stdio-refuse": "refuses the run when the caller's descriptor 0-2 is a socket it "
                    "cannot hand on safely, rather than giving the agent something else",
    "tree-wait": "the run lasts while any process of the agent's tree lives (a reaper), "
                 "rather than ending with the agent's first process and killing the rest",
}
OUR_DESIGN = tuple(DESIGN_TRAITS)

# The features that decide verdicts, in the order reports print them.
FEATURES = ("seccomp_notify", "pidfd_getfd", "process_vm_readv", "kcmp", "yama", "ia32",
            "x32", "io_uring", "pty", "userns", "coredump", "multicast")


_DIGESTS = {}


def sha256_file(path):
    """The hex sha256 of a file, read in 1 MiB chunks. Remembered per
    process for a file whose inode, size and mtime have not changed: a batch
    boot's one process records the same kernel and initramfs (50 MB) for
    every cell, and hashing them again per cell was most of its CPU."""
    st = os.stat(path)
    key = (os.path.realpath(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if key in _DIGESTS:
        return _DIGESTS[key]
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    _DIGESTS[key] = h.hexdigest()
    return _DIGESTS[key]


def parse_allow_spec(spec):
    """An allow-list SPEC (docs/design.md: v4[/prefix][:port[-port]] or
    [v6][/prefix][:port[-port]]) -> (network, low port, high port); a SPEC
    without ports covers 1..65535. Strict, as the supervisor's parser: host
    bits below the prefix, an IPv4-mapped IPv6 rule and a port 0 are
    refused. Raises ValueError naming what is wrong. The scenario compiler
    validates with it and the oracle judges with it: one grammar."""
    m = re.match(r"^\[([^\]]+)\](?:/(\d+))?(?::(.+))?$", spec)
    if m:
        addr, prefix, ports = m.groups()
        try:
            ip = ipaddress.IPv6Address(addr)
        except ValueError:
            raise ValueError(f"bad IPv6 address {addr!r}") from None
        if ip.ipv4_mapped is not None:
            raise ValueError("IPv4-mapped IPv6 rule: write the IPv4 form")
    elif spec.count(":") > 1:
        raise ValueError("IPv6 addresses go in brackets: [2001:db8::1]:443")
    else:
        m = re.match(r"^([0-9.]+)(?:/(\d+))?(?::(.+))?$", spec)
        if not m:
            raise ValueError("expected v4[/prefix][:ports] or [v6][/prefix][:ports]")
        addr, prefix, ports = m.groups()
        try:
            ip = ipaddress.IPv4Address(addr)
        except ValueError:
            raise ValueError(f"bad IPv4 address {addr!r}") from None
    if prefix is not None and int(prefix) > ip.max_prefixlen:
        raise ValueError(f"prefix /{prefix} longer than {ip.max_prefixlen}")
    try:
        net = ipaddress.ip_network(f"{ip}/{prefix if prefix is not None else ip.max_prefixlen}",
                                   strict=True)
    except ValueError:
        raise ValueError(f"host bits set below /{prefix}") from None
    lo, hi = 1, 65535
    if ports is not None:
        pm = re.match(r"^(\d+)(?:-(\d+))?$", ports)
        if not pm:
            raise ValueError(f"bad port {ports!r}")
        lo = int(pm.group(1))
        hi = int(pm.group(2)) if pm.group(2) else lo
        if not (1 <= lo <= hi <= 65535):
            raise ValueError(f"bad port range {ports!r} (1..65535, low <= high)")
    return net, lo, hi
