#!/usr/bin/env python3
"""Filter table tests: rows of syscall + arguments against the supervisor's
exported filter, run through libseccomp's BPF simulator (scmp_bpf_sim).

    run-filter-tests.py --export FILTER_EXPORT --sim SCMP_BPF_SIM
                        [--mutant NAME=MUTANT_EXPORT]... TABLE...

A table row (libseccomp tests/*.tests style, whitespace separated):

    NAME  ARCH  SYSCALL  ARG0 ARG1 ARG2 ARG3 ARG4 ARG5  RESULT

ARCH is x86_64, x86 or x32; SYSCALL a name (resolved for that ARCH by
filter-export --resolve) or a number; each ARG an integer expression over
the constants below (AF_INET|HI, HI|IPPROTO_IPV6, -1, ...) or N for 0;
RESULT is ALLOW, NOTIFY or KILL_PROCESS. Prints one `ok N NAME` or
`not ok N NAME # expected ..., got ...` line per row and `N passed, N failed`
last; exits 1 when any row failed. Each --mutant export (the filter built
with that mutant's switch) must fail at least one row: one more test each,
`ok N table_kills_mutant_NAME (K rows)`.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HI = 1 << 32
CONSTS = {
    "HI": HI,
    "X32": 0x40000000,
    "O_RDWR": 2, "O_CREAT": 0o100, "O_TMPFILE": 0o20200000, "S_IFREG": 0o100000,
    "AF_UNSPEC": 0, "AF_UNIX": 1, "AF_INET": 2, "AF_AX25": 3, "AF_IPX": 4,
    "AF_APPLETALK": 5, "AF_INET6": 10, "AF_KEY": 15, "AF_NETLINK": 16,
    "AF_PACKET": 17, "AF_RDS": 21, "AF_CAN": 29, "AF_TIPC": 30,
    "AF_BLUETOOTH": 31, "AF_ALG": 38, "AF_VSOCK": 40, "AF_KCM": 41,
    "AF_QIPCRTR": 42, "AF_SMC": 43, "AF_XDP": 44, "AF_MCTP": 45,
    "SOCK_STREAM": 1, "SOCK_DGRAM": 2, "SOCK_RAW": 3, "SOCK_RDM": 4,
    "SOCK_SEQPACKET": 5, "SOCK_DCCP": 6, "SOCK_PACKET": 10,
    "SOCK_NONBLOCK": 0o4000, "SOCK_CLOEXEC": 0o2000000,
    "IPPROTO_IP": 0, "IPPROTO_ICMP": 1, "IPPROTO_TCP": 6, "IPPROTO_UDP": 17,
    "IPPROTO_IPV6": 41, "IPPROTO_ICMPV6": 58, "IPPROTO_SCTP": 132,
    "IPPROTO_UDPLITE": 136, "IPPROTO_MPTCP": 262, "IPPROTO_RAW": 255,
    "SOL_SOCKET": 1, "SOL_SCTP": 132,
    "IP_TOS": 1, "IP_OPTIONS": 4, "IPV6_2292RTHDR": 5,
    "IPV6_2292PKTOPTIONS": 6, "IPV6_RTHDR": 57, "IPV6_V6ONLY": 26,
    "IPV6_FLOWLABEL_MGR": 32, "IPV6_FLOWINFO_SEND": 33, "IP_FREEBIND": 15,
    "IPV6_FREEBIND": 78, "IP_UNICAST_IF": 50, "IPV6_UNICAST_IF": 76,
    "IPV6_PKTINFO": 50, "IPV6_RECVPKTINFO": 49, "IP_PKTINFO": 8, "IP_MULTICAST_IF": 32,
    "IP_ADD_MEMBERSHIP": 35, "IP_DROP_MEMBERSHIP": 36, "IP_ADD_SOURCE_MEMBERSHIP": 39,
    "IP_MSFILTER": 41, "MCAST_JOIN_GROUP": 42, "MCAST_MSFILTER": 48,
    "IPV6_ADD_MEMBERSHIP": 20, "IPV6_DROP_MEMBERSHIP": 21, "IPV6_JOIN_ANYCAST": 27,
    "IP_MULTICAST_TTL": 33, "IPV6_MULTICAST_HOPS": 18,
    "SO_REUSEADDR": 2, "SO_DONTROUTE": 5, "SO_MARK": 36, "SO_BINDTODEVICE": 25, "SO_BINDTOIFINDEX": 62,
    "NETLINK_ROUTE": 0, "NETLINK_SOCK_DIAG": 4, "NETLINK_XFRM": 6,
    "NETLINK_NETFILTER": 12, "NETLINK_KOBJECT_UEVENT": 15,
    "NETLINK_GENERIC": 16,
}
# filter-export maps USER_NOTIF to this TRACE value (see filter-export.c).
RESULTS = {"ALLOW": "ALLOW", "NOTIFY": "TRACE(24301)", "KILL_PROCESS": "KILL_PROCESS"}
SIM_ARCH = {"x86_64": "x86_64", "x86": "x86", "x32": "x32", "aarch64": "aarch64"}


def value(expr):
    if expr == "N":
        return 0
    v = eval(expr, {"__builtins__": {}}, CONSTS)  # test data, trusted
    return v & (2**64 - 1)


def rows(path):
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 10:
                raise SystemExit(f"{path}:{lineno}: want 10 fields, got {len(parts)}")
            yield f"{path}:{lineno}", parts


def run_table(export, sim, tables):
    """Yields (name, where, passed, detail) for each row against export: a
    table whose file name starts with root- against the root agent's filter
    (filter-export --root), one that starts with judged- against the filter
    of an agent that is not root in a run whose AF_UNIX names are judged
    (filter-export --judged), every other one against the filter for an
    agent that is not root."""
    with tempfile.TemporaryDirectory() as tmp:
        bpfs = {}
        for kind, opt in (("plain", []), ("root-", ["--root"]), ("judged-", ["--judged"])):
            bpfs[kind] = os.path.join(tmp, kind + "filter.bpf")
            subprocess.run([export] + opt + [bpfs[kind]], check=True, stderr=subprocess.DEVNULL)
        resolved = {}
        for table in tables:
            base = os.path.basename(table)
            bpf = next((bpfs[k] for k in ("root-", "judged-") if base.startswith(k)), bpfs["plain"])
            for where, (name, arch, sc, *rest) in rows(table):
                a, want = rest[:6], rest[6]
                if arch not in SIM_ARCH or want not in RESULTS:
                    yield name, where, False, "bad arch or result"
                    continue
                if sc.lstrip("-").isdigit():
                    nr = int(sc)
                    if arch == "x32":
                        nr |= 0x40000000
                else:
                    key = (arch, sc)
                    if key not in resolved:
                        out = subprocess.run([export, "--resolve", arch, sc],
                                             capture_output=True, text=True, check=True)
                        resolved[key] = int(out.stdout)
                    nr = resolved[key]
                cmd = [sim, "-f", bpf, "-a", SIM_ARCH[arch], "-s", str(nr)]
                for i, expr in enumerate(a):
                    cmd += [f"-{i}", str(value(expr))]
                got = subprocess.run(cmd, capture_output=True, text=True)
                out = got.stdout.strip() or got.stderr.strip()
                yield (name, where, out == RESULTS[want],
                       f"expected {want} ({RESULTS[want]}), got {out}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--export", required=True)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--mutant", action="append", default=[])
    ap.add_argument("tables", nargs="+")
    args = ap.parse_args()
    passed = failed = n = 0
    for name, where, ok, detail in run_table(args.export, args.sim, args.tables):
        n += 1
        if ok:
            print(f"ok {n} {name}")
            passed += 1
        else:
            print(f"not ok {n} {name} # {where}: {detail}")
            failed += 1
    for spec in args.mutant:
        mname, export = spec.split("=", 1)
        failing = [name for name, _, ok, _ in run_table(export, args.sim, args.tables) if not ok]
        n += 1
        if failing:
            print(f"ok {n} table_kills_mutant_{mname} ({len(failing)} rows, e.g. {failing[0]})")
            passed += 1
        else:
            print(f"not ok {n} table_kills_mutant_{mname} # every row passed against it")
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
