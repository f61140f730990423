#!/bin/bash
# ha7-nodump.sh: does the uid-1000 supervisor (user-namespace mode) read a
# non-dumpable agent? Three agents connect to 127.0.0.1:4479 under
# --no-loopback (undeclared; nothing listens, no traffic leaves the host):
#   nodump         prctl(PR_SET_DUMPABLE, 0), connect
#   nodump-userns  unshare(CLONE_NEWUSER), exec itself (its mm's namespace
#                  is now the nested one), PR_SET_DUMPABLE 0, connect
# plus a plain uid-1000 process on the host (python, outside every user
# namespace) reading /proc/PID/mem of a non-dumpable agent kept asleep.
# The design says a non-dumpable agent is unreadable to the supervisor
# (capability-error, exit 3). SV=binary for another build.
set -euo pipefail
B=$PWD/build
SV=${SV:-$B/egress-supervisor}
# shellcheck source=tests/review/review-cc.sh
. tests/review/review-cc.sh
review_cc "$B/ha7-agent" tests/review/ha7-agent.c
D=$(review_stage ha7-nodump "$SV" "$B/ha7-agent")
U="setpriv --reuid 1000 --regid 1000 --clear-groups"
for mode in nodump nodump-userns; do
	rc=0
	$U "$D/sv" --no-loopback --report "$D/$mode.json" -- "$D/agent" "$mode" 127.0.0.1:4479 \
		2>"$D/$mode.err" || rc=$?
	echo "== $mode: supervisor exit $rc"
	grep -E 'ha7-agent|egress' "$D/$mode.err" | head -5 || true
	python3 - "$D/$mode.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("  verdict:", r.get("verdict"), " containment:", r.get("containment"),
      " counts:", {k: v for k, v in r["counts"].items() if v})
for e in r.get("events", [])[:3]:
    print("  event:", {k: e.get(k) for k in ("syscall", "bucket", "reason", "errno", "dest")})
PY
done
echo "== a plain uid-1000 host process (no namespace) reads a non-dumpable agent's memory"
$U "$D/sv" --no-loopback -- "$D/agent" nodump-sleep 3 2>"$D/sleep.err" &
sleep 1
apid=$(pgrep -f "^$D/agent nodump-sleep" | head -1)
echo "  agent host pid $apid, user ns $(readlink "/proc/$apid/ns/user") (ours: $(readlink /proc/self/ns/user))"
$U /usr/bin/python3 - "$apid" <<'PY' || true
import ctypes, sys
pid = int(sys.argv[1])
line = open("/proc/%d/maps" % pid).readline()
start = int(line.split("-")[0], 16)
try:
    open("/proc/%d/mem" % pid, "rb")
    print("  /proc/PID/mem opened")
except OSError as e:
    print("  /proc/PID/mem:", e, "(file owned by root: DAC, not ptrace)")
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(16)
local = iovec(ctypes.cast(buf, ctypes.c_void_p), 16)
remote = iovec(start, 16)
n = libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
if n < 0:
    print("  process_vm_readv refused:", ctypes.get_errno())
else:
    print("  process_vm_readv READ %d bytes at %#x: %r" % (n, start, buf.raw))
PY
wait
