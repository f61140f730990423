#!/bin/bash
# ha9-mmsg.sh [SV]: ha9-mmsg unsupervised and under SV --no-loopback
# --allow 127.0.0.1:4471, sinks on 127.0.0.1:4471 and 127.0.0.2:9999 (as
# root or any uid, from the worktree after `make`; loopback only).
set -euo pipefail
sv=${1:-$PWD/build/egress-supervisor}
mkdir -p /tmp/ha9
musl-gcc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -isystem build/kheaders -static \
	-o /tmp/ha9/ha9-mmsg tests/review/ha9-mmsg.c
for m in first later; do
	for how in unsupervised supervised; do
		echo "== $m $how"
		python3 - "$m" "$how" "$sv" <<'PY'
import json, socket, subprocess, sys, time
m, how, sv = sys.argv[1:]
sinks = {}
for host, port in (("127.0.0.1", 4471), ("127.0.0.2", 9999)):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((host, port))
    s.setblocking(False)
    sinks[f"{host}:{port}"] = s
cmd = ["/tmp/ha9/ha9-mmsg", m, "4471"]
if how == "supervised":
    cmd = [sv, "--no-loopback", "--allow", "127.0.0.1:4471", "--report", "/tmp/ha9/mmsg.json", "--"] + cmd
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
    r = json.load(open("/tmp/ha9/mmsg.json"))
    print(f"  exit {p.returncode} verdict {r['verdict']} counts denied {r['counts']['denied']} invalid {r['counts']['invalid']}")
    for e in r["events"]:
        print("  event", e["syscall"], e["bucket"], e["reason"], e.get("errno"),
              [(x.get("dest"), x.get("decision"), x.get("reason")) for x in e.get("messages") or []])
PY
	done
done
