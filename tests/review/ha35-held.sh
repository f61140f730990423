#!/bin/bash
# ha35-held.sh (hostile review h-attack35): the angles that held, each an
# agent mode of ha35-held.c (see there). One network namespace, ha35ha,
# whose lo holds 192.0.2.1 (declared) and 198.51.100.7 (not), each with its
# own UDP and TCP sink on 9999 that logs what reaches it. Host, as root,
# from the worktree after `make`.
#
# Supervisor: --no-loopback --allow 192.0.2.1:9999, as uid 1000 (as root
# with REVIEW_AS_ROOT=1).
#   ha35-held.sh [SUPERVISOR]   (default build/egress-supervisor; MODES=...
#                                picks the modes, default all; ROUNDS=N)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
. tests/review/review-net.sh
mkdir -p /tmp/ha35 && chmod 777 /tmp/ha35
review_cc /tmp/ha35/held tests/review/ha35-held.c || exit 2
d=$(review_stage ha35-held "${1:-build/egress-supervisor}" /tmp/ha35/held)
REVIEW_NS=(ha35ha)
trap review_net_down EXIT
review_net_down
ip netns add ha35ha
ip -n ha35ha link set lo up
ip -n ha35ha addr add 192.0.2.1/32 dev lo
ip -n ha35ha addr add 198.51.100.7/32 dev lo
cat >"$d/sink.py" <<'PY'
import select, socket, sys
name, addr = sys.argv[1], sys.argv[2]
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind((addr, 9999))
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); t.bind((addr, 9999)); t.listen(8)
while True:
    r, _, _ = select.select([u, t], [], [], 300)
    if not r: break
    if u in r:
        data, peer = u.recvfrom(65536)
        print("%s got UDP %r" % (name, data[:40].decode(errors="replace")), flush=True)
    if t in r:
        c, peer = t.accept(); c.settimeout(2)
        try: data = c.recv(65536)
        except OSError: data = b""
        print("%s got TCP %r" % (name, data[:40].decode(errors="replace")), flush=True)
        c.close()
PY
REVIEW_SINKS_LOG=$d/sinks.log
ip netns exec ha35ha python3 "$d/sink.py" "DECLARED 192.0.2.1" 192.0.2.1 >>"$d/sinks.log" 2>&1 &
ip netns exec ha35ha python3 "$d/sink.py" "UNDECLARED 198.51.100.7" 198.51.100.7 >>"$d/sinks.log" 2>&1 &
for _ in $(seq 50); do
	[ "$(ip netns exec ha35ha ss -Hltn 'sport = :9999' | wc -l)" = 2 ] && break
	sleep 0.1
done
for r in $(seq "${ROUNDS:-1}"); do
	for mode in ${MODES:-control listener ownnotif socketpair vsock fastopen tfoconnect sendfile ulp iouring bpf}; do
		review_net_run ha35h "$d" "$mode.$r" -- "$d/sv" --allow 192.0.2.1:9999 -- \
			"$d/agent" "$mode" 192.0.2.1:9999 198.51.100.7:9999
	done
done
sleep 0.5
echo "--- sinks:"
sed 's/^/  /' "$d/sinks.log"
