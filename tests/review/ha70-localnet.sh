#!/usr/bin/env bash
# ha70-localnet.sh: hostile review h-attack70, inbound class. A loopback
# listener is allowed because "only local processes reach a loopback
# address (the kernel drops martian 127/8 ... arriving from outside)"
# (sockrule.c). IPv4 drops them only where route_localnet is 0: with
# net.ipv4.conf.IF.route_localnet=1 (kube-proxy set it on every interface
# before CVE-2020-8558's fix; some container and NAT set-ups still do) a
# neighbour on IF reaches 127.0.0.1. A veth to a namespace "ha70peer"
# (198.51.100.2, documentation addresses, nothing leaves this host) plays
# the neighbour: it connects to 127.0.0.1:PORT through the link and reads
# what the agent writes to the peer it accepted.
#   tests/review/ha70-localnet.sh [RUNS [USER]]   USER root (default) or u1000
# Prints one line a run: the supervisor's exit, its verdict, and what the
# neighbour read. Needs root (netns, veth), build/egress-supervisor (SV: another
# build, a mutant's).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-1}
who=${2:-root}
# A port free on the host's loopback now (the listener is in the host's own
# network namespace): the fixed 47070 of the review's runs was once taken
# (EADDRINUSE, an ephemeral port or a TIME_WAIT) and failed make test.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
work=$(mktemp -d /tmp/ha70-localnet.XXXXXX)
chmod 755 "$work"
ns=ha70peer

cleanup() {
	ip netns del "$ns" 2>/dev/null || true
	ip link del ha70a 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

musl-gcc -D_GNU_SOURCE -O2 -static -no-pie -isystem "$top/build/kheaders" \
	-o "$work/agent" "$top/tests/review/ha70-agent.c"
cp "${SV:-$top/build/egress-supervisor}" "$work/sv"

cleanup_net() {
	ip netns del "$ns" 2>/dev/null || true
	ip link del ha70a 2>/dev/null || true
}
cleanup_net
ip netns add "$ns"
ip link add ha70a type veth peer name ha70b
ip link set ha70b netns "$ns"
ip addr add 198.51.100.1/24 dev ha70a
ip link set ha70a up
ip -n "$ns" addr add 198.51.100.2/24 dev ha70b
ip -n "$ns" link set ha70b up
ip -n "$ns" link set lo up
# The neighbour sends to 127.0.0.1 through the link: its own loopback
# addresses go (with them its 127/8 local routes, and the source check that
# would drop the answers from 127.0.0.1), and its route_localnet lets the
# output route use the veth.
ip -n "$ns" addr flush dev lo
ip -n "$ns" route add 127.0.0.1/32 via 198.51.100.1 dev ha70b
ip netns exec "$ns" sysctl -qw net.ipv4.conf.ha70b.route_localnet=1
# The host's side: the setting under test.
sysctl -qw net.ipv4.conf.ha70a.route_localnet=1

peer() {
	ip netns exec "$ns" python3 - "$port" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
for _ in range(100):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        break
    except OSError:
        time.sleep(0.1)
else:
    print("neighbour: no connection"); sys.exit(0)
print("neighbour: read %r from %s" % (s.recv(100), s.getpeername()))
PY
}

for i in $(seq "$runs"); do
	rep=$work/report.$i
	peer >"$work/peer.$i" 2>&1 &
	peer_pid=$!
	cmd=("$work/sv" --report "$rep" -- "$work/agent" listen-lo "$port" "ha70secret-localnet-$i")
	if [[ $who == u1000 ]]; then
		chown 1000:1000 "$work"
		cmd=(setpriv --reuid 1000 --regid 1000 --clear-groups "${cmd[@]}")
	fi
	set +e
	(cd "$work" && "${cmd[@]}") >"$work/out.$i" 2>&1 </dev/null
	rc=$?
	set -e
	wait "$peer_pid" || true
	verdict=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["verdict"], [(e["syscall"], e["bucket"], e["reason"]) for e in r["events"]])' "$rep" 2>/dev/null || echo "no report")
	echo "run $i ($who): exit $rc, $verdict; $(grep -h 'ha70\|neighbour' "$work/out.$i" "$work/peer.$i" | tr '\n' ' ')"
done
