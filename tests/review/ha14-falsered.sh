#!/bin/bash
# ha14-falsered.sh (hostile review h-attack14): false reds of d255201's device
# check, as root in a network namespace of its own with one veth link a1.
#   1. a UDP socket connected to the declared [fe80::1%a1]:9999 (bound to a1
#      by the kernel): send() is allowed (connected-peer), sendmsg() without
#      a name is denied output-interface (the unnamed destination is judged
#      as if it needed no scope).
#   2. connect() to the declared [ff02::fb]:5353 without a scope id after
#      IPV6_MULTICAST_IF a1 (how an mDNS client picks its link): the kernel
#      binds the socket to the multicast interface (__ip6_datagram_connect),
#      the supervisor reads a device it did not expect: mechanism failure
#      device-binding, the agent told EPERM, verdict capability-error.
#   ha14-falsered.sh [SUPERVISOR]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
sv=$(realpath "${1:-build/egress-supervisor}")
t=$(mktemp -d /tmp/ha14-falsered.XXXXXX)
cat >"$t/agent.py" <<'PY'
import socket
idx = socket.if_nametoindex("a1")
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.connect(("fe80::1", 9999, 0, idx))
print("agent: send", s.send(b"x"))
try: print("agent: sendmsg", s.sendmsg([b"y"]))
except OSError as e: print("agent: sendmsg", e)
u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
u.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, idx)
try: u.connect(("ff02::fb", 5353)); print("agent: connect(ff02::fb) ok")
except OSError as e: print("agent: connect(ff02::fb)", e)
PY
unshare -n sh -c "ip link add a1 type veth peer name x1 && ip link set a1 up && ip link set x1 up && ip link set lo up && sleep 2 &&
	'$sv' --allow '[fe80::1]:9999' --allow '[ff02::fb]:5353' --report '$t/report.json' -- python3 '$t/agent.py'"
echo "supervisor exit $?"
review_print_report "$t/report.json"
