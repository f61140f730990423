#!/usr/bin/env python3
"""The integration suite's preflight: what an earlier run left on this host
that would make unrelated tests fail later, each named with a hint.

Stop 40: a review script's cleanup stopped early and left a bind mount
under /tmp; every later root agent's run was refused (its read-only pass
could not remount it) and two unrelated CI tests failed. The preflight
names such a leftover before the first test instead:

  mount    a mount point strictly under /tmp, /var/tmp, /dev/shm, TOP or
           BUILD, or at the ll-*.sh reviews' /ll-sys-alias, /ll-chroot,
           /ll-stack (the reviews mount there, most in private mount
           namespaces; in the host's namespace nothing is due)
  process  an orphan (parent pid 1) that is an egress-supervisor, runs a
           program under TOP, BUILD, /tmp, /var/tmp or /dev/shm, names a
           review's files (/tmp/haNN...), or sits in a network namespace
           other than pid 1's (a review's sink whose namespace was
           deleted); a run in progress has a live caller and is no
           orphan, so others' runs on a shared machine are not named (a
           script started detached is the orphan, not what it runs)
  sysctl   kernel.pid_max or user.max_user_namespaces lowered (reviews
           lower them inside namespaces of their own; where the kernel
           keeps one value for the host, the host's)
  loop     a loop device whose file is under /tmp, /var/tmp or /dev/shm
           (ha18-cwd.sh, ha18-stdio.sh)
  file     ha12-keyreq.sh's stand-in /sbin/request-key (the kernel runs
           it as root on every key request)

    preflight.py [--top DIR] [--build DIR]    exit 0 clean, 1 with the
                                              leftovers listed on stdout

run.py calls check() before its first test (--no-preflight skips it)."""

import argparse
import os
import sys

TMP_ROOTS = ("/tmp", "/var/tmp", "/dev/shm")
# The Landlock-era reviews (ll-alias.sh, ll-chroot.sh, ll-stack.sh) mount at
# these children of "/" in the host's namespace.
REVIEW_MOUNT_POINTS = ("/ll-sys-alias", "/ll-chroot", "/ll-stack")
# The kernel's default pid_max is 32768 at least (PID_MAX_DEFAULT); reviews
# set 300-500 to make pids recycle.
PID_MAX_MIN = 32768
# A review sets 1 in a user namespace of its own; Linux's default is
# about half the threads limit, tens of thousands.
MAX_USERNS_MIN = 1000
REQUEST_KEY = "/sbin/request-key"
# tests/agents/key-upcall.c's helper mode logs this line: the stand-in.
STAND_IN_MARK = b"request-key helper pid"


def under(path, roots):
    """True when path lies strictly below one of roots."""
    return any(path.startswith(r.rstrip("/") + "/") for r in roots if r)


def unescape(field):
    """A mountinfo field with its octal escapes (\\040 for a space) undone."""
    out, i = "", 0
    while i < len(field):
        if field[i] == "\\" and field[i + 1:i + 4].isdigit():
            out += chr(int(field[i + 1:i + 4], 8))
            i += 4
        else:
            out += field[i]
            i += 1
    return out


def leftover_mounts(mountinfo, roots):
    """The mount points (from mountinfo's text) strictly under roots."""
    found = []
    for line in mountinfo.splitlines():
        fields = line.split()
        if len(fields) > 4 and (under(unescape(fields[4]), roots)
                                or unescape(fields[4]) in REVIEW_MOUNT_POINTS
                                or under(unescape(fields[4]), REVIEW_MOUNT_POINTS)):
            found.append("mount %s (%s)" % (unescape(fields[4]), " ".join(fields[fields.index("-") + 1:][:2])
                                            if "-" in fields else "?"))
    return found


