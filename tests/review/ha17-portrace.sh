#!/bin/bash
# ha17-portrace.sh (hostile review h-attack17, against main d07b047): two
# threads' first sendto() on one fresh IPv6 UDP socket, mediated at once:
# the second give_port bind finds the port taken (EINVAL) and the send is a
# mechanism failure (EPERM, capability-error). A network namespace of its
# own (ha17pr: lo, and 2001:db8::1 on a veth pair with a UDP sink at
# [2001:db8::2]:9999), uid 1000, --no-loopback --allow [2001:db8::2]:9999.
# The same agent without the supervisor first, for comparison.
#   ha17-portrace.sh [SUPERVISOR]   (ROUNDS=N, default 1000)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
mkdir -p /tmp/ha17 && chmod 777 /tmp/ha17
review_cc /tmp/ha17/portrace tests/review/ha17-portrace.c || exit 2
d=$(review_stage ha17-portrace "${1:-build/egress-supervisor}" /tmp/ha17/portrace)
. tests/review/review-lock.sh
review_lock ha17pr || exit 2 # one run at a time: the next one's del would take this one's namespace
ip netns del ha17pr 2>/dev/null
ip netns add ha17pr || exit 2
trap 'ip netns pids ha17pr | xargs -r kill; ip netns del ha17pr; review_unlock ha17pr' EXIT
ip -n ha17pr link set lo up
ip -n ha17pr link add p1 type veth peer name p2
ip -n ha17pr addr add 2001:db8::1/64 dev p1 nodad
ip -n ha17pr addr add 2001:db8::2/64 dev p2 nodad
ip -n ha17pr link set p1 up
ip -n ha17pr link set p2 up
ip netns exec ha17pr python3 -c 'import socket
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.bind(("2001:db8::2", 9999))
while True: s.recv(9)' &
sleep 0.5
as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
echo "== without the supervisor:"
ip netns exec ha17pr "${as[@]}" "$d/agent" 2001:db8::2 9999 "${ROUNDS:-1000}"
echo "== supervised:"
ip netns exec ha17pr "${as[@]}" "$d/sv" --no-loopback --allow "[2001:db8::2]:9999" \
	--report "$d/report.json" -- "$d/agent" 2001:db8::2 9999 "${ROUNDS:-1000}"
echo "supervisor exit $?"
python3 -c 'import json, sys, collections
r = json.load(open(sys.argv[1]))
print("  verdict", r["verdict"])
for k, n in collections.Counter((e["syscall"], e["bucket"], e["reason"], e.get("mechanism"), e.get("errno")) for e in r["events"]).items():
    print("  %5d" % n, *k)' "$d/report.json"
