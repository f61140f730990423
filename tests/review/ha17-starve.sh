#!/bin/bash
# ha17-starve.sh (hostile review h-attack17, against main d07b047): the
# device lock's cost to a program that disconnects one IPv6 socket while
# its other threads send (ha17-starve.c). A network namespace of its own
# (ha17sv: 2001:db8::1 on a veth pair, a UDP sink at [2001:db8::2]:9999,
# 2001:db8::3 silent: a permanent neighbour entry to a MAC nobody has),
# uid 1000, --no-loopback, both declared. Unsupervised first.
#   ha17-starve.sh [SUPERVISOR]   (SENDERS=N, default 3; ROUNDS=N, default 200)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
mkdir -p /tmp/ha17 && chmod 777 /tmp/ha17
review_cc /tmp/ha17/starve tests/review/ha17-starve.c || exit 2
d=$(review_stage ha17-starve "${1:-build/egress-supervisor}" /tmp/ha17/starve)
. tests/review/review-lock.sh
review_lock ha17sv || exit 2 # one run at a time: the next one's del would take this one's namespace
ip netns del ha17sv 2>/dev/null
ip netns add ha17sv || exit 2
trap 'ip netns pids ha17sv | xargs -r kill; ip netns del ha17sv; review_unlock ha17sv' EXIT
ip -n ha17sv link set lo up
ip -n ha17sv link add p1 type veth peer name p2
ip -n ha17sv addr add 2001:db8::1/64 dev p1 nodad
ip -n ha17sv addr add 2001:db8::2/64 dev p2 nodad
ip -n ha17sv link set p1 up
ip -n ha17sv link set p2 up
ip -n ha17sv -6 neigh add 2001:db8::3 lladdr 02:00:00:00:00:03 dev p1 nud permanent
ip netns exec ha17sv python3 -c 'import socket
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.bind(("2001:db8::2", 9999))
while True: s.recv(9)' &
sleep 0.5
as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
sv=("$d/sv" --no-loopback --allow "[2001:db8::2]:9999" --allow "[2001:db8::2]:9" --allow "[2001:db8::3]:9999"
	--allow "[2001:db8::3]:9" --report "$d/report.json" --)
for mode in udp tfo; do
	dest=2001:db8::2 n=${SENDERS:-3}
	[ "$mode" = tfo ] && dest=2001:db8::3 n=1
	echo "== $mode, without the supervisor:"
	ip netns exec ha17sv "${as[@]}" "$d/agent" "$mode" "$dest" 9999 "$n" "${ROUNDS:-200}"
	echo "== $mode, supervised:"
	ip netns exec ha17sv "${as[@]}" "${sv[@]}" "$d/agent" "$mode" "$dest" 9999 "$n" "${ROUNDS:-200}" 2>&1 |
		grep -v warning
done
