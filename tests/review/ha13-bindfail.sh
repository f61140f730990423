#!/bin/bash
# ha13-bindfail.sh (hostile review h-attack13): the agent picks the output
# interface of its declared address with a FAILED bind() of an IPv6 socket
# to fe80::dead%a1 (never trapped; the scope id stays in sk_bound_dev_if),
# then sends to the declared IPv4 address as ::ffff:198.51.100.7. Same five
# namespaces of review-net.sh (ha13*):
#
#   ha13a  the agent's host: a0 192.0.2.1/24 (default via 192.0.2.254) and
#          a1 203.0.113.1/24 (a second link)
#   ha13r  router; ha13s the declared server 198.51.100.7 (sink on 9999)
#   ha13x  another host on a1's link that also holds 198.51.100.7/32
#   ha13y  another host on a0's link holding 198.51.100.7/32 (unused here)
#
# Supervisor: --no-loopback --allow 198.51.100.7:9999, as uid 1000 (mode
# llconnect adds --allow [fe80::dead]:9999, a declared link-local address).
#   ha13-bindfail.sh [SUPERVISOR]   (default build/egress-supervisor; MODES=...
#                               picks the modes, default all)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
. tests/review/review-net.sh
mkdir -p /tmp/ha13 && chmod 777 /tmp/ha13
review_cc /tmp/ha13/bf tests/review/ha13-bindfail.c || exit 2
d=$(review_stage ha13-bindfail "${1:-build/egress-supervisor}" /tmp/ha13/bf)
review_net_up ha13
review_net_sinks ha13 "$d"
for mode in ${MODES:-udpplain udp tcp mcast llconnect pkt6 pkt2292 pktopts mcastif scope}; do
	extra=()
	[ "$mode" = llconnect ] && extra=(--allow "[fe80::dead]:9999")
	review_net_run ha13 "$d" "$mode" -- "$d/sv" --allow 198.51.100.7:9999 "${extra[@]}" -- \
		"$d/agent" "$mode" 198.51.100.7:9999 a1
done
echo "--- sinks:"
sed 's/^/  /' "$d/sinks.log"
