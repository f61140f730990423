#!/usr/bin/env python3
"""ha78-lateterm.py [RUNS] [uid1000]: the caller's SIGTERM lands right after the
agent exited 0, while a process it left (setsid sleep) keeps the run going.
The report should say the agent had exited ("killed what the agent left
running"); within the 100 ms tick (pid namespace: the status pipe is read
only on a tick) or with SIGTERM dequeued before SIGCHLD (15 < 17) it says
"killed the agent" next to exit_code 0. Counts each."""
import json, os, select, signal, subprocess, sys, tempfile, time

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sv = os.environ.get("SV", os.path.join(top, "build", "egress-supervisor"))
runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
uid1000 = len(sys.argv) > 2 and sys.argv[2] == "uid1000"
pre = ["setpriv", "--reuid", "1000", "--regid", "1000", "--clear-groups"] if uid1000 else []
tally = {}
for i in range(runs):
    with tempfile.TemporaryDirectory(prefix="ha78-lt.") as d:
        os.chmod(d, 0o777)
        report = os.path.join(d, "r.json")
        # The agent says "gone" on stderr as its very last act.
        p = subprocess.Popen(pre + [sv, "--report", report, "--", "/bin/sh", "-c",
                                    "setsid sleep 30 </dev/null >/dev/null 2>&1 & "
                                    "sleep 0.5; echo gone >&2; exit 0"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        buf = b""
        while b"gone" not in buf:
            r, _, _ = select.select([p.stderr], [], [], 30)
            if not r:
                break
            chunk = os.read(p.stderr.fileno(), 4096)
            if not chunk:
                break
            buf += chunk
        delay = float(os.environ.get("TERM_DELAY", "0.005"))
        time.sleep(delay)
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=60)
        rep = json.load(open(report))
        reason = rep.get("reason", "")
        ag = rep.get("agent", {})
        said_exited = "the agent itself had exited" in reason
        key = ("reason says agent exited" if said_exited else "reason says KILLED THE AGENT",
               "exit_code=%s signal=%s" % (ag.get("exit_code"), ag.get("signal")))
        tally[key] = tally.get(key, 0) + 1
for k, v in sorted(tally.items()):
    print(v, "of", runs, k)