def stray_process(proc, roots, init_net):
    """Why proc (a dict: pid, ppid, exe, cmdline, net) is a leftover, or
    None. Only orphans count: a run in progress has a live caller."""
    if proc["ppid"] != 1:
        return None
    exe, cmd = proc["exe"] or "", proc["cmdline"]
    if os.path.basename(exe).startswith("egress-supervisor"):
        return "an egress-supervisor"
    if under(exe, roots):
        return "runs %s" % exe
    if "/tmp/ha" in cmd or "/tmp/h-attack" in cmd:
        return "names a review's files"
    if init_net and proc["net"] and proc["net"] != init_net:
        return "in a network namespace not pid 1's"
    return None


def processes():
    """Every process readable in /proc: pid, ppid, exe, cmdline, net."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        p = {"pid": int(pid), "exe": None, "net": None}
        try:
            with open("/proc/%s/stat" % pid) as f:
                p["ppid"] = int(f.read().rsplit(")", 1)[1].split()[1])
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                p["cmdline"] = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except (OSError, IndexError, ValueError):
            continue
        if not p["cmdline"]:
            continue  # a kernel thread
        for key, link in (("exe", "exe"), ("net", "ns/net")):
            try:
                p[key] = os.readlink("/proc/%s/%s" % (pid, link))
            except OSError:
                pass
        yield p


def stray_processes(roots):
    try:
        init_net = os.readlink("/proc/1/ns/net")
    except OSError:
        init_net = None
    return ["process %d (%s): %s" % (p["pid"], why, p["cmdline"][:120])
            for p in processes() for why in [stray_process(p, roots, init_net)] if why]


def read_int(path):
    try:
        with open(path) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def sysctl_problems(proc_sys="/proc/sys"):
    found = []
    for name, least in (("kernel/pid_max", PID_MAX_MIN), ("user/max_user_namespaces", MAX_USERNS_MIN)):
        v = read_int(os.path.join(proc_sys, name))
        if v is not None and v < least:
            found.append("sysctl %s = %d (under %d: lowered by a review, or set so on this host)"
                         % (name.replace("/", "."), v, least))
    return found


def leftover_loops(sys_block="/sys/block"):
    found = []
    try:
        names = sorted(n for n in os.listdir(sys_block) if n.startswith("loop"))
    except OSError:
        return found
    for n in names:
        try:
            with open(os.path.join(sys_block, n, "loop", "backing_file")) as f:
                backing = f.read().strip()
        except OSError:
            continue
        if under(backing, TMP_ROOTS):
            found.append("loop /dev/%s over %s" % (n, backing))
    return found


def leftover_files(request_key=REQUEST_KEY):
    try:
        with open(request_key, "rb") as f:
            if STAND_IN_MARK in f.read():
                return ["file %s: ha12-keyreq.sh's stand-in helper" % request_key]
    except OSError:
        pass
    return []


def check(top, build):
    """Every leftover found, one line each (empty: clean)."""
    roots = TMP_ROOTS + tuple(os.path.realpath(d) for d in (top, build) if d)
    with open("/proc/self/mountinfo") as f:
        mountinfo = f.read()
    return (leftover_mounts(mountinfo, roots) + stray_processes(roots) + sysctl_problems()
            + leftover_loops() + leftover_files())


HINT = """preflight: this host holds what an earlier run left (above); later tests
would fail for it, not for what they check. Remove it (umount, kill the
orphan, losetup -d, restore the sysctl) and start again; --no-preflight
(run.py) runs anyway."""


def report(found):
    for line in found:
        print("preflight: leftover: " + line)
    if found:
        print(HINT)
    return 1 if found else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    ap.add_argument("--top", default=os.environ.get("TOP") or here)
    ap.add_argument("--build", default=os.environ.get("BUILD"))
    args = ap.parse_args()
    found = check(args.top, args.build or os.path.join(args.top, "build"))
    if not found:
        print("preflight: clean (mounts, orphans, sysctls, loop devices, /sbin/request-key)")
    return report(found)


if __name__ == "__main__":
    sys.exit(main())
