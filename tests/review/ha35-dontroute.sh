#!/bin/bash
# ha35-dontroute.sh (hostile review h-attack35): the agent sends to its
# declared address with MSG_DONTROUTE or SO_DONTROUTE (no capability, not
# trapped, a nameless send on a connected socket answered CONTINUE), and the
# kernel's link-scope lookup skips the route the host chose (default via
# the router on a0) for a backup default route over a1 (`default dev a1
# metric 500`: scope link, as any route without a gateway, e.g. a VPN, PPP
# or LTE link kept as a fallback). The datagram or connection goes to
# whoever answers ARP for the declared address on a1: ha35x, an undeclared
# host. Host, as root, from the worktree after `make`. Topology:
# review-net.sh (five namespaces ha35a, ha35r, ha35s, ha35x, ha35y) plus
# that one route in ha35a.
#
# Supervisor: --no-loopback --allow 198.51.100.7:9999, as uid 1000 (as root
# with REVIEW_AS_ROOT=1).
#   ha35-dontroute.sh [SUPERVISOR]  (default build/egress-supervisor;
#                                    MODES=... picks the modes, default all;
#                                    ROUNDS=N repeats them, default 1)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
. tests/review/review-net.sh
mkdir -p /tmp/ha35 && chmod 777 /tmp/ha35
review_cc /tmp/ha35/dontroute tests/review/ha35-dontroute.c || exit 2
d=$(review_stage ha35-dontroute "${1:-build/egress-supervisor}" /tmp/ha35/dontroute)
review_net_up ha35
ip -n ha35a route add default dev a1 metric 500
echo "--- ha35a's routes:"
ip -n ha35a route | sed 's/^/  /'
echo "--- the kernel's choice for 198.51.100.7:"
ip -n ha35a route get 198.51.100.7 | sed 's/^/  /'
review_net_sinks ha35 "$d"
# A capture on ha35x's link for the tcplate mode's segments, which no
# listener there can take (they belong to the declared server's connection).
cat >"$d/capture.py" <<'PY'
import socket, struct
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.ntohs(0x0800))
s.bind(("x0", 0))
s.settimeout(120)
while True:
    try:
        f = s.recv(65535)
    except OSError:
        break
    ip = f[14:]
    if len(ip) < 20 or ip[9] != 6:
        continue
    ihl = (ip[0] & 15) * 4
    tcp = ip[ihl:]
    data = tcp[(tcp[12] >> 4) * 4:]
    if b"agent-secret" in data:
        print("UNDECLARED host ha35x on a1's link captured a TCP segment %s:%d -> %s:%d with %r"
              % (socket.inet_ntoa(ip[12:16]), struct.unpack("!H", tcp[0:2])[0],
                 socket.inet_ntoa(ip[16:20]), struct.unpack("!H", tcp[2:4])[0],
                 data.decode(errors="replace")), flush=True)
PY
cat >"$d/stdin.py" <<'PY'
import os, socket, sys
s = socket.create_connection(("198.51.100.7", 9999))
os.dup2(s.fileno(), 0)
os.execv(sys.argv[1], sys.argv[1:])
PY
ip netns exec ha35x python3 "$d/capture.py" >>"$d/sinks.log" 2>&1 &
for r in $(seq "${ROUNDS:-1}"); do
	for mode in ${MODES:-plain flag sockopt connected tcp tcplate stdin sendmsg sendmmsg mapped}; do
		# stdin: the supervisor's caller connects to the declared server
		# and hands the connection over on descriptor 0.
		pre=()
		[ "$mode" = stdin ] && pre=(/usr/bin/python3 "$d/stdin.py")
		review_net_run ha35 "$d" "$mode.$r" -- "${pre[@]}" "$d/sv" --allow 198.51.100.7:9999 -- \
			"$d/agent" "$mode" 198.51.100.7:9999
	done
done
sleep 0.5
echo "--- sinks:"
sed 's/^/  /' "$d/sinks.log"
