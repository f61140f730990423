#!/bin/bash
# hd-writeback.sh: review h-docaudit. The fault seam's process_vm_writev
# site (docs/design.md "Fault-injection seam") is the one site no test
# injects. It fails the supervisor's write of a performed sendmmsg
# message's msg_len back into the agent (mediate_msg.c): not EFAULT, so a
# mechanism failure, and the run must be capability-error (never pass),
# with the message that went recorded as sent. Runs the FAULTS=1 build as
# root on two declared datagrams to a local UDP listener and prints the
# exit status, the report's counts and the event's messages. As root, from
# the worktree, after make supervisor FAULTS=1 and make agents:
#   tests/review/hd-writeback.sh [ERRNO]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
errno=${1:-EPERM}
tmp=$(mktemp -d /tmp/hdwb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
rc=0
EGRESS_SV_FAULT=process_vm_writev:$errno "$top/build/faults/egress-supervisor" \
	--report "$tmp/r.json" -- "$top/build/agents/sendmmsg-batch" \
	"127.0.0.1:$port" "127.0.0.1:$port" >"$tmp/log" 2>&1 || rc=$?
echo "supervisor exit $rc"
python3 - "$tmp/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("verdict", r.get("verdict"), "counts", r.get("counts"))
for e in r.get("events", []):
    if e.get("syscall") == "sendmmsg":
        print("event", {k: v for k, v in e.items() if k not in ("messages", "t_ms")})
        print("messages",
              [(m.get("decision"), m.get("sent"), m.get("errno")) for m in e.get("messages", [])])
PY
