#!/bin/bash
# ha38-held.sh (hostile review h-attack38): runs ha38-held.py as the agent
# in a network namespace of its own holding only lo, under --no-loopback
# --allow 127.0.0.1:4438, as uid 1000 and as root; a UDP and TCP sink on
# the undeclared 127.0.0.2:9999 and on the declared 127.0.0.1:4438 count
# what arrives. Expected: nothing at 127.0.0.2 (verdict fail from the
# probes that are denied). Host, as root, from the worktree after `make`.
#   ha38-held.sh [SUPERVISOR]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
sv=$(realpath "${1:-build/egress-supervisor}")
d=$(mktemp -d /tmp/ha38-held.XXXXXX)
cp tests/review/ha38-held.py "$d/"
chmod -R a+rX "$d"
chmod 777 "$d"
cat >"$d/sink.py" <<'PY'
import select, socket, sys
socks = []
for host, port in (("127.0.0.2", 9999), ("127.0.0.1", 4438)):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind((host, port))
    t = socket.socket(socket.AF_INET, socket.SOCK_STREAM); t.bind((host, port)); t.listen(8)
    socks += [u, t]
conns = {}
while True:
    r, _, _ = select.select(socks + list(conns), [], [], 30)
    if not r: break
    for s in r:
        if s in conns:
            d = s.recv(65536)
            if d:
                print("sink %s:%d got TCP %r" % (s.getsockname() + (d,)), flush=True)
            else:
                conns.pop(s); s.close()
        elif s.type == socket.SOCK_DGRAM:
            data, peer = s.recvfrom(65536)
            print("sink %s:%d got UDP %r" % (s.getsockname() + (data,)), flush=True)
        else:
            c, peer = s.accept(); conns[c] = 1
            print("sink %s:%d accepted TCP" % s.getsockname(), flush=True)
PY
for who in uid1000 root; do
	as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
	[ "$who" = root ] && as=()
	echo "== $who"
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare -n bash -c '
		ip link set lo up; ip addr add 127.0.0.2/8 dev lo 2>/dev/null
		/usr/bin/python3 "$1/sink.py" >"$1/sink.$2" 2>&1 & sink=$!
		sleep 0.5; shift 2
		"$@"; echo "supervisor exit $?"
		sleep 0.5; kill $sink' _ "$d" "$who" "${as[@]}" "$sv" --no-loopback --allow 127.0.0.1:4438 \
		--report "$d/report.$who.json" -- /usr/bin/python3 "$d/ha38-held.py" 4438 2>"$d/err.$who"
	tail -1 "$d/err.$who"
	python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
for e in r["events"]:
    print("  event", *(e.get(k) for k in ("syscall", "bucket", "reason", "dest", "errno")))' "$d/report.$who.json"
	echo "  sink:"; sed 's/^/    /' "$d/sink.$who"
done
