#!/usr/bin/env python3
"""hh-timeout.py (helper h-hygiene): a review script stopped at a timeout,
the way the integration harness stops it, and what it leaves on the host.

    tests/review/hh-timeout.py [--old] SECONDS SCRIPT [ARG...]   (as root,
                                         from the worktree; env passes through)

--old: subprocess.run(timeout=SECONDS), what harness.review and
it_escapes.run_review did before h-hygiene (SIGKILL to the shell alone).
Default: harness.run_script (SIGTERM to the script's session, its EXIT trap,
SIGKILL after SCRIPT_TERM_GRACE). Prints the host's named network
namespaces (and their processes), mounts under /tmp, /var/tmp and
/dev/shm, cgroups, loop devices, and
processes whose command line names the script's resources (LEAK_WORDS,
space-separated; default: the script's prefix, such as ha17), before and
after; the last line says what is new."""

import os
import subprocess
import sys
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tests", "integration"))
import harness  # noqa: E402


class Ctx:
    last_argv = None


def state(words):
    s = set()
    for name in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split("\n"):
        if name.strip():
            ns = name.split()[0]
            s.add("netns " + ns)
            pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout.split()
            s.update("process %s in netns %s" % (p, ns) for p in pids)
    with open("/proc/self/mountinfo") as f:
        for line in f:
            mp = line.split()[4]
            if mp.startswith(("/tmp/", "/var/tmp/", "/dev/shm/")):
                s.add("mount " + mp)
    for root, dirs, _ in os.walk("/sys/fs/cgroup"):
        s.update("cgroup " + os.path.join(root, d) for d in dirs)
    for line in subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout.splitlines():
        s.add("loop " + line.split(":")[0] + " " + line.rsplit("(", 1)[-1].rstrip(")"))
    me = os.getpid()
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == me:
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        if "hh-timeout" not in cmd and any(w in cmd for w in words):
            s.add("process %s %s" % (pid, cmd[:100]))
    return s


def main():
    args = sys.argv[1:]
    old = args[:1] == ["--old"]
    if old:
        args = args[1:]
    secs, script, rest = float(args[0]), args[1], args[2:]
    words = os.environ.get("LEAK_WORDS", os.path.basename(script).split("-")[0]).split()
    before = state(words)
    argv = ["bash", os.path.join(TOP, "tests", "review", script)] + rest
    start = time.monotonic()
    try:
        if old:
            subprocess.run(argv, cwd=TOP, capture_output=True, text=True, timeout=secs)
        else:
            harness.run_script(Ctx(), argv, secs)
        print("finished before the timeout (%.1f s): choose a shorter one" % (time.monotonic() - start))
    except subprocess.TimeoutExpired:
        print("%s: stopped at %.0f s (%s), returned after %.1f s" % (
            script, secs, "subprocess.run: SIGKILL to bash" if old else "run_script: SIGTERM to the session",
            time.monotonic() - start))
    time.sleep(1)
    new = sorted(state(words) - before)
    for n in new:
        print("  left: " + n)
    print("LEFT %d: %s" % (len(new), "nothing" if not new else ", ".join(x.split()[0] for x in new)))


if __name__ == "__main__":
    main()
