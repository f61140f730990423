#!/bin/bash
# ha9-forms.sh [SV]: runs each ha9-forms mode unsupervised and under
# SV --no-loopback --allow 127.0.0.1:4471, with UDP sinks on the declared
# 127.0.0.1:4471 and the undeclared 127.0.0.1:9999, 127.0.0.2:9999 and
# [::1]:9999 (as root, from the worktree after `make`; loopback only).
set -euo pipefail
sv=${1:-$PWD/build/egress-supervisor}
mkdir -p /tmp/ha9
musl-gcc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -isystem build/kheaders -static \
	-o /tmp/ha9/ha9-forms tests/review/ha9-forms.c
for m in unspec zero any6 mapped addrform unspec6; do
	for how in unsupervised supervised; do
		echo "== $m $how"
		python3 - "$m" "$how" "$sv" <<'PY'
import json, socket, subprocess, sys, time
m, how, sv = sys.argv[1:]
sinks = {}
for fam, host, port in ((socket.AF_INET, "127.0.0.1", 4471), (socket.AF_INET, "127.0.0.1", 9999),
                        (socket.AF_INET, "127.0.0.2", 9999), (socket.AF_INET6, "::1", 9999)):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind((host, port))
    s.setblocking(False)
    sinks[f"{host}:{port}"] = s
cmd = ["/tmp/ha9/ha9-forms", m, "4471"]
if how == "supervised":
    cmd = [sv, "--no-loopback", "--allow", "127.0.0.1:4471", "--report", "/tmp/ha9/forms.json", "--"] + cmd
p = subprocess.run(cmd, capture_output=True, text=True)
print(p.stdout, end="")
time.sleep(0.2)
for name, s in sinks.items():
    got = []
    while True:
        try:
            got.append(s.recv(2048).decode())
        except BlockingIOError:
            break
    if got:
        print(f"  sink {name} got {got}")
if how == "supervised":
    r = json.load(open("/tmp/ha9/forms.json"))
    print(f"  exit {p.returncode} verdict {r['verdict']}")
    for e in r["events"]:
        print("  event", e["syscall"], e["bucket"], e["reason"], e.get("dest"), e.get("errno"))
PY
	done
done
# The unspecified address under a rule that covers it but not loopback:
# the kernel delivers 0.0.0.0 to 127.0.0.1 and :: to ::1 (a loopback sink
# on the undeclared port 9999), the supervisor judges the name as written.
python3 - "$sv" <<'PY'
import json, socket, subprocess, sys, time
sv = sys.argv[1]
for allow, mode, fam, host in (("0.0.0.0/8:9999", "zero", socket.AF_INET, "127.0.0.1"),
                               ("[::]:9999", "any6", socket.AF_INET6, "::1")):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind((host, 9999))
    s.setblocking(False)
    cmd = [sv, "--no-loopback", "--allow", allow, "--report", "/tmp/ha9/zero.json", "--",
           "/tmp/ha9/ha9-forms", mode]
    p = subprocess.run(cmd, capture_output=True, text=True)
    time.sleep(0.2)
    got = []
    while True:
        try:
            got.append(s.recv(100).decode())
        except BlockingIOError:
            break
    r = json.load(open("/tmp/ha9/zero.json"))
    print(f"== --no-loopback --allow {allow}, {mode}: exit {p.returncode} verdict {r['verdict']}",
          [(e["syscall"], e["bucket"], e.get("dest")) for e in r["events"]], f"sink {host}:9999 got {got}")
    s.close()
PY
