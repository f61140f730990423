#!/bin/bash
# ha21-unixmagic.sh (helper h-unixguest, against f6d018d): a root agent's
# AF_UNIX name that goes through a /proc magic link. Programs whose socket
# path is longer than sun_path's 108 bytes open the directory O_PATH and
# connect to /proc/self/fd/N/NAME (systemd's connect_unix_path does this).
# The kernel follows the link to the agent's own socket; the supervisor's
# lookup (unixpeer.c: openat2 RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS under
# /proc/TID/root) answers ELOOP for /proc/PID/fd/N/NAME and ENOENT for
# /proc/self/... (the agent's /proc, where the supervisor has no "self"),
# and the report files both as "allowed ... performed" with that errno:
# the agent's own IPC broken, and a performed call no kernel answered so.
# Not a false green (nothing is reached). Run as root on the host.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
D=/tmp/ha21
rm -rf "$D" && mkdir -p "$D/w" && chmod 1777 "$D/w"
cat >"$D/agent.py" <<'PY'
import os, socket
d = "/tmp/ha21/w"
p = os.path.join(d, "m.sock")
l = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
l.bind(p)
l.listen(16)
fd = os.open(d, os.O_PATH | os.O_DIRECTORY)
for name in ("/proc/self/fd/%d/m.sock" % fd, "/proc/%d/fd/%d/m.sock" % (os.getpid(), fd), p):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(name)
        print("agent: connect", name, "ok", flush=True)
    except OSError as e:
        print("agent: connect", name, "->", os.strerror(e.errno), flush=True)
    s.close()
PY
echo "--- without the supervisor (the kernel's answers)"
python3 "$D/agent.py"
rm -f "$D/w/m.sock"
echo "--- under the supervisor (root: pid-namespace run, names judged)"
"$SV" --report "$D/report.json" --writable "$D/w" -- "$(command -v python3)" "$D/agent.py"
python3 - "$D/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("verdict", r["verdict"])
for e in r.get("events", []):
    print("  event", e.get("syscall"), e.get("dest"), e.get("bucket"), e.get("reason"),
          e.get("action"), e.get("errno"))
PY
