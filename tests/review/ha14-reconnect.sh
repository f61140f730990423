#!/bin/bash
# ha14-reconnect.sh (hostile review h-attack14): a UDP socket connected to the
# declared ::ffff:198.51.100.7 is re-connected to the declared fe80::1%a1;
# the connect fails (EAFNOSUPPORT: the source is v4-mapped) but leaves the
# socket bound to a1 with its old peer; the supervisor accepts the device as
# the connect's scope, and send() (CONTINUE, connected-peer) leaves by a1 to
# the undeclared ha14x. Same five namespaces of review-net.sh
# (ha14*). Supervisor: --no-loopback --allow 198.51.100.7:9999
# --allow [fe80::1]:9999, uid 1000 (mode mdns: --allow [ff02::fb]:5353 instead,
# and the re-connect is to ff02::fb%a1).
#   ha14-reconnect.sh [SUPERVISOR]   (MODES=... picks modes: plain send write sendmsg)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
. tests/review/review-net.sh
mkdir -p /tmp/ha14 && chmod 777 /tmp/ha14
review_cc /tmp/ha14/rc tests/review/ha14-reconnect.c || exit 2
d=$(review_stage ha14-reconnect "${1:-build/egress-supervisor}" /tmp/ha14/rc)
review_net_up ha14
review_net_sinks ha14 "$d"
for mode in ${MODES:-plain send write sendmsg mdns}; do
	extra=(--allow "[fe80::1]:9999")
	[ "$mode" = mdns ] && extra=(--allow "[ff02::fb]:5353")
	review_net_run ha14 "$d" "$mode" -- "$d/sv" --allow 198.51.100.7:9999 "${extra[@]}" -- \
		"$d/agent" "$mode" 198.51.100.7:9999 a1
done
echo "--- sinks:"
sed 's/^/  /' "$d/sinks.log"
