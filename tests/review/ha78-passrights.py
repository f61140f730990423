#!/usr/bin/env python3
"""ha78-passrights.py [MODE] [uid1000]: runs ha78-passrights MODE under the
supervisor with an AF_UNIX socket on its stdin, then (after the run) sends a
descriptor over the caller's end: EPERM means SO_PASSRIGHTS is still off on
the agent's end. Prints the agent's lines, the verdict, the events' buckets
and reasons, and the caller's send result."""
import json, os, socket, subprocess, sys, tempfile

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sv = os.environ.get("SV", os.path.join(top, "build", "egress-supervisor"))
mode = sys.argv[1] if len(sys.argv) > 1 else "hostile"
uid1000 = len(sys.argv) > 2 and sys.argv[2] == "uid1000"
with tempfile.TemporaryDirectory(prefix="ha78-pr.") as d:
    os.chmod(d, 0o755)
    agent = os.path.join(d, "agent")
    subprocess.run(["musl-gcc", "-static", "-O2", "-isystem", os.path.join(top, "build", "kheaders"),
                    "-o", agent, os.path.join(top, "tests/review/ha78-agent.c"), "-lpthread"],
                   check=True)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    report = os.path.join(d, "report.json")
    pre = ["setpriv", "--reuid", "1000", "--regid", "1000", "--clear-groups"] if uid1000 else []
    if uid1000:
        os.chmod(d, 0o777)
    p = subprocess.run(pre + [sv, "--report", report, "--", agent, mode], stdin=theirs,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    print(p.stderr.decode(errors="replace"))
    print("exit", p.returncode)
    rep = json.load(open(report))
    print("verdict", rep.get("verdict"), rep.get("reason"))
    seen = {}
    for e in rep.get("events", []):
        k = (e.get("syscall"), e.get("bucket"), e.get("reason"), e.get("errno"))
        seen[k] = seen.get(k, 0) + 1
    for k, v in sorted(seen.items(), key=str):
        print("event", k, v)
    r, w = os.pipe()
    try:
        ours.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, bytes(memoryview(bytearray(r.to_bytes(4, "little")))))])
        print("caller-send-rights OK (option ON on the agent's end!)")
    except OSError as e:
        print("caller-send-rights", e.strerror)
