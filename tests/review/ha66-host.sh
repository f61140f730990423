#!/bin/bash
# ha66-host.sh (hostile review h-attack66): runs ha66-agent's probes in a
# network namespace of their own holding only lo (127.0.0.0/8, ::1 and
# 2001:db8::66/128), unsupervised (the control) and under --no-loopback
# --allow 127.0.0.1:4466 --allow [::1]:4466 as uid 1000 and as root.
# Ground truth is a packet capture on lo (AF_PACKET, ETH_P_ALL): every
# packet whose destination is the undeclared 127.0.0.2 or 2001:db8::66 is
# printed with the probe name it carries. Expected under the supervisor:
# none. Host, as root, from the worktree after `make -j2 supervisor`.
#   tests/review/ha66-host.sh [SUPERVISOR] [PROBE...]
set -euo pipefail
cd "$(dirname "$0")/../.."
sv=$(realpath "${1:-build/egress-supervisor}")
shift || true
d=$(mktemp -d /tmp/ha66.XXXXXX)
trap 'rm -rf "$d"' EXIT
gcc -static -O2 -Wall -o "$d/ha66-agent" tests/review/ha66-agent.c
chmod 777 "$d"; chmod 755 "$d/ha66-agent"
cat >"$d/cap.py" <<'PY'
import select, socket, sys, time
UNDECLARED = {socket.inet_pton(socket.AF_INET, "127.0.0.2"): "127.0.0.2",
              socket.inet_pton(socket.AF_INET6, "2001:db8::66"): "2001:db8::66"}
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind(("lo", 0))
seen = set()
end = time.time() + float(sys.argv[1])
while time.time() < end:
    if not select.select([s], [], [], 0.2)[0]:
        continue
    f, addr = s.recvfrom(65536)
    if addr[2] == socket.PACKET_OUTGOING:
        continue  # each packet on lo is seen leaving and arriving
    et = int.from_bytes(f[12:14], "big")
    dst = f[30:34] if et == 0x0800 else f[38:54] if et == 0x86DD else None
    if dst in UNDECLARED:
        tail = bytes(c for c in f[-24:] if 32 <= c < 127).decode()
        print("UNDECLARED %s: ...%s" % (UNDECLARED[dst], tail), flush=True)
PY
run() { # label, command...
	local label=$1
	shift
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare -n bash -c '
		ip link set lo up
		ip -6 addr add 2001:db8::66/128 dev lo nodad
		python3 "$1/cap.py" 8 >"$1/cap.$2" 2>&1 & cap=$!
		sleep 0.7; shift 2
		"$@"; echo "  exit $?"
		wait $cap' _ "$d" "$label" "$@"
	echo "  capture:"
	sed 's/^/    /' "$d/cap.$label"
}
echo "== control (no supervisor, root)"
run control "$d/ha66-agent" 4466 "$@"
for who in uid1000 root; do
	as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
	[ "$who" = root ] && as=()
	echo "== $who"
	run "$who" "${as[@]}" "$sv" --no-loopback --allow 127.0.0.1:4466 --allow '[::1]:4466' \
		--report "$d/report.$who.json" -- "$d/ha66-agent" 4466 "$@"
	chmod a+r "$d/report.$who.json" 2>/dev/null || true
	python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
print("  verdict", r.get("verdict"), r.get("exit"))
for e in r["events"]:
    print("  event", *(e.get(k) for k in ("syscall", "bucket", "reason", "dest", "errno")))' \
		"$d/report.$who.json" || true
done
