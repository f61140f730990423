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
for r in $(seq "${ROUNDS:-1}"); do
	for mode in ${MODES:-plain flag sockopt connected tcp sendmsg sendmmsg mapped}; do
		review_net_run ha35 "$d" "$mode.$r" -- "$d/sv" --allow 198.51.100.7:9999 -- \
			"$d/agent" "$mode" 198.51.100.7:9999
	done
done
sleep 0.5
echo "--- sinks:"
sed 's/^/  /' "$d/sinks.log"
