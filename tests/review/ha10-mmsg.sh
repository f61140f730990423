#!/bin/bash
# ha10-mmsg.sh [SV]: ha10-mmsg unsupervised and under SV --no-loopback
# --allow 127.0.0.1:4471, sinks on 127.0.0.1:4471 and 127.0.0.2:9999 (any
# uid, from the worktree after `make`; loopback only).
set -euo pipefail
sv=${1:-$PWD/build/egress-supervisor}
mkdir -p /tmp/ha10
musl-gcc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -isystem build/kheaders -static \
	-o /tmp/ha10/ha10-mmsg tests/review/ha10-mmsg.c
for m in ${MODES:-first badfd notsock intr}; do
	for how in unsupervised supervised; do
		echo "== $m $how"
		python3 - "$m" "$how" "$sv" <<'PY'
import collections, json, socket, subprocess, sys, time
m, how, sv = sys.argv[1:]
sinks = {}
for host, port in (("127.0.0.1", 4471), ("127.0.0.2", 9999)):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.bind((host, port))
    s.setblocking(False)
    sinks[f"{host}:{port}"] = s
cmd = ["/tmp/ha10/ha10-mmsg", m, "4471"]
if how == "supervised":
    cmd = [sv, "--no-loopback", "--allow", "127.0.0.1:4471", "--report", "/tmp/ha10/mmsg.json", "--"] + cmd
p = subprocess.run(cmd, capture_output=True, text=True)
print(p.stdout, end="")
time.sleep(0.2)
for name, s in sinks.items():
    n = 0
    while True:
        try:
            s.recv(2048)
            n += 1
        except BlockingIOError:
            break
    print(f"  sink {name}: {n} datagram(s)")
if how == "supervised":
    r = json.load(open("/tmp/ha10/mmsg.json"))
    print(f"  exit {p.returncode} verdict {r['verdict']} counts {r['counts']}")
    agg = collections.Counter()
    for e in r["events"]:
        if e["syscall"] != "sendmmsg":
            continue
        msgs = e.get("messages") or []
        ndenied = sum(1 for x in msgs if x.get("decision") == "denied")
        agg[(e["bucket"], e["reason"], e.get("errno"), len(msgs), ndenied)] += 1
    for (b, reason, errno, nm, nd), k in sorted(agg.items(), key=str):
        print(f"  {k} sendmmsg event(s): bucket {b} reason {reason} errno {errno}, "
              f"{nm} message(s) judged, {nd} of them denied")
PY
	done
done
